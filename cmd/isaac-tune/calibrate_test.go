package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// Calibrating the shipped H100 weights on one of the H100's own data sets
// (its held-out inputs by tune's folds) writes weights that decode and
// verify and name the data's device, and whose configuration model predicts
// the held-out rows about as well as the shipped one (the way chosen by
// cross-validation on the data it was trained on: no worse by more than
// 10 %).
func TestCalibrateH100OnItsOwnData(t *testing.T) {
	samples, comments, hash, err := loadData("../../weights/data/h100-gemm-07.csv.zst", "", "", "")
	if err != nil {
		t.Skipf("no H100 data set here: %v", err)
	}
	dev, err := deviceOf(comments)
	if err != nil {
		t.Fatal(err)
	}
	// Every third row, of all its inputs: the cross-validation of nine ways
	// in seconds on CI.
	var third []tune.Sample
	for i := 0; i < len(samples); i += 3 {
		third = append(third, samples[i])
	}
	samples = third
	w, report, err := calibrate(samples, dev, hash, calibrateOptions{from: "h100"})
	if err != nil {
		t.Fatal(err)
	}
	checkCalibrated(t, w, report, "config", "vendor")
	// The configuration model's 9,000 rows: its held-out error. (The
	// vendor model's few held-out inputs here are too few to judge by.)
	m, _ := w.Model("config")
	if shipped := shippedTestMSE(t, "config", samples); m.TestMSE > 1.1*shipped {
		t.Errorf("config: held-out MSE %.4f calibrated, %.4f shipped", m.TestMSE, shipped)
	}
}

// shippedTestMSE is the shipped H100 model's error on the data's held-out
// rows.
func shippedTestMSE(t *testing.T, name string, samples []tune.Sample) float64 {
	t.Helper()
	w, err := weights.For("h100")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := w.Model(name)
	var test tune.Matrix
	if name == "config" {
		_, _, test = tune.ConfigLayoutMatrices(samples, m.ConfigLayout())
	} else {
		_, _, test = tune.VendorMatrices(samples)
	}
	return tune.MSE(m.Nets, test)
}

// -method as-is writes the shipped models unchanged under the data's
// device (the baseline a calibration is compared with): the same held-out
// error as the shipped weights, and a comment saying so.
func TestCalibrateAsIs(t *testing.T) {
	samples, comments, hash, err := loadData("../../weights/data/h100-gemm-07.csv.zst", "", "", "")
	if err != nil {
		t.Skipf("no H100 data set here: %v", err)
	}
	dev, err := deviceOf(comments)
	if err != nil {
		t.Fatal(err)
	}
	w, report, err := calibrate(samples, dev, hash, calibrateOptions{from: "h100", method: "as-is"})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Count([]byte(report), []byte("as-is ")) != 2 || !bytes.Contains([]byte(w.Comment), []byte("config as-is, vendor as-is")) {
		t.Errorf("report %q, comment %q", report, w.Comment)
	}
	for _, name := range []string{"config", "vendor"} {
		m, _ := w.Model(name)
		if got, want := m.TestMSE, shippedTestMSE(t, name, samples); got != want {
			t.Errorf("%s: held-out MSE %v as-is, %v shipped", name, got, want)
		}
	}
}

// The one-standard-error rule keeps the simplest calibration within one
// standard error of the best: the shipped model unless a refit beats it by
// more than the folds disagree; between as-is and affine (which rank
// alike), the lower squared error.
func TestChoose(t *testing.T) {
	sc := func(name string, mse, rank, rankSE float64) tune.Scored {
		return tune.Scored{Name: name, MSE: mse, Rank: rank, MSESE: 0.001, RankSE: rankSE}
	}
	close := []tune.Scored{sc("as-is", 0.030, 0.043, 0.006), sc("affine", 0.029, 0.043, 0.006), sc("refit 1", 0.028, 0.040, 0.004)}
	if got := choose(close, true); got != 1 {
		t.Errorf("a refit 0.3 points better, standard error 0.4: chose %s, want affine", close[got].Name)
	}
	far := []tune.Scored{sc("as-is", 0.030, 0.20, 0.01), sc("affine", 0.031, 0.20, 0.01), sc("refit 1", 0.010, 0.05, 0.01)}
	if got := choose(far, true); got != 2 {
		t.Errorf("a refit 15 points better: chose %s", far[got].Name)
	}
	if got := choose(far, false); got != 2 {
		t.Errorf("by squared error (0.010 against 0.030, se 0.001): chose %s", far[got].Name)
	}
	if got := choose(close[:1], true); got != 0 {
		t.Errorf("one way: chose %d", got)
	}
}

// The convolution models calibrate the same way on a convolution data set
// (here one of the H100's own): weights that decode and verify, both
// models calibrated by a way chosen by cross-validation, the configuration
// model's held-out error about the shipped one's.
func TestCalibrateConvH100OnItsOwnData(t *testing.T) {
	samples, comments, hash, err := loadConvData("../../weights/data/h100-conv-05.csv.zst")
	if err != nil {
		t.Skipf("no H100 convolution data set here: %v", err)
	}
	dev, err := deviceOf(comments)
	if err != nil {
		t.Fatal(err)
	}
	w, report, err := calibrateConv(samples, dev, hash, calibrateOptions{from: "h100"})
	if err != nil {
		t.Fatal(err)
	}
	checkCalibrated(t, w, report, "conv-config", "conv-vendor")
	shipped, err := weights.ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	sm, _ := shipped.Model("conv-config")
	cm, _ := w.Model("conv-config")
	rows := tune.ConvConfigGrouped(samples).Where(func(f int) bool { return f == 9 })
	if s := tune.MSE(sm.Nets, rows.Matrix); cm.TestMSE > 1.1*s {
		t.Errorf("conv-config: held-out MSE %.4f calibrated, %.4f shipped", cm.TestMSE, s)
	}
}

// checkCalibrated checks weights calibrated from the H100's on H100 data:
// they encode, decode and name the H100, each model is there with its
// held-out checks and verifies, and the report and comment say which way
// each model took.
func checkCalibrated(t *testing.T, w *predictor.Weights, report string, models ...string) {
	t.Helper()
	t.Log(report)
	var buf bytes.Buffer
	if err := predictor.Encode(&buf, w); err != nil {
		t.Fatal(err)
	}
	back, err := predictor.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if back.Device.Key != "h100" || len(back.Models) != len(models) {
		t.Fatalf("device %+v, %d models", back.Device, len(back.Models))
	}
	for _, name := range models {
		m, ok := back.Model(name)
		if !ok || len(m.Check) == 0 {
			t.Fatalf("%s: missing or without checks", name)
		}
		if err := m.Verify(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		if !strings.Contains(w.Comment, name+" ") {
			t.Errorf("comment %q: no way for %s", w.Comment, name)
		}
	}
	if strings.Count(report, "<- chosen") != len(models) || !strings.Contains(w.Comment, "calibrated from the h100 weights") {
		t.Errorf("report: %s\ncomment: %s", report, w.Comment)
	}
}
