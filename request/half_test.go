package request

import "testing"

func TestHalfValue(t *testing.T) {
	for _, c := range []struct {
		bits uint16
		want float64
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125}, {0x0001, 5.960464477539063e-08},
		{0x7bff, 65504}, {0x0000, 0},
	} {
		if got := HalfValue(c.bits); got != c.want {
			t.Errorf("HalfValue(%#04x) = %v, want %v", c.bits, got, c.want)
		}
	}
}
