package devbench

import (
	"math"
	"slices"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
)

// gpu skips the test unless a CUDA driver and a device are present, and
// makes device 0's primary context current on the test's locked OS thread.
func gpu(t *testing.T) { gemmcheck.GPUThread(t) }

// TestGPUTimerFlushes times an empty stretch of the stream under each
// flush: no error, a finite non-negative time (that the read flush leaves
// its sink alone is l2evict's TestGPUEvictor).
func TestGPUTimerFlushes(t *testing.T) {
	gpu(t)
	for _, f := range []Flush{FlushRead, FlushWrite} {
		tm, err := NewTimerFlush(8<<20, f)
		if err != nil {
			t.Fatal(f, err)
		}
		for range 3 {
			us, err := tm.Time(func() error { return nil })
			if err != nil || math.IsNaN(us) || us < 0 {
				t.Fatalf("%v: %v µs, %v", f, us, err)
			}
		}
	}
}

// A blocking timer times the GPU's work alone: a call whose host side takes
// 300 µs before it enqueues a small memset measures the memset, where the
// plain timer measures the host's delay too. A call that waits on its own
// stream inside the timed region (which a blocking timer holds) returns
// after the wait kernel's limit instead of hanging.
func TestGPUTimerBlocking(t *testing.T) {
	gpu(t)
	buf, err := cuda.Alloc(1 << 20)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	slow := func(tm *Timer) func() error {
		return func() error {
			time.Sleep(300 * time.Microsecond)
			return buf.MemsetD32Async(3, 1<<18, tm.Stream)
		}
	}
	median := func(tm *Timer, run func() error) float64 {
		var v []float64
		for range 9 {
			us, err := tm.Time(run)
			if err != nil {
				t.Fatal(err)
			}
			v = append(v, us)
		}
		return medianOf(v)
	}
	plain, err := NewTimerFlush(8<<20, FlushRead)
	if err != nil {
		t.Fatal(err)
	}
	blocking, err := NewTimerBlocking(8<<20, FlushRead)
	if err != nil {
		t.Fatal(err)
	}
	p, b := median(plain, slow(plain)), median(blocking, slow(blocking))
	t.Logf("a memset enqueued 300 µs after the start event: plain timer %.1f µs, blocking %.1f µs", p, b)
	if p < 200 {
		t.Errorf("plain timer %.1f µs: the host's delay should show", p)
	}
	if b > 100 {
		t.Errorf("blocking timer %.1f µs: the host's delay shows", b)
	}
	t0 := time.Now()
	if _, err := blocking.Time(func() error { return blocking.Stream.Synchronize() }); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(t0); d > time.Second {
		t.Errorf("a call synchronizing its held stream took %v", d)
	}
}

func medianOf(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}

// TestGPUTimerRead: the timed read of a buffer far larger than L2 moves its
// bytes at a bandwidth between a third of the device's peak and the peak
// (a kernel that read less, or nothing, would show more than the peak); a
// timer whose flush is the write has no read kernel and says so.
func TestGPUTimerRead(t *testing.T) {
	gpu(t)
	d, err := cuda.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	env, err := DeviceEnv(d)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := NewTimerBlocking(env.L2Bytes, FlushRead)
	if err != nil {
		t.Fatal(err)
	}
	const n = 512 << 20
	buf, err := cuda.Alloc(n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	if err := buf.MemsetD32Async(3, n/4, tm.Stream); err != nil {
		t.Fatal(err)
	}
	var times []float64
	for range 5 {
		us, err := tm.Time(func() error { return tm.Read(buf, n) })
		if err != nil {
			t.Fatal(err)
		}
		times = append(times, us)
	}
	us := medianOf(times)
	gbs := n / (us * 1e3)
	t.Logf("read %d MiB in %.1f µs: %.0f GB/s (peak %.0f GB/s)", n>>20, us, gbs, env.BandwidthGBs)
	if gbs > env.BandwidthGBs*1.02 || gbs < env.BandwidthGBs/3 {
		t.Errorf("read at %.0f GB/s, outside [%.0f, %.0f]", gbs, env.BandwidthGBs/3, env.BandwidthGBs*1.02)
	}
	w, err := NewTimerFlush(env.L2Bytes, FlushWrite)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Read(buf, n); err == nil {
		t.Error("Read on a write-flush timer: no error")
	}
}
