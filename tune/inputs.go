package tune

import (
	"math"
	"math/rand/v2"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/request"
)

// Batch is a group of inputs that share one input class (type, layout and
// leading-dimension alignment), so that one set of compiled kernels serves
// all of them.
type Batch struct {
	Type           gemmcheck.Type
	TransA, TransB request.Op
	Align          int // alignment of every leading dimension, in elements
	Shapes         [][3]int
}

// Distribution is where the sampler draws inputs from: m, n and k
// log-uniform over 1…MaxDim, a share of k log-uniform up to MaxDeepK, a
// share of shapes from the neighbourhoods of the benchmark suites (each
// dimension scaled by up to ±35 %, never a suite's exact shape), every
// served type and layout, leading dimensions mostly fully aligned.
// MaxFlops bounds 2mnk per type (so that no single kernel runs for long)
// and MaxBytes each operand.
type Distribution struct {
	MaxDim, MaxDeepK int
	DeepShare        float64 // share of k drawn up to MaxDeepK
	SuiteShare       float64 // share of shapes near a suite's
	RoundShare       float64 // share of dimensions rounded to a multiple of 8
	Pow2Share        float64 // share of dimensions then rounded to a multiple of 2^j, j uniform in 5…10
	MaxFlops         func(gemmcheck.Type) float64
	MaxBytes         int
	// Types, when set, are the only types drawn (default: every served
	// type); MisalignedShare is the share of batches whose leading
	// dimensions get a random alignment below the widest.
	Types           []gemmcheck.Type
	MisalignedShare float64
}

// DefaultDistribution is the distribution with bounds that keep
// every kernel under about a millisecond at the H100's peak.
func DefaultDistribution() Distribution {
	return Distribution{
		MaxDim: 16384, MaxDeepK: 100000, DeepShare: 0.1, SuiteShare: 0.2, RoundShare: 0.5,
		MaxFlops: func(t gemmcheck.Type) float64 {
			switch {
			case t.AB.Size() == 2:
				return 6e11
			case t.TF32:
				return 3e11
			}
			return 8e10
		},
		MaxBytes:        512 << 20,
		MisalignedShare: 0.3,
	}
}

func logUniform(rng *rand.Rand, lo, hi int) int {
	v := math.Exp(math.Log(float64(lo)) + rng.Float64()*(math.Log(float64(hi)+1)-math.Log(float64(lo))))
	return max(lo, min(hi, int(v)))
}

// suiteShapes are the exact shapes the tuner never measures.
var suiteShapes = func() map[[3]int]bool {
	m := map[[3]int]bool{}
	for _, s := range suites.Table4() {
		m[[3]int{s.M, s.N, s.K}] = true
	}
	return m
}()

// IsSuiteShape reports whether m×n×k is one of the benchmark suites' inputs.
func IsSuiteShape(m, n, k int) bool { return suiteShapes[[3]int{m, n, k}] }

// maxAlign is the widest alignment (elements) a type's vectors use.
func maxAlign(t request.DataType) int { return min(8, 16/t.Size()) }

// Batch draws a batch of up to shapes inputs of one class.
func (d Distribution) Batch(rng *rand.Rand, shapes int) Batch {
	types := gemmcheck.Types
	if len(d.Types) > 0 {
		types = d.Types
	}
	t := types[rng.IntN(len(types))]
	ops := []request.Op{request.OpN, request.OpT}
	return d.BatchOf(rng, t, ops[rng.IntN(2)], ops[rng.IntN(2)], shapes)
}

// BatchOf draws a batch of a given type and layout.
func (d Distribution) BatchOf(rng *rand.Rand, t gemmcheck.Type, ta, tb request.Op, shapes int) Batch {
	b := Batch{Type: t, TransA: ta, TransB: tb}
	b.Align = maxAlign(t.AB)
	if rng.Float64() < d.MisalignedShare {
		b.Align = 1 << rng.IntN(4) // 1, 2, 4 or 8, at most the widest
		b.Align = min(b.Align, maxAlign(t.AB))
	}
	for len(b.Shapes) < shapes {
		if s, ok := d.shape(rng, t); ok {
			b.Shapes = append(b.Shapes, s)
		}
	}
	return b
}

func (d Distribution) shape(rng *rand.Rand, t gemmcheck.Type) ([3]int, bool) {
	var s [3]int
	if rng.Float64() < d.SuiteShare {
		all := suites.Table4()
		base := all[rng.IntN(len(all))]
		for i, v := range []int{base.M, base.N, base.K} {
			s[i] = max(1, int(float64(v)*math.Exp(0.35*(2*rng.Float64()-1))))
		}
	} else {
		s = [3]int{logUniform(rng, 1, d.MaxDim), logUniform(rng, 1, d.MaxDim), logUniform(rng, 1, d.MaxDim)}
		if rng.Float64() < d.DeepShare {
			s[2] = logUniform(rng, 1024, d.MaxDeepK)
		}
		for i := range s {
			if s[i] >= 16 && rng.Float64() < d.RoundShare {
				s[i] = s[i] / 8 * 8
			}
		}
	}
	for i := range s {
		if rng.Float64() < d.Pow2Share {
			p := 1 << (5 + rng.IntN(6))
			s[i] = max(p, (s[i]+p/2)/p*p)
		}
	}
	m, n, k := s[0], s[1], s[2]
	es := t.AB.Size()
	if IsSuiteShape(m, n, k) || 2*float64(m)*float64(n)*float64(k) > d.MaxFlops(t) ||
		m*k*es > d.MaxBytes || k*n*es > d.MaxBytes || m*n*t.C.Size() > d.MaxBytes {
		return s, false
	}
	return s, true
}

// LeadingDim is the leading dimension for rows rows with alignment exactly
// align elements (of at most widest): the smallest multiple of align, moved
// one align further when it would also be a multiple of 2·align.
func LeadingDim(rows, align, widest int) int {
	ld := (rows + align - 1) / align * align
	if align < widest && ld/align%2 == 0 {
		ld += align
	}
	return ld
}

// Case is the batch's input i as a gemmcheck case (alpha 1, beta 0), with
// the leading dimensions of the batch's alignment.
func (b Batch) Case(i int) gemmcheck.Case {
	s := b.Shapes[i]
	c := gemmcheck.Case{Type: b.Type, TransA: b.TransA, TransB: b.TransB, M: s[0], N: s[1], K: s[2], Alpha: 1, Beta: 0}
	rowsA, rowsB := c.M, c.K
	if b.TransA.Transposed() {
		rowsA = c.K
	}
	if b.TransB.Transposed() {
		rowsB = c.N
	}
	wa, wc := maxAlign(b.Type.AB), maxAlign(b.Type.C)
	c.PadA = LeadingDim(rowsA, b.Align, wa) - rowsA
	c.PadB = LeadingDim(rowsB, b.Align, wa) - rowsB
	c.PadC = LeadingDim(c.M, min(b.Align, wc), wc) - c.M
	return c
}
