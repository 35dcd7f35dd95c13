package serve

import (
	"sync"

	"github.com/isaacgo/isaac/internal/cuda"
)

// measureHoldNS is how long the check's hold kernel keeps the stream busy
// before each timed call: longer than a vendor call's host work (cuBLAS
// chooses its kernel on the host for each call).
const measureHoldNS = 50_000

// convHoldNS is the hold before a convolution's timed call: cuDNN's
// legacy cudnnConvolutionForward does more host work per call than a
// cuBLAS GEMM, more than measureHoldNS covers
// (gputest/results/h100/conv/call53: the check's cuDNN times against
// bench_compare's).
const convHoldNS = 1_000_000

// holdKernel is the hold kernel (holdPTX) loaded in one context, once.
type holdKernel struct {
	once sync.Once
	fn   cuda.Function
	err  error
}

// hold launches the hold kernel (measureHoldNS) on stream in the current
// context, whose ID is ctx.
func (s *Server) hold(ctx uint64, stream cuda.Stream) error {
	return s.holdFor(ctx, stream, measureHoldNS)
}

// holdFor is hold for ns nanoseconds.
func (s *Server) holdFor(ctx uint64, stream cuda.Stream, ns uint64) error {
	v, _ := s.holds.LoadOrStore(ctx, &holdKernel{})
	h := v.(*holdKernel)
	h.once.Do(func() {
		var mod cuda.Module
		if mod, _, h.err = cuda.LoadPTX(holdPTX, 0); h.err == nil {
			h.fn, h.err = mod.Function(holdEntry)
		}
	})
	if h.err != nil {
		return h.err
	}
	var p cuda.Params
	return cuda.Launch(h.fn, cuda.Dim3{1, 1, 1}, cuda.Dim3{1, 1, 1}, 0, stream, p.U64(ns))
}
