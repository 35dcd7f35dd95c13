package main

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// train -start fine-tunes the shipped H100 models on another device's data
// (the H200's 2,011 calibration samples): the weights written keep the
// H100 networks' layer sizes, say where they started, and their
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
		if !slices.Equal(m.Nets[0].Sizes, s.Nets[0].Sizes) {
			t.Errorf("%s: sizes %v, the H100's %v", name, m.Nets[0].Sizes, s.Nets[0].Sizes)
		}
	}
	m, _ := w.Model("config")
	_, _, test := tune.ConfigMatrices(samples)
	if shipped := shippedTestMSE(t, "config", samples); m.TestMSE > 1.05*shipped || tune.MSE(m.Nets, test) != m.TestMSE {
		t.Errorf("config: held-out MSE %.4f fine-tuned (recomputed %.4f), %.4f shipped", m.TestMSE, tune.MSE(m.Nets, test), shipped)
	}
}
