package space

import "github.com/isaacgo/isaac/ptx"

// BatchStaged is c as the server runs it for a batch of batch m×n×k
// matrices of batched class in on dev: a wgmma configuration staged by the
// bulk tensor copy engine (its maps' third dimension walks the batch) at
// its own k-slice, or else at the 128-byte slice the engine's swizzled
// lines take; and persistent, with a producer warp and the deepest
// pipeline that fits, when it is a 16-bit configuration of 128-row tiles
// whose tiles over the whole batch fill the SMs at least persistentWaves
// times (at half the width where the producer warp's registers do not
// fit beside the tile's accumulators): its producer fills the next tile's stages while the warpgroups
// write the last one, which is most of a short reduction's time. c itself
// where no twin is legal.
func BatchStaged(c ptx.GemmConfig, in ptx.InputClass, m, n, batch int, dev ptx.DeviceLimits) ptx.GemmConfig {
	if !in.Batched || !c.Math.IsWGMMA() || c.TMA != 0 {
		return c
	}
	t := c
	t.TMA = 1
	if ptx.Legal(t, in, dev) != nil {
		if t.U = 64 * 2 / in.AType.Size(); ptx.Legal(t, in, dev) != nil {
			return c
		}
	}
	if t.ML != 128 || in.AType.Size() != 2 {
		return t
	}
	// A tile whose accumulators leave the producer warp no registers
	// (128×256 in one warpgroup) runs as two of half the width.
	for _, p := range []ptx.GemmConfig{t, halfWidth(t)} {
		if ceilDiv(m, p.ML)*ceilDiv(n, p.NL)*batch < persistentWaves*dev.SMCount {
			continue
		}
		p.TMA, p.PS = 2, 1
		for _, st := range []int{8, 6, 5, 4} { // the deepest that fits
			if p.Stages = st; ptx.Legal(p, in, dev) == nil {
				return p
			}
		}
	}
	return t
}

// halfWidth is c with half the block's columns (and its warps' share).
func halfWidth(c ptx.GemmConfig) ptx.GemmConfig {
	c.NL, c.NS = c.NL/2, max(c.NS/2, 1)
	return c
}
