package gemmcheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/request"
)

func TestHalfRoundTrip(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		v := request.HalfValue(uint16(h))
		if math.IsNaN(v) {
			continue
		}
		if got := HalfBits(v); got != uint16(h) && !(v == 0 && got&0x7fff == 0) {
			t.Fatalf("HalfBits(HalfValue(%#04x) = %v) = %#04x", h, v, got)
		}
	}
	if HalfBits(1+0x1p-11) != 0x3c00 || HalfBits(1+3*0x1p-11) != 0x3c02 {
		t.Error("ties do not round to even")
	}
	if BF16Value(BF16Bits(-0.375)) != -0.375 {
		t.Error("bf16 round trip")
	}
}

func TestEncodeDecode(t *testing.T) {
	vals := Eighths(rand.New(rand.NewPCG(1, 1)), 100)
	for _, ty := range []request.DataType{request.R16F, request.R16BF, request.R32F, request.R64F} {
		got := Decode(ty, Encode(ty, vals))
		for i := range vals {
			if got[i] != vals[i] {
				t.Fatalf("%v: %v became %v: eighths must be exact", ty, vals[i], got[i])
			}
		}
	}
}

// TestCheck: the checker accepts the exact result and catches a wrong
// element, a NaN and a write outside C's m×n.
func TestCheck(t *testing.T) {
	c := Case{Type: Types[0], TransA: request.OpT, M: 5, N: 4, K: 7, PadC: 2, OffC: 1, Alpha: 1.5, Beta: 0.5, Seed: 9}
	d := NewData(c)
	// Compute the result a second, independent way.
	stored := append([]float64(nil), d.C0...)
	for j := 0; j < c.N; j++ {
		for i := 0; i < c.M; i++ {
			var s float64
			for l := 0; l < c.K; l++ {
				s += d.A[l+i*c.LDA()] * d.B[l+j*c.LDB()]
			}
			stored[c.OffC+i+j*c.LDC()] = 1.5*s + 0.5*d.C0[c.OffC+i+j*c.LDC()]
		}
	}
	if r := d.Check(c, stored); r.Bad != 0 {
		t.Fatalf("exact result rejected: %s", r.FirstBad)
	}
	for _, corrupt := range []struct {
		name string
		idx  int
		v    float64
	}{
		{"wrong element", c.OffC + 2 + 1*c.LDC(), 1e3},
		{"NaN", c.OffC + 4 + 3*c.LDC(), math.NaN()},
		{"write in the padding", c.OffC + c.M + 1*c.LDC(), 42},
		{"write before the offset", 0, 42},
	} {
		bad := append([]float64(nil), stored...)
		bad[corrupt.idx] = corrupt.v
		if r := d.Check(c, bad); r.Bad == 0 {
			t.Errorf("%s not caught", corrupt.name)
		}
	}
}

func TestRandomCaseBounds(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	deep := false
	for i := 0; i < 2000; i++ {
		c := RandomCase(rng, Types[i%len(Types)], 40_000_000)
		if c.M < 1 || c.N < 1 || c.K < 1 || c.M*c.N*c.K > 40_000_000 || c.M > 5000 || c.N > 5000 || c.K > 100000 {
			t.Fatalf("case out of range: %v", c)
		}
		deep = deep || c.K >= 50000
	}
	if !deep {
		t.Error("no deep reduction (k ≥ 50,000) in 2000 cases")
	}
}
