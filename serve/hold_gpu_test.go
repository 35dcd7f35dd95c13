package serve

import (
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
)

// The check's hold keeps the stream until it is released: events around a
// call that the host enqueues 300 µs after the start event time the call
// alone when the hold is released after it (as the check does), and a
// hold never released ends at holdLimitNS.
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
	buf, err := cuda.Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	srv := testServer(Auto)
	// time3 is the fastest of 3 timings of a memset enqueued after delay,
	// the hold released after the end event.
	time3 := func(delay time.Duration) float64 {
		best := 0.0
		for i := 0; i < 3; i++ {
			start, err1 := cuda.NewEvent()
			end, err2 := cuda.NewEvent()
			if err1 != nil || err2 != nil {
				t.Fatal(err1, err2)
			}
			rel, err := srv.hold(id, s)
			if err != nil {
				t.Fatal(err)
			}
			start.Record(s)
			time.Sleep(delay)
			if err := buf.MemsetD32Async(3, 1<<18, s); err != nil {
				t.Fatal(err)
			}
			end.Record(s)
			rel()
			if err := s.Synchronize(); err != nil {
				t.Fatal(err)
			}
			ms, err := end.Elapsed(start)
			if err != nil {
				t.Fatal(err)
			}
			if us := float64(ms) * 1000; i == 0 || us < best {
				best = us
			}
			start.Destroy()
			end.Destroy()
		}
		return best
	}
	time3(0) // loads the kernel (a JIT compile): not timed
	held := time3(300 * time.Microsecond)
	t.Logf("a memset enqueued 300 µs after the start event, behind a released hold: %.1f µs", held)
	if held > 100 {
		t.Errorf("%.1f µs: the host's delay shows", held)
	}
	// A hold never released: events before and after it time the limit.
	before, err1 := cuda.NewEvent()
	after, err2 := cuda.NewEvent()
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	before.Record(s)
	if _, err := srv.hold(id, s); err != nil {
		t.Fatal(err)
	}
	after.Record(s)
	if err := s.Synchronize(); err != nil {
		t.Fatal(err)
	}
	ms, err := after.Elapsed(before)
	if err != nil {
		t.Fatal(err)
	}
	never, limit := float64(ms)*1000, float64(holdLimitNS)/1000
	t.Logf("a hold never released: %.1f µs (limit %.0f µs)", never, limit)
	if never < 0.95*limit || never > 2*limit {
		t.Errorf("a hold never released lasted %.1f µs, want about its limit %.0f µs", never, limit)
	}
}
