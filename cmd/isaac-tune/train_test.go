package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// train -start fine-tunes the shipped H100 models on another device's data
// (the H200's 2,011 calibration samples): the weights written keep the
// H100 networks' layer sizes (the configuration model's inputs widened to
// this build's schema where the H100's is older), say where they started, and their
// configuration model predicts the data's held-out inputs no worse than
// the H100's as shipped (the starting networks count as epoch 0 of the
// early stopping; 5 % for the test fold's difference from the validation
// fold).
func TestTrainStart(t *testing.T) {
	data := "../../weights/data/h200-cal-01.csv.zst"
	samples, _, _, err := loadData(data, "", "", "")
	if err != nil || len(samples) == 0 {
		t.Skipf("no H200 data set here: %v", err)
	}
	out := filepath.Join(t.TempDir(), "ft.isw.zst")
	if err := trainCmd([]string{"-data", data, "-vendor-data", "none", "-start", "h100", "-epochs", "4", "-ensemble", "2",
		"-lr", "3e-4", "-out", out}); err != nil {
		t.Fatal(err)
	}
	w, err := weights.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	src, err := weights.For("h100")
	if err != nil {
		t.Fatal(err)
	}
	if w.Device.Key != "h200" || !strings.Contains(w.Comment, "-start h100") {
		t.Errorf("device %q, comment %q", w.Device.Key, w.Comment)
	}
	for _, name := range []string{"config", "vendor"} {
		m, _ := w.Model(name)
		s, _ := src.Model(name)
		// a configuration model of an older schema starts widened to this
		// build's (predictor.Widen): the same hidden layers
		if !slices.Equal(m.Nets[0].Sizes[1:], s.Nets[0].Sizes[1:]) || name == "config" && m.Nets[0].Sizes[0] != predictor.ConfigFeatures {
			t.Errorf("%s: sizes %v, the H100's %v", name, m.Nets[0].Sizes, s.Nets[0].Sizes)
		}
	}
	m, _ := w.Model("config")
	_, _, test := tune.ConfigMatrices(samples)
	if got := tune.MSE(m.Nets, test); got != m.TestMSE {
		t.Errorf("config: held-out MSE %.4f recorded, %.4f recomputed", m.TestMSE, got)
	}
	// on the rows both schemas describe (v3 has a feature for wgmma_tf32,
	// whose rows the H100's v2 model cannot score)
	both := slices.DeleteFunc(slices.Clone(samples), func(s tune.Sample) bool { return !s.VendorOnly() && !predictor.ConfigV2.Describes(s.Config) })
	_, _, plain := tune.ConfigMatrices(both)
	if got, shipped := tune.MSE(m.Nets, plain), shippedTestMSE(t, "config", both); got > 1.05*shipped {
		t.Errorf("config: held-out MSE %.4f fine-tuned, %.4f shipped", got, shipped)
	}
}

// train-conv -start fine-tunes the shipped H100 convolution models on
// another device's data (the H200's 2,000 convolution calibration samples):
// the weights written keep the H100 networks' layer sizes, say where they
// started, record their test MSE as it recomputes, and predict the data's
// held-out convolutions no worse than the H100's models as shipped (the
// starting networks count as epoch 0 of the early stopping; 5 % for the
// test fold's difference from the validation fold).
func TestTrainConvStart(t *testing.T) {
	data := "../../weights/data/h200-conv-cal-01.csv.zst"
	samples, _, _, err := loadConvData(data)
	if err != nil || len(samples) == 0 {
		t.Skipf("no H200 convolution data set here: %v", err)
	}
	out := filepath.Join(t.TempDir(), "ft.isw.zst")
	if err := trainConvCmd([]string{"-data", data, "-start", "h100", "-epochs", "3", "-ensemble", "5", "-vendor-ensemble", "5",
		"-out", out}); err != nil {
		t.Fatal(err)
	}
	w, err := weights.Load(out)
	if err != nil {
		t.Fatal(err)
	}
	src, err := weights.ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	if w.Device.Key != "h200" || !strings.Contains(w.Comment, "-start h100") {
		t.Errorf("device %q, comment %q", w.Device.Key, w.Comment)
	}
	_, _, test := tune.ConvConfigMatrices(samples)
	_, _, vtest := tune.ConvVendorMatrices(samples)
	for _, c := range []struct {
		name string
		test tune.Matrix
	}{{"conv-config", test}, {"conv-vendor", vtest}} {
		m, _ := w.Model(c.name)
		s, _ := src.Model(c.name)
		if !slices.Equal(m.Nets[0].Sizes, s.Nets[0].Sizes) {
			t.Errorf("%s: sizes %v, the H100's %v", c.name, m.Nets[0].Sizes, s.Nets[0].Sizes)
		}
		if got := tune.MSE(m.Nets, c.test); got != m.TestMSE {
			t.Errorf("%s: held-out MSE %.4f recorded, %.4f recomputed", c.name, m.TestMSE, got)
		}
		if got, shipped := m.TestMSE, tune.MSE(s.Nets, c.test); got > 1.05*shipped {
			t.Errorf("%s: held-out MSE %.4f fine-tuned, %.4f shipped", c.name, got, shipped)
		}
	}
}

// -table2 trains its architectures from scratch, so it is refused beside
// -start (one of its networks would join the fine-tuned ensemble).
func TestTrainStartTable2(t *testing.T) {
	data := "../../weights/data/h200-conv-cal-01.csv.zst"
	if _, _, _, err := loadConvData(data); err != nil {
		t.Skipf("no H200 convolution data set here: %v", err)
	}
	err := trainConvCmd([]string{"-data", data, "-start", "h100", "-table2", filepath.Join(t.TempDir(), "t2.md"), "-epochs", "1"})
	if err == nil || !strings.Contains(err.Error(), "-start") {
		t.Errorf("train-conv -start -table2: %v", err)
	}
}
