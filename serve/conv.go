package serve

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// newConvKey is the decision key of convolution c of shape s in context
// ctx, with its implicit GEMM's (or the grouped kernel's) class. Where the
// window kernel is a candidate the key holds its class: its vectors of x
// and the filter follow their addresses, which the implicit GEMM's class
// may not tell apart, and a decision for one would be refused at launch
// for the other. For a 1×1 filter it holds the addresses of x, the filter
// and y modulo 16 bytes: with the shape they settle its pointwise GEMM's
// class, which would cost more to derive on every call.
func newConvKey(ctx uint64, class ptx.InputClass, c *request.Conv, s request.ConvShape) convKey {
	k := convKey{ctx: ctx, class: packClass(class), shape: packShape(s), graph: bits(c.Graph)}
	if space.WindowCandidate(s) {
		k.window = space.WindowClass(s, c.XPtr, c.WPtr)
	}
	if s.R == 1 && s.S == 1 {
		k.gemmAlign = int(c.XPtr&15) | int(c.WPtr&15)<<8 | int(c.YPtr&15)<<16
	}
	return k
}

// convPath is how a served convolution runs.
type convPath int

const (
	convImplicit convPath = iota // the implicit GEMM on x as it lies
	convCopies                   // the implicit GEMM on NHWC copies of x and the filter (kernels.LaunchConvNHWC)
	convGrouped                  // the direct grouped kernel
	convWindow                   // the window kernel (kernels.LaunchWindow)
	convGemm                     // a pointwise convolution's GEMM (request.Conv.PointwiseGemm), a GEMM kernel
)

// convDecision is a convolution's decision: its loaded kernel and how it
// runs, or why the vendor takes it. A decision the model makes to serve
// under Auto may carry more candidates (the chooser's other best-ranked
// choices, each route's best among them, the heuristic's), which its
// check times beside the model's choice and cuDNN: the fastest one stays.
type convDecision struct {
	reason  request.Reason
	k       *kernels.Kernel
	path    convPath
	gemm    kernels.Target // convGemm: the GEMM's target
	alts    []convRun      // the other candidates, 1…
	pending bool           // being made in the background
	meas    *measurement   // the model's decision to serve under Auto, checked on the calls (nil: not checked)
	// unrepeatable: its launches were found not to repeat from a
	// recording (ConvRepeat), which is not tried again.
	unrepeatable atomic.Bool
}

// convRun is a kernel and the path that runs it (for convGemm, with the
// GEMM's target).
type convRun struct {
	k    *kernels.Kernel
	path convPath
	gemm kernels.Target
}

// run is the decision's candidate cand (0: its own kernel, then alts).
func (d *convDecision) run(cand int) convRun {
	if cand >= 1 && cand <= len(d.alts) {
		return d.alts[cand-1]
	}
	return convRun{d.k, d.path, d.gemm}
}

// String names the decision's path and configuration (benchmarks' reports):
// the candidate its check kept.
func (d *convDecision) String() string {
	if d.reason != request.Served {
		return "cuDNN: " + d.reason.String()
	}
	r := d.run(0)
	if d.meas != nil {
		r = d.run(int(d.meas.chosen.Load()))
	}
	return r.String()
}

func (r convRun) String() string {
	switch r.path {
	case convGrouped:
		return r.k.Grouped().String()
	case convWindow:
		return r.k.Window().String()
	case convCopies:
		return "nhwc copies " + r.k.Config().String()
	case convGemm:
		return "gemm " + r.k.Config().String()
	}
	return r.k.Config().String()
}

// Conv is the shim's path for one cudnnConvolutionForward: a call cuDNN
// would reject, or one the kernels do not compute, goes to cuDNN untouched
// (it answers with its own status). Otherwise it is served as the
// decision for its context, class and shape says (convMake: under Auto
// the convolution model's choice where it predicts a win over cuDNN,
// checked on the first calls as GEMM's are; under Always the model's
// choice or the heuristic's). A call answered request.FwdMeasuring goes to
// cuDNN, timed: the caller passes the token to AfterForward once cuDNN's
// call is on the stream. A call on a stream being captured is served only
// from a decision already made (the decision, which may compile, is made
// in the background meanwhile).
func (s *Server) Conv(c *request.Conv) (request.Reason, Token) {
	r, tok, _ := s.convServe(c)
	return r, tok
}

// ConvRepeating is Conv, and for a call it serves under a decision that
// holds for every later call like it, the launches the shim may repeat for
// those (ConvRepeat): ok false where there are none.
func (s *Server) ConvRepeating(c *request.Conv) (r request.Reason, tok Token, rep Repeat, ok bool) {
	r, tok, served := s.convServe(c)
	if served.d != nil {
		rep, ok = s.convRepeat(served, c)
	}
	return r, tok, rep, ok
}

// convServed is the decision that served a call, with its target and shape,
// where it holds for later calls (its check over, or none).
type convServed struct {
	d     *convDecision
	t     kernels.Target
	shape request.ConvShape
	cand  int
}

// convServe is Conv, with the decision that served the call where it holds
// for later calls like it.
func (s *Server) convServe(c *request.Conv) (request.Reason, Token, convServed) {
	d, t, shape, r := s.convDecision(c)
	if r != request.Served {
		return r, Token{}, convServed{}
	}
	launch := func(cand int) error { return s.launchConv(t, c, shape, d.run(cand)) }
	cand := 0
	if m := d.meas; m != nil {
		stream := cuda.Stream(c.Stream)
		switch m.verdict.Load() {
		case vendorFaster:
			return request.FwdMeasured, Token{}, convServed{}
		case measuring:
			r := m.serve(launch, func() (func(), error) { return s.beforeSample(t.Ctx, stream) }, stream)
			if r == request.FwdMeasuring {
				return r, Token{m, stream}, convServed{}
			}
			return r, Token{}, convServed{} // a call the check served: not one to repeat
		}
		cand = int(m.chosen.Load()) // the candidate the check kept
	}
	if r := reasonOf(launch(cand)); r != request.Served {
		return r, Token{}, convServed{}
	}
	return request.Served, Token{}, convServed{d, t, shape, cand}
}

// launchConv launches c (of shape s, target t) with run's kernel on its
// path.
func (s *Server) launchConv(t kernels.Target, c *request.Conv, shape request.ConvShape, r convRun) error {
	switch r.path {
	case convGrouped:
		return s.rt.LaunchGrouped(t, c, shape, r.k)
	case convWindow:
		return s.rt.LaunchWindow(t, c, shape, r.k)
	case convCopies:
		return s.rt.LaunchConvNHWC(t, c, shape, r.k)
	case convGemm:
		g, ok := c.PointwiseGemm(shape)
		if !ok {
			return fmt.Errorf("%w: no GEMM for %v", kernels.ErrUnsupported, shape)
		}
		gt := r.gemm
		gt.Record = t.Record // a recording of the convolution records its GEMM
		return s.rt.Launch(gt, &g, r.k)
	}
	return s.rt.LaunchConv(t, c, shape, r.k)
}

// ConvPlan is what Conv would run for c (the decision made now, compiling
// in line, if it is not made yet; not launched): the path and
// configuration, or the vendor and why.
func (s *Server) ConvPlan(c *request.Conv) (string, request.Reason) {
	d, r := s.ConvDecide(c)
	if d == nil {
		return "cuDNN: " + r.String(), r
	}
	return d.String(), r
}

// ConvDecide makes c's decision now if it is not made yet (whatever
// Options.AsyncSearch says, compiling in line) and returns it with the
// reason Conv would give (Served, or why cuDNN takes the call; a
// decision whose check turned it to cuDNN is request.FwdMeasured).
func (s *Server) ConvDecide(c *request.Conv) (*convDecision, request.Reason) {
	key, t, shape, r := s.convTarget(c)
	if r != request.Served {
		return nil, r
	}
	v, ok := s.convs.Load(key)
	if !ok || v.(*convDecision).pending {
		d := s.convMake(t, c, shape, true)
		s.convs.Store(key, d)
		v = d
	}
	d := v.(*convDecision)
	if d.meas != nil && d.meas.verdict.Load() == vendorFaster {
		return d, request.FwdMeasured
	}
	return d, d.reason
}

// ConvMeasured is, for tests and benchmarks, the check of c's decision.
func (s *Server) ConvMeasured(c *request.Conv) Measurement {
	key, _, _, r := s.convTarget(c)
	if r != request.Served {
		return Measurement{}
	}
	v, ok := s.convs.Load(key)
	if !ok || v.(*convDecision).meas == nil {
		return Measurement{}
	}
	return v.(*convDecision).meas.state()
}

// ConvPolicy is request.FwdPolicy where the options send every
// convolution to cuDNN (ISAAC_POLICY=never; auto with ISAAC_CONV_AUTO=0),
// else request.Served: the shim asks it before it decodes a call. Under
// auto by default each device's rule (convAuto) is asked once the call's
// device is known.
func (s *Server) ConvPolicy() request.Reason {
	if s.opts.Policy == Never || s.opts.Policy == Auto && s.opts.ConvAuto == Off {
		return request.FwdPolicy
	}
	return request.Served
}

// convAuto reports whether Auto dispatches the convolutions of dev:
// ISAAC_CONV_AUTO's answer where it gives one, else whether the device's
// convolution weights are the shipped ones of a device in
// convDispatchMeasured.
func (s *Server) convAuto(dev *kernels.Device) bool {
	switch s.opts.ConvAuto {
	case On:
		return true
	case Off:
		return false
	}
	return s.deviceConvModel(dev).auto
}

// convTarget is c's decision key, target and shape, or why cuDNN takes c
// whatever the decision.
func (s *Server) convTarget(c *request.Conv) (convKey, kernels.Target, request.ConvShape, request.Reason) {
	shape, r := c.Shape()
	switch {
	case r != request.Served:
		return convKey{}, kernels.Target{}, shape, r
	case s.ConvPolicy() != request.Served:
		return convKey{}, kernels.Target{}, shape, request.FwdPolicy
	}
	var t kernels.Target
	var err error
	if shape.G > 1 {
		t, err = s.rt.GroupedTarget(c, shape)
	} else {
		t, err = s.rt.ConvTarget(c, shape)
	}
	switch {
	case err != nil:
		return convKey{}, t, shape, reasonOf(err)
	case s.opts.Policy == Auto && !s.convAuto(t.Dev):
		return convKey{}, t, shape, request.FwdPolicy
	}
	return newConvKey(t.Ctx, t.Class, c, shape), t, shape, request.Served
}

// convDecision finds (or makes) c's decision; the reason is Served when c
// is to be launched as the decision says. Under Auto a decision whose
// choice needs a seed pool not drawn yet, or a kernel not compiled yet,
// is made in the background while cuDNN takes the calls (as GEMM's).
func (s *Server) convDecision(c *request.Conv) (*convDecision, kernels.Target, request.ConvShape, request.Reason) {
	key, t, shape, r := s.convTarget(c)
	if r != request.Served {
		return nil, t, shape, r
	}
	v, ok := s.convs.Load(key)
	if !ok {
		switch {
		case cuda.Stream(c.Stream).Capturing():
			s.convInBackground(key, t, *c, shape, request.FwdCapturing)
			return nil, t, shape, request.FwdCapturing
		case s.opts.AsyncSearch || s.opts.Policy == Auto && !s.convChoiceSoon(t, c, shape):
			d := s.convInBackground(key, t, *c, shape, request.FwdSearching)
			return d, t, shape, d.reason
		}
		d := s.convMake(t, c, shape, s.opts.Policy != Auto)
		if d.reason == request.FwdCompiling {
			d = s.convInBackground(key, t, *c, shape, request.FwdCompiling)
			return d, t, shape, d.reason
		}
		v, _ = s.convs.LoadOrStore(key, d)
	}
	d := v.(*convDecision)
	if d.pending && cuda.Stream(c.Stream).Capturing() {
		return d, t, shape, request.FwdCapturing
	}
	return d, t, shape, d.reason
}

// convChoiceSoon reports whether the model's choice for c costs at most
// its search: its routes' seed pools are drawn or on disk (or no model
// choice is needed at all).
func (s *Server) convChoiceSoon(t kernels.Target, c *request.Conv, shape request.ConvShape) bool {
	if s.opts.ConvConfig != nil || s.opts.ConvConfigErr != nil || shape.G > 1 {
		return true
	}
	ch, id, err := s.convModel(t.Dev)
	if err != nil || s.convStore(id, t.Class, false).has(shape) {
		return true
	}
	if !s.gemmChoiceSoon(c, shape) {
		return false // a pointwise convolution's GEMM route
	}
	for _, r := range s.convRoutes(t, c, shape) {
		if !s.store(id, r.route.Class).poolAtHand(ch, r.route.Class) {
			return false
		}
	}
	return true
}

// convRoute is a way of running an ungrouped convolution's implicit GEMM:
// the route the model scores, the target its kernels load in, the path.
type convRoute struct {
	route  predictor.ConvRoute
	target kernels.Target
	path   convPath
}

// convRoutes are c's routes: the implicit GEMM on x as it lies, and on
// NHWC copies where the copies can run (kernels.Transposable).
func (s *Server) convRoutes(t kernels.Target, c *request.Conv, shape request.ConvShape) []convRoute {
	def := func(cls ptx.InputClass) []ptx.GemmConfig {
		return []ptx.GemmConfig{space.ConvDefault(cls, shape, t.Dev.Limits)}
	}
	out := []convRoute{{predictor.ConvRoute{Path: predictor.ConvPaths[0], Class: t.Class, Seeds: def(t.Class)}, t, convImplicit}}
	if kernels.Transposable(shape) {
		if ct, err := s.rt.ConvNHWCTarget(c, shape); err == nil {
			out = append(out, convRoute{predictor.ConvRoute{Path: predictor.ConvPaths[1], Class: ct.Class, Seeds: def(ct.Class)}, ct, convCopies})
		}
	}
	return out
}

// convMake is a convolution's decision: ISAAC_CONV_CONFIG's configuration
// (Always); else the device's convolution model's choice of path and
// configuration, under Auto only where it predicts a win over cuDNN by
// the margin (then checked on the calls); without a usable model, the
// heuristic under Always and cuDNN under Auto. Without compile, a choice
// whose kernels are not at hand (loaded, or their images in the disk
// cache: the implicit GEMM's, the direct and window kernels') is the
// pending reason FwdCompiling.
func (s *Server) convMake(t kernels.Target, c *request.Conv, shape request.ConvShape, compile bool) *convDecision {
	if s.opts.ConvConfigErr != nil {
		s.logOnce(s.opts.ConvConfigErr)
		return &convDecision{reason: request.FwdUnsupported}
	}
	if shape.G > 1 && !space.GroupedDirect(shape) {
		return &convDecision{reason: request.FwdUnsupported}
	}
	auto := s.opts.Policy == Auto
	ch, id, err := s.convModel(t.Dev)
	in, described := predictor.ConvInputOf(shape)
	switch {
	case s.opts.ConvConfig != nil:
		return s.convHeuristic(t, c, shape)
	case err != nil:
		s.logOnce(err)
		if auto {
			return &convDecision{reason: reasonOf(err)}
		}
		return s.convHeuristic(t, c, shape)
	case !described:
		if auto {
			return &convDecision{reason: request.FwdUnsupported}
		}
		return s.convHeuristic(t, c, shape)
	}
	// served is the decision to serve the candidates, the model's choice
	// first; under Auto with the check, the heuristic's choice too where
	// it differs (a second opinion from outside the model), all timed on
	// the first calls.
	served := func(cands []convRun) *convDecision {
		d := &convDecision{reason: request.Served, k: cands[0].k, path: cands[0].path, gemm: cands[0].gemm, alts: cands[1:]}
		if auto && s.opts.Check {
			if h := s.convHeuristic(t, c, shape); h.reason == request.Served &&
				!slices.ContainsFunc(cands, func(r convRun) bool { return r.k == h.k }) {
				d.alts = append(d.alts, h.run(0))
			}
			if w, ok := s.convWindowRun(c, shape); ok && !slices.ContainsFunc(d.alts, func(r convRun) bool { return r.k == w.k }) {
				d.alts = append(d.alts, w) // the window kernel, which the model does not rank
			}
			d.meas = s.newCheck(1+len(d.alts), convCheck)
		}
		return d
	}
	checked := auto && s.opts.Check
	if shape.G > 1 {
		cls := space.GroupedClass(shape, t.Class.AlignA)
		choice := s.convChoiceFor(id, t.Class, shape, func() *predictor.ConvChoice { return ch.ChooseDirect(in, t.Class.AlignA, space.GroupedConfigs(cls)) })
		if auto && !choice.Serve {
			return &convDecision{reason: request.FwdPredicted}
		}
		// The best-ranked direct configuration that compiles, and under
		// the check the rest of the model's best too; without compile,
		// only where every one of them is loaded or on disk.
		if !compile && slices.ContainsFunc(choice.Top, func(r predictor.ConvRanked) bool { return !s.rt.GroupedLoaded(t, shape, r.Direct) }) {
			return &convDecision{reason: request.FwdCompiling}
		}
		var cands []convRun
		for _, r := range choice.Top {
			if len(cands) > 0 && !checked {
				break
			}
			if k, err := s.rt.GroupedKernel(t, shape, r.Direct); err == nil {
				cands = append(cands, convRun{k: k, path: convGrouped})
			}
		}
		if len(cands) > 0 {
			return served(cands)
		}
	} else {
		routes := s.convRoutes(t, c, shape)
		rs := make([]predictor.ConvRoute, len(routes))
		var pools sync.WaitGroup // each route's seed pool, read or drawn at once
		for i, r := range routes {
			rs[i] = r.route
			st := s.store(id, r.route.Class)
			pools.Go(func() { st.poolOnce.Do(func() { st.seedPool(ch, r.route.Class) }) })
		}
		pools.Wait()
		choice := s.convChoiceFor(id, t.Class, shape, func() *predictor.ConvChoice { return ch.Choose(in, rs) })
		// A pointwise convolution's GEMM route, ranked by the GEMM model:
		// served where either model predicts a win over cuDNN.
		gr, pointwise := s.convGemmRoute(c, shape, true)
		gemmWins := pointwise && gr.tflops >= choice.VendorTFLOPs
		if auto && !choice.Serve && !gemmWins {
			return &convDecision{reason: request.FwdPredicted}
		}
		// The candidates: the best-ranked runnable choice, and under the
		// check every other choice the chooser keeps (its TopK best and
		// each route's best): the fastest of the model's few best is
		// far nearer the best than its first alone (weights/results/conv).
		var cands []convRun
		for _, r := range choice.Top {
			if r.Route >= len(routes) || routes[r.Route].route.Path != r.Path {
				continue // a stored choice of routes this process does not have
			}
			if len(cands) > 0 && !checked {
				break
			}
			rt := routes[r.Route]
			cfg := s.convRunnable(r.Config, rt.target, shape)
			if ptx.Legal(cfg, rt.target.Class, t.Dev.Limits) != nil {
				continue
			}
			if !compile && !s.rt.Loaded(rt.target, cfg) {
				return &convDecision{reason: request.FwdCompiling}
			}
			if k, err := s.rt.Kernel(rt.target, cfg); err == nil && k.Fits(shape.Pixels(), shape.K, shape.ReductionCRS()) &&
				!slices.ContainsFunc(cands, func(c convRun) bool { return c.k == k }) {
				cands = append(cands, convRun{k: k, path: rt.path})
			}
		}
		if pointwise {
			// The GEMM route's best kernels: first where the GEMM model
			// predicts them faster than the convolution's choice.
			want := 1
			if checked {
				want = convGemmCandidates
			}
			runs, pending := s.gemmRuns(gr, want, compile)
			if pending {
				return &convDecision{reason: request.FwdCompiling}
			}
			if gr.tflops > choice.OursTFLOPs || len(cands) == 0 {
				cands = append(runs, cands...)
			} else {
				cands = append(cands, runs...)
			}
			if !checked {
				cands = cands[:min(len(cands), 1)]
			}
		}
		if len(cands) > 0 {
			if !compile && checked {
				// the heuristic's candidate too (served's: a pointwise
				// convolution's is the GEMM heuristic's)
				if hr, ok := s.convGemmRoute(c, shape, false); ok && gemmPreferred(hr) {
					if !s.rt.Loaded(hr.t, hr.cfgs[0]) {
						return &convDecision{reason: request.FwdCompiling}
					}
				} else if ht, hcfg, _, r := s.convHeuristicPlan(t, c, shape); r == request.Served && !s.rt.Loaded(ht, hcfg) {
					return &convDecision{reason: request.FwdCompiling}
				}
				// and the window kernel's (served's)
				if space.WindowCandidate(shape) {
					if wt, err := s.rt.WindowTarget(c, shape); err == nil && !s.rt.WindowLoaded(wt, shape, space.WindowDefault(shape)) {
						return &convDecision{reason: request.FwdCompiling}
					}
				}
			}
			return served(cands)
		}
	}
	if !auto {
		return s.convHeuristic(t, c, shape)
	}
	return &convDecision{reason: request.FwdNoKernel}
}

// convRunnable is a configuration the server chose as it runs it: staged
// by the copy engine as the heuristic's would be (unless ISAAC_TMA=0),
// without a grid split on a device without stream-ordered workspaces.
func (s *Server) convRunnable(cfg ptx.GemmConfig, t kernels.Target, shape request.ConvShape) ptx.GemmConfig {
	if s.opts.TMA {
		cfg = space.ConvStaged(cfg, t.Class, shape, t.Dev.Limits)
	} else {
		cfg.TMA, cfg.PS = 0, 0 // ISAAC_TMA=0: x's tiles gathered with cp.async, no persistent grid (it needs the copy engine)
	}
	if cfg.KG > 1 && !t.Dev.Pools {
		cfg.KG = 1 // no stream-ordered workspace on this device
	}
	return cfg
}

// convHeuristic is a convolution's decision without a model: a pointwise
// convolution's GEMM (request.Conv.PointwiseGemm) with the GEMM
// heuristic's configuration where gemmPreferred says (one matrix: FLOAT
// or DOUBLE data, or one 16-bit NCHW image); the window kernel where
// space.WindowPreferred says (16-bit, NCHW rows, few channels); a grouped convolution by the direct kernel where it takes it
// (few channels per group), else by cuDNN; ISAAC_CONV_CONFIG's implicit
// GEMM on x as it lies; the heuristic's implicit GEMM on NHWC copies where
// space.ConvThroughCopies prefers them, else on x as it lies.
func (s *Server) convHeuristic(t kernels.Target, c *request.Conv, shape request.ConvShape) *convDecision {
	if s.opts.ConvConfig == nil {
		if gr, ok := s.convGemmRoute(c, shape, false); ok && gemmPreferred(gr) {
			if runs, _ := s.gemmRuns(gr, 1, true); len(runs) > 0 {
				return &convDecision{reason: request.Served, k: runs[0].k, path: convGemm, gemm: runs[0].gemm}
			}
		}
	}
	if s.opts.ConvConfig == nil && space.WindowPreferred(shape) {
		if w, ok := s.convWindowRun(c, shape); ok {
			return &convDecision{reason: request.Served, k: w.k, path: convWindow}
		}
	}
	if shape.G > 1 {
		k, err := s.rt.GroupedKernel(t, shape, space.GroupedDefault(shape, t.Class.AlignA))
		if err != nil {
			return &convDecision{reason: reasonOf(err)}
		}
		return &convDecision{reason: request.Served, k: k, path: convGrouped}
	}
	kt, cfg, path, r := s.convHeuristicPlan(t, c, shape)
	if r != request.Served {
		return &convDecision{reason: r}
	}
	k, err := s.rt.Kernel(kt, cfg)
	if err != nil {
		return &convDecision{reason: reasonOf(err)}
	}
	return &convDecision{reason: request.Served, k: k, path: path}
}

// convWindowRun is the window kernel of the heuristic's configuration for
// c, loaded (compiled in line), where the kernel serves c's shape and x
// lies with rows of pixels contiguous (space.WindowCandidate).
func (s *Server) convWindowRun(c *request.Conv, shape request.ConvShape) (convRun, bool) {
	if !space.WindowCandidate(shape) {
		return convRun{}, false
	}
	wt, err := s.rt.WindowTarget(c, shape)
	if err != nil {
		return convRun{}, false
	}
	k, err := s.rt.WindowKernel(wt, shape, space.WindowDefault(shape))
	if err != nil {
		return convRun{}, false
	}
	return convRun{k: k, path: convWindow}, true
}

// convHeuristicPlan is an ungrouped convolution's heuristic choice (see
// convHeuristic): its target, configuration and path, not compiled.
func (s *Server) convHeuristicPlan(t kernels.Target, c *request.Conv, shape request.ConvShape) (kernels.Target, ptx.GemmConfig, convPath, request.Reason) {
	path, kt := convImplicit, t
	cfg := space.ConvDefault(t.Class, shape, t.Dev.Limits)
	if s.opts.ConvConfig != nil {
		cfg = *s.opts.ConvConfig
	} else if space.ConvThroughCopies(shape) && kernels.Transposable(shape) {
		if ct, err := s.rt.ConvNHWCTarget(c, shape); err == nil {
			path, kt = convCopies, ct
			cfg = space.ConvDefault(ct.Class, shape, t.Dev.Limits)
		}
	}
	if cfg.KG > 1 && !t.Dev.Pools {
		cfg.KG = 1 // no stream-ordered workspace on this device
	}
	if !s.opts.TMA && s.opts.ConvConfig == nil {
		cfg.TMA, cfg.PS = 0, 0 // ISAAC_TMA=0: x's tiles gathered with cp.async, no persistent grid (it needs the copy engine)
	}
	if err := ptx.Legal(cfg, kt.Class, t.Dev.Limits); err != nil {
		return kt, cfg, path, request.FwdUnsupported
	}
	return kt, cfg, path, request.Served
}

// convInBackground makes key's decision (compiling in line) on a goroutine
// that has the caller's context current, and returns the pending decision
// that forwards the calls meanwhile with reason why (one goroutine per
// key).
func (s *Server) convInBackground(key convKey, t kernels.Target, c request.Conv, shape request.ConvShape, why request.Reason) *convDecision {
	pending := &convDecision{reason: why, pending: true}
	if v, loaded := s.convs.LoadOrStore(key, pending); loaded {
		return v.(*convDecision)
	}
	cctx, err := cuda.CurrentContext()
	s.background(func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		d := &convDecision{reason: request.FwdNoDriver}
		if err == nil && cctx.SetCurrent() == nil {
			d = s.convMake(t, &c, shape, true)
		}
		s.convs.CompareAndSwap(key, pending, d)
	})
	return pending
}
