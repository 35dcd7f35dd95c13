package serve

import (
	"slices"
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/weights"
)

// A GEMM's plan is the server's own decision from the same weights (CPU
// only): the chooser's ranking as a fresh chooser makes it (the seed pools
// are seeded by the class), checked as worthServing checks under Auto, and
// the check's kernels the first gemmCandidates distinct legal ones of the
// ranking as the class runs them (a wgmma choice of a layout that ranks
// the copy-engine twins runs as it is); a batch is always checked. Weights
// without a vendor model plan nothing.
func TestPlanGemm(t *testing.T) {
	w, err := weights.For("h200")
	if err != nil {
		t.Fatal(err)
	}
	lim := ptx.H100()
	ref, err := newChooser(w, lim)
	if err != nil {
		t.Fatal(err)
	}
	srv := New(Defaults())
	byType := func(name string) gemmcheck.Type {
		i := slices.IndexFunc(gemmcheck.Types, func(ty gemmcheck.Type) bool { return ty.Name == name })
		return gemmcheck.Types[i]
	}
	checked, unchecked := 0, 0
	for _, c := range []gemmcheck.Case{
		{Type: byType("gemmex_f16_f32"), TransA: request.OpT, TransB: request.OpN, M: 2560, N: 16, K: 2560},
		{Type: byType("dgemm"), TransA: request.OpN, TransB: request.OpT, M: 4096, N: 4096, K: 32},
		{Type: byType("sgemm"), TransA: request.OpN, TransB: request.OpN, M: 513, N: 257, K: 129},
		{Type: byType("hgemm"), TransA: request.OpN, TransB: request.OpN, M: 8192, N: 8192, K: 8192},
		{Type: byType("sgemm"), TransA: request.OpN, TransB: request.OpT, M: 64, N: 64, K: 60000},
	} {
		g := c.RequestAt(0x100000, 0x4000000, 0x8000000, 0, 0)
		p, err := PlanGemm(w, lim, g, 12)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		cls, _ := space.Class(g)
		in, _ := predictor.InputOf(g, cls)
		want := ref.Choose(in, cls)
		if p.Class != cls || len(p.Choice.Top) < 12 || p.Choice.Top[0] != want.Top[0] || p.Choice.Ratio() != want.Ratio() {
			t.Errorf("%v: plan's choice %v (%d kept, ratio %g), the chooser's %v (ratio %g)", c, p.Choice.Top[0], len(p.Choice.Top), p.Choice.Ratio(), want.Top[0], want.Ratio())
		}
		flops := 2 * float64(c.M) * float64(c.N) * float64(c.K)
		if p.Checked != srv.worthServing(ref, p.Choice, flops) || p.Check != ref.Check {
			t.Errorf("%v: checked %v at %g, the server %v at %g", c, p.Checked, p.Check, srv.worthServing(ref, p.Choice, flops), ref.Check)
		}
		if p.Checked {
			checked++
		} else {
			unchecked++
		}
		if len(p.Candidates) != gemmCandidates || p.Candidates[0] != p.Choice.Top[0].Config {
			t.Errorf("%v: candidates %v, want %d beginning with %v", c, p.Candidates, gemmCandidates, p.Choice.Top[0].Config)
		}
		for i, cfg := range p.Candidates {
			if ptx.Legal(cfg, cls, lim) != nil || slices.Contains(p.Candidates[:i], cfg) {
				t.Errorf("%v: candidate %d %v illegal or repeated", c, i, cfg)
			}
		}
	}
	if checked == 0 || unchecked == 0 {
		t.Errorf("%d inputs checked, %d not: the cases should hold both", checked, unchecked)
	}

	batch := gemmcheck.Case{Type: byType("sgemm"), TransA: request.OpN, TransB: request.OpN, M: 128, N: 128, K: 64}.RequestAt(0x100000, 0x4000000, 0x8000000, 0, 0)
	batch.Entry, batch.Batch = request.EntrySgemmStridedBatched, 64
	batch.StrideA, batch.StrideB, batch.StrideC = 128*64, 64*128, 128*128
	if p, err := PlanGemm(w, lim, batch, 0); err != nil || !p.Checked || !p.Class.Batched {
		t.Errorf("a strided batch: %+v, %v; want it checked", p, err)
	}

	noVendor := *w
	noVendor.Models = slices.DeleteFunc(slices.Clone(w.Models), func(m predictor.Model) bool { return m.Name == "vendor" })
	if _, err := PlanGemm(&noVendor, lim, batch, 0); err == nil {
		t.Error("weights without a vendor model planned a call")
	}
}
