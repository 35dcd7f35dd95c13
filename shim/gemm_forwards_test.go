package shim

import (
	"testing"

	"github.com/isaacgo/isaac/request"
)

// TestGemmForwardsRemembered: a GEMM remembered with a settled reason is
// found again for other matrices of the same alignment; one Go answered
// from its arguments alone whatever the handle's state, one it answered
// with the state only for that state; not once the handle, a size or an
// alignment differs. Reasons that are not settled are not remembered.
func TestGemmForwardsRemembered(t *testing.T) {
	forgetGemms()
	t.Cleanup(forgetGemms)
	args := newGemmRecord(0x1000, 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, 64, 32, 16)
	defer args.free()
	state := newGemmRecord(0x2000, 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, 64, 32, 16)
	defer state.free()
	if _, ok := args.find(0); ok {
		t.Fatal("found before it was remembered")
	}
	for _, transient := range []request.Reason{request.Served, request.FwdSearching, request.FwdCompiling,
		request.FwdMeasuring, request.FwdCapturing, request.FwdNoDriver, request.FwdError, request.FwdHandle} {
		args.remember(transient, -1)
		state.remember(transient, 0)
		if got, ok := args.find(0); ok {
			t.Fatalf("%v remembered from the arguments (found %v)", transient, got)
		}
		if got, ok := state.find(0); ok {
			t.Fatalf("%v remembered with the state (found %v)", transient, got)
		}
	}
	args.remember(request.FwdUnsupported, -1)
	state.remember(request.FwdMeasured, 0)
	for _, mode := range []int{0, 1} {
		if got, ok := args.find(mode); !ok || got != request.FwdUnsupported {
			t.Errorf("from the arguments, math mode %d: found %v %v, want unsupported", mode, got, ok)
		}
	}
	if got, ok := state.find(0); !ok || got != request.FwdMeasured {
		t.Errorf("with the state: found %v %v, want measured", got, ok)
	}
	if got, ok := state.find(1); ok {
		t.Errorf("with the state, another math mode: found %v", got)
	}
	state.a, state.b, state.c = state.a+0x100, state.b+0x200, state.c+0x1000 // other matrices, aligned alike
	if got, ok := state.find(0); !ok || got != request.FwdMeasured {
		t.Errorf("other matrices aligned alike: found %v %v, want measured", got, ok)
	}
	differ := []struct {
		name         string
		change, undo func()
	}{
		{"handle", func() { state.handle = 0x3000 }, func() { state.handle = 0x2000 }},
		{"A's alignment", func() { state.a += 4 }, func() { state.a -= 4 }},
		{"C NULL", func() { state.c = 0 }, func() { state.c = 0x7f0000201000 }},
		{"m", func() { state.setM(65) }, func() { state.setM(64) }},
	}
	for _, d := range differ {
		d.change()
		if got, ok := state.find(0); ok {
			t.Errorf("%s differs: found %v", d.name, got)
		}
		d.undo()
		if _, ok := state.find(0); !ok {
			t.Fatalf("%s restored: not found", d.name)
		}
	}
}
