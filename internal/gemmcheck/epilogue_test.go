package gemmcheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/request"
)

// The epilogue's reference: the activations at known points, the bias in
// every column of its row, and a Check that accepts the exact result and
// finds a wrong element, a write outside the result and, out of place, a
// write to C.
func TestEpilogueData(t *testing.T) {
	for _, p := range []struct {
		a       request.Activation
		x, want float64
	}{
		{request.ActReLU, -2, 0}, {request.ActReLU, 3, 3}, {request.ActGELU, 0, 0},
		{request.ActGELU, 1, 0.8411919906082768}, {request.ActGELU, -1, -0.15880800939172324}, {request.ActNone, -5, -5},
	} {
		if got := activate(p.a, p.x); math.Abs(got-p.want) > 1e-12 {
			t.Errorf("activation %d of %g = %g, want %g", p.a, p.x, got, p.want)
		}
	}
	rng := rand.New(rand.NewPCG(4, 4))
	checked := 0
	for i := 0; checked < 20 && i < 500; i++ {
		c := RandomEpilogueCase(rng, Types[i%len(Types)], 50_000)
		if !c.Bias || c.M < 2 || c.N < 2 || c.PadC == 0 {
			continue
		}
		d := NewEpilogueData(c)
		got := append([]float64(nil), d.C0...)
		if c.OutOfPlace {
			got = append([]float64(nil), d.D0...)
		}
		for j := range c.N {
			for r := range c.M {
				got[c.OffC+r+j*c.LDC()] = d.Post[r+j*c.M]
			}
		}
		if r := d.Check(c, got, d.C0); r.Bad != 0 {
			t.Fatalf("%v: the exact result: %s", c, r.FirstBad)
		}
		pre := d.Pre[1+c.M] - d.BiasV[1] // row 1, column 1 without its bias
		if c.Act == request.ActNone && pre+d.BiasV[1] != d.Post[1+c.M] || c.Act == request.ActReLU && math.Max(pre+d.BiasV[1], 0) != d.Post[1+c.M] {
			t.Errorf("%v: the bias of row 1 is not in column 1", c)
		}
		out := c.OffC + c.M // padding of column 0
		saved := got[out]
		got[out] = 1e9
		if r := d.Check(c, got, d.C0); r.Bad != 1 {
			t.Errorf("%v: a write outside the result: %d bad", c, r.Bad)
		}
		got[out] = saved
		got[c.OffC] = math.NaN()
		if r := d.Check(c, got, d.C0); r.Bad != 1 {
			t.Errorf("%v: a wrong element: %d bad", c, r.Bad)
		}
		if c.OutOfPlace {
			c0 := append([]float64(nil), d.C0...)
			c0[len(c0)-1] = 1e9
			got[c.OffC] = d.Post[0]
			if r := d.Check(c, got, c0); r.Bad != 1 {
				t.Errorf("%v: C written out of place: %d bad", c, r.Bad)
			}
		}
		checked++
	}
	if checked < 20 {
		t.Errorf("%d cases checked", checked)
	}
}
