package engine

import (
	"os"
	"runtime"
	"sync"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/internal/cuda"
)

// Serve computes g with ISAAC's kernel when mode decides so and reports
// the outcome: request.Served, or why the vendor must take the call (no
// model for the device, a predicted loss, a search or a compilation still
// running, a measured loss, an error). Under Auto a decision to serve is
// checked on its first calls (see measurement): a call answered
// request.FwdMeasuring goes to the vendor, timed, and the caller calls
// AfterForward once the vendor's call is on the stream. Decisions are cached per context, input class, shape
// and mode, so a repeated call costs two map lookups before its launch.
//
// Under Auto the first call of a shape waits for the model's choice (one
// search), not for the driver to compile the chosen kernel (tens to
// hundreds of milliseconds): a kernel that is neither loaded nor in the
// disk cache is compiled in the background while the vendor takes the
// calls (reason compiling). The first input of a class whose seed pool is
// not drawn yet (nor on disk) does not wait for the choice either: the
// vendor takes it (reason searching) while the pool, the choice and the
// kernel are made in the background. Under Always the call waits for all.
func Serve(g *request.Gemm, mode Mode) request.Reason {
	ctx, info, in, err := prepare(g)
	if err != nil {
		return reasonOf(err)
	}
	d := decide(ctx, in, g, info, mode)
	if d.reason != request.Served {
		return d.reason
	}
	if m := d.meas; m != nil {
		switch m.verdict.Load() {
		case vendorFaster:
			return request.FwdMeasured
		case measuring:
			return m.serve(func() error { return launchGemm(ctx, g, d.lk, info) },
				func() error { return hold(ctx, cuda.Stream(g.Stream)) }, cuda.Stream(g.Stream))
		}
	}
	return reasonOf(launchGemm(ctx, g, d.lk, info))
}

// Decide is what Serve(g, mode) does for g in the current context (making
// the decision now if it is not made yet, whatever ISAAC_SEARCH says): the
// configuration it runs, or the reason it forwards.
// A decision still in the making (a background search or compilation) is
// made here, compiling in line.
func Decide(g *request.Gemm, mode Mode) (ptx.GemmConfig, request.Reason) {
	ctx, info, in, err := prepare(g)
	if err != nil {
		return ptx.GemmConfig{}, reasonOf(err)
	}
	key := decisionKey{ctx, in, int(g.M), int(g.N), int(g.K), mode}
	v, ok := decisions.Load(key)
	if !ok || v.(*decision).pending {
		d := makeDecision(key, g, info, true)
		decisions.Store(key, d)
		v = d
	}
	d := v.(*decision)
	if d.reason != request.Served {
		return ptx.GemmConfig{}, d.reason
	}
	if d.meas != nil && d.meas.verdict.Load() == vendorFaster {
		return ptx.GemmConfig{}, request.FwdMeasured
	}
	return d.lk.cfg, request.Served
}

// decision is what Serve does with a (context, class, shape, mode).
type decision struct {
	lk      *loadedKernel  // the kernel to launch when reason is Served
	reason  request.Reason // Served, or the forward reason
	pending bool           // a background goroutine is making the decision (searching, compiling)
	meas    *measurement   // the model's decision to serve under Auto, checked on the calls (nil: not checked)
}

type decisionKey struct {
	ctx     uint64
	in      ptx.InputClass
	m, n, k int
	mode    Mode
}

var decisions sync.Map // decisionKey → *decision

// undecidedInCapture answers a captured call whose decision is not made.
var undecidedInCapture = &decision{reason: request.FwdCapturing}

// asyncSearch is ISAAC_SEARCH=async: a call whose decision is not made yet
// goes to the vendor while a background goroutine makes it.
var asyncSearch = sync.OnceValue(func() bool { return os.Getenv("ISAAC_SEARCH") == "async" })

func decide(ctx uint64, in ptx.InputClass, g *request.Gemm, info *deviceInfo, mode Mode) *decision {
	key := decisionKey{ctx, in, int(g.M), int(g.N), int(g.K), mode}
	if v, ok := decisions.Load(key); ok {
		return v.(*decision)
	}
	if cuda.Stream(g.Stream).Capturing() {
		// A call captured into a graph makes no decision: that may load
		// or compile a kernel, which is not the graph's work, and a graph
		// replays whatever the call put on the stream. The decision is
		// made in the background, and the graph gets the vendor's call.
		inBackground(key, g, info, request.FwdSearching)
		return undecidedInCapture
	}
	if asyncSearch() || mode == Auto && !choiceSoon(key, g, info) {
		return inBackground(key, g, info, request.FwdSearching)
	}
	d := makeDecision(key, g, info, mode != Auto)
	if d.reason == request.FwdCompiling {
		return inBackground(key, g, info, request.FwdCompiling)
	}
	v, _ := decisions.LoadOrStore(key, d)
	return v.(*decision)
}

// choiceSoon reports whether the decision for key needs at most one model
// search (choiceAtHand), or no model choice at all (ISAAC_CONFIG, no usable
// model, an input the model does not describe: makeDecision settles those
// at once). The first input of a class whose seed pool is neither drawn
// nor on disk is not: under Auto its decision is made in the background
// while the vendor takes the call, since the kernel it chooses would, in
// such a process, almost always have to be compiled before serving anyway.
func choiceSoon(key decisionKey, g *request.Gemm, info *deviceInfo) bool {
	if forced, err := forcedConfig(); err != nil || forced != nil {
		return true
	}
	ch, id, err := info.chooser()
	if err != nil {
		return true
	}
	in, ok := predictor.InputOf(g, key.in)
	if !ok {
		return true
	}
	return choiceAtHand(ch, id, in, key.in)
}

// inBackground makes key's decision (compiling in line) on a goroutine
// that has the caller's context current, and returns the pending decision
// that forwards the calls meanwhile with reason why. One goroutine per key.
func inBackground(key decisionKey, g *request.Gemm, info *deviceInfo, why request.Reason) *decision {
	p := &decision{reason: why, pending: true}
	if v, loaded := decisions.LoadOrStore(key, p); loaded {
		return v.(*decision)
	}
	cctx, err := cuda.CurrentContext()
	gc := *g // the request's fields; its buffers are not touched
	go func() {
		// Compiling needs the caller's context current on this thread.
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err == nil {
			err = cctx.SetCurrent()
		}
		d := &decision{reason: request.FwdNoDriver}
		if err == nil {
			d = makeDecision(key, &gc, info, true)
		}
		decisions.CompareAndSwap(key, p, d) // Decide may have made it already
	}()
	return p
}

// makeDecision chooses for one key: ISAAC_CONFIG when set; else the
// device's model (best configuration first, the next when one fails to
// compile; a wgmma one as its tensor-copy twin, see staged), served under
// Auto only when it predicts a win; without a model,
// the heuristic under Always and the vendor under Auto. Without compile, a
// model's choice whose kernel would have to be compiled (neither loaded in
// the context nor in the disk cache) is the pending reason FwdCompiling.
func makeDecision(key decisionKey, g *request.Gemm, info *deviceInfo, compile bool) *decision {
	if forced, err := forcedConfig(); err != nil || forced != nil {
		return heuristicDecision(key, info)
	}
	ch, id, err := info.chooser()
	if err != nil {
		logOnce(err)
		if key.mode == Always {
			return heuristicDecision(key, info)
		}
		return &decision{reason: reasonOf(err)}
	}
	input, ok := predictor.InputOf(g, key.in)
	if !ok {
		return &decision{reason: request.FwdUnsupported}
	}
	c := choiceFor(ch, id, input, key.in)
	if key.mode == Auto && !c.Serve {
		return &decision{reason: request.FwdPredicted}
	}
	for _, r := range c.Top {
		if ptx.Legal(r.Config, key.in, info.limits) != nil {
			continue // a disk cache written for other limits
		}
		cfg := staged(r.Config, key.in, info)
		if !compile && !kernelCached(key.ctx, cfg, key.in, info) {
			return &decision{reason: request.FwdCompiling}
		}
		if lk, err := kernelFor(key.ctx, cfg, key.in, info); err == nil {
			d := &decision{lk: lk, reason: request.Served}
			if key.mode == Auto {
				d.meas = newMeasurement()
			}
			return d
		}
	}
	if key.mode == Always {
		return heuristicDecision(key, info)
	}
	return &decision{reason: request.FwdNoKernel}
}

// heuristicDecision serves with the generator's heuristic (or ISAAC_CONFIG).
func heuristicDecision(key decisionKey, info *deviceInfo) *decision {
	lk, err := kernelForCall(key.ctx, key.in, key.m, key.n, key.k, nil, info)
	if err != nil {
		return &decision{reason: reasonOf(err)}
	}
	return &decision{lk: lk, reason: request.Served}
}

var logged sync.Map // error text → struct{}

// logOnce reports a model that cannot be used, once per process, on
// standard error when ISAAC_LOG is set (the forward counters count the
// calls it sends to the vendor).
func logOnce(err error) {
	if v := os.Getenv("ISAAC_LOG"); v == "" || v == "0" {
		return
	}
	if _, seen := logged.LoadOrStore(err.Error(), struct{}{}); !seen {
		os.Stderr.WriteString("isaac: " + err.Error() + "\n")
	}
}
