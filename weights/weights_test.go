package weights

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/predictor"
)

func TestMain(m *testing.M) {
	// Nothing is decoded before the first request: importing the package
	// costs a process nothing.
	n := 0
	decoded.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		panic("weights decoded at package initialization")
	}
	os.Exit(m.Run())
}

// The shipped GEMM weights of each device (the H100's, and the H200's
// trained on its own measurements) decode, carry both models with the
// feature schemas they were trained on (the H100's configuration model v2,
// which this build, writing v3, still scores: predictor.ConfigV2; the
// H200's v3, which also scores the twins the server runs), and reproduce
// the trainer's own predictions exactly.
func TestShippedGemm(t *testing.T) {
	for _, d := range []struct {
		key     string
		samples int
		config  string
	}{{"h100", 150000, predictor.ConfigV2.Schema}, {"h200", 400000, predictor.ConfigV3.Schema}} {
		w, err := For(d.key)
		if err != nil {
			t.Fatal(err)
		}
		checkShipped(t, w, d.key, d.samples, map[string]string{"config": d.config, "vendor": predictor.VendorSchema})
		if again, _ := For(d.key); again != w {
			t.Errorf("%s weights decoded twice", d.key)
		}
	}
	h100, _ := For("h100")
	h200, _ := For("h200")
	if h100 == h200 {
		t.Error("the H100 and H200 weights are one value")
	}
	if keys := Shipped(); len(keys) != 2 || keys[0] != "h100" || keys[1] != "h200" {
		t.Errorf("shipped %v", keys)
	}
}

func TestNoWeights(t *testing.T) {
	if _, err := For("geforce-gtx-480"); !errors.Is(err, ErrNoWeights) {
		t.Errorf("unknown device: %v", err)
	}
	if _, err := Load(filepath.Join(t.TempDir(), "missing.isw.zst")); err == nil {
		t.Error("missing file loaded")
	}
	bad := filepath.Join(t.TempDir(), "bad.isw.zst")
	os.WriteFile(bad, []byte("not weights"), 0o644)
	if _, err := Load(bad); err == nil {
		t.Error("garbage loaded")
	}
}

// The shipped H100 convolution weights decode, carry both convolution
// models with this build's feature schemas, reproduce the trainer's own
// predictions, and are listed apart from GEMM's.
func TestShippedH100Conv(t *testing.T) {
	w, err := ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	checkShipped(t, w, "h100", 100000, map[string]string{"conv-config": predictor.ConvConfigSchema, "conv-vendor": predictor.ConvVendorSchema})
	if g, _ := For("h100"); g == w {
		t.Error("the GEMM and convolution weights are one value")
	}
	if keys := ConvShipped(); len(keys) != 2 || keys[0] != "h100" || keys[1] != "h200" {
		t.Errorf("convolution weights shipped for %v", keys)
	}
	for _, k := range Shipped() {
		if strings.Contains(k, "conv") {
			t.Errorf("GEMM weights listed for %q", k)
		}
	}
}

// The H200's shipped convolution weights are the H100's models fine-tuned
// on the committed H200 convolution samples (isaac-tune train-conv -start
// h100 on data/h200-conv-*, 100,165 samples): their own value, keyed h200,
// with both models and the training-time predictions of their networks.
func TestShippedH200Conv(t *testing.T) {
	w, err := ConvFor("h200")
	if err != nil {
		t.Fatal(err)
	}
	checkShipped(t, w, "h200", 100000, map[string]string{"conv-config": predictor.ConvConfigSchema, "conv-vendor": predictor.ConvVendorSchema})
	if h100, _ := ConvFor("h100"); h100 == w {
		t.Error("the H100 and H200 convolution weights are one value")
	}
	if !strings.Contains(w.Device.Name, "H200") {
		t.Errorf("device %q", w.Device.Name)
	}
}

// checkShipped checks shipped weights: their header (the device key, at
// least samples), and each named model's schema, its training-time
// predictions reproduced and its test MSE.
func checkShipped(t *testing.T, w *predictor.Weights, key string, samples int, models map[string]string) {
	t.Helper()
	if w.Device.Key != key || w.Device.SMs != 132 || w.Samples < samples || len(w.Dataset) < 64 {
		t.Errorf("header %+v", w.Header)
	}
	for name, schema := range models {
		m, ok := w.Model(name)
		if !ok {
			t.Fatalf("no %s model", name)
		}
		if m.Schema != schema {
			t.Errorf("%s model schema %.60q…, this build's %.60q…", name, m.Schema, schema)
		}
		if len(m.Check) == 0 {
			t.Errorf("%s model has no training-time predictions to check", name)
		}
		if err := m.Verify(); err != nil {
			t.Error(err)
		}
		if !(m.TestMSE > 0 && m.TestMSE < 1) {
			t.Errorf("%s model test MSE %g", name, m.TestMSE)
		}
	}
}
