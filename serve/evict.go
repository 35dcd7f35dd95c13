package serve

import (
	"sync"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/l2evict"
)

// evictor is one context's L2 evictor (l2evict.Evictor: a buffer of twice
// the L2 and its read kernel), made on the context's first timed sample
// of a check.
type evictor struct {
	once sync.Once
	e    *l2evict.Evictor
	err  error
}

// evictL2 queues on stream, in the current context (ID ctx), the read
// that leaves L2 holding none of the call's data. A check's timed samples
// follow it (Options.CheckEvict): back to back on the same buffers, the
// application's calls would find their operands in L2 where a call
// between other work does not, and a kernel that is faster only from L2
// would be kept where it is slower (skinny FP16 GEMMs in
// gputest/results/h100/batched/call10; a MobileNet depthwise layer in
// NHWC, gputest/results/h100/conv/call73).
func (s *Server) evictL2(ctx uint64, stream cuda.Stream) error {
	v, _ := s.evictors.LoadOrStore(ctx, &evictor{})
	ev := v.(*evictor)
	ev.once.Do(func() { ev.e, ev.err = l2evict.NewEvictor(stream) })
	if ev.err != nil {
		return ev.err
	}
	return ev.e.Evict(stream)
}

// beforeSample is what precedes each timed sample of a check on
// stream: the eviction (Options.CheckEvict; where it cannot be made, as
// when the buffer cannot be allocated, the sample is timed as it finds L2)
// and the hold, whose release it returns.
func (s *Server) beforeSample(ctx uint64, stream cuda.Stream) (release func(), err error) {
	if s.opts.CheckEvict {
		s.evictL2(ctx, stream)
	}
	return s.hold(ctx, stream)
}
