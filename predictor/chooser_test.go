package predictor_test

import (
	"testing"
	"time"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
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
// are cached, and the serve decision follows the two predictions.
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
			if !ptx.Suits(r.Config, tc.in.M, tc.in.N, tc.in.K) {
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
		if again := c.Choose(tc.in, tc.cls); again != ch {
			t.Errorf("%+v: not cached", tc.in)
		}
		t.Logf("%s %dx%dx%d: %v predicted %.1f TFLOP/s, cuBLAS %.1f, serve %v (first choice %s, cached %s)",
			tc.in.Type, tc.in.M, tc.in.N, tc.in.K, ch.Top[0].Config, ch.OursTFLOPs, ch.VendorTFLOPs, ch.Serve,
			first.Round(time.Millisecond), time.Since(start))
	}
	// Large square FP16 runs on tensor cores; a tiny tile is not the choice.
	ch := c.Choose(predictor.Input{Type: "gemmex_f16_f32", M: 4096, N: 4096, K: 4096, AlignA: 8, AlignB: 8, AlignC: 8}, f16)
	if !ch.Top[0].Config.Math.IsMMA() || ch.Top[0].Config.ML*ch.Top[0].Config.NL < 64*64 {
		t.Errorf("4096³ FP16: chose %v", ch.Top[0].Config)
	}
}
