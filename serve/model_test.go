package serve

import (
	"math"
	"testing"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/weights"
)

// The margin a GEMM needs to be checked is two standard errors of the
// predicted ratio, from the test errors the shipped weights record: below
// 1 for every device's weights, and serveMargin where an error is missing.
// Under Auto with the check a choice predicted at that margin is served
// (to be checked), and so is one the vendor is predicted to finish within
// cheapCheckUS; without the check only a predicted win by serveMargin.
func TestGemmCheckMargin(t *testing.T) {
	for _, dev := range []string{"h100", "h200"} {
		w, err := weights.For(dev)
		if err != nil {
			t.Fatal(err)
		}
		ch, err := newChooser(w, ptx.H100())
		if err != nil {
			t.Fatal(err)
		}
		cfg, _ := w.Model("config")
		vendor, _ := w.Model("vendor")
		want := math.Exp(-2 * math.Sqrt(cfg.TestMSE+vendor.TestMSE))
		if ch.Check != want || !(ch.Check > 0.4 && ch.Check < 1) || ch.Margin != serveMargin {
			t.Errorf("%s: check margin %g (want %g from test MSEs %g, %g), serve margin %g",
				dev, ch.Check, want, cfg.TestMSE, vendor.TestMSE, ch.Margin)
		}
		noErr := *vendor
		noErr.TestMSE = 0
		if got := checkMargin(cfg, &noErr); got != serveMargin {
			t.Errorf("%s: without the vendor model's error: %g, want %g", dev, got, serveMargin)
		}

		checked, unchecked := New(Defaults()), New(Defaults())
		unchecked.opts.Check = false
		// 100 TFLOP/s predicted for the vendor: 1e10 flops take it 100 µs,
		// 5e9 flops 50 µs (cheapCheckUS), 1e8 flops 1 µs
		for _, ratio := range []float64{0.3, ch.Check * 0.99, ch.Check * 1.01, 1, 1.05, 1.2} {
			c := &predictor.Choice{OursTFLOPs: ratio * 100, VendorTFLOPs: 100, Serve: ratio >= ch.Margin}
			for _, flops := range []float64{1e10, 5e9, 1e8} {
				if got, want := checked.worthServing(ch, c, flops), ratio >= ch.Check || flops <= 5e9; got != want {
					t.Errorf("%s: predicted %.3f× on %g flops with the check: serve %v, want %v", dev, ratio, flops, got, want)
				}
				if got, want := unchecked.worthServing(ch, c, flops), ratio >= serveMargin; got != want {
					t.Errorf("%s: predicted %.3f× on %g flops without the check: serve %v, want %v", dev, ratio, flops, got, want)
				}
			}
		}
		if checked.worthServing(ch, &predictor.Choice{OursTFLOPs: 100, VendorTFLOPs: math.NaN()}, 1e8) {
			t.Errorf("%s: served without a vendor prediction", dev)
		}
	}
}
