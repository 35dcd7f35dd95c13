package serve

import (
	"errors"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// Server decides, for each call, whether ISAAC serves it, and serves it.
// Its state (the decisions, the devices' models, the model's choices, the
// checks' hold kernels) lives in the value; the shim keeps one for the
// process, built from the environment once. It is safe for concurrent use
// from many threads and contexts.
type Server struct {
	opts Options
	rt   *kernels.Runtime

	decisions  sync.Map // decisionKey → *decision
	convs      sync.Map // convKey → *convDecision
	models     sync.Map // cuda.Device → *deviceModel
	convModels sync.Map // cuda.Device → *deviceConvModel
	convStores sync.Map // classKey → *convChoices: the convolution model's choices, kept on disk
	stores     sync.Map // classKey → *classChoices: the model's choices, per model and class, kept on disk
	holds      sync.Map // context ID → *ctxGate
	evictors   sync.Map // context ID → *evictor
	logged     sync.Map // error text → struct{}

	statsMu     sync.Mutex
	choiceStats ChoiceStats

	bgMu    sync.Mutex     // guards closing and bg's additions
	closing bool           // Close was called: no more background work
	bg      sync.WaitGroup // the decisions made in the background
	bgRuns  int            // how many were started (under bgMu)
}

// New is a server with options o and a kernel runtime of its own that
// keeps compiled kernels under o.CacheDir and compiles o.Loads at once
// (0: kernels.DefaultLoads).
func New(o Options) *Server {
	loads := o.Loads
	if loads <= 0 {
		loads = kernels.DefaultLoads
	}
	rt := kernels.NewLoading(o.CacheDir, loads)
	rt.SetDependentLaunch(o.DependentLaunch)
	return NewOn(rt, o)
}

// NewOn is a server with options o on the kernel runtime rt (whose
// kernels it shares with rt's other users).
func NewOn(rt *kernels.Runtime, o Options) *Server { return &Server{opts: o, rt: rt} }

// Options are the server's options.
func (s *Server) Options() Options { return s.opts }

// Runtime is the server's kernel runtime.
func (s *Server) Runtime() *kernels.Runtime { return s.rt }

// A GemmCall is an intercepted GEMM as the shim holds it: its own
// arguments, and the handle's state (stream, pointer and math modes, the
// scalars), which costs the vendor's getters and is read only for a call
// that may be served. A call the server forwards for its check
// (request.FwdMeasuring) gets a token, which the shim gives to AfterGemm
// once the vendor's call is on the stream.
type GemmCall interface {
	Arguments(g *request.Gemm)
	HandleState(g *request.Gemm) request.Reason
	SetToken(t Token)
}

// Gemm is the shim's path for one call: the call is classified from its
// arguments alone (a call the vendor would reject, or a type ISAAC does
// not serve, or ISAAC_POLICY=never, goes to the vendor untouched), then
// completed with its handle's state and served under the policy. Any
// other answer than request.Served is the reason the vendor takes it.
func (s *Server) Gemm(c GemmCall) request.Reason {
	var g request.Gemm
	c.Arguments(&g)
	if r := Classify(&g); r != request.Served {
		return r
	}
	if s.opts.Policy == Never {
		return request.FwdPolicy
	}
	if r := c.HandleState(&g); r != request.Served {
		return r
	}
	r, t := s.Serve(&g)
	if r == request.FwdMeasuring {
		c.SetToken(t)
	}
	return r
}

// LtPolicy is request.Served where the policy lets cublasLtMatmul calls
// be served (Always; Auto with Options.LtAuto), else request.FwdPolicy:
// cuBLASLt takes every one.
func (s *Server) LtPolicy() request.Reason {
	if s.opts.Policy == Never || s.opts.Policy == Auto && !s.opts.LtAuto {
		return request.FwdPolicy
	}
	return request.Served
}

// Token is an open sample of a check: the vendor's timed call, closed by
// AfterForward.
type Token struct {
	m      *measurement
	stream cuda.Stream
}

// AfterForward follows a call that Serve forwarded with reason
// request.FwdMeasuring, once the vendor's call is on the stream: it closes
// the vendor's timing. The zero Token is ignored.
func (s *Server) AfterForward(t Token) {
	if t.m != nil {
		t.m.afterForward(t.stream)
	}
}

// Serve computes g (valid, of a served type, with its handle's state) with
// ISAAC's kernel when the policy decides so and reports the outcome:
// request.Served, or why the vendor must take the call. Under Auto a
// decision to serve is checked on its first calls: a call answered
// request.FwdMeasuring goes to the vendor, timed, and the caller then
// passes the token to AfterForward once the vendor's call is on the
// stream. A repeated call costs two map lookups before its launch.
func (s *Server) Serve(g *request.Gemm) (request.Reason, Token) {
	t, err := s.rt.Target(g)
	if err != nil {
		return reasonOf(err), Token{}
	}
	policy := s.opts.Policy
	if policy == Never {
		return request.FwdPolicy, Token{}
	}
	d := s.decide(t, g, policy)
	if d.reason != request.Served {
		return d.reason, Token{}
	}
	stream := cuda.Stream(g.Stream)
	if m := d.meas; m != nil {
		switch m.verdict.Load() {
		case vendorFaster:
			return request.FwdMeasured, Token{}
		case measuring:
			r := m.serve(func(cand int) error { return s.rt.Launch(t, g, d.kernel(cand)) },
				func() (func(), error) { return s.beforeSample(t.Ctx, stream) }, stream)
			if r == request.FwdMeasuring {
				return r, Token{m, stream}
			}
			return r, Token{}
		}
	}
	return reasonOf(s.rt.Launch(t, g, d.served())), Token{}
}

// Decide is what Serve does with g in the current context under the
// server's policy (making the decision now if it is not made yet, whatever
// Options.AsyncSearch says, and compiling in line): the configuration it
// runs, or the reason it forwards.
func (s *Server) Decide(g *request.Gemm) (ptx.GemmConfig, request.Reason) {
	t, err := s.rt.Target(g)
	if err != nil {
		return ptx.GemmConfig{}, reasonOf(err)
	}
	key := keyOf(t, g, s.opts.Policy)
	v, ok := s.decisions.Load(key)
	if !ok || v.(*decision).pending {
		d := s.makeDecision(key, t, g, true)
		s.decisions.Store(key, d)
		v = d
	}
	d := v.(*decision)
	if d.reason != request.Served {
		return ptx.GemmConfig{}, d.reason
	}
	if d.meas != nil && d.meas.verdict.Load() == vendorFaster {
		return ptx.GemmConfig{}, request.FwdMeasured
	}
	return d.served().Config(), request.Served
}

// Staged is cfg as the server runs a configuration it chose itself (the
// model's or the heuristic's): one its class takes (servedConfig), its
// tensor-copy twin where that is legal and Options.TMA holds
// (ptx.TMATwin; for a batch space.BatchStaged, persistent over the batch's
// tiles where they are many).
func (s *Server) Staged(g *request.Gemm, cfg ptx.GemmConfig) (ptx.GemmConfig, error) {
	t, err := s.rt.Target(g)
	if err != nil {
		return cfg, err
	}
	return s.staged(servedConfig(cfg, t.Class, t.Dev.Limits), t, g), nil
}

// Chosen is cfg as the server runs a configuration that model m chose for
// g (chosen).
func (s *Server) Chosen(g *request.Gemm, cfg ptx.GemmConfig, m *predictor.Model) (ptx.GemmConfig, error) {
	t, err := s.rt.Target(g)
	if err != nil {
		return cfg, err
	}
	return s.chosen(servedConfig(cfg, t.Class, t.Dev.Limits), m.ConfigLayout(), t, g), nil
}

// chosen is c, a configuration that a model of layout l chose, as the
// server runs it: where l tells staged and pipelined twins apart
// (ConfigLayout.Staging) the model has ranked them, and c runs as it is
// (with Options.TMA off, a staged c runs unstaged: its plain twin at its
// own k-slice); a batch's, and any choice of a model without Staging, is
// staged (staged).
func (s *Server) chosen(c ptx.GemmConfig, l *predictor.ConfigLayout, t kernels.Target, g *request.Gemm) ptx.GemmConfig {
	if !s.opts.TMA {
		if l.Staging && !t.Class.Batched && c.TMA != 0 {
			c.TMA, c.PS = 0, 0
		}
		return c
	}
	return chosenStaged(c, l, t.Class, t.Dev.Limits, g)
}

// chosenStaged is chosen with Options.TMA on (the default), for class cls
// on a device of limits lim.
func chosenStaged(c ptx.GemmConfig, l *predictor.ConfigLayout, cls ptx.InputClass, lim ptx.DeviceLimits, g *request.Gemm) ptx.GemmConfig {
	if !l.Staging || cls.Batched {
		return stagedConfig(c, cls, lim, g)
	}
	return c
}

func (s *Server) staged(c ptx.GemmConfig, t kernels.Target, g *request.Gemm) ptx.GemmConfig {
	if !s.opts.TMA {
		return c
	}
	return stagedConfig(c, t.Class, t.Dev.Limits, g)
}

// stagedConfig is c staged by the tensor copy engine as class cls runs it
// for g on a device of limits lim: a batch's staging (space.BatchStaged),
// else c's copy-engine twin where it has one (ptx.TMATwin).
func stagedConfig(c ptx.GemmConfig, cls ptx.InputClass, lim ptx.DeviceLimits, g *request.Gemm) ptx.GemmConfig {
	if cls.Batched {
		return space.BatchStaged(c, cls, int(g.M), int(g.N), int(g.K), int(g.Batch), lim)
	}
	return ptx.TMATwin(c, cls, lim)
}

// Heuristic is the configuration the server runs for g without a model:
// Options.Config, else the generator's heuristic (staged), legal for g's
// class on the current device.
func (s *Server) Heuristic(g *request.Gemm) (ptx.GemmConfig, error) {
	t, err := s.rt.Target(g)
	if err != nil {
		return ptx.GemmConfig{}, err
	}
	return s.heuristic(t, g)
}

func (s *Server) heuristic(t kernels.Target, g *request.Gemm) (ptx.GemmConfig, error) {
	if s.opts.ConfigErr != nil {
		return ptx.GemmConfig{}, wrapUnsupported(s.opts.ConfigErr)
	}
	if s.opts.Config == nil {
		return s.defaultConfig(t, g)
	}
	c := *s.opts.Config
	if c.KG > 1 && !t.Dev.Pools {
		c.KG = 1 // no stream-ordered workspace on this device
	}
	if err := ptx.Legal(c, t.Class, t.Dev.Limits); err != nil {
		return ptx.GemmConfig{}, wrapUnsupported(err)
	}
	return c, nil
}

// defaultConfig is the generator's heuristic configuration for g (for a
// batch, its tiles counted over every matrix), as the server runs it
// (servedConfig, staged), legal for g's class.
func (s *Server) defaultConfig(t kernels.Target, g *request.Gemm) (ptx.GemmConfig, error) {
	batch := 1
	if t.Class.Batched {
		batch = int(g.Batch)
	}
	c := space.DefaultBatch(t.Class, int(g.M), int(g.N), int(g.K), batch, t.Dev.Limits)
	if c.KG > 1 && !t.Dev.Pools {
		c.KG = 1 // no stream-ordered workspace on this device
	}
	c = servedConfig(c, t.Class, t.Dev.Limits)
	if err := ptx.Legal(c, t.Class, t.Dev.Limits); err != nil {
		return ptx.GemmConfig{}, wrapUnsupported(err)
	}
	return s.staged(c, t, g), nil
}

func wrapUnsupported(err error) error {
	return fmt.Errorf("%w: %v", kernels.ErrUnsupported, err)
}

// reasonOf turns an error into a forward reason.
func reasonOf(err error) request.Reason {
	switch {
	case err == nil:
		return request.Served
	case errors.Is(err, cuda.ErrNoDriver), errors.Is(err, kernels.ErrNoContext):
		return request.FwdNoDriver
	case errors.Is(err, kernels.ErrUnsupported):
		return request.FwdUnsupported
	case errors.Is(err, ErrNoWeights):
		return request.FwdNoWeights
	case errors.Is(err, ErrWeights):
		return request.FwdWeights
	}
	return request.FwdError
}

// logOnce reports a model that cannot be used, once per process, on
// standard error when Options.Log is set (the forward counters count the
// calls it sends to the vendor).
func (s *Server) logOnce(err error) {
	if !s.opts.Log {
		return
	}
	if _, seen := s.logged.LoadOrStore(err.Error(), struct{}{}); !seen {
		os.Stderr.WriteString("isaac: " + err.Error() + "\n")
	}
}

// background runs f on a goroutine of its own (a decision made in the
// background), unless the server is closing: then f does not run and
// background reports false.
func (s *Server) background(f func()) bool {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	if s.closing {
		return false
	}
	s.bgRuns++
	s.bg.Go(f)
	return true
}

// BackgroundRuns is how many decisions the server has made (or begun) in
// the background.
func (s *Server) BackgroundRuns() int {
	s.bgMu.Lock()
	defer s.bgMu.Unlock()
	return s.bgRuns
}

// Close ends the server's background work for the process's exit: no
// decision starts in the background any more (their calls go to the
// vendor), its runtime loads no more kernels (kernels.Runtime.Close), and
// Close waits at most wait for the decisions under way, which end soon
// once they cannot load kernels. It reports whether they all ended.
func (s *Server) Close(wait time.Duration) bool {
	deadline := time.Now().Add(wait)
	s.bgMu.Lock()
	s.closing = true
	s.bgMu.Unlock()
	if !s.rt.Close(wait) {
		return false
	}
	done := make(chan struct{})
	go func() {
		s.bg.Wait()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(time.Until(deadline)):
		return false
	}
}
