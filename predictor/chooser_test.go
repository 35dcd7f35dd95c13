package predictor_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/weights"
)

func h100Chooser(t *testing.T) *predictor.Chooser {
	t.Helper()
	w, err := weights.For("h100")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := w.Model("config")
	ven, _ := w.Model("vendor")
	return &predictor.Chooser{Config: cfg, Vendor: ven, Dev: ptx.H100(), TopK: 5, Margin: 1.1, Pool: 1024}
}

// The shipped model's choices are legal, suit the input, come best first,
// are the same when asked again, and the serve decision follows the two
// predictions.
func TestChooserH100(t *testing.T) {
	c := h100Chooser(t)
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.T, TransB: ptx.N, AlignA: 2, AlignB: 2, AlignC: 2}
	for _, tc := range []struct {
		in  predictor.Input
		cls ptx.InputClass
	}{
		{predictor.Input{Type: "gemmex_f16_f32", M: 4096, N: 4096, K: 4096, AlignA: 8, AlignB: 8, AlignC: 8}, f16},
		{predictor.Input{Type: "gemmex_f16_f32", M: 2560, N: 16, K: 2560, AlignA: 8, AlignB: 8, AlignC: 8}, f16},
		{predictor.Input{Type: "dgemm", TransA: true, M: 33, N: 7, K: 60000, AlignA: 2, AlignB: 2, AlignC: 2}, f64},
	} {
		start := time.Now()
		ch := c.Choose(tc.in, tc.cls)
		first := time.Since(start)
		if len(ch.Top) == 0 || len(ch.Top) > 5 {
			t.Fatalf("%+v: %d choices", tc.in, len(ch.Top))
		}
		for i, r := range ch.Top {
			if err := ptx.Legal(r.Config, tc.cls, c.Dev); err != nil {
				t.Errorf("%+v: choice %d illegal: %v", tc.in, i, err)
			}
			if !space.Suits(r.Config, tc.in.M, tc.in.N, tc.in.K) {
				t.Errorf("%+v: choice %v does not suit the input", tc.in, r.Config)
			}
			if i > 0 && r.Score > ch.Top[i-1].Score {
				t.Errorf("%+v: choices out of order", tc.in)
			}
		}
		if want := ch.OursTFLOPs >= 1.1*ch.VendorTFLOPs; ch.Serve != want {
			t.Errorf("%+v: serve %v with predicted %.2f vs vendor %.2f TFLOP/s", tc.in, ch.Serve, ch.OursTFLOPs, ch.VendorTFLOPs)
		}
		start = time.Now()
		if again := c.Choose(tc.in, tc.cls); !reflect.DeepEqual(again, ch) {
			t.Errorf("%+v: a second choice differs: %+v, then %+v", tc.in, ch, again)
		}
		t.Logf("%s %dx%dx%d: %v predicted %.1f TFLOP/s, cuBLAS %.1f, serve %v (first choice %s, again %s)",
			tc.in.Type, tc.in.M, tc.in.N, tc.in.K, ch.Top[0].Config, ch.OursTFLOPs, ch.VendorTFLOPs, ch.Serve,
			first.Round(time.Millisecond), time.Since(start))
	}
	// Large square FP16 runs on tensor cores; a tiny tile is not the choice.
	ch := c.Choose(predictor.Input{Type: "gemmex_f16_f32", M: 4096, N: 4096, K: 4096, AlignA: 8, AlignB: 8, AlignC: 8}, f16)
	if !ch.Top[0].Config.Math.IsMMA() || ch.Top[0].Config.ML*ch.Top[0].Config.NL < 64*64 {
		t.Errorf("4096³ FP16: chose %v", ch.Top[0].Config)
	}
}

// Screening keeps the configurations the first member ranks highest, in
// their original order; the screened search scores fewer configurations,
// best first, with the whole ensemble's scores, and on this input its best
// is predicted within 5 % of the unscreened search's.
func TestSearchScreened(t *testing.T) {
	c := h100Chooser(t)
	cls := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 4, AlignB: 4, AlignC: 4}
	in := predictor.Input{Type: "sgemm", M: 2560, N: 32, K: 2560, AlignA: 4, AlignB: 4, AlignC: 4}
	var seeds []ptx.GemmConfig
	for _, cfg := range c.SeedPool(cls) {
		if space.Suits(cfg, in.M, in.N, in.K) {
			seeds = append(seeds, cfg)
		}
	}
	kept := c.Config.Screen(in, seeds, 16)
	if len(kept) != 16 {
		t.Fatalf("screen kept %d", len(kept))
	}
	first := predictor.Ensemble{c.Config.Nets[0]}
	score := func(cfgs []ptx.GemmConfig) []float64 {
		return first.Predict(c.Config.ConfigLayout().Rows(in, cfgs), len(cfgs))
	}
	all, top := score(seeds), score(kept)
	minKept := top[0]
	for _, v := range top {
		minKept = min(minKept, v)
	}
	pos := map[ptx.GemmConfig]int{}
	for i, cfg := range seeds {
		pos[cfg] = i
	}
	better := 0
	for _, v := range all {
		if v > minKept {
			better++
		}
	}
	if better > 16 {
		t.Errorf("%d seeds rank above the lowest kept one", better)
	}
	for i := 1; i < len(kept); i++ {
		if pos[kept[i]] < pos[kept[i-1]] {
			t.Errorf("screening reordered the configurations")
		}
	}
	full := c.Config.Search(in, cls, c.Dev, seeds, 3, 8)
	screened := c.Config.SearchScreened(in, cls, c.Dev, seeds, 3, 8, 64)
	if len(screened) == 0 || len(screened) >= len(full) {
		t.Fatalf("screened search scored %d, full %d", len(screened), len(full))
	}
	for i := 1; i < len(screened); i++ {
		if screened[i].Score > screened[i-1].Score {
			t.Fatalf("screened results out of order")
		}
	}
	if s := c.Config.Scores(in, []ptx.GemmConfig{screened[0].Config})[0]; s != screened[0].Score {
		t.Errorf("screened best scored %.4f, the ensemble says %.4f", screened[0].Score, s)
	}
	if screened[0].Score < full[0].Score-0.05 {
		t.Errorf("screened best %.4f, unscreened %.4f", screened[0].Score, full[0].Score)
	}
	t.Logf("full search scored %d (best %.3f), screened %d (best %.3f)", len(full), full[0].Score, len(screened), screened[0].Score)
}

// A batch's choice (the attention suite's QKᵀ of 32 heads, 512×512×64 FP16):
// legal for the batched class (no grid split, tensor copies or persistent
// grid), tiles that suit one matrix and lie within it, best first; the model, seeing the
// batch's 32 matrices of work, chooses tiles at least as large as for one
// matrix, whose best alone spreads a split of K or small tiles over the
// machine.
func TestChooseBatch(t *testing.T) {
	c := h100Chooser(t)
	one := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	batched := one
	batched.Batched = true
	in := predictor.Input{Type: "gemmex_f16_f32", TransA: true, M: 512, N: 512, K: 64, AlignA: 8, AlignB: 8, AlignC: 8}
	ch := c.ChooseBatch(in, 32, batched)
	if len(ch.Top) == 0 {
		t.Fatal("no choice")
	}
	for i, r := range ch.Top {
		if err := ptx.Legal(r.Config, batched, c.Dev); err != nil {
			t.Errorf("choice %d illegal for the batched class: %v", i, err)
		}
		if !space.Suits(r.Config, in.M, in.N, in.K) || !space.WithinMatrix(r.Config, in.M, in.N) {
			t.Errorf("choice %v does not suit one matrix, or its tile is larger", r.Config)
		}
		if i > 0 && r.Score > ch.Top[i-1].Score {
			t.Error("choices out of order")
		}
	}
	single := c.Choose(in, one)
	tile := func(cfg ptx.GemmConfig) int { return cfg.ML * cfg.NL }
	if tile(ch.Top[0].Config) < tile(single.Top[0].Config) {
		t.Errorf("a batch of 32 chose a smaller tile (%v) than one matrix (%v)", ch.Top[0].Config, single.Top[0].Config)
	}
	t.Logf("batch of 32: %v (%.1f TFLOP/s predicted); one matrix: %v", ch.Top[0].Config, ch.OursTFLOPs, single.Top[0].Config)
}
