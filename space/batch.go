package space

import "github.com/isaacgo/isaac/ptx"

// BatchStaged is c as the server runs it for a batch of batch m×n×k
// matrices of batched class in on dev: a wgmma configuration staged by the
// bulk tensor copy engine (its maps' third dimension walks the batch) at
// its own k-slice, or else at the 128-byte slice the engine's swizzled
// lines take; and persistent, with a producer warp and the deepest
// pipeline that fits, for a 16-bit configuration of 128-row tiles whose
// tiles over the whole batch fill the SMs at least persistentWaves times
// and whose reduction is long (at least persistentSlices k-slices: the
// producer runs far ahead within a tile and into the next) or, for a
// tile whose accumulators leave a producer warp no registers (128×256 in
// one warpgroup, run persistent at half the width), at least two slices.
// On the attention products of gputest/results/h100/batched/call6 a
// persistent grid lost to the tensor copies alone on one-slice reductions
// and on two-slice ones of 128×128 tiles in two warpgroups. c itself
// where no twin is legal.
func BatchStaged(c ptx.GemmConfig, in ptx.InputClass, m, n, k, batch int, dev ptx.DeviceLimits) ptx.GemmConfig {
	if !in.Batched || !c.Math.IsWGMMA() || c.TMA != 0 {
		return c
	}
	t := c
	t.TMA = 1
	if ptx.Legal(t, in, dev) != nil {
		if t.U = 128 / in.AType.Size(); ptx.Legal(t, in, dev) != nil { // a 128-byte line of k
			return c
		}
	}
	if t.ML != 128 || in.AType.Size() != 2 || k < 2*t.U {
		return t
	}
	persistent := func(p ptx.GemmConfig) (ptx.GemmConfig, bool) {
		p.TMA, p.PS = 2, 1
		for _, st := range []int{8, 6, 5, 4} { // the deepest that fits
			if p.Stages = st; ptx.Legal(p, in, dev) == nil {
				return p, true
			}
		}
		return p, false
	}
	fills := func(p ptx.GemmConfig) bool {
		return ceilDiv(m, p.ML)*ceilDiv(n, p.NL)*batch >= persistentWaves*dev.SMCount
	}
	if p, ok := persistent(t); ok {
		if fills(p) && k >= persistentSlices*t.U {
			return p
		}
		return t
	}
	if p, ok := persistent(halfWidth(t)); ok && fills(p) {
		return p
	}
	return t
}

// persistentSlices is the fewest k-slices of a batch's reduction for which
// a persistent grid is taken at the tile the model chose.
const persistentSlices = 8

// halfWidth is c with half the block's columns (and its warps' share).
func halfWidth(c ptx.GemmConfig) ptx.GemmConfig {
	c.NL, c.NS = c.NL/2, max(c.NS/2, 1)
	return c
}
