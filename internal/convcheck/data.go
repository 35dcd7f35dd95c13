package convcheck

import (
	"math"
	"math/rand/v2"
	"runtime"
	"strconv"
	"sync"

	"github.com/isaacgo/isaac/internal/gemmcheck"
)

// Data holds a case's host tensors (float64 values exact in every type) and
// the exact reference.
type Data struct {
	X, Wt, Y0 []float64 // stored buffers; Y0 is NaN where beta == 0
	Ref       []float64 // n×k×p×q, NCHW order
	Scale     []float64 // |α|·Σ|x||w| + |β|·|y0| per element
}

// NewData draws the case's tensors and computes the reference.
func NewData(c Case) *Data {
	d := Fill(c)
	if c.Beta == 0 {
		for i := range d.Y0 {
			d.Y0[i] = math.NaN()
		}
	}
	return NewDataFrom(c, d.X, d.Wt, d.Y0)
}

// NewDataFrom is the reference of the case on the given tensors.
func NewDataFrom(c Case, x, wt, y0 []float64) *Data {
	xs, xo, _ := c.XStrides()
	ys, yo, _ := c.YStrides()
	d := &Data{X: x, Wt: wt, Y0: y0}
	P, Q := c.P(), c.Q()
	d.Ref = make([]float64, c.N*c.K*P*Q)
	d.Scale = make([]float64, len(d.Ref))
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for wk := 0; wk < workers; wk++ {
		wg.Add(1)
		go func(wk int) {
			defer wg.Done()
			for i := wk; i < len(d.Ref); i += workers {
				q, p, k, n := i%Q, i/Q%P, i/(P*Q)%c.K, i/(P*Q*c.K)
				cg := c.C / c.G()
				c0 := k / (c.K / c.G()) * cg // k's group's first channel
				var sum, abs float64
				for ch := 0; ch < cg; ch++ {
					for r := 0; r < c.R; r++ {
						h := p*c.StrH - c.PadH + r*c.DilH
						if h < 0 || h >= c.H {
							continue
						}
						for s := 0; s < c.S; s++ {
							w := q*c.StrW - c.PadW + s*c.DilW
							if w < 0 || w >= c.W {
								continue
							}
							fr, fs := r, s
							if c.Flip {
								fr, fs = c.R-1-r, c.S-1-s
							}
							v := d.X[xo+n*xs[0]+(c0+ch)*xs[1]+h*xs[2]+w*xs[3]] * d.Wt[c.WIndex(k, ch, fr, fs)]
							sum += v
							abs += math.Abs(v)
						}
					}
				}
				ref, scale := c.Alpha*sum, math.Abs(c.Alpha)*abs
				if c.Beta != 0 {
					y0 := d.Y0[yo+n*ys[0]+k*ys[1]+p*ys[2]+q*ys[3]]
					ref += c.Beta * y0
					scale += math.Abs(c.Beta * y0)
				}
				d.Ref[i], d.Scale[i] = ref, scale
			}
		}(wk)
	}
	wg.Wait()
	return d
}

// Bound is element i's error bound: the reduction's C/G·R·S+2 roundings
// in the compute type, and the output's rounding.
func (d *Data) Bound(c Case, i int) float64 {
	uAcc, uOut := c.Type.Compute.UnitRoundoff(), c.Type.Data.UnitRoundoff()
	return 2*(float64(c.C/c.G()*c.R*c.S+2)*uAcc*d.Scale[i]+uOut*math.Abs(d.Ref[i])) + 1e-300
}

// Result summarizes a computed y against the reference.
type Result struct {
	MaxRelBound float64 // max |y - ref| / bound
	Bad         int     // elements outside the bound, or changed outside y's view
	FirstBad    string
}

// Check compares y's stored buffer with the reference: every element of
// the view within its bound, every other element untouched.
func (d *Data) Check(c Case, got []float64) Result {
	var r Result
	ys, yo, _ := c.YStrides()
	P, Q := c.P(), c.Q()
	inView := make([]int, len(got)) // 1 + the reference index, 0 outside the view
	for i := range d.Ref {
		q, p, k, n := i%Q, i/Q%P, i/(P*Q)%c.K, i/(P*Q*c.K)
		inView[yo+n*ys[0]+k*ys[1]+p*ys[2]+q*ys[3]] = i + 1
	}
	for idx, v := range got {
		i := inView[idx] - 1
		if i < 0 {
			if !(v == d.Y0[idx] || math.IsNaN(v) && math.IsNaN(d.Y0[idx])) {
				r.Bad++
				if r.FirstBad == "" {
					r.FirstBad = "wrote outside y's view at element " + strconv.Itoa(idx)
				}
			}
			continue
		}
		err, bound := math.Abs(v-d.Ref[i]), d.Bound(c, i)
		if math.IsNaN(v) || math.IsInf(v, 0) {
			err = math.Inf(1)
		}
		r.MaxRelBound = math.Max(r.MaxRelBound, err/bound)
		if err > bound {
			r.Bad++
			if r.FirstBad == "" {
				r.FirstBad = "y[" + strconv.Itoa(i) + "] = " + strconv.FormatFloat(v, 'g', 8, 64) + ", want " +
					strconv.FormatFloat(d.Ref[i], 'g', 8, 64) + " ± " + strconv.FormatFloat(bound, 'g', 3, 64)
			}
		}
	}
	return r
}

// Fill draws a case's tensors without the reference (for benchmarks).
func Fill(c Case) *Data {
	rng := rand.New(rand.NewPCG(c.Seed, 11))
	_, _, xn := c.XStrides()
	_, _, yn := c.YStrides()
	return &Data{X: gemmcheck.Eighths(rng, xn), Wt: gemmcheck.Eighths(rng, c.WElems()), Y0: gemmcheck.Eighths(rng, yn)}
}
