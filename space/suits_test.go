package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

func TestSuits(t *testing.T) {
	c := ptx.GemmConfig{ML: 128, NL: 16, U: 16, KG: 4}
	if !Suits(c, 2560, 16, 2560) {
		t.Error("a 128x16 tile does not fit 2560x16")
	}
	c.NL = 128
	if Suits(c, 2560, 16, 2560) {
		t.Error("a 128-wide tile fits n = 16")
	}
	c.NL, c.KG = 16, 64
	if Suits(c, 2560, 16, 512) {
		t.Error("64 grid splits of k = 512 with u = 16 fit")
	}
}

// A batch's tile lies within one matrix rounded up to powers of two (16
// at least): 128×256 does not on 128×128 matrices, 128×128 does, and 16
// rows are always allowed.
func TestWithinMatrix(t *testing.T) {
	for _, tc := range []struct {
		ml, nl, m, n int
		want         bool
	}{
		{128, 256, 128, 128, false},
		{128, 128, 128, 128, true},
		{128, 128, 100, 120, true},
		{128, 64, 64, 512, false},
		{16, 16, 1, 3, true},
		{32, 16, 1, 3, false},
	} {
		c := ptx.GemmConfig{ML: tc.ml, NL: tc.nl}
		if got := WithinMatrix(c, tc.m, tc.n); got != tc.want {
			t.Errorf("%d×%d tile in a %d×%d matrix: %v, want %v", tc.ml, tc.nl, tc.m, tc.n, got, tc.want)
		}
	}
}
