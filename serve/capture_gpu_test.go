package serve

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
)

// shimCall does what the shim's entry point does with g: Serve, and the
// vendor's call (with AfterForward when the check asked for it) whenever
// Serve does not serve.
func shimCall(t *testing.T, h cublas.Handle, g *request.Gemm, s *Server) request.Reason {
	t.Helper()
	r, tok := s.Serve(g)
	if r != request.Served {
		if err := h.Gemm(g); err != nil {
			t.Errorf("the vendor's call after reason %v: %v", r, err)
		}
		s.AfterForward(tok)
	}
	return r
}

// captureState is one state the decision for a call may be in when the
// call is captured, set up outside the capture.
type captureState struct {
	name   string
	policy Policy
	// setup prepares the decision for g's input on stream s and returns the
	// reasons a captured call may be answered with (the first is the one
	// expected; a pending decision may finish before the capture).
	setup func(t *testing.T, h cublas.Handle, g *request.Gemm, s cuda.Stream) []request.Reason
	// fresh: the state needs an input of its own (a new shape each time).
	fresh bool
	cfg   string // a configuration the state's decision serves with ("" for none)
	kase  gemmcheck.Case
}

const (
	// captureCfgTN serves FP32 TN 2560×16×2560 (no split).
	captureCfgTN = "ms=4,ns=2,ml=8,nl=16,u=64,ks=2,kl=8,kg=1,va=2,vb=2,st=4,math=ffma"
	// captureCfgSplit is a split-K configuration (a workspace and counters).
	captureCfgSplit = "ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=2,kg=8,va=1,vb=1,st=1,math=ffma"
	// captureCfgTMA stages its tiles with the tensor copy engine (tensor
	// maps in the parameters).
	captureCfgTMA = "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16acc,tma=1"
)

var (
	captureCaseTN    = gemmcheck.Case{Type: gemmcheck.Types[0], TransA: request.OpT, M: 2560, N: 16, K: 2560, Alpha: 1, Beta: 0.5, Seed: 71}
	captureCaseSplit = gemmcheck.Case{Type: gemmcheck.Types[0], TransA: request.OpT, M: 33, N: 17, K: 4099, Alpha: 1, Beta: 0.25, Seed: 72}
	captureCaseTMA   = gemmcheck.Case{Type: gemmcheck.Types[3], TransB: request.OpT, M: 512, N: 512, K: 512, Alpha: 1, Beta: 0, Seed: 73}
)

// captureStates are the states of the issue: a shape's first call, a shape
// whose decision is being made (searched, compiled), a decision to serve
// under its check, checked and kept, checked and turned to the vendor,
// unchecked (ISAAC_MEASURE=0, or ISAAC_POLICY=always), split-K on a new
// stream and on a stream that keeps a workspace, a TMA kernel; under the
// default policy (Auto) and Always.
func captureStates() []captureState {
	pending := func(t *testing.T, h cublas.Handle, g *request.Gemm, s cuda.Stream) []request.Reason {
		srv := testServer(Auto)
		tg, err := srv.rt.Target(g)
		if err != nil {
			t.Fatal(err)
		}
		srv.inBackground(keyOf(tg, g, Auto), tg, g, request.FwdSearching)
		// Made in the background (a search, and the kernel compiled unless
		// it is loaded): the capture, microseconds away, meets it pending.
		return []request.Reason{request.FwdSearching, request.FwdPredicted, request.Served,
			request.FwdCapturing, request.FwdNoKernel, request.FwdNoWeights}
	}
	first := func(t *testing.T, h cublas.Handle, g *request.Gemm, s cuda.Stream) []request.Reason {
		return []request.Reason{request.FwdCapturing}
	}
	checked := func(verdict int32) func(t *testing.T, h cublas.Handle, g *request.Gemm, s cuda.Stream) []request.Reason {
		return func(t *testing.T, h cublas.Handle, g *request.Gemm, s cuda.Stream) []request.Reason {
			srv := testServer(Auto)
			m := srv.newCheck(1, gemmCheck)
			srv.storeDecision(t, g, captureCfgTN, m)
			if verdict != measuring {
				m.settle(verdict)
			} else {
				// Two calls outside the capture: the check has begun,
				// its events recorded (maybe not complete yet).
				for i := 0; i < 2; i++ {
					shimCall(t, h, g, srv)
				}
			}
			switch verdict {
			case oursFaster:
				return []request.Reason{request.Served}
			case vendorFaster:
				return []request.Reason{request.FwdMeasured}
			}
			return []request.Reason{request.FwdCapturing}
		}
	}
	serving := func(cfg string, p Policy, warm bool) func(t *testing.T, h cublas.Handle, g *request.Gemm, s cuda.Stream) []request.Reason {
		return func(t *testing.T, h cublas.Handle, g *request.Gemm, s cuda.Stream) []request.Reason {
			testServer(p).storeDecision(t, g, cfg, nil)
			if warm {
				// The stream's first split-K call outside the capture
				// makes the workspace it keeps.
				if r := shimCall(t, h, g, testServer(p)); r != request.Served {
					t.Fatalf("warm-up call: %v", r)
				}
			}
			return []request.Reason{request.Served}
		}
	}
	return []captureState{
		{name: "first call of a shape", policy: Auto, setup: first, fresh: true, kase: captureCaseTN},
		{name: "decision being made (search, compile)", policy: Auto, setup: pending, fresh: true, kase: captureCaseTN},
		{name: "served, under its check", policy: Auto, setup: checked(measuring), fresh: true, kase: captureCaseTN},
		{name: "served, checked faster", policy: Auto, setup: checked(oursFaster), fresh: true, kase: captureCaseTN},
		{name: "served, checked slower", policy: Auto, setup: checked(vendorFaster), fresh: true, kase: captureCaseTN},
		{name: "served, unchecked", policy: Auto, setup: serving(captureCfgTN, Auto, false), fresh: true, kase: captureCaseTN},
		{name: "split-K, new stream", policy: Auto, setup: serving(captureCfgSplit, Auto, false), fresh: true, kase: captureCaseSplit},
		{name: "split-K, stream with a kept workspace", policy: Auto, setup: serving(captureCfgSplit, Auto, true), fresh: true, kase: captureCaseSplit},
		{name: "TMA kernel", policy: Auto, setup: serving(captureCfgTMA, Auto, false), fresh: true, kase: captureCaseTMA},
		{name: "always: first call of a shape", policy: Always, setup: first, fresh: true, kase: captureCaseTN},
		{name: "always: served", policy: Always, setup: serving(captureCfgTN, Always, false), fresh: true, kase: captureCaseTN},
		{name: "always: split-K, new stream", policy: Always, setup: serving(captureCfgSplit, Always, false), fresh: true, kase: captureCaseSplit},
	}
}

// TestGPUCaptureStates: a GEMM captured into a graph, in each capture mode
// and each state its decision may be in, leaves the capture valid; the
// graph, replayed twice, computes the right result (served or the
// vendor's); and the captured call is served only from a final decision.
func TestGPUCaptureStates(t *testing.T) {
	gemmcheck.GPUThread(t)
	h, err := cublas.New()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Destroy()
	limits, err := testRT.Limits()
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range cuda.CaptureModes {
		for _, st := range captureStates() {
			name := fmt.Sprintf("%s/%s", mode, st.name)
			c := st.kase
			if st.fresh {
				// A shape no other state (nor an earlier run of the
				// test) has used: decisions are per shape (M grows by 8:
				// every column stays 16-byte aligned).
				c.M += 8 * int(freshShape.Add(1))
			}
			if c.Type.AB == request.R16F && limits.SMMajor < 9 {
				t.Logf("%s: skipped (no wgmma on sm_%d%d)", name, limits.SMMajor, limits.SMMinor)
				continue
			}
			d := gemmcheck.NewData(c)
			b, err := gemmcheck.Upload(c, d)
			if err != nil {
				t.Fatal(err)
			}
			s, err := cuda.NewStream()
			if err != nil {
				t.Fatal(err)
			}
			g := b.Request(s)
			want := st.setup(t, h, g, s)
			if err := s.Synchronize(); err != nil {
				t.Fatal(err)
			}
			if err := b.ResetC(); err != nil {
				t.Fatal(err)
			}
			if err := s.BeginCapture(mode); err != nil {
				t.Fatal(err)
			}
			r := shimCall(t, h, g, testServer(st.policy))
			status, _ := s.CaptureStatus()
			graph, err := s.EndCapture()
			if err != nil || status != cuda.CaptureActive {
				t.Errorf("%s: reason %v; capture status before its end %v, end: %v", name, r, status, err)
				s.Destroy()
				b.Free()
				continue
			}
			if !contains(want, r) {
				t.Errorf("%s: reason %v, want one of %v", name, r, want)
			}
			if err := replayAndCheck(graph, s, b, c, d); err != nil {
				t.Errorf("%s (reason %v): %v", name, r, err)
			}
			t.Logf("%s: reason %v, capture valid, graph replayed twice, right", name, r)
			graph.Destroy()
			s.Destroy()
			b.Free()
		}
	}
}

// replayAndCheck instantiates graph and launches it twice on s, each time
// from C's initial contents, checking the result against the reference.
func replayAndCheck(graph cuda.Graph, s cuda.Stream, b *gemmcheck.Buffers, c gemmcheck.Case, d *gemmcheck.Data) error {
	exec, err := graph.Instantiate()
	if err != nil {
		return fmt.Errorf("instantiate: %w", err)
	}
	defer exec.Destroy()
	for i := 0; i < 2; i++ {
		if err := b.ResetC(); err != nil {
			return err
		}
		if err := exec.Launch(s); err != nil {
			return fmt.Errorf("replay %d: %w", i, err)
		}
		got, err := b.ReadC(s)
		if err != nil {
			return fmt.Errorf("replay %d: %w", i, err)
		}
		if res := d.Check(c, got); res.Bad > 0 {
			return fmt.Errorf("replay %d: %d wrong, first %s", i, res.Bad, res.FirstBad)
		}
	}
	return nil
}

func contains(list []request.Reason, r request.Reason) bool {
	for _, v := range list {
		if v == r {
			return true
		}
	}
	return false
}

// TestGPUCaptureWhileServing: while one thread captures GEMMs in each mode,
// eight other threads, each with its own handle and stream, serve GEMMs of
// shared and new shapes under the default policy (decisions searched and
// compiled in the background, kernels loaded, the check's events created
// and queried) and under Always (kernels compiled in line). Every capture
// stays valid and its graph computes the right result. A control run in
// which the other threads only call the vendor shows that the vendor's own
// calls leave a capture valid; with the binding's relaxed mode turned off,
// internal/cuda's TestGPUCaptureUnsafeCalls shows, call by call, what our
// calls did to a capture before they were made in relaxed mode.
func TestGPUCaptureWhileServing(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	h, err := cublas.New()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Destroy()
	// The captured calls: shapes served by final decisions and one not.
	captured := []struct {
		c   gemmcheck.Case
		cfg string // "" leaves the decision to the engine
	}{
		{gemmcheck.Case{Type: gemmcheck.Types[0], TransA: request.OpT, M: 2560, N: 16, K: 2560, Alpha: 1, Beta: 0, Seed: 81}, captureCfgTN},
		{gemmcheck.Case{Type: gemmcheck.Types[0], TransA: request.OpT, M: 33, N: 17, K: 4099, Alpha: 1, Beta: 1, Seed: 82}, captureCfgSplit},
		{gemmcheck.Case{Type: gemmcheck.Types[2], M: 300, N: 200, K: 100, Alpha: 2, Beta: 0, Seed: 83}, ""},
	}
	for _, vendorOnly := range []bool{true, false} {
		for _, mode := range cuda.CaptureModes {
			name := fmt.Sprintf("%s capture, the other threads %s", mode,
				map[bool]string{true: "call the vendor only", false: "serve"}[vendorOnly])
			valid, err := captureWhileOthersServe(t, ctx, h, mode, vendorOnly, captured)
			if err != nil {
				t.Errorf("%s: capture valid %v: %v", name, valid, err)
			} else {
				t.Logf("%s: capture valid", name)
			}
		}
	}
}

// workerShapes are the shared shapes the other threads run, and each
// round adds new ones (first calls, searched and compiled in the
// background or in line).
var workerShapes = []gemmcheck.Case{
	{Type: gemmcheck.Types[0], M: 256, N: 256, K: 256, Alpha: 1, Beta: 0, Seed: 91},
	{Type: gemmcheck.Types[0], TransA: request.OpT, M: 640, N: 16, K: 640, Alpha: 1, Beta: 0, Seed: 92},
	{Type: gemmcheck.Types[2], M: 128, N: 128, K: 512, Alpha: 1, Beta: 0, Seed: 93},
	{Type: gemmcheck.Types[3], TransB: request.OpT, M: 256, N: 64, K: 256, Alpha: 1, Beta: 0, Seed: 94},
	{Type: gemmcheck.Types[5], M: 192, N: 96, K: 768, Alpha: 1, Beta: 0, Seed: 95},
}

var captureRound, freshShape atomic.Int64

// captureWhileOthersServe runs one capture on this thread (ctx current)
// while eight worker threads call GEMMs, and checks the graph. It returns
// whether the capture stayed valid, and any other failure.
func captureWhileOthersServe(t *testing.T, ctx cuda.Context, h cublas.Handle, mode cuda.CaptureMode, vendorOnly bool,
	captured []struct {
		c   gemmcheck.Case
		cfg string
	}) (bool, error) {
	round := int(captureRound.Add(1))
	s, err := cuda.NewStream()
	if err != nil {
		return false, err
	}
	defer s.Destroy()
	type job struct {
		c gemmcheck.Case
		d *gemmcheck.Data
		b *gemmcheck.Buffers
	}
	var jobs []job
	for _, cc := range captured {
		c := cc.c
		d := gemmcheck.NewData(c)
		b, err := gemmcheck.Upload(c, d)
		if err != nil {
			return false, err
		}
		defer b.Free()
		if cc.cfg != "" {
			testServer(Auto).storeDecision(t, b.Request(s), cc.cfg, nil)
		}
		jobs = append(jobs, job{c, d, b})
	}

	stop := make(chan struct{})
	var wg, ready sync.WaitGroup
	var calls atomic.Int64
	// broke is the first call seen to end the capture (the capture was
	// active before it and invalidated after it), for the failure message.
	var capturing atomic.Bool
	var broke atomic.Pointer[string]
	watch := func(what func() string) func() {
		if !capturing.Load() {
			return func() {}
		}
		before, _ := s.CaptureStatus()
		return func() {
			if after, _ := s.CaptureStatus(); before == cuda.CaptureActive && after != cuda.CaptureActive {
				msg := what()
				broke.CompareAndSwap(nil, &msg)
			}
		}
	}
	errs := make(chan error, 64)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		ready.Add(1)
		go func(w int) {
			defer wg.Done()
			readied := false
			defer func() {
				if !readied {
					ready.Done()
				}
			}()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if err := ctx.SetCurrent(); err != nil {
				errs <- err
				return
			}
			wh, err := cublas.New()
			if err != nil {
				errs <- err
				return
			}
			defer wh.Destroy()
			ws, err := cuda.NewStream()
			if err != nil {
				errs <- err
				return
			}
			defer ws.Destroy()
			shapes := append([]gemmcheck.Case(nil), workerShapes...)
			for i := range 4 {
				// New shapes each round and worker: first calls.
				c := workerShapes[i%len(workerShapes)]
				c.M += 8 * (round*64 + w*4 + i + 1)
				shapes = append(shapes, c)
			}
			// The application's own allocations come before the capture.
			var bufs []*gemmcheck.Buffers
			for _, c := range shapes {
				b, err := gemmcheck.Upload(c, gemmcheck.NewData(c))
				if err != nil {
					errs <- err
					return
				}
				defer b.Free()
				bufs = append(bufs, b)
			}
			for i := 0; ; i++ {
				if i == len(workerShapes) {
					// The shared shapes called once: every worker is
					// running when the capture begins, its new shapes'
					// first calls still ahead.
					readied = true
					ready.Done()
				}
				select {
				case <-stop:
					if err := ws.Synchronize(); err != nil {
						errs <- fmt.Errorf("worker %d: %v", w, err)
					}
					return
				default:
				}
				b := bufs[i%len(bufs)]
				g := b.Request(ws)
				srv := testServer(Auto)
				if w%4 == 3 {
					srv = testServer(Always)
				}
				r := request.FwdPolicy
				done := watch(func() string {
					return fmt.Sprintf("worker %d's call %d, %s %d×%d×%d under %v: reason %v", w, i, shapes[i%len(shapes)].Type.Name,
						g.M, g.N, g.K, srv.opts.Policy, r)
				})
				var tok Token
				if !vendorOnly {
					r, tok = srv.Serve(g)
				}
				if r != request.Served {
					if err := wh.Gemm(g); err != nil {
						errs <- fmt.Errorf("worker %d: vendor: %v", w, err)
						return
					}
					srv.AfterForward(tok)
				}
				done()
				// No synchronization here: during another thread's
				// global capture it is an unsafe call, and invalidates
				// the capture (the application's own doing, not ours).
				calls.Add(1)
			}
		}(w)
	}
	// Once the workers run, capture the jobs for a while, calling each
	// again and again, so that the workers' first calls of new shapes fall
	// inside the capture.
	ready.Wait()
	if err := s.BeginCapture(mode); err != nil {
		close(stop)
		wg.Wait()
		return false, err
	}
	before := calls.Load()
	capturing.Store(true)
	var reasons []request.Reason
	deadline := time.Now().Add(300 * time.Millisecond)
	for n := 0; time.Now().Before(deadline) || n == 0; n++ {
		if st, _ := s.CaptureStatus(); st != cuda.CaptureActive {
			break
		}
		for i, j := range jobs {
			var r request.Reason
			done := watch(func() string { return fmt.Sprintf("the capturing thread's call %d of job %d: reason %v", n, i, r) })
			r = shimCall(t, h, j.b.Request(s), testServer(Auto))
			done()
			reasons = append(reasons, r)
		}
		time.Sleep(20 * time.Millisecond)
	}
	status, _ := s.CaptureStatus()
	capturing.Store(false)
	graph, endErr := s.EndCapture()
	during := calls.Load() - before
	close(stop)
	wg.Wait()
	close(errs)
	for err := range errs {
		return false, err
	}
	if endErr != nil || status != cuda.CaptureActive {
		first := "not seen"
		if p := broke.Load(); p != nil {
			first = *p
		}
		return false, fmt.Errorf("capture status %v, end %v, after %d worker calls; the call that ended it: %s",
			status, endErr, calls.Load(), first)
	}
	defer graph.Destroy()
	exec, err := graph.Instantiate()
	if err != nil {
		return true, err
	}
	defer exec.Destroy()
	for _, j := range jobs {
		if err := j.b.ResetC(); err != nil {
			return true, err
		}
	}
	// The graph replays every captured call in order; with beta ≠ 0 a call
	// repeated n times is not the reference's, so check only the jobs
	// whose beta is 0, and the others' results are checked by the states
	// test.
	if err := exec.Launch(s); err != nil {
		return true, err
	}
	for _, j := range jobs {
		if j.c.Beta != 0 {
			continue
		}
		got, err := j.b.ReadC(s)
		if err != nil {
			return true, err
		}
		if res := j.d.Check(j.c, got); res.Bad > 0 {
			return true, fmt.Errorf("%s: %d wrong, first %s", j.c, res.Bad, res.FirstBad)
		}
	}
	t.Logf("%s capture: %d captured calls (%v); the other threads made %d calls during it, %d in all",
		mode, len(reasons), countReasons(reasons), during, calls.Load())
	if during == 0 {
		return true, fmt.Errorf("the other threads made no call during the capture: the test shows nothing")
	}
	return true, nil
}

func countReasons(rs []request.Reason) map[request.Reason]int {
	m := map[request.Reason]int{}
	for _, r := range rs {
		m[r]++
	}
	return m
}
