package kernels

import (
	"errors"
	"testing"
	"time"

	"github.com/isaacgo/isaac/ptx"
)

// TestRuntimeClose: a closed runtime loads no kernel (ErrClosed, before
// the driver is touched); Close waits for a load under way, at most its
// wait, and reports whether the load finished.
func TestRuntimeClose(t *testing.T) {
	rt := New("")
	rt.loading.RLock() // a load under way
	start := time.Now()
	if rt.Close(50 * time.Millisecond) {
		t.Fatal("Close reported the load under way finished")
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 2*time.Second {
		t.Fatalf("Close returned after %v, want its 50ms wait", d)
	}
	rt.loading.RUnlock() // the load ends: the pending Close completes
	if !rt.Close(time.Second) {
		t.Fatal("Close did not finish with no load under way")
	}
	_, err := rt.loadFunction(&ptx.Kernel{Name: "k", PTX: "// not loaded"}, "sm_90")
	if !errors.Is(err, ErrClosed) {
		t.Fatalf("load after Close: %v, want ErrClosed", err)
	}
}
