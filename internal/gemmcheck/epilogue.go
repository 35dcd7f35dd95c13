package gemmcheck

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/isaacgo/isaac/request"
)

// EpilogueCase is a GEMM with cuBLASLt's epilogue: D = Act(alpha·op(A)·
// op(B) + beta·C + bias), bias one element per row (C's type), D apart
// from C (C's layout) where OutOfPlace.
type EpilogueCase struct {
	Case
	Bias       bool
	Act        request.Activation
	OutOfPlace bool
}

func (c EpilogueCase) String() string {
	return c.Case.String() + " bias=" + strconv.FormatBool(c.Bias) + " act=" + strconv.Itoa(int(c.Act)) +
		" outOfPlace=" + strconv.FormatBool(c.OutOfPlace)
}

// RandomEpilogueCase draws a case of type t (as RandomCase) with a random
// epilogue (GELU only where the compute type is f32, as ptx emits it).
func RandomEpilogueCase(rng *rand.Rand, t Type, maxWork int) EpilogueCase {
	c := EpilogueCase{Case: RandomCase(rng, t, maxWork), Bias: rng.IntN(3) != 0, OutOfPlace: rng.IntN(2) == 0}
	c.Act = request.Activation(rng.IntN(3))
	if c.Act == request.ActGELU && t.Compute() == request.Compute64F {
		c.Act = request.ActReLU
	}
	return c
}

// EpilogueData is an epilogue case's inputs and its reference: the GEMM's
// (Data), the bias, D's initial contents (out of place), and the exact
// value before the activation and the result after it.
type EpilogueData struct {
	*Data
	BiasV, D0 []float64
	Pre, Post []float64 // m×n, column-major
}

// NewEpilogueData draws the inputs of c and computes its reference.
func NewEpilogueData(c EpilogueCase) *EpilogueData {
	d := &EpilogueData{Data: NewData(c.Case)}
	rng := rand.New(rand.NewPCG(c.Seed, 13))
	d.BiasV = make([]float64, c.M)
	if c.Bias {
		d.BiasV = Eighths(rng, c.M)
	}
	if c.OutOfPlace {
		d.D0 = Eighths(rng, c.ElemsC())
	}
	d.Pre, d.Post = make([]float64, c.M*c.N), make([]float64, c.M*c.N)
	for j := range c.N {
		for i := range c.M {
			x := d.Ref[i+j*c.M] + d.BiasV[i]
			d.Pre[i+j*c.M], d.Post[i+j*c.M] = x, activate(c.Act, x)
			d.Ref[i+j*c.M] = x // the value the bound's output rounding is of
			d.Scale[i+j*c.M] += math.Abs(d.BiasV[i])
		}
	}
	return d
}

// activate is the activation on exact values (GELU's tanh form).
func activate(a request.Activation, x float64) float64 {
	switch a {
	case request.ActReLU:
		return math.Max(x, 0)
	case request.ActGELU:
		return x / 2 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	}
	return x
}

// Check compares the stored buffer the result is written to (D out of
// place, else C) with the reference: every element of the m×n result
// within its bound (the GEMM's, and for GELU, whose slope is below 1.13,
// 1.2 times it plus the activation's own f32 error), every other element
// untouched; out of place, C must be untouched whole (c0 its stored
// contents after the call).
func (d *EpilogueData) Check(c EpilogueCase, got, c0 []float64) Result {
	var r Result
	initial := d.C0
	if c.OutOfPlace {
		initial = d.D0
		for i, v := range c0 {
			if !(v == d.C0[i] || math.IsNaN(v) && math.IsNaN(d.C0[i])) {
				r.Bad++
				if r.FirstBad == "" {
					r.FirstBad = "wrote C out of place at element " + strconv.Itoa(i)
				}
			}
		}
	}
	res := checkStored(c.Case, got, initial, d.Post, func(e int) float64 {
		bound := d.Bound(c.Case, e)
		if c.Act == request.ActGELU {
			bound = 1.2*bound + 1e-6*(math.Abs(d.Pre[e])+1)
		}
		return bound
	})
	res.Bad += r.Bad
	if r.FirstBad != "" {
		res.FirstBad = r.FirstBad
	}
	return res
}
