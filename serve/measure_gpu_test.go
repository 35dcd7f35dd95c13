package serve

import (
	"testing"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// TestGPUMeasuredDispatch: a decision to serve is checked on its first
// calls, as the shim makes them (Serve; on request.FwdMeasuring the vendor,
// then AfterForward). A kernel far slower than cuBLAS (16×16 blocks of
// one-element threads, no cp.async, on 1024³) is turned to the vendor:
// every later call is forwarded with reason measured. The best swept kernel
// of a row where we win (FP32 DeepBench bwd 2560×16×2560) settles too, and
// keeps serving when it is measured the faster. With the slow kernel as
// the first candidate and the swept one as the second, the check keeps the
// second: Decide names it and the calls after the verdict run it. Each
// side (each candidate, the vendor) is timed measureWarmups+measureCalls
// times, and served results are exact.
func TestGPUMeasuredDispatch(t *testing.T) {
	gemmcheck.GPUThread(t)
	h, err := cublas.New()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Destroy()
	const slow, swept = "ms=1,ns=1,ml=16,nl=16,u=4,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma",
		"ms=4,ns=2,ml=8,nl=16,u=64,ks=2,kl=8,kg=1,va=2,vb=2,st=4,math=ffma"
	bwd := gemmcheck.Case{Type: gemmcheck.Types[0], TransA: request.OpT, M: 2560, N: 16, K: 2560, Alpha: 1, Seed: 42}
	for _, tc := range []struct {
		c          gemmcheck.Case
		cfg        string
		alts       []string
		wantVendor bool
	}{
		{gemmcheck.Case{Type: gemmcheck.Types[0], M: 1024, N: 1024, K: 1024, Alpha: 1, Seed: 41}, slow, nil, true},
		{bwd, swept, nil, false},
		{bwd, slow, []string{swept}, false},
	} {
		d := gemmcheck.NewData(tc.c)
		b, err := gemmcheck.Upload(tc.c, d)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free()
		g := b.Request(0)
		cfg, err := ptx.ParseConfig(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		// The decision the model would make with these kernels, on a
		// server of its own (the cases share shapes).
		o := FromEnv()
		o.Policy = Auto
		srv := NewOn(testRT, o)
		srv.storeDecision(t, g, tc.cfg, srv.newCheck(1+len(tc.alts), gemmCheck), tc.alts...)
		counts := map[request.Reason]int{}
		for i := 0; i < 64 && !srv.Measured(g).Settled; i++ {
			r, tok := srv.Serve(g)
			counts[r]++
			switch r {
			case request.Served, request.FwdMeasured: // the verdict may come with the call
			case request.FwdMeasuring:
				if err := h.Gemm(g); err != nil {
					t.Fatal(err)
				}
				srv.AfterForward(tok)
			default:
				t.Fatalf("%d×%d×%d: call %d: reason %v", tc.c.M, tc.c.N, tc.c.K, i, r)
			}
			if err := cuda.Stream(0).Synchronize(); err != nil {
				t.Fatal(err)
			}
		}
		m := srv.Measured(g)
		t.Logf("%s %d×%d×%d %s (+%d): ours %.1f µs (candidates %v µs), cuBLAS %.1f µs, ours faster %v; calls %v",
			tc.c.Type.Name, tc.c.M, tc.c.N, tc.c.K, cfg, len(tc.alts), m.OursUS, m.CandidatesUS, m.VendorUS, m.OursFaster, counts)
		if !m.Checked || !m.Settled || len(m.CandidatesUS) != 1+len(tc.alts) {
			t.Fatalf("no verdict on %d candidates after %v", 1+len(tc.alts), counts)
		}
		if timed := measureWarmups + measureCalls; counts[request.Served] < timed*len(m.CandidatesUS) || counts[request.FwdMeasuring] != timed {
			t.Errorf("calls %v: want %d timed for the vendor and each candidate (%d of them warm-ups)", counts, timed, measureWarmups)
		}
		if len(tc.alts) > 0 && (m.Candidate != len(tc.alts) || !(m.CandidatesUS[len(tc.alts)] < m.CandidatesUS[0])) {
			t.Errorf("kept candidate %d of %v µs, want the swept one (%d)", m.Candidate, m.CandidatesUS, len(tc.alts))
		}
		if m.OursUS <= 0 || m.VendorUS <= 0 {
			t.Errorf("medians %.2f, %.2f µs", m.OursUS, m.VendorUS)
		}
		if tc.wantVendor && m.OursFaster {
			t.Errorf("the slow kernel (%.1f µs against %.1f) kept serving", m.OursUS, m.VendorUS)
		}
		want := request.Served
		if !m.OursFaster {
			want = request.FwdMeasured
		}
		if err := b.ResetC(); err != nil {
			t.Fatal(err)
		}
		if r, _ := srv.Serve(g); r != want {
			t.Errorf("after the verdict: %v, want %v", r, want)
		}
		if got, r := srv.Decide(g); r != want {
			t.Errorf("Decide after the verdict: %v, want %v", r, want)
		} else if kept, _ := ptx.ParseConfig(append([]string{tc.cfg}, tc.alts...)[m.Candidate]); r == request.Served && got != kept {
			t.Errorf("Decide after the verdict: %s, want the kept candidate's %s", got, kept)
		}
		if want == request.Served {
			got, err := b.ReadC(0)
			if err != nil {
				t.Fatal(err)
			}
			if res := d.Check(tc.c, got); res.Bad > 0 {
				t.Errorf("served wrong: %s", res.FirstBad)
			}
		}
	}
}
