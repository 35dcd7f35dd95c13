package devbench

import (
	"math/rand/v2"

	"github.com/isaacgo/isaac/shim/cuda"
)

// Timer times calls on one stream between two events, after writing a
// buffer twice the size of L2 so that no run finds the previous run's data
// cached. The caller keeps the goroutine locked to its OS thread with the
// timer's context current.
type Timer struct {
	Stream cuda.Stream
	flush  cuda.DevicePtr
	words  int // flush buffer length in 32-bit words
	events [2]cuda.Event
}

// NewTimer creates the stream, the flush buffer (2·l2Bytes) and the events.
func NewTimer(l2Bytes int) (*Timer, error) {
	t := &Timer{words: max(2*l2Bytes/4, 1<<20)}
	var err error
	if t.Stream, err = cuda.NewStream(); err != nil {
		return nil, err
	}
	if t.flush, err = cuda.Alloc(4 * t.words); err != nil {
		return nil, err
	}
	for i := range t.events {
		if t.events[i], err = cuda.NewEvent(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// Time flushes L2, runs one call between two events and returns the
// elapsed microseconds.
func (t *Timer) Time(run func() error) (float64, error) {
	if err := t.flush.MemsetD32Async(rand.Uint32(), t.words, t.Stream); err != nil {
		return 0, err
	}
	if err := t.events[0].Record(t.Stream); err != nil {
		return 0, err
	}
	if err := run(); err != nil {
		return 0, err
	}
	if err := t.events[1].Record(t.Stream); err != nil {
		return 0, err
	}
	if err := t.events[1].Synchronize(); err != nil {
		return 0, err
	}
	ms, err := t.events[1].Elapsed(t.events[0])
	return float64(ms) * 1000, err
}
