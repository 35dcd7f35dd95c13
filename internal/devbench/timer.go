package devbench

import (
	"fmt"
	"math/rand/v2"
	"os"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gate"
	"github.com/isaacgo/isaac/internal/l2evict"
)

// Flush is how a Timer empties L2 before each timed call.
type Flush int

const (
	// FlushRead reads a buffer twice the L2's size (l2evict's kernel): the timed
	// call finds none of its operands cached and no dirty line to write
	// back. bench_compare's default.
	FlushRead Flush = iota
	// FlushWrite writes a buffer twice the L2's size (cuMemsetD32): none of
	// the operands are cached either, but L2 is left full of dirty lines,
	// which the timed call writes back to memory as it misses: up to one
	// L2 of extra traffic that is not the call's own. isaac-tune's default:
	// its data sets (weights/data) were all measured this way, and so were
	// the benchmark results committed before FlushRead existed.
	FlushWrite
)

// FlushFromEnv is the flush ISAAC_BENCH_FLUSH names, "read" or "write", or
// def when it is unset.
func FlushFromEnv(def Flush) (Flush, error) {
	switch v := os.Getenv("ISAAC_BENCH_FLUSH"); v {
	case "":
		return def, nil
	case "read":
		return FlushRead, nil
	case "write":
		return FlushWrite, nil
	default:
		return 0, fmt.Errorf("ISAAC_BENCH_FLUSH=%q: want read or write", v)
	}
}

// Describe is the timer's method for a result's provenance.
func (t *Timer) Describe() string {
	if t.Block {
		return t.Flush.String() + ", the call queued behind a kernel that holds the stream until the host has enqueued all of it"
	}
	return t.Flush.String()
}

// String describes the flush for a result's provenance.
func (f Flush) String() string {
	if f == FlushWrite {
		return "L2 flushed (2x L2 bytes written) before each timed call"
	}
	return "L2 flushed (2x L2 bytes read, leaving no dirty line) before each timed call"
}

// Timer times calls on one stream between two events, after flushing L2
// so that no run finds the previous run's data cached. The caller keeps
// the goroutine locked to its OS thread with the timer's context current.
type Timer struct {
	Stream cuda.Stream
	Flush  Flush
	flush  cuda.DevicePtr
	words  int // flush buffer length in 32-bit words
	events [2]cuda.Event

	reader *l2evict.Reader // FlushRead's kernel

	// Block: each timed call is queued behind a gate's hold, released once
	// run has returned (see NewTimerBlocking).
	Block bool
	gate  *gate.Gate
}

// waitLimitNS bounds how long a blocking Timer's wait kernel holds the
// stream: far above any host time to enqueue a call.
const waitLimitNS = 20_000_000

// NewTimerBlocking is NewTimer whose timed calls start on the GPU only once
// run has queued all of them (package gate): the events then enclose the
// GPU's work alone, not the host's time to enqueue it, which would show
// whenever it outlasts the flush before the call.
func NewTimerBlocking(l2Bytes int, def Flush) (*Timer, error) {
	t, err := NewTimer(l2Bytes, def)
	if err != nil {
		return nil, err
	}
	if t.gate, err = gate.New(); err != nil {
		return nil, err
	}
	t.Block = true
	return t, nil
}

// NewTimer creates the stream, the flush buffer (2·l2Bytes), the events
// and, for the read flush, its kernel, with the flush ISAAC_BENCH_FLUSH
// names, else def.
func NewTimer(l2Bytes int, def Flush) (*Timer, error) {
	f, err := FlushFromEnv(def)
	if err != nil {
		return nil, err
	}
	return NewTimerFlush(l2Bytes, f)
}

// NewTimerFlush is NewTimer with the flush given.
func NewTimerFlush(l2Bytes int, f Flush) (*Timer, error) {
	t := &Timer{Flush: f, words: max(2*l2Bytes/4, 1<<20)}
	var err error
	if t.Stream, err = cuda.NewStream(); err != nil {
		return nil, err
	}
	if t.flush, err = cuda.Alloc(4 * t.words); err != nil {
		return nil, err
	}
	if err := t.flush.MemsetD32Async(rand.Uint32()|1, t.words, t.Stream); err != nil {
		return nil, err
	}
	for i := range t.events {
		if t.events[i], err = cuda.NewEvent(); err != nil {
			return nil, err
		}
	}
	if f == FlushRead {
		if t.reader, err = l2evict.NewReader(); err != nil {
			return nil, err
		}
	}
	return t, t.Stream.Synchronize()
}

// flushL2 queues the flush on the timer's stream.
func (t *Timer) flushL2() error {
	if t.Flush == FlushWrite {
		return t.flush.MemsetD32Async(rand.Uint32(), t.words, t.Stream)
	}
	// The buffer holds one odd word repeated, so its fold is 0 and never
	// the magic 1: the sink is never written.
	return t.reader.Read(t.Stream, t.flush, 4*t.words)
}

// Read queues FlushRead's kernel over the first bytes (rounded up to 16)
// of buf on the timer's stream: every byte read once through L2, in
// 16-byte vectors, by a grid of 8 blocks of 256 threads per SM. Timed, it is
// the floor of a memory-bound call: what only reading its operands costs.
// The timer must use the read flush (it owns the kernel).
func (t *Timer) Read(buf cuda.DevicePtr, bytes int) error {
	if t.Flush != FlushRead {
		return fmt.Errorf("devbench: Read needs the read flush's kernel (flush %v)", t.Flush)
	}
	return t.reader.Read(t.Stream, buf, bytes)
}

// Time flushes L2, runs one call between two events and returns the
// elapsed microseconds.
func (t *Timer) Time(run func() error) (float64, error) {
	if err := t.flushL2(); err != nil {
		return 0, err
	}
	var hold gate.Hold
	if t.Block {
		var err error
		if hold, err = t.gate.Hold(t.Stream, waitLimitNS); err != nil {
			return 0, err
		}
	}
	err := t.events[0].Record(t.Stream)
	if err == nil {
		err = run()
	}
	if err == nil {
		err = t.events[1].Record(t.Stream)
	}
	if t.Block {
		// Released once the call and its end event are queued, whatever
		// run returned: the stream must not stay held.
		if rerr := t.gate.Release(hold); err == nil {
			err = rerr
		}
	}
	if err != nil {
		return 0, err
	}
	if err := t.events[1].Synchronize(); err != nil {
		return 0, err
	}
	ms, err := t.events[1].Elapsed(t.events[0])
	return float64(ms) * 1000, err
}
