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
// its implicit GEMM (none for a grouped convolution's direct kernel) and
// its shape.
type convKey struct {
	ctx   uint64
	class ptx.InputClass
	shape request.ConvShape
}

// convPath is how a served convolution runs.
type convPath int

const (
	convImplicit convPath = iota // the implicit GEMM on x as it lies
	convCopies                   // the implicit GEMM on NHWC copies of x and the filter (kernels.LaunchConvNHWC)
	convGrouped                  // the direct grouped kernel
)

// convDecision is a convolution's decision: its loaded kernel and how it
// runs, or why the vendor takes it.
type convDecision struct {
	reason  request.Reason
	k       *kernels.Kernel
	path    convPath
	pending bool // being made in the background
}

// String names the decision's path and configuration (benchmarks' reports).
func (d *convDecision) String() string {
	switch {
	case d.reason != request.Served:
		return "cuDNN: " + d.reason.String()
	case d.path == convGrouped:
		return d.k.Grouped().String()
	case d.path == convCopies:
		return "nhwc copies " + d.k.Config().String()
	}
	return d.k.Config().String()
}

// Conv is the shim's path for one cudnnConvolutionForward: a call cuDNN
// would reject, or one the kernels do not compute, goes to cuDNN untouched
// (it answers with its own status). There is no convolution model yet, so
// under ISAAC_POLICY=auto every convolution goes to cuDNN (no_weights);
// under always it is served as convDecide decides, once per context, class
// and shape. A call on a stream being captured is served only from a
// decision already made (the decision, which may compile, is made in the
// background meanwhile).
func (s *Server) Conv(c *request.Conv) request.Reason {
	d, t, shape, r := s.convDecision(c)
	if r != request.Served {
		return r
	}
	switch d.path {
	case convGrouped:
		return reasonOf(s.rt.LaunchGrouped(c, shape, d.k))
	case convCopies:
		return reasonOf(s.rt.LaunchConvNHWC(t, c, shape, d.k))
	}
	return reasonOf(s.rt.LaunchConv(t, c, shape, d.k))
}

// ConvPlan is what Conv would run for c (the decision made if it is not
// yet, not launched): the path and configuration, or the vendor and why.
func (s *Server) ConvPlan(c *request.Conv) (string, request.Reason) {
	d, _, _, r := s.convDecision(c)
	if d == nil {
		return "cuDNN: " + r.String(), r
	}
	return d.String(), r
}

// convDecision finds (or makes) c's decision; the reason is Served when c
// is to be launched as the decision says.
func (s *Server) convDecision(c *request.Conv) (*convDecision, kernels.Target, request.ConvShape, request.Reason) {
	shape, r := c.Shape()
	switch {
	case r != request.Served:
		return nil, kernels.Target{}, shape, r
	case s.opts.Policy == Never:
		return nil, kernels.Target{}, shape, request.FwdPolicy
	case s.opts.Policy == Auto:
		return nil, kernels.Target{}, shape, request.FwdNoWeights
	}
	var t kernels.Target
	var err error
	if shape.G > 1 {
		t, err = s.rt.GroupedTarget(c, shape)
	} else {
		t, err = s.rt.ConvTarget(c, shape)
	}
	if err != nil {
		return nil, t, shape, reasonOf(err)
	}
	key := convKey{t.Ctx, t.Class, shape}
	v, ok := s.convs.Load(key)
	if !ok {
		if cuda.Stream(c.Stream).Capturing() {
			s.convInBackground(key, t, *c, shape)
			return nil, t, shape, request.FwdCapturing
		}
		v, _ = s.convs.LoadOrStore(key, s.convDecide(t, c, shape))
	}
	d := v.(*convDecision)
	if d.pending && cuda.Stream(c.Stream).Capturing() {
		return d, t, shape, request.FwdCapturing
	}
	return d, t, shape, d.reason
}

// convDecide is a convolution's decision under Always, its kernel compiled:
// a grouped convolution by the direct kernel where it takes it (few
// channels per group), else by cuDNN; ISAAC_CONV_CONFIG's implicit GEMM on
// x as it lies; the heuristic's implicit GEMM on NHWC copies where
// space.ConvThroughCopies prefers them, else on x as it lies.
func (s *Server) convDecide(t kernels.Target, c *request.Conv, shape request.ConvShape) *convDecision {
	if shape.G > 1 {
		if !space.GroupedDirect(shape) {
			return &convDecision{reason: request.FwdUnsupported}
		}
		k, err := s.rt.GroupedKernel(t, shape, space.GroupedDefault(shape, t.Class.AlignA))
		if err != nil {
			return &convDecision{reason: reasonOf(err)}
		}
		return &convDecision{reason: request.Served, k: k, path: convGrouped}
	}
	if s.opts.ConvConfigErr != nil {
		s.logOnce(s.opts.ConvConfigErr)
		return &convDecision{reason: request.FwdUnsupported}
	}
	path, class := convImplicit, t.Class
	cfg := space.ConvDefault(class, shape, t.Dev.Limits)
	if s.opts.ConvConfig != nil {
		cfg = *s.opts.ConvConfig
	} else if space.ConvThroughCopies(shape) && kernels.Transposable(shape) {
		if ct, err := s.rt.ConvNHWCTarget(c, shape); err == nil {
			path, class = convCopies, ct.Class
			cfg = space.ConvDefault(class, shape, t.Dev.Limits)
		}
	}
	if cfg.KG > 1 && !t.Dev.Pools {
		cfg.KG = 1 // no stream-ordered workspace on this device
	}
	if !s.opts.TMA && s.opts.ConvConfig == nil {
		cfg.TMA, cfg.PS = 0, 0 // ISAAC_TMA=0: x's tiles gathered with cp.async, no persistent grid (it needs the copy engine)
	}
	if err := ptx.Legal(cfg, class, t.Dev.Limits); err != nil {
		return &convDecision{reason: request.FwdUnsupported}
	}
	kt := t
	kt.Class = class
	k, err := s.rt.Kernel(kt, cfg)
	if err != nil {
		return &convDecision{reason: reasonOf(err)}
	}
	return &convDecision{reason: request.Served, k: k, path: path}
}

// convInBackground makes key's decision on a goroutine that has the
// caller's context current; calls forward meanwhile (one goroutine per key).
func (s *Server) convInBackground(key convKey, t kernels.Target, c request.Conv, shape request.ConvShape) {
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
			d = s.convDecide(t, &c, shape)
		}
		s.convs.CompareAndSwap(key, pending, d)
	}()
}
