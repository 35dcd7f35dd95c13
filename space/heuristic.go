package space

import "github.com/isaacgo/isaac/ptx"

// DefaultConfig picks a sensible legal configuration without a model:
//
//   - math: tensor cores for f16, bf16 and f64 (mma_f16acc for compute 16F),
//     tf32 mma for f32 only when the class allows it, FFMA otherwise;
//   - tiles: 128×128 blocks for large outputs, 64×64 for medium ones, and
//     small tiles (down to 16) along a skinny dimension;
//   - vectors: the widest load the alignment allows; cp.async with 3 stages
//     when both operands can use ≥4-byte copies, register prefetch otherwise;
//   - KG: split K across the grid while the grid is below one wave, each
//     split keeping at least 128 of K (so at most two waves), as the
//     sweeps' best configurations of deep, narrow inputs do (not for a
//     batched class, whose kernels take no split: its candidates would
//     all be illegal down to the small ones);
//   - f64 on sm_90: mma m16n8k8, 64×64 blocks of 2×2 warps, U = 32 (the
//     sweeps' best for large square FP64);
//   - large 16-bit outputs on sm_90: wgmma first (warpgroupCandidates).
//
// Every candidate is checked with Legal; the last resort is a small SIMT
// configuration that is legal for every valid class.
func Default(in ptx.InputClass, m, n, k int, dev ptx.DeviceLimits) ptx.GemmConfig {
	return DefaultBatch(in, m, n, k, 1, dev)
}

// DefaultBatch is Default for a strided batch of batch m×n×k matrices,
// whose grid holds every matrix's tiles: the tile and split rules count
// the batch's tiles, so a batch of small matrices keeps the tiles a single
// matrix of their total size would get rather than shrinking them to
// fill the SMs with one matrix's.
func DefaultBatch(in ptx.InputClass, m, n, k, batch int, dev ptx.DeviceLimits) ptx.GemmConfig {
	for _, c := range candidates(in, m, n, k, max(batch, 1), dev) {
		if ptx.Legal(c, in, dev) == nil {
			return c
		}
	}
	return fallbackConfig(in)
}

func simtMath(in ptx.InputClass) ptx.Math {
	switch in.Compute {
	case ptx.F64:
		return ptx.DFMA
	case ptx.F16:
		return ptx.HFMA
	}
	return ptx.FFMA
}

func preferredMath(in ptx.InputClass, dev ptx.DeviceLimits) ptx.Math {
	switch {
	case in.Compute == ptx.F64 && dev.SMMajor >= 9:
		return ptx.MMA_F64_K8
	case in.Compute == ptx.F64:
		return ptx.MMA_F64
	case in.Compute == ptx.F16:
		return ptx.MMA_F16_F16ACC
	case in.AType == ptx.F16:
		return ptx.MMA_F16
	case in.AType == ptx.BF16:
		return ptx.MMA_BF16
	case in.AllowTF32:
		return ptx.MMA_TF32
	}
	return ptx.FFMA
}

func fallbackConfig(in ptx.InputClass) ptx.GemmConfig {
	return ptx.GemmConfig{MS: 2, NS: 2, ML: 16, NL: 16, U: 8, KS: 1, KL: 1, KG: 1, KC: 1, VecA: 1, VecB: 1, Stages: 1, Math: simtMath(in)}
}

// tileFor is the block extent for a problem extent: 128 (large), 64, or the
// next power of two ≥ x, at least 16.
func tileFor(x, big int) int {
	if x >= 2*big {
		return big
	}
	t := 16
	for t < x && t < big {
		t *= 2
	}
	return min(t, big)
}

func widestVec(align, es, extent int) int {
	v := min(align, 16/es)
	for v > 1 && extent%v != 0 {
		v /= 2
	}
	return max(v, 1)
}

func candidates(in ptx.InputClass, m, n, k, batch int, dev ptx.DeviceLimits) []ptx.GemmConfig {
	out := warpgroupCandidates(in, m, n, k, batch, dev)
	for _, math := range []ptx.Math{preferredMath(in, dev), simtMath(in)} {
		big := 128
		if math.InputType() == ptx.F64 {
			big = 64
		}
		ml, nl := tileFor(m, big), tileFor(n, big)
		// Mid-size outputs with a shallow K: smaller tiles before any split,
		// until the grid holds half a wave (small tiles beat large ones
		// split in K there in the sweeps).
		for batch*ceilDiv(m, ml)*ceilDiv(n, nl)*2 < dev.SMCount && ml > 32 && nl > 32 && k <= 4*max(m, n) {
			ml, nl = ml/2, nl/2
		}
		for ; ml >= 16 && nl >= 16; ml, nl = max(16, ml/2), max(16, nl/2) {
			for _, c := range blockCandidates(in, ml, nl, math) {
				tiles := batch * ceilDiv(m, ml) * ceilDiv(n, nl)
				for !in.Batched && c.KG < 256 && tiles*c.KG < dev.SMCount && k/(c.KG*2) >= 128 {
					c.KG *= 2
				}
				out = append(out, c)
				if c.Stages == 3 {
					s := c
					s.Stages = 2
					out = append(out, s)
				}
			}
			if ml == 16 && nl == 16 {
				break
			}
		}
	}
	return out
}

// blockCandidates are the configurations tried for one ml×nl block, best
// first. mma: 4 warps when possible, 2×2 warps of (ML/2)×(NL/2), with at
// most 16 mma tiles (accumulator sets) per warp; for 16-bit inputs a 64×64
// warp tile (MS=4, NS=8: 32 mma tiles, 128 f32 accumulators) is tried first
// since it halves the shared-memory fragment traffic per mma, and Legal's
// register estimate rejects it where it does not fit (then the 16-tile
// variant, 8 warps of 64×32 for 128×128, is used). Not with an f32 C and
// f32 accumulators: ptxas 11.8 allocates 254 registers there (at the limit,
// a different JIT version may spill), against 220..236 for a 16-bit C and
// 136..160 for f16 accumulators.
func blockCandidates(in ptx.InputClass, ml, nl int, math ptx.Math) []ptx.GemmConfig {
	mmaM, mmaN, mmaK := math.Shape()
	bounds := []int{16}
	if math == ptx.MMA_F16_F16ACC || (math == ptx.MMA_F16 || math == ptx.MMA_BF16) && in.CType != ptx.F32 {
		bounds = []int{32, 16}
	}
	if !math.IsMMA() {
		bounds = []int{0}
	}
	var out []ptx.GemmConfig
	for _, bound := range bounds {
		c := ptx.GemmConfig{ML: ml, NL: nl, KS: 1, KL: 1, KG: 1, KC: 1, Math: math}
		if math.IsMMA() {
			wm, wn := max(ml/2, mmaM), max(nl/2, mmaN)
			c.MS, c.NS = max(wm/mmaM, 1), max(wn/mmaN, 1)
			if bound > 16 && c.MS*c.NS <= 16 {
				continue // same as the 16-tile candidate
			}
			for c.MS*c.NS > bound { // bound the accumulators
				if c.NS >= c.MS {
					c.NS /= 2
				} else {
					c.MS /= 2
				}
			}
			c.U = max(32, mmaK)
			if math == ptx.MMA_F64 {
				c.U = 16
			}
		} else {
			c.MS, c.NS = min(8, max(ml/16, 1)), min(8, max(nl/16, 1))
			c.U = 8
			if c.MS*c.NS <= 16 {
				c.U = 16
			}
		}
		es := in.AType.Size()
		// The tiles' contiguous extents: U where they run along k.
		lcA, lcB := ml, nl
		if in.TransA == ptx.T {
			lcA = c.U
		}
		if in.TransB == ptx.N {
			lcB = c.U
		}
		c.VecA, c.VecB = widestVec(in.AlignA, es, lcA), widestVec(in.AlignB, es, lcB)
		c.Stages = 1
		if c.VecA*es >= 4 && c.VecB*es >= 4 {
			c.Stages = 3
		}
		if math.IsMMA() && (c.VecA*es < 8 || c.VecB*es < 8) {
			// many narrow loads per thread: keep the k-slice short
			c.U = max(16, mmaK)
		}
		out = append(out, c)
	}
	return out
}

// warpgroupCandidates are the wgmma configurations tried first for large
// 16-bit (and f32 where tf32 is allowed) outputs on sm_90 (m and n ≥ 1024, 16-byte aligned operands): the
// largest of 128×256, 128×128 and 128×64 block tiles (two warpgroups of
// 64×NL) whose grid fills 90 % of the SMs (at most 128 wide when K < 64,
// where the kernel mostly writes C), k-slices of one 128-byte line (64
// 16-bit elements, 32 tf32) with 4 stages (6 for 128×64) or, for K < 64, of
// half a line with 3, and a grid split only while the
// grid is under half a wave: the shapes of the sweeps' best 16-bit
// configurations of large square inputs (128×256 with 4 stages from 2048,
// 128×64 with 6 at 1024).
func warpgroupCandidates(in ptx.InputClass, m, n, k, batch int, dev ptx.DeviceLimits) []ptx.GemmConfig {
	maths := ptx.WarpgroupMathsFor(in)
	if len(maths) == 0 || dev.SMMajor != 9 || dev.SMMinor != 0 || m < 1024 || n < 1024 {
		return nil
	}
	v := 16 / in.AType.Size()
	var out []ptx.GemmConfig
	for _, nl := range []int{256, 128, 64} {
		tiles := batch * ceilDiv(m, 128) * ceilDiv(n, nl)
		if nl > 64 && (10*tiles < 9*dev.SMCount || k < 64 && nl > 128) {
			continue // a wide tile leaves SMs idle; a shallow K writes C: more blocks
		}
		c := ptx.GemmConfig{MS: 1, NS: nl / 8, ML: 128, NL: nl, U: 8 * v, KS: 1, KL: 1, KG: 1, KC: 1, VecA: v, VecB: v, Stages: 4, Math: maths[0]}
		if nl == 64 {
			c.Stages = 6
		}
		if k < 64 {
			c.U, c.Stages = max(4*v, 16), 3
		}
		for !in.Batched && c.KG < 256 && 2*tiles*c.KG <= dev.SMCount && k/(c.KG*2) >= 128 {
			c.KG *= 2
		}
		out = append(out, c)
	}
	return out
}

// HeuristicCandidates are the legal configurations DefaultConfig considers
// for an input, in its order of preference (the first is DefaultConfig's
// choice): a searcher starts from them as well as from random samples.
func HeuristicCandidates(in ptx.InputClass, m, n, k int, dev ptx.DeviceLimits) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	for _, c := range candidates(in, m, n, k, 1, dev) {
		if ptx.Legal(c, in, dev) == nil {
			out = append(out, c)
		}
	}
	return out
}
