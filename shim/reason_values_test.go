package shim

import (
	"testing"

	"github.com/isaacgo/isaac/request"
)

func TestReasonsMatchC(t *testing.T) {
	if int(cReasonCount) != request.ReasonCount || len(cReasons) != request.ReasonCount {
		t.Fatalf("C has %d reasons (%d listed), Go has %d", cReasonCount, len(cReasons), request.ReasonCount)
	}
	for i, c := range cReasons {
		if int(c) != i {
			t.Errorf("C reason %d is %d, Go's %v is %d", i, c, request.Reason(i), i)
		}
	}
	for i, c := range cEntries {
		if int(c) != i {
			t.Errorf("C entry %d is %d", i, c)
		}
	}
	if int(cEntries[len(cEntries)-1]) != int(request.EntryConvForward) {
		t.Errorf("conv entry: C %d, Go %d", cEntries[len(cEntries)-1], request.EntryConvForward)
	}
}

func TestHalfToFloat(t *testing.T) {
	for _, c := range []struct {
		bits uint16
		want float64
	}{
		{0x3c00, 1}, {0xc000, -2}, {0x3555, 0.333251953125}, {0x0001, 5.960464477539063e-08},
		{0x7bff, 65504}, {0x0000, 0},
	} {
		if got := halfToFloat(c.bits); got != c.want {
			t.Errorf("halfToFloat(%#04x) = %v, want %v", c.bits, got, c.want)
		}
	}
}
