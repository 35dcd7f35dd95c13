package serve

import (
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
)

// The check's hold kernel keeps the stream busy for measureHoldNS: events
// around it time at least that, and not wildly more.
func TestGPUHold(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	id, err := ctx.ID()
	if err != nil {
		t.Fatal(err)
	}
	s, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	// The first hold loads the kernel (a JIT compile): not timed.
	if err := testServer(Auto).hold(id, s); err != nil {
		t.Fatal(err)
	}
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		start, err := cuda.NewEvent()
		if err != nil {
			t.Fatal(err)
		}
		end, err := cuda.NewEvent()
		if err != nil {
			t.Fatal(err)
		}
		if err := start.Record(s); err != nil {
			t.Fatal(err)
		}
		if err := testServer(Auto).hold(id, s); err != nil {
			t.Fatal(err)
		}
		if err := end.Record(s); err != nil {
			t.Fatal(err)
		}
		if err := s.Synchronize(); err != nil {
			t.Fatal(err)
		}
		ms, err := end.Elapsed(start)
		if err != nil {
			t.Fatal(err)
		}
		us := float64(ms) * 1000
		t.Logf("hold %d: %.1f µs (asked %d µs)", i, us, measureHoldNS/1000)
		if us < measureHoldNS/1000*0.95 || us > measureHoldNS/1000*4 {
			t.Errorf("hold %d: %.1f µs, want about %d µs", i, us, measureHoldNS/1000)
		}
		start.Destroy()
		end.Destroy()
	}
}
