package main

import (
	"bytes"
	"testing"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// Calibrating the shipped H100 weights on one of the H100's own data sets
// (its held-out inputs by tune's folds) writes weights that decode and
// verify and name the data's device, and whose configuration model predicts
// the held-out rows about as well as the shipped one (its output layer
// refit, with a ridge strength chosen on the validation inputs, to the data
// it was trained on: no worse by more than 10 %).
func TestCalibrateH100OnItsOwnData(t *testing.T) {
	samples, comments, hash, err := loadData("../../weights/data/h100-gemm-01.csv.zst", "", "", "")
	if err != nil {
		t.Skipf("no H100 data set here: %v", err)
	}
	dev, err := deviceOf(comments)
	if err != nil {
		t.Fatal(err)
	}
	w, report, err := calibrate(samples, dev, hash, calibrateOptions{from: "h100"})
	if err != nil {
		t.Fatal(err)
	}
	t.Log(report)
	var buf bytes.Buffer
	if err := predictor.Encode(&buf, w); err != nil {
		t.Fatal(err)
	}
	back, err := predictor.Decode(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if back.Device.Key != "h100" || len(back.Models) != 2 {
		t.Fatalf("device %+v, %d models", back.Device, len(back.Models))
	}
	for _, name := range []string{"config", "vendor"} {
		m, ok := back.Model(name)
		if !ok || len(m.Check) == 0 {
			t.Fatalf("%s: missing or without checks", name)
		}
		if err := m.Verify(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	if !bytes.Contains([]byte(report), []byte("calibrated")) {
		t.Errorf("report: %s", report)
	}
	// The configuration model's 40,000 rows: its held-out error. (The
	// vendor model's 35 held-out inputs here are too few to judge by.)
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
		_, _, test = tune.ConfigMatrices(samples)
	} else {
		_, _, test = tune.VendorMatrices(samples)
	}
	return tune.MSE(m.Nets, test)
}

// -method as-is writes the shipped models unchanged under the data's
// device (the baseline a calibration is compared with): the same held-out
// error as the shipped weights, and a comment saying it is not calibrated.
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
	if !bytes.Contains([]byte(report), []byte("as shipped (-method as-is)")) || !bytes.Contains([]byte(w.Comment), []byte("not calibrated")) {
		t.Errorf("report %q, comment %q", report, w.Comment)
	}
	for _, name := range []string{"config", "vendor"} {
		m, _ := w.Model(name)
		if got, want := m.TestMSE, shippedTestMSE(t, name, samples); got != want {
			t.Errorf("%s: held-out MSE %v as-is, %v shipped", name, got, want)
		}
	}
}
