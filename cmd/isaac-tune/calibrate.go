package main

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// calibrateOptions are calibrate's flags.
type calibrateOptions struct {
	data   string  // data sets measured on the new device (isaac-tune sample)
	from   string  // the shipped weights calibrated
	lambda float64 // ridge strength per row, towards the shipped output layer
	method string  // "refit" (the output layers) or "as-is" (the shipped models, for comparison)
	out    string
}

// calibrateCmd calibrates shipped weights to a device without weights of
// its own, from a few measurements on it (isaac-tune sample's data sets,
// configurations and cuBLAS): each model's output layer is refit to the new
// device (predictor.MLP.Calibrate), its hidden layers kept. It writes a
// weights file for the new device, by default where the shim looks for one
// (weights.CalibratedPath in ISAAC_CACHE_DIR), and reports each model's
// held-out error before and after.
func calibrateCmd(args []string) error {
	var o calibrateOptions
	fs := flag.NewFlagSet("calibrate", flag.ExitOnError)
	fs.StringVar(&o.data, "data", "", "data sets measured on the new device (glob of isaac-tune sample files)")
	fs.StringVar(&o.from, "from", "h100", "the shipped weights to calibrate (a device key)")
	fs.Float64Var(&o.lambda, "lambda", 0, "ridge strength per row, towards the shipped output layer (0: chosen on the data's validation inputs)")
	fs.StringVar(&o.method, "method", "refit", "refit: the output layers refit to the data; as-is: the shipped models unchanged, relabelled for the new device (the baseline a calibration is measured against)")
	fs.StringVar(&o.out, "out", "", "the weights file to write (default: where the shim finds it, in ISAAC_CACHE_DIR or ~/.cache/isaac)")
	fs.Parse(args)
	if o.data == "" {
		return fmt.Errorf("calibrate: -data is required")
	}
	if o.method != "refit" && o.method != "as-is" {
		return fmt.Errorf("calibrate: -method %q: want refit or as-is", o.method)
	}
	samples, comments, hash, err := loadData(o.data, "", "", "")
	if err != nil {
		return err
	}
	dev, err := deviceOf(comments)
	if err != nil {
		return err
	}
	w, report, err := calibrate(samples, dev, hash, o)
	if err != nil {
		return err
	}
	fmt.Fprint(os.Stderr, report)
	path := o.out
	if path == "" {
		path = weights.CalibratedPath(os.Getenv("ISAAC_CACHE_DIR"), dev.Key)
	}
	if w.Device.Key == o.from {
		fmt.Fprintf(os.Stderr, "note: the data are from %s, whose weights are shipped: the shim uses those, not these (ISAAC_WEIGHTS names a file)\n", o.from)
	}
	var buf bytes.Buffer
	if err := predictor.Encode(&buf, w); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "wrote %s (%s, calibrated from %s on %d samples)\n", path, dev.Key, o.from, len(samples))
	return nil
}

// calibrate is calibrateCmd's work on loaded data: the calibrated weights
// and a report of each model's error on the data's held-out inputs.
func calibrate(samples []tune.Sample, dev predictor.DeviceID, hash string, o calibrateOptions) (*predictor.Weights, string, error) {
	src, err := weights.For(o.from)
	if err != nil {
		return nil, "", err
	}
	comment := fmt.Sprintf("calibrated from the %s weights (%s): output layers refit by ridge regression", o.from, src.Trained)
	if o.method == "as-is" {
		comment = fmt.Sprintf("the %s weights (%s) as shipped, relabelled: not calibrated", o.from, src.Trained)
	}
	out := &predictor.Weights{Header: predictor.Header{Device: dev, Dataset: hash, Samples: len(samples),
		Trained: time.Now().UTC().Format(time.RFC3339), Commit: commitOr(), Comment: comment}}
	var report string
	for _, c := range []struct {
		name, schema string
		matrices     func([]tune.Sample) (tune.Matrix, tune.Matrix, tune.Matrix)
	}{
		{"config", predictor.ConfigSchema, tune.ConfigMatrices},
		{"vendor", predictor.VendorSchema, tune.VendorMatrices},
	} {
		m, ok := src.Model(c.name)
		if !ok || m.Schema != c.schema {
			return nil, "", fmt.Errorf("calibrate: the %s weights have no %s model of this build's schema", o.from, c.name)
		}
		train, valid, test := c.matrices(samples)
		fit := tune.Matrix{X: append(append([]float64(nil), train.X...), valid.X...),
			Y: append(append([]float64(nil), train.Y...), valid.Y...), N: train.N + valid.N, F: train.F}
		if train.N == 0 || valid.N == 0 || test.N == 0 {
			return nil, "", fmt.Errorf("calibrate: %s model: %d rows to fit, %d to validate, %d held out", c.name, train.N, valid.N, test.N)
		}
		lambda := o.lambda
		if o.method == "as-is" {
			lambda = -1
		} else if lambda == 0 {
			if lambda, err = chooseLambda(m.Nets, train, valid); err != nil {
				return nil, "", fmt.Errorf("calibrate: %s model: %w", c.name, err)
			}
		}
		nets := m.Nets // kept where no calibration predicts the validation inputs better
		how := "kept as shipped: no ridge strength predicts the validation inputs better"
		if lambda < 0 {
			how = "as shipped (-method as-is)"
		} else if lambda > 0 {
			if nets, err = m.Nets.Calibrate(fit.X, fit.Y, fit.N, lambda); err != nil {
				return nil, "", fmt.Errorf("calibrate: %s model: %w", c.name, err)
			}
			how = fmt.Sprintf("ridge %g", lambda)
		}
		cm := predictor.Model{ModelHeader: m.ModelHeader, Nets: nets}
		cm.TestMSE = tune.MSE(nets, test)
		cm.Check = heldOutChecks(nets, test)
		out.Models = append(out.Models, cm)
		report += fmt.Sprintf("%s model: %d rows fit (%s), %d held out: test MSE %.4f as shipped for %s, %.4f calibrated\n",
			c.name, fit.N, how, test.N, tune.MSE(m.Nets, test), o.from, cm.TestMSE)
	}
	return out, report, nil
}

// ridgeGrid are the ridge strengths chooseLambda tries.
var ridgeGrid = []float64{1e-4, 1e-3, 1e-2, 1e-1, 1, 10, 100}

// chooseLambda is the ridge strength of ridgeGrid whose calibration on
// train predicts valid best, or 0 where the shipped model itself predicts
// valid better than every calibration (a device like the shipped one, or
// too few rows to learn from).
func chooseLambda(nets predictor.Ensemble, train, valid tune.Matrix) (float64, error) {
	best, bestMSE := 0.0, tune.MSE(nets, valid)
	for _, l := range ridgeGrid {
		c, err := nets.Calibrate(train.X, train.Y, train.N, l)
		if err != nil {
			return 0, err
		}
		if mse := tune.MSE(c, valid); mse < bestMSE {
			best, bestMSE = l, mse
		}
	}
	return best, nil
}
