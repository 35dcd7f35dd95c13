package convcheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/request"
)

// The reference of a 1×1 convolution with stride 1 and no padding is the
// GEMM y[n,k,p,q] = Σc w[k,c]·x[n,c,p,q]; a flipped filter's is the
// cross-correlation with the filter turned by hand; every case's bound
// holds the reference's own rounding.
func TestReference(t *testing.T) {
	c := Case{Type: request.ConvTypes[0], N: 2, C: 5, H: 3, W: 4, K: 3, R: 1, S: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: NHWC, Y: NCHW, Alpha: 2, Beta: 0, Seed: 3}
	d := NewData(c)
	xs, _, _ := c.XStrides()
	for n := 0; n < c.N; n++ {
		for k := 0; k < c.K; k++ {
			for p := 0; p < c.H; p++ {
				for q := 0; q < c.W; q++ {
					var want float64
					for ch := 0; ch < c.C; ch++ {
						want += d.Wt[c.WIndex(k, ch, 0, 0)] * d.X[n*xs[0]+ch*xs[1]+p*xs[2]+q*xs[3]]
					}
					if got := d.Ref[((n*c.K+k)*c.H+p)*c.W+q]; got != 2*want {
						t.Fatalf("y[%d,%d,%d,%d] = %v, want %v", n, k, p, q, got, 2*want)
					}
				}
			}
		}
	}
	f := Case{Type: request.ConvTypes[0], N: 1, C: 2, H: 5, W: 6, K: 2, R: 3, S: 2, PadH: 1, PadW: 1, StrH: 1, StrW: 2, DilH: 2, DilW: 1, Flip: true, Alpha: 1, Beta: 0, Seed: 4}
	cc := f
	cc.Flip = false
	df, dc := NewData(f), NewData(cc)
	// Turn the cross-correlation's filter by hand: its reference becomes the flipped one's.
	for k := 0; k < f.K; k++ {
		for ch := 0; ch < f.C; ch++ {
			for r := 0; r < f.R; r++ {
				for s := 0; s < f.S; s++ {
					dc.Wt[cc.WIndex(k, ch, r, s)] = df.Wt[f.WIndex(k, ch, f.R-1-r, f.S-1-s)]
				}
			}
		}
	}
	turned := NewDataFrom(cc, dc.X, dc.Wt, dc.Y0)
	for i := range df.Ref {
		if df.Ref[i] != turned.Ref[i] {
			t.Fatalf("flipped y[%d] = %v, the turned filter's %v", i, df.Ref[i], turned.Ref[i])
		}
	}
	// Grouped: a 1×1 convolution of 2 groups of 3 channels and 2 filters
	// each reduces over its group's channels only.
	g := Case{Type: request.ConvTypes[1], N: 2, C: 6, H: 2, W: 3, K: 4, Groups: 2, R: 1, S: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: Sliced, Y: NHWC, FilterNHWC: true, Alpha: 1, Seed: 5}
	dg := NewData(g)
	gxs, gxo, _ := g.XStrides()
	if len(dg.Wt) != g.K*3 {
		t.Fatalf("grouped filter of %d elements, want %d", len(dg.Wt), g.K*3)
	}
	for n := 0; n < g.N; n++ {
		for k := 0; k < g.K; k++ {
			for p := 0; p < g.H; p++ {
				for q := 0; q < g.W; q++ {
					var want float64
					for ch := 0; ch < 3; ch++ {
						want += dg.Wt[g.WIndex(k, ch, 0, 0)] * dg.X[gxo+n*gxs[0]+(k/2*3+ch)*gxs[1]+p*gxs[2]+q*gxs[3]]
					}
					if got := dg.Ref[((n*g.K+k)*g.H+p)*g.W+q]; got != want {
						t.Fatalf("grouped y[%d,%d,%d,%d] = %v, want %v", n, k, p, q, got, want)
					}
				}
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 50; i++ {
		c := RandomCase(rng, request.ConvTypes[rng.IntN(len(request.ConvTypes))], 200_000)
		d := NewData(c)
		ys, yo, yn := c.YStrides()
		got := append([]float64(nil), d.Y0...)
		P, Q := c.P(), c.Q()
		for j, v := range d.Ref {
			q, p, k, n := j%Q, j/Q%P, j/(P*Q)%c.K, j/(P*Q*c.K)
			got[yo+n*ys[0]+k*ys[1]+p*ys[2]+q*ys[3]] = v
		}
		if r := d.Check(c, got); r.Bad != 0 || len(got) != yn {
			t.Fatalf("%v: the reference fails its own check: %s", c, r.FirstBad)
		}
		got[yo] += math.Max(1, math.Abs(got[yo])) // outside any bound
		if r := d.Check(c, got); r.Bad != 1 {
			t.Fatalf("%v: a wrong element passes", c)
		}
	}
}
