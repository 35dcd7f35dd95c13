package gemmcheck

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"
)

// Data holds a case's host inputs (as float64 values, exact in every type)
// and the exact reference.
type Data struct {
	A, B, C0 []float64 // stored layouts, offsets included; C0 is NaN where beta == 0
	Ref      []float64 // m×n, column-major, ldc = m
	Scale    []float64 // S = |α|·Σ|a||b| + |β|·|c0| per element
}

// Eighths draws n multiples of 1/8 in [-1, 1]: exact in every served
// type, and so are their products.
func Eighths(rng *rand.Rand, n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(rng.IntN(17)-8) / 8
	}
	return v
}

// NewData draws the inputs of c and computes the reference (in parallel).
func NewData(c Case) *Data {
	rng := rand.New(rand.NewPCG(c.Seed, 7))
	d := &Data{A: Eighths(rng, c.ElemsA()), B: Eighths(rng, c.ElemsB()), C0: Eighths(rng, c.ElemsC())}
	if c.Beta == 0 {
		for i := range d.C0 {
			d.C0[i] = math.NaN() // beta == 0: C must not be read
		}
	}
	d.reference(c)
	return d
}

// Recompute computes d's reference again after its inputs were changed in
// place (a test's structured inputs: one k-slice of A, say).
func (d *Data) Recompute(c Case) { d.reference(c) }

// reference computes d's exact reference and its scale from its inputs.
func (d *Data) reference(c Case) {
	d.Ref = make([]float64, c.M*c.N)
	d.Scale = make([]float64, c.M*c.N)
	lda, ldb, ldc := c.LDA(), c.LDB(), c.LDC()
	a := func(i, l int) float64 {
		if c.TransA.Transposed() {
			return d.A[c.OffA+l+i*lda]
		}
		return d.A[c.OffA+i+l*lda]
	}
	b := func(l, j int) float64 {
		if c.TransB.Transposed() {
			return d.B[c.OffB+j+l*ldb]
		}
		return d.B[c.OffB+l+j*ldb]
	}
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for j := w; j < c.N; j += workers {
				for i := 0; i < c.M; i++ {
					var sum, abs float64
					for l := 0; l < c.K; l++ {
						p := a(i, l) * b(l, j)
						sum += p
						abs += math.Abs(p)
					}
					r := c.Alpha * sum
					s := math.Abs(c.Alpha) * abs
					if c.Beta != 0 {
						c0 := d.C0[c.OffC+i+j*ldc]
						r += c.Beta * c0
						s += math.Abs(c.Beta * c0)
					}
					d.Ref[i+j*c.M] = r
					d.Scale[i+j*c.M] = s
				}
			}
		}(w)
	}
	wg.Wait()
}

// Bound is the documented error bound of element i (see the package doc).
func (d *Data) Bound(c Case, i int) float64 {
	uAcc, uOut := c.Type.Acc.UnitRoundoff(), c.Type.C.UnitRoundoff()
	return 2*(float64(c.K+2)*uAcc*d.Scale[i]+uOut*math.Abs(d.Ref[i])) + 1e-300
}

// Result summarizes a computed C against the reference.
type Result struct {
	MaxErr      float64 // max |c - ref|
	MaxRelBound float64 // max |c - ref| / bound (≤ 1 passes)
	Bad         int     // elements outside the bound, NaN, or changed outside m×n
	FirstBad    string
}

// Check compares the stored C (offsets and padding included) with the
// reference: every element of the m×n result within its bound, and no
// element outside it changed.
func (d *Data) Check(c Case, got []float64) Result {
	return checkStored(c, got, d.C0, d.Ref, func(e int) float64 { return d.Bound(c, e) })
}

// checkStored compares a stored result buffer (offsets and padding
// included) with want (m×n, column-major): every element of the m×n
// result within bound(e) of want[e], and every other element as it was
// in initial.
func checkStored(c Case, got, initial, want []float64, bound func(e int) float64) Result {
	var r Result
	ldc := c.LDC()
	for idx, v := range got {
		p := idx - c.OffC
		i, j := p%ldc, p/ldc
		if p < 0 || i >= c.M || j >= c.N {
			// outside the result: must be untouched (NaN stays NaN)
			if !(v == initial[idx] || math.IsNaN(v) && math.IsNaN(initial[idx])) {
				r.Bad++
				if r.FirstBad == "" {
					r.FirstBad = "wrote outside the m×n result at element " + strconv.Itoa(idx)
				}
			}
			continue
		}
		ref := want[i+j*c.M]
		err := math.Abs(v - ref)
		bound := bound(i + j*c.M)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			err = math.Inf(1)
		}
		r.MaxErr = math.Max(r.MaxErr, err)
		r.MaxRelBound = math.Max(r.MaxRelBound, err/bound)
		if err > bound {
			r.Bad++
			if r.FirstBad == "" {
				r.FirstBad = "C(" + strconv.Itoa(i) + "," + strconv.Itoa(j) + ") = " + fmtG(v) + ", want " + fmtG(ref) + " ± " + fmtG(bound)
			}
		}
	}
	return r
}

func fmtG(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }
