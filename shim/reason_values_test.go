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
