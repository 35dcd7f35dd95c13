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
	if int(cEntryCount) != len(cEntries) || len(cEntries) != int(request.EntryConvGraph)+1 {
		t.Fatalf("C has %d entries (%d listed), Go has %d", cEntryCount, len(cEntries), request.EntryConvGraph+1)
	}
	for i, c := range cEntries {
		if int(c) != i {
			t.Errorf("C entry %d is %d", i, c)
		}
	}
	for e, c := range cEntryPairs {
		if int(c) != int(e) {
			t.Errorf("entry: C %d, Go %d", c, e)
		}
	}
}
