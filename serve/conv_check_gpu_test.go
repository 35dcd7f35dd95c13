package serve

import (
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// TestGPUConvCheckCandidates: a convolution decision with two candidates
// of ours is checked as the shim makes the calls (on request.FwdMeasuring
// cuDNN with the v7 pick, then AfterForward), each timed call of a side
// after an untimed one of the same side. The first candidate is far
// slower (16×16 blocks of one-element threads, no cp.async) than the
// second (the heuristic's): both and cuDNN are timed as many times, the
// faster candidate is kept, the calls after the verdict run it (the plan
// names it, their times are its) and compute the right result.
func TestGPUConvCheckCandidates(t *testing.T) {
	h := gpuCuDNN(t)
	c := convcheck.Case{Type: request.ConvTypes[0], Math: request.CudnnFMAMath, N: 1, C: 128, H: 28, W: 28, K: 128, R: 3, S: 3,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1, Seed: 7}
	d, b := uploadConv(t, c)
	req := b.Request(0)
	o := FromEnv()
	o.Policy, o.ConvAuto = Auto, On
	srv := NewOn(testRT, o)
	key, tg, shape, r := srv.convTarget(req)
	if r != request.Served {
		t.Fatal(r)
	}
	slow, err := ptx.ParseConfig("ms=1,ns=1,ml=16,nl=16,u=4,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma")
	if err != nil {
		t.Fatal(err)
	}
	ks, err := srv.rt.Kernel(tg, slow)
	if err != nil {
		t.Fatal(err)
	}
	kf, err := srv.rt.Kernel(tg, space.ConvDefault(tg.Class, shape, tg.Dev.Limits))
	if err != nil {
		t.Fatal(err)
	}
	meas := srv.newCheck(2, convCheck)
	srv.convs.Store(key, &convDecision{reason: request.Served, k: ks, path: convImplicit, alts: []convRun{{k: kf, path: convImplicit}}, meas: meas})
	vendor, _ := cudnnV7(t, h, req)
	counts := map[request.Reason]int{}
	for i := 0; i < 64 && !srv.ConvMeasured(req).Settled; i++ {
		r, tok := srv.Conv(req)
		counts[r]++
		switch r {
		case request.Served, request.FwdMeasured:
		case request.FwdMeasuring:
			if err := vendor(); err != nil {
				t.Fatal(err)
			}
			srv.AfterForward(tok)
		default:
			t.Fatalf("call %d: %v", i, r)
		}
		if err := cuda.Stream(0).Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	m := srv.ConvMeasured(req)
	t.Logf("candidates %v µs, kept %d, cuDNN %.1f µs, ours faster %v; calls %v", m.CandidatesUS, m.Candidate, m.VendorUS, m.OursFaster, counts)
	if !m.Settled || len(m.CandidatesUS) != 2 {
		t.Fatalf("no verdict on two candidates after %v", counts)
	}
	// Each side's timed calls each follow an untimed call of the side.
	if calls := 2 * (meas.warmups() + measureCalls); counts[request.FwdMeasuring] != calls || counts[request.Served] < 2*calls {
		t.Errorf("calls %v: want %d for cuDNN and each candidate, half of them timed", counts, calls)
	}
	if m.Candidate != 1 || !(m.CandidatesUS[1] < m.CandidatesUS[0]) {
		t.Errorf("kept candidate %d of %v µs, want the heuristic's (1)", m.Candidate, m.CandidatesUS)
	}
	if !m.OursFaster {
		t.Skipf("cuDNN measured faster than both (%.1f µs): nothing served to check", m.VendorUS)
	}
	// Kept from two, it was timed again alone before the verdict: an
	// untimed call and measureCalls samples more.
	if !m.Retimed || counts[request.Served] < 2*2*(meas.warmups()+measureCalls)+1+measureCalls {
		t.Errorf("kept without a second round (re-timed %v, calls %v)", m.Retimed, counts)
	}
	if plan, _ := srv.ConvPlan(req); plan != kf.Config().String() {
		t.Errorf("plan %q, want the kept candidate's %q", plan, kf.Config())
	}
	// The calls after the verdict run the kept candidate: timed, they are
	// nearer its time than the other's.
	fastest := 0.0
	for i := 0; i < 5; i++ {
		start, err1 := cuda.NewEvent()
		end, err2 := cuda.NewEvent()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		release, err := srv.hold(tg.Ctx, 0)
		if err != nil {
			t.Fatal(err)
		}
		start.Record(0)
		r, _ := srv.Conv(req)
		end.Record(0)
		release()
		if r != request.Served {
			t.Fatalf("after the verdict: %v", r)
		}
		if err := cuda.Stream(0).Synchronize(); err != nil {
			t.Fatal(err)
		}
		ms, err := end.Elapsed(start)
		if err != nil {
			t.Fatal(err)
		}
		if us := float64(ms) * 1000; i == 0 || us < fastest {
			fastest = us
		}
		start.Destroy()
		end.Destroy()
	}
	if mid := (m.CandidatesUS[0] + m.CandidatesUS[1]) / 2; fastest > mid {
		t.Errorf("calls after the verdict take %.1f µs: the slow candidate's (%v µs)", fastest, m.CandidatesUS)
	}
	if err := b.ResetY(); err != nil {
		t.Fatal(err)
	}
	if r, _ := srv.Conv(req); r != request.Served {
		t.Fatalf("after the verdict: %v", r)
	}
	got, err := b.ReadY(0)
	if err != nil {
		t.Fatal(err)
	}
	if res := d.Check(c, got); res.Bad > 0 {
		t.Errorf("served wrong: %s", res.FirstBad)
	}
}

// TestGPUConvDecisionCandidates: under Auto with the check, a convolution
// the model serves brings every choice the chooser keeps as candidates
// (its five best-predicted and each route's best, as distinct kernels,
// the model's first choice first), the heuristic's and the window
// kernel's, each of which runs and computes the right result. An FP16
// NCHW layer with two routes (x as it lies, NHWC copies).
func TestGPUConvDecisionCandidates(t *testing.T) {
	gemmcheck.GPUThread(t)
	c := convcheck.Case{Type: request.ConvTypes[2], Math: request.CudnnTensorOpMath, N: 8, C: 64, H: 28, W: 28, K: 64, R: 3, S: 3,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1, Seed: 9}
	d, b := uploadConv(t, c)
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Destroy()
	req := b.Request(stream)
	o := FromEnv()
	o.Policy, o.ConvAuto, o.Check = Auto, On, true
	srv := NewOn(testRT, o)
	dec, r := srv.ConvDecide(req)
	if r != request.Served {
		t.Skipf("not served by the model (%v): no candidates to check", r)
	}
	runs := append([]convRun{dec.run(0)}, dec.alts...)
	if len(runs) < 5 {
		t.Errorf("%d candidates, want the model's five best at least", len(runs))
	}
	paths := map[convPath]bool{}
	for i, a := range runs {
		paths[a.path] = true
		for _, b := range runs[:i] {
			if a.k == b.k {
				t.Errorf("candidate %d repeats an earlier one", i)
			}
		}
	}
	if !paths[convImplicit] || !paths[convCopies] || !paths[convWindow] {
		t.Errorf("candidates on paths %v, want both routes and the window kernel", paths)
	}
	_, tg, shape, _ := srv.convTarget(req)
	for i, run := range runs {
		if err := b.ResetY(); err != nil {
			t.Fatal(err)
		}
		if err := srv.launchConv(tg, req, shape, run); err != nil {
			t.Fatalf("candidate %d: %v", i, err)
		}
		got, err := b.ReadY(stream)
		if err != nil {
			t.Fatal(err)
		}
		if res := d.Check(c, got); res.Bad > 0 {
			t.Errorf("candidate %d: %s", i, res.FirstBad)
		}
	}
	t.Logf("%d candidates", len(runs))
}

// uploadConv is case c's data on the device (freed when the test ends).
func uploadConv(t *testing.T, c convcheck.Case) (*convcheck.Data, *convcheck.Buffers) {
	t.Helper()
	d := convcheck.NewData(c)
	b, err := convcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(b.Free)
	return d, b
}

// gpuCuDNN locks the test to its OS thread with the GPU's context current
// (gemmcheck.GPUThread: skipped without a GPU) and returns a cuDNN handle,
// destroyed when the test ends (skipped without cuDNN).
func gpuCuDNN(t *testing.T) cudnn.Handle {
	t.Helper()
	gemmcheck.GPUThread(t)
	h, err := cudnn.New()
	if err != nil {
		t.Skipf("no cuDNN: %v", err)
	}
	t.Cleanup(h.Destroy)
	return h
}

// cudnnV7 is req's cudnnConvolutionForward as its caller makes it: with
// the algorithm cudnnGetConvolutionForwardAlgorithm_v7 picks and its
// workspace (freed when the test ends).
func cudnnV7(t *testing.T, h cudnn.Handle, req *request.Conv) (forward func() error, algo cudnn.Algo) {
	t.Helper()
	desc, err := h.Describe(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(desc.Destroy)
	if algo, err = desc.Heuristic(); err != nil {
		t.Fatal(err)
	}
	ws, err := cuda.Alloc(max(algo.WorkspaceBytes, 16))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Free() })
	return func() error { return desc.Forward(algo, uintptr(ws)) }, algo
}
