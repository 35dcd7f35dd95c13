package space

import (
	"math/rand/v2"
	"slices"

	"github.com/isaacgo/isaac/ptx"
)

// Space lists the categorical values of every tuning parameter, for the
// sampler and the search. Sampled configurations still have to pass Legal.
type Space struct {
	MS, NS, ML, NL, U  []int
	KS, KL, KG, KC     []int
	VecA, VecB, Stages []int
	Math               []ptx.Math
}

// SpaceFor is the full space for an input class: the values of the paper's
// Figure 3 parameters plus vector widths, stages and every math valid for
// the class.
//
// Vector widths are limited to what the class's alignment allows, and
// cp.async stages to classes where 4-byte copies are possible: values Legal
// would reject for every other parameter choice are not offered.
func For(in ptx.InputClass) Space {
	vecs := func(align int) []int {
		var v []int
		for w := 1; w <= 8 && w <= align && w*in.AType.Size() <= 16; w *= 2 {
			v = append(v, w)
		}
		return v
	}
	stages := []int{1, 2, 3, 4, 6, 8}
	if min(in.AlignA, 16/in.AType.Size())*in.AType.Size() < 4 || min(in.AlignB, 16/in.AType.Size())*in.AType.Size() < 4 {
		stages = []int{1}
	}
	kg, kc := []int{1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512}, []int{1, 2, 4, 8}
	if in.Conv != ptx.NotConv {
		kc = []int{1} // a convolution's reduction splits across the grid only
	}
	return Space{
		MS: []int{1, 2, 4, 8}, NS: []int{1, 2, 4, 8},
		ML: []int{8, 16, 32, 64, 128, 256}, NL: []int{8, 16, 32, 64, 128, 256},
		U:  []int{4, 8, 16, 32, 64},
		KS: []int{1, 2, 4, 8}, KL: []int{1, 2, 4, 8},
		// Powers of two and the counts between them, so that tiles·KG can
		// come close to a whole number of waves.
		KG:     kg,
		KC:     kc,
		VecA:   vecs(in.AlignA),
		VecB:   vecs(in.AlignB),
		Stages: stages,
		Math:   ptx.MathsFor(in),
	}
}

// SweepSpaceFor is SpaceFor plus SIMT thread tiles of 16 rows or columns
// (16×8, 8×16, …, which Legal allows for SIMT math only): the space of
// bench_compare's sweep, which measures what the kernel family reaches.
// The predictor's pools and its training data keep to SpaceFor.
func ForSweep(in ptx.InputClass) Space {
	sp := For(in)
	sp.MS = append(append([]int(nil), sp.MS...), 16)
	sp.NS = append(append([]int(nil), sp.NS...), 16)
	return sp
}

func pick[T any](rng *rand.Rand, v []T) T { return v[rng.IntN(len(v))] }

// pickOr is pick, or def for an empty list.
func pickOr(rng *rand.Rand, v []int, def int) int {
	if len(v) == 0 {
		return def
	}
	return pick(rng, v)
}

// Random draws every parameter independently and uniformly.
func (s Space) Random(rng *rand.Rand) ptx.GemmConfig {
	return ptx.GemmConfig{
		MS: pick(rng, s.MS), NS: pick(rng, s.NS), ML: pick(rng, s.ML), NL: pick(rng, s.NL),
		U: pick(rng, s.U), KS: pick(rng, s.KS), KL: pick(rng, s.KL), KG: pick(rng, s.KG), KC: pickOr(rng, s.KC, 1),
		VecA: pick(rng, s.VecA), VecB: pick(rng, s.VecB), Stages: pick(rng, s.Stages),
		Math: pick(rng, s.Math),
	}
}

// RandomLegal draws until Legal accepts (at most tries draws).
func (s Space) RandomLegal(rng *rand.Rand, in ptx.InputClass, dev ptx.DeviceLimits, tries int) (ptx.GemmConfig, bool) {
	for i := 0; i < tries; i++ {
		c := s.Random(rng)
		if ptx.Legal(c, in, dev) == nil {
			return c, true
		}
	}
	return ptx.GemmConfig{}, false
}

// Neighbors are the configurations one step away from c in the space: one
// parameter moved to the next smaller or larger value of its list.
func Neighbors(c ptx.GemmConfig, sp Space) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	step := func(field *int, values []int) {
		orig := *field
		for i, v := range values {
			if v != orig {
				continue
			}
			for _, j := range []int{i - 1, i + 1} {
				if j >= 0 && j < len(values) {
					*field = values[j]
					out = append(out, c)
				}
			}
		}
		*field = orig
	}
	step(&c.MS, sp.MS)
	step(&c.NS, sp.NS)
	step(&c.ML, sp.ML)
	step(&c.NL, sp.NL)
	step(&c.U, sp.U)
	step(&c.KS, sp.KS)
	step(&c.KL, sp.KL)
	step(&c.KG, sp.KG)
	step(&c.KC, sp.KC)
	step(&c.VecA, sp.VecA)
	step(&c.VecB, sp.VecB)
	step(&c.Stages, sp.Stages)
	orig := c.Math
	for _, m := range sp.Math {
		if m != orig {
			c.Math = m
			out = append(out, c)
		}
	}
	return out
}

// WarpgroupSpace is the space of the wgmma kernels (sm_90a) for an input
// class: 16-byte vectors, k-steps of 16, warpgroup tiles of 64 or 128 rows
// by 8 to 256 columns, 3 to 6 stages. Its Math list is empty when no wgmma
// math serves the class or its alignment rules out 16-byte vectors. It is
// apart from SpaceFor because the predictor's features and weights know
// only SpaceFor's maths.
func ForWarpgroup(in ptx.InputClass) Space {
	sp := For(in)
	v := 16 / max(1, in.AType.Size())
	sp.MS, sp.NS = []int{1, 2}, []int{1, 2, 4, 8, 16, 32}
	sp.ML = []int{64, 128, 256}
	sp.U = []int{16, 32, 64}
	sp.KS, sp.KL = []int{1}, []int{1}
	sp.VecA, sp.VecB = []int{v}, []int{v}
	sp.Stages = []int{3, 4, 5, 6}
	sp.Math = nil
	if in.AlignA >= v && in.AlignB >= v {
		sp.Math = ptx.WarpgroupMathsFor(in)
	}
	return sp
}

// ForMMA is the class's space (For) restricted to its mma.sync maths (nil
// Math when it has none): what the sampler draws from beside the whole
// space so that the tensor cores' kernels are measured as often as the
// SIMT kernels whose legal configurations outnumber theirs.
func ForMMA(in ptx.InputClass) Space {
	sp := For(in)
	sp.Math = slices.DeleteFunc(sp.Math, func(m ptx.Math) bool { return !m.IsMMA() })
	return sp
}

// Contains reports whether every parameter of c is one of the space's
// values for it (KC 1 counts as in a space without cluster splits).
func (s Space) Contains(c ptx.GemmConfig) bool {
	in := func(v int, vals []int) bool { return slices.Contains(vals, v) }
	kc := c.KC
	if kc == 0 {
		kc = 1
	}
	return c.PP == 0 && c.MR == 0 && in(c.MS, s.MS) && in(c.NS, s.NS) && in(c.ML, s.ML) && in(c.NL, s.NL) && in(c.U, s.U) &&
		in(c.KS, s.KS) && in(c.KL, s.KL) && in(c.KG, s.KG) && (in(kc, s.KC) || kc == 1) &&
		in(c.VecA, s.VecA) && in(c.VecB, s.VecB) && in(c.Stages, s.Stages) && slices.Contains(s.Math, c.Math)
}
