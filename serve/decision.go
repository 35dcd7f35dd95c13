package serve

import (
	"cmp"
	"runtime"
	"slices"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// A decision is what Serve does with a (context, class, shape, policy): the
// server's one table of choices made, cached for the process.
//
// Under Auto the first call of a shape waits for the model's choice (one
// search), not for the driver to compile the chosen kernel: a kernel that
// is neither loaded nor in the disk cache is compiled in the background
// while the vendor takes the calls (reason compiling). The first input of a
// class whose seed pool is not drawn yet (nor on disk) does not wait for
// the choice either: the vendor takes it (reason searching) while the pool,
// the choice and the kernel are made in the background. Under Always the
// call waits for all. With Options.AsyncSearch every decision is made in
// the background. A call captured into a graph makes none (see decide).
type decision struct {
	k       *kernels.Kernel   // the kernel to launch when reason is Served
	alts    []*kernels.Kernel // the check's other candidates, 1… (the model's next best)
	reason  request.Reason    // Served, or the forward reason
	pending bool              // a background goroutine is making the decision (searching, compiling)
	meas    *measurement      // the model's decision to serve under Auto, checked on the calls (nil: not checked)
}

// kernel is the decision's candidate cand (0: k, then alts).
func (d *decision) kernel(cand int) *kernels.Kernel {
	if cand >= 1 && cand <= len(d.alts) {
		return d.alts[cand-1]
	}
	return d.k
}

// served is the kernel a served call launches: the check's choice once it
// has one, k before.
func (d *decision) served() *kernels.Kernel {
	if d.meas != nil {
		return d.kernel(int(d.meas.chosen.Load()))
	}
	return d.k
}

type decisionKey struct {
	ctx     uint64
	class   packedClass
	m, n, k int
	batch   int64 // a batched class's matrices (its check's verdict depends on them); else 0
	policy  Policy
}

func keyOf(t kernels.Target, g *request.Gemm, p Policy) decisionKey {
	var batch int64
	if t.Class.Batched {
		batch = g.Batch
	}
	return decisionKey{t.Ctx, packClass(t.Class), int(g.M), int(g.N), int(g.K), batch, p}
}

// undecidedInCapture answers a captured call whose decision is not made.
var undecidedInCapture = &decision{reason: request.FwdCapturing}

func (s *Server) decide(t kernels.Target, g *request.Gemm, p Policy) *decision {
	key := keyOf(t, g, p)
	if v, ok := s.decisions.Load(key); ok {
		return v.(*decision)
	}
	if cuda.Stream(g.Stream).Capturing() {
		// A call captured into a graph makes no decision: that may load
		// or compile a kernel, which is not the graph's work, and a graph
		// replays whatever the call put on the stream. The decision is
		// made in the background, and the graph gets the vendor's call.
		s.inBackground(key, t, g, request.FwdSearching)
		return undecidedInCapture
	}
	if s.opts.AsyncSearch || p == Auto && !s.choiceSoon(t, g) {
		return s.inBackground(key, t, g, request.FwdSearching)
	}
	d := s.makeDecision(key, t, g, p != Auto)
	if d.reason == request.FwdCompiling {
		return s.inBackground(key, t, g, request.FwdCompiling)
	}
	v, _ := s.decisions.LoadOrStore(key, d)
	return v.(*decision)
}

// choiceSoon reports whether the decision for g needs at most one model
// search (choiceAtHand), or no model choice at all (Options.Config, no
// usable model, an input the model does not describe: makeDecision settles
// those at once). The first input of a class whose seed pool is neither
// drawn nor on disk is not: under Auto its decision is made in the
// background while the vendor takes the call, since the kernel it chooses
// would, in such a process, almost always have to be compiled before
// serving anyway.
func (s *Server) choiceSoon(t kernels.Target, g *request.Gemm) bool {
	if s.opts.ConfigErr != nil || s.opts.Config != nil {
		return true
	}
	ch, id, err := s.model(t.Dev)
	if err != nil {
		return true
	}
	in, ok := predictor.InputOf(g, t.Class)
	if !ok {
		return true
	}
	return s.choiceAtHand(ch, id, in, int(g.Batch), t.Class)
}

// inBackground makes key's decision (compiling in line) on a goroutine
// that has the caller's context current, and returns the pending decision
// that forwards the calls meanwhile with reason why. One goroutine per key.
func (s *Server) inBackground(key decisionKey, t kernels.Target, g *request.Gemm, why request.Reason) *decision {
	p := &decision{reason: why, pending: true}
	if v, loaded := s.decisions.LoadOrStore(key, p); loaded {
		return v.(*decision)
	}
	cctx, err := cuda.CurrentContext()
	gc := *g // the request's fields; its buffers are not touched
	s.background(func() {
		// Compiling needs the caller's context current on this thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err == nil {
			err = cctx.SetCurrent()
		}
		d := &decision{reason: request.FwdNoDriver}
		if err == nil {
			d = s.makeDecision(key, t, &gc, true)
		}
		s.decisions.CompareAndSwap(key, p, d) // Decide may have made it already
	})
	return p
}

// makeDecision chooses for one key: Options.Config when set; else the
// device's model (best configuration first, the next when one fails to
// compile; a wgmma one as its tensor-copy twin, see staged). Under Auto
// a call the model predicts at least the chooser's margin as fast as the
// vendor (checkMargin: near-ties and predicted losses within the models'
// errors included) is served under a check of its first calls, which
// times the model's gemmCandidates best kernels against the vendor and
// keeps the fastest where it wins; the rest go to the vendor. Without a
// model, the heuristic under Always and the vendor under Auto. Without
// compile, a choice whose kernels would have to be compiled (neither
// loaded in the context nor in the disk cache) is the pending reason
// FwdCompiling.
func (s *Server) makeDecision(key decisionKey, t kernels.Target, g *request.Gemm, compile bool) *decision {
	if s.opts.ConfigErr != nil || s.opts.Config != nil {
		return s.heuristicDecision(t, g)
	}
	ch, id, err := s.model(t.Dev)
	if err != nil {
		s.logOnce(err)
		if key.policy == Always {
			return s.heuristicDecision(t, g)
		}
		return &decision{reason: reasonOf(err)}
	}
	// The model chooses among the configurations the class takes (a
	// batch's or an epilogue's kernels have no grid split of K: ptx.Legal);
	// it measured single
	// matrices without an epilogue, whose few instructions are a cost it
	// leaves out, and scores a batch as one wider matrix (ChooseBatch).
	cls := t.Class
	input, ok := predictor.InputOf(g, cls)
	if !ok {
		return &decision{reason: request.FwdUnsupported}
	}
	c := s.choiceFor(ch, id, input, int(g.Batch), cls)
	if key.policy == Auto && !s.worthServing(ch, c, 2*float64(g.M)*float64(g.N)*float64(g.K)) && !t.Class.Batched {
		return &decision{reason: request.FwdPredicted}
	}
	want := 1
	if key.policy == Auto && s.opts.Check {
		want = cmp.Or(s.opts.GemmCandidates, gemmCandidates)
	}
	cfgs := s.candidates(c, ch.Config.ConfigLayout(), t, g)
	if !compile {
		for _, cfg := range cfgs[:min(want, len(cfgs))] {
			if !s.rt.Loaded(t, cfg) {
				return &decision{reason: request.FwdCompiling}
			}
		}
	}
	var ks []*kernels.Kernel
	for _, cfg := range cfgs {
		if k, err := s.rt.Kernel(t, cfg); err == nil {
			ks = append(ks, k)
		}
		if len(ks) == want {
			break
		}
	}
	if len(ks) > 0 {
		d := &decision{k: ks[0], alts: ks[1:], reason: request.Served}
		if key.policy == Auto {
			d.meas = s.newCheck(len(ks), gemmCheck)
		}
		return d
	}
	if key.policy == Always {
		return s.heuristicDecision(t, g)
	}
	return &decision{reason: request.FwdNoKernel}
}

// worthServing reports whether Auto serves a call of flops floating-point
// operations the model chose c for: under a check, where c is predicted at
// least the chooser's Check margin as fast as the vendor, or where the
// vendor is predicted to take at most cheapCheckUS (the check of such a
// call costs a few calls of microseconds, and the models err most on
// small calls, where a predicted loss can hide a kernel faster than the
// vendor's); without checks (Options.Check off), only a predicted win by
// its Margin.
func (s *Server) worthServing(ch *predictor.Chooser, c *predictor.Choice, flops float64) bool {
	if !s.opts.Check {
		return c.Serve
	}
	return checkWorthy(ch, c, flops)
}

// checkWorthy is worthServing under a check: c predicted at least ch's
// Check margin as fast as the vendor, or the vendor predicted to take at
// most cheapCheckUS on the call's flops.
func checkWorthy(ch *predictor.Chooser, c *predictor.Choice, flops float64) bool {
	return c.Ratio() >= ch.Check || flops/(c.VendorTFLOPs*1e6) <= cheapCheckUS
}

// cheapCheckUS is the vendor's predicted time, in microseconds, up to which
// a GEMM is checked whatever the models predict of ours (worthServing).
const cheapCheckUS = 50

// gemmCandidates is how many of the model's best kernels a GEMM's check
// times by default (Options.GemmCandidates; each as many times as the
// vendor): the model ranks the few best of a shape within its error of
// each other, and a kernel's own measurement settles what the prediction
// cannot.
const gemmCandidates = 3

// candidates is the choice c of a model of layout l as the class runs it
// (chosen): its distinct configurations legal here, best first.
func (s *Server) candidates(c *predictor.Choice, l *predictor.ConfigLayout, t kernels.Target, g *request.Gemm) []ptx.GemmConfig {
	return distinctLegal(c, t.Class, t.Dev.Limits, func(cfg ptx.GemmConfig) ptx.GemmConfig { return s.chosen(cfg, l, t, g) })
}

// distinctLegal is c's configurations legal for cls on a device of limits
// lim, each as the class runs it (run), best first, each once.
func distinctLegal(c *predictor.Choice, cls ptx.InputClass, lim ptx.DeviceLimits, run func(ptx.GemmConfig) ptx.GemmConfig) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	for _, r := range c.Top {
		if ptx.Legal(r.Config, cls, lim) != nil {
			continue // a disk cache written for other limits
		}
		cfg := run(r.Config)
		if !slices.Contains(out, cfg) {
			out = append(out, cfg)
		}
	}
	return out
}

// servedConfig is cfg as cls runs it on a device of limits lim, for
// configurations chosen without the class's rules (the heuristic's, a
// tool's): for a batched class the batch's matrices in place of a grid
// split of the reduction (ptx's batch rules); for an epilogue no grid split unless the kernel's one-pass fixup
// sums it (and applies the epilogue); cfg itself for other classes.
func servedConfig(cfg ptx.GemmConfig, cls ptx.InputClass, lim ptx.DeviceLimits) ptx.GemmConfig {
	if cls.Batched {
		cfg.KG = 1
	}
	if cls.Epi != (ptx.Epilogue{}) && cfg.KG > 1 && ptx.Legal(cfg, cls, lim) != nil {
		cfg.KG = 1
	}
	return cfg
}

// heuristicDecision serves with the heuristic's configuration (or
// Options.Config).
func (s *Server) heuristicDecision(t kernels.Target, g *request.Gemm) *decision {
	cfg, err := s.heuristic(t, g)
	if err != nil {
		return &decision{reason: reasonOf(err)}
	}
	k, err := s.rt.Kernel(t, cfg)
	if err != nil {
		return &decision{reason: reasonOf(err)}
	}
	return &decision{k: k, reason: request.Served}
}
