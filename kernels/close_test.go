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

// TestRuntimeLoadSlots: at most DefaultLoads loads are under way at once; one
// waiting for a slot when the runtime closes fails with ErrClosed, and
// Close waits only for those holding a slot.
func TestRuntimeLoadSlots(t *testing.T) {
	rt := New("")
	for range DefaultLoads {
		rt.jits <- struct{}{} // every slot taken
	}
	rt.loading.RLock() // one of them inside its load
	errc := make(chan error, 1)
	go func() {
		_, err := rt.loadFunction(&ptx.Kernel{Name: "k", PTX: "// not loaded"}, "sm_90")
		errc <- err
	}()
	select {
	case err := <-errc:
		t.Fatalf("a load ran without a slot: %v", err)
	case <-time.After(20 * time.Millisecond):
	}
	closed := make(chan bool)
	go func() { closed <- rt.Close(time.Second) }()
	time.Sleep(10 * time.Millisecond)
	rt.loading.RUnlock() // the load under way ends: Close completes
	if !<-closed {
		t.Fatal("Close did not complete")
	}
	for range DefaultLoads {
		<-rt.jits // the slots freed
	}
	if err := <-errc; !errors.Is(err, ErrClosed) {
		t.Fatalf("the waiting load: %v, want ErrClosed", err)
	}
}

// TestNewLoadingSlots: NewLoading gives the runtime as many load slots as
// asked, at least one; New gives DefaultLoads.
func TestNewLoadingSlots(t *testing.T) {
	for _, c := range []struct{ loads, want int }{{-3, 1}, {0, 1}, {1, 1}, {15, 15}} {
		if got := cap(NewLoading("", c.loads).jits); got != c.want {
			t.Errorf("NewLoading(%d): %d slots, want %d", c.loads, got, c.want)
		}
	}
	if got := cap(New("").jits); got != DefaultLoads {
		t.Errorf("New: %d slots, want %d", got, DefaultLoads)
	}
}
