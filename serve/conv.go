package serve

import (
	"runtime"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// convKey identifies a convolution's decision: the context, the class of
// its implicit GEMM and its shape.
type convKey struct {
	ctx   uint64
	class ptx.InputClass
	shape request.ConvShape
}

// convDecision is a convolution's decision: its loaded kernel, or why the
// vendor takes it.
type convDecision struct {
	reason  request.Reason
	k       *kernels.Kernel
	pending bool // being made in the background
}

// Conv is the shim's path for one cudnnConvolutionForward: a call cuDNN
// would reject, or one the kernels do not compute, goes to cuDNN untouched
// (it answers with its own status). There is no convolution model yet, so
// under ISAAC_POLICY=auto every convolution goes to cuDNN (no_weights);
// under always it is served with ISAAC_CONV_CONFIG, else the heuristic's
// configuration, decided once per context, class and shape. A call on a
// stream being captured is served only from a decision already made (the
// decision, which may compile, is made in the background meanwhile).
func (s *Server) Conv(c *request.Conv) request.Reason {
	shape, r := c.Shape()
	switch {
	case r != request.Served:
		return r
	case s.opts.Policy == Never:
		return request.FwdPolicy
	case s.opts.Policy == Auto:
		return request.FwdNoWeights
	}
	t, err := s.rt.ConvTarget(c, shape)
	if err != nil {
		return reasonOf(err)
	}
	key := convKey{t.Ctx, t.Class, shape}
	v, ok := s.convs.Load(key)
	if !ok {
		if cuda.Stream(c.Stream).Capturing() {
			s.convInBackground(key, t, shape)
			return request.FwdCapturing
		}
		v, _ = s.convs.LoadOrStore(key, s.convDecide(t, shape))
	}
	d := v.(*convDecision)
	switch {
	case d.pending && cuda.Stream(c.Stream).Capturing():
		return request.FwdCapturing
	case d.reason != request.Served:
		return d.reason
	}
	return reasonOf(s.rt.LaunchConv(t, c, shape, d.k))
}

// convDecide is the configuration of a convolution under Always, compiled.
func (s *Server) convDecide(t kernels.Target, shape request.ConvShape) *convDecision {
	if s.opts.ConvConfigErr != nil {
		s.logOnce(s.opts.ConvConfigErr)
		return &convDecision{reason: request.FwdUnsupported}
	}
	cfg := space.ConvDefault(t.Class, shape, t.Dev.Limits)
	if s.opts.ConvConfig != nil {
		cfg = *s.opts.ConvConfig
	}
	if cfg.KG > 1 && !t.Dev.Pools {
		cfg.KG = 1 // no stream-ordered workspace on this device
	}
	if err := ptx.Legal(cfg, t.Class, t.Dev.Limits); err != nil {
		return &convDecision{reason: request.FwdUnsupported}
	}
	k, err := s.rt.Kernel(t, cfg)
	if err != nil {
		return &convDecision{reason: reasonOf(err)}
	}
	return &convDecision{reason: request.Served, k: k}
}

// convInBackground makes key's decision on a goroutine that has the
// caller's context current; calls forward meanwhile (one goroutine per key).
func (s *Server) convInBackground(key convKey, t kernels.Target, shape request.ConvShape) {
	pending := &convDecision{reason: request.FwdSearching, pending: true}
	if _, loaded := s.convs.LoadOrStore(key, pending); loaded {
		return
	}
	cctx, err := cuda.CurrentContext()
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d := &convDecision{reason: request.FwdNoDriver}
		if err == nil && cctx.SetCurrent() == nil {
			d = s.convDecide(t, shape)
		}
		s.convs.CompareAndSwap(key, pending, d)
	}()
}
