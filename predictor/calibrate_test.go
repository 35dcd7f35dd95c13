package predictor_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
)

// calibrationRows are the features of random legal configurations of an
// FP16 class on random inputs, and the shipped H100 model's predictions.
func calibrationRows(t *testing.T, rng *rand.Rand, n int) (raw []float64, pred []float64, cfgs []ptx.GemmConfig, model predictor.Ensemble) {
	t.Helper()
	c := h100Chooser(t)
	cls := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	pool := space.SeedPool(cls, c.Dev, 512)
	l := c.Config.ConfigLayout()
	raw = make([]float64, n*l.Width)
	for i := 0; i < n; i++ {
		in := predictor.Input{Type: "gemmex_f16_f32", TransA: true, M: 64 << rng.IntN(7), N: 16 << rng.IntN(9), K: 128 << rng.IntN(6),
			AlignA: 8, AlignB: 8, AlignC: 8}
		cfg := pool[rng.IntN(len(pool))]
		l.Put(raw[i*l.Width:(i+1)*l.Width], in, cfg)
		cfgs = append(cfgs, cfg)
	}
	return raw, c.Config.Nets.Predict(raw, n), cfgs, c.Config.Nets
}

// Calibrating a member's output layer on its own predictions leaves it as
// it is; on a device whose rates are an affine distortion of the H100's
// with a per-family offset (wgmma kernels relatively faster, SIMT slower),
// 400 measurements bring the held-out error below a third of the
// uncalibrated model's.
func TestCalibrate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 3))
	const fit, held = 400, 400
	raw, pred, cfgs, model := calibrationRows(t, rng, fit+held)
	member := model[0]
	f := member.Sizes[0] // the shipped model's schema's width
	own := member.Predict(raw, fit+held)
	same, err := member.Calibrate(raw[:fit*f], own[:fit], fit, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	again := same.Predict(raw, fit+held)
	for i := range again {
		if math.Abs(again[i]-own[i]) > 1e-6 {
			t.Fatalf("row %d: %.9f after calibrating on its own predictions, was %.9f", i, again[i], own[i])
		}
	}
	device := make([]float64, len(pred))
	for i, p := range pred {
		device[i] = 0.4 + 0.85*p
		switch {
		case cfgs[i].Math.IsWGMMA():
			device[i] += 0.3
		case !cfgs[i].Math.IsMMA():
			device[i] -= 0.2
		}
	}
	cal, err := model.Calibrate(raw[:fit*f], device[:fit], fit, 1e-3)
	if err != nil {
		t.Fatal(err)
	}
	after := cal.Predict(raw[fit*f:], held)
	var before, errAfter float64
	for i := 0; i < held; i++ {
		before += math.Abs(pred[fit+i] - device[fit+i])
		errAfter += math.Abs(after[i] - device[fit+i])
	}
	before, errAfter = before/held, errAfter/held
	t.Logf("held-out mean |error| (ln TFLOP/s): %.3f uncalibrated, %.3f calibrated on %d rows", before, errAfter, fit)
	if errAfter > before/3 {
		t.Errorf("calibration left %.3f of %.3f", errAfter, before)
	}
	if _, err := model.Calibrate(raw[:f], pred[:1], 1, 0); err == nil {
		t.Error("a ridge strength of 0 accepted")
	}
}

// An affine fit recovers a device whose rates are a·p + b of the model's
// (a = 0.85, b = 0.4), and the affinely calibrated ensemble predicts them;
// its ranking of any rows is the model's own. A negative slope is not
// taken: a is kept at its floor.
func TestAffine(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 4))
	raw, pred, _, model := calibrationRows(t, rng, 300)
	device := make([]float64, len(pred))
	for i, p := range pred {
		device[i] = 0.4 + 0.85*p
	}
	a, b, err := predictor.FitAffine(pred, device, 0)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(a-0.85) > 1e-6 || math.Abs(b-0.4) > 1e-6 {
		t.Fatalf("fit a = %.6f, b = %.6f, want 0.85, 0.4", a, b)
	}
	got := model.Affine(a, b).Predict(raw, len(pred))
	for i := range got {
		if math.Abs(got[i]-device[i]) > 1e-4 {
			t.Fatalf("row %d: %.6f, device %.6f", i, got[i], device[i])
		}
		if i > 0 && (got[i] > got[i-1]) != (pred[i] > pred[i-1]) {
			t.Fatalf("rows %d, %d ranked differently", i-1, i)
		}
	}
	if a, _, err := predictor.FitAffine(pred, model.Affine(-1, 0).Predict(raw, len(pred)), 0); err != nil || a != 0.05 {
		t.Errorf("reversed device: a = %v (%v), want the floor 0.05", a, err)
	}
	if _, _, err := predictor.FitAffine(nil, nil, 0); err == nil {
		t.Error("no rows: no error")
	}
}
