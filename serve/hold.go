package serve

import (
	"sync"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gate"
)

// Each timed sample of a check is queued behind a hold of its context's
// gate (package gate), released once the timed call and its end event
// are queued: the call then starts on the GPU only when all of it is
// queued, and the sample's events time the device's work alone, not the
// host's work between the start event and the launch, which differs
// between our launch path and the vendor's (cuBLAS and cuDNN choose their
// kernels on the host, for tens of microseconds and on some calls
// hundreds). A fixed hold of 50 µs before each GEMM sample left cuBLAS
// samples of some shapes at 4–5 times cuBLAS's time
// (gputest/results/h100/batched/call12), and one of 1 ms before each
// convolution sample left the GPU idle for the rest of it.
//
// holdLimitNS bounds a hold whose release does not come in time (a vendor
// call that waits on its own stream inside the held region): the sample
// is then wrong, not a hang.
const holdLimitNS = 5_000_000

// ctxGate is a context's gate, made once.
type ctxGate struct {
	once sync.Once
	g    *gate.Gate
	err  error
}

// hold queues a hold on stream in the current context, whose ID is ctx,
// and returns its release (never nil: a hold that could not be queued
// releases nothing, and the sample then times the host's work too).
func (s *Server) hold(ctx uint64, stream cuda.Stream) (release func(), err error) {
	v, _ := s.holds.LoadOrStore(ctx, &ctxGate{})
	cg := v.(*ctxGate)
	cg.once.Do(func() { cg.g, cg.err = gate.New() })
	if cg.err != nil {
		return func() {}, cg.err
	}
	h, err := cg.g.Hold(stream, holdLimitNS)
	if err != nil {
		return func() {}, err
	}
	return func() { cg.g.Release(h) }, nil
}
