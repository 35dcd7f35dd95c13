package main

import (
	"bytes"
	"cmp"
	"flag"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// calibrateOptions are calibrate's flags.
type calibrateOptions struct {
	data     string  // GEMM data sets measured on the new device (isaac-tune sample)
	convData string  // convolution data sets measured on it (isaac-tune sample-conv)
	from     string  // the shipped weights calibrated
	lambda   float64 // ridge strength per row, towards the shipped output layer
	method   string  // auto (chosen by cross-validation), as-is, affine or refit (calibrate's calibrations)
	check    string  // GEMM data sets of the same device, none of them calibrated on: every way scored on them too
	out      string
	convOut  string
}

// calibrateCmd calibrates shipped weights to a device without weights of
// its own, from a few measurements on it: isaac-tune sample's data sets
// (configurations and cuBLAS) for the GEMM models, sample-conv's
// (configurations of each path and cuDNN) for the convolution models. Each
// model is kept as shipped, corrected affinely, has its output layer
// refit or, given enough inputs, every layer fine-tuned, as
// cross-validation on the data chooses (calibrate). It writes
// weights files for the new device, by default where the shim looks for
// them (weights.CalibratedPath and CalibratedConvPath in ISAAC_CACHE_DIR),
// and reports every way's errors.
func calibrateCmd(args []string) error {
	var o calibrateOptions
	fs := flag.NewFlagSet("calibrate", flag.ExitOnError)
	fs.StringVar(&o.data, "data", "", "GEMM data sets measured on the new device (glob of isaac-tune sample files)")
	fs.StringVar(&o.convData, "conv-data", "", "convolution data sets measured on the new device (glob of isaac-tune sample-conv files)")
	fs.StringVar(&o.from, "from", "h100", "the weights to calibrate: a shipped device key, or a GEMM weights file (e.g. train -start's)")
	fs.Float64Var(&o.lambda, "lambda", 0, "a refit's ridge strength per row, towards the shipped output layer (0: each of a grid, chosen by cross-validation)")
	fs.StringVar(&o.method, "method", "auto", "auto: per model, the way that predicts the data's inputs best by cross-validation; as-is: the shipped models unchanged, relabelled for the new device (the baseline); affine: predictions scaled and shifted; refit: output layers refit by ridge regression; fine-tune: every layer trained on from the shipped networks (auto tries it too on a model of 500 inputs or more)")
	fs.StringVar(&o.check, "check", "", "GEMM data sets of the same device not calibrated on (glob): every way is also scored on them, fit on all of -data")
	fs.StringVar(&o.out, "out", "", "the GEMM weights file to write (default: where the shim finds it, in ISAAC_CACHE_DIR or ~/.cache/isaac)")
	fs.StringVar(&o.convOut, "conv-out", "", "the convolution weights file to write (default: where the shim finds it)")
	fs.Parse(args)
	if o.data == "" && o.convData == "" {
		return fmt.Errorf("calibrate: -data or -conv-data is required")
	}
	if !slices.Contains([]string{"auto", "as-is", "affine", "refit", "fine-tune"}, o.method) {
		return fmt.Errorf("calibrate: -method %q: want auto, as-is, affine, refit or fine-tune", o.method)
	}
	cache := os.Getenv("ISAAC_CACHE_DIR")
	if o.data != "" {
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
		if o.check != "" {
			checkSamples, checkComments, _, err := loadData(o.check, "", "", "")
			if err != nil {
				return err
			}
			if cdev, err := deviceOf(checkComments); err != nil || cdev.Key != dev.Key {
				return fmt.Errorf("calibrate: -check %s: measured on %v, -data on %s (%v)", o.check, cdev.Key, dev.Key, err)
			}
			r, err := checkCalibrations(samples, checkSamples, o)
			if err != nil {
				return err
			}
			fmt.Fprint(os.Stderr, r)
		}
		if err := writeCalibrated(w, cmp.Or(o.out, weights.CalibratedPath(cache, dev.Key)), o.from, "ISAAC_WEIGHTS"); err != nil {
			return err
		}
	}
	if o.convData != "" {
		samples, comments, hash, err := loadConvData(o.convData)
		if err != nil {
			return err
		}
		dev, err := deviceOf(comments)
		if err != nil {
			return err
		}
		w, report, err := calibrateConv(samples, dev, hash, o)
		if err != nil {
			return err
		}
		fmt.Fprint(os.Stderr, report)
		if err := writeCalibrated(w, cmp.Or(o.convOut, weights.CalibratedConvPath(cache, dev.Key)), o.from, "ISAAC_CONV_WEIGHTS"); err != nil {
			return err
		}
	}
	return nil
}

// writeCalibrated writes calibrated weights to path.
func writeCalibrated(w *predictor.Weights, path, from, env string) error {
	if w.Device.Key == from {
		fmt.Fprintf(os.Stderr, "note: the data are from %s, whose weights are shipped: the shim uses those, not these (%s names a file)\n", from, env)
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
	fmt.Fprintf(os.Stderr, "wrote %s (%s, calibrated from %s on %d samples)\n", path, w.Device.Key, from, w.Samples)
	return nil
}

// modelRows are one model's name, schema, rows on the new device and
// whether its calibration is chosen by rank loss (a configuration model:
// several rows an input) or by squared error (a vendor model).
type modelRows struct {
	name, schema string
	rows         tune.Grouped
	byRank       bool
}

// calibrate is calibrateCmd's work on loaded GEMM data: the calibrated
// weights and a report (calibrateModels).
func calibrate(samples []tune.Sample, dev predictor.DeviceID, hash string, o calibrateOptions) (*predictor.Weights, string, error) {
	src, err := gemmWeightsFrom(o.from)
	if err != nil {
		return nil, "", err
	}
	cfg, ok := src.ConfigModel()
	if !ok {
		return nil, "", fmt.Errorf("calibrate: the %s weights have no configuration model of a schema this build knows", o.from)
	}
	l := cfg.ConfigLayout() // calibrated in the schema it was trained on
	return calibrateModels(src, []modelRows{
		{"config", l.Schema, tune.ConfigGrouped(samples, l), true},
		{"vendor", predictor.VendorSchema, tune.VendorGrouped(samples), false},
	}, dev, hash, len(samples), o)
}

// calibrateConv is calibrateCmd's work on loaded convolution data.
func calibrateConv(samples []tune.ConvSample, dev predictor.DeviceID, hash string, o calibrateOptions) (*predictor.Weights, string, error) {
	src, err := weights.ConvFor(o.from)
	if err != nil {
		return nil, "", err
	}
	return calibrateModels(src, []modelRows{
		{"conv-config", predictor.ConvConfigSchema, tune.ConvConfigGrouped(samples), true},
		{"conv-vendor", predictor.ConvVendorSchema, tune.ConvVendorGrouped(samples), false},
	}, dev, hash, len(samples), o)
}

// calibrateModels calibrates each model of src to its rows on the new
// device, one of four ways (calibrations): as shipped; affinely (its
// predictions scaled and shifted: the same ranking, another level); its
// output layer refit by ridge regression towards the shipped one
// (predictor.MLP.Calibrate) at each strength of ridgeGrid; on a model of
// fineTuneInputs inputs or more, every layer fine-tuned (tune.FineTune). With -method
// auto the way is chosen by cross-validation over the inputs of folds 0–8
// (tune.CrossValidate) and the one-standard-error rule (choose). The
// chosen way is then fit on folds 0–8 and fold 9 is reported.
func calibrateModels(src *predictor.Weights, models []modelRows, dev predictor.DeviceID, hash string, samples int, o calibrateOptions) (*predictor.Weights, string, error) {
	out := &predictor.Weights{Header: predictor.Header{Device: dev, Dataset: hash, Samples: samples,
		Trained: time.Now().UTC().Format(time.RFC3339), Commit: commitOr()}}
	var report strings.Builder
	var ways []string
	for _, c := range models {
		m, ok := src.Model(c.name)
		if !ok || m.Schema != c.schema {
			return nil, "", fmt.Errorf("calibrate: the %s weights have no %s model of this build's schema", o.from, c.name)
		}
		fit := c.rows.Where(func(f int) bool { return f != 9 })
		test := c.rows.Where(func(f int) bool { return f == 9 })
		if fit.N == 0 || test.N == 0 {
			return nil, "", fmt.Errorf("calibrate: %s model: %d rows to fit, %d held out", c.name, fit.N, test.N)
		}
		cals := calibrations(m.Nets, o, distinct(fit.Input))
		scores, err := tune.CrossValidate(fit, cals)
		if err != nil {
			return nil, "", fmt.Errorf("calibrate: %s model: %w", c.name, err)
		}
		best := choose(scores, c.byRank)
		fmt.Fprintf(&report, "%s model: %d rows of %d inputs to fit (folds 0-8), %d rows held out (fold 9); cross-validated over the fit rows' folds:\n",
			c.name, fit.N, distinct(fit.Input), test.N)
		fmt.Fprintf(&report, "  %-14s %18s %18s %12s %12s\n", "way", "cv MSE (± se)", "cv rank (± se)", "held MSE", "held rank")
		var chosen predictor.Ensemble
		for i, cal := range cals {
			nets, err := cal.Fit(fit)
			if err != nil {
				return nil, "", fmt.Errorf("calibrate: %s model, %s: %w", c.name, cal.Name, err)
			}
			pred := nets.Predict(test.X, test.N)
			mark := ""
			if i == best {
				chosen, mark = nets, "  <- chosen"
			}
			fmt.Fprintf(&report, "  %-14s %10.4f ± %.4f %11s ± %4s %12.4f %12s%s\n", cal.Name, scores[i].MSE, scores[i].MSESE, pct(scores[i].Rank), pct(scores[i].RankSE),
				tune.MSE(nets, test.Matrix), pct(tune.RankLoss(pred, test.Y, test.Input)), mark)
		}
		cm := predictor.Model{ModelHeader: m.ModelHeader, Nets: chosen}
		cm.TestMSE = tune.MSE(chosen, test.Matrix)
		cm.Check = heldOutChecks(chosen, test.Matrix)
		out.Models = append(out.Models, cm)
		ways = append(ways, c.name+" "+cals[best].Name)
	}
	out.Comment = fmt.Sprintf("calibrated from the %s weights (%s) on %d samples: %s", o.from, src.Trained, samples, strings.Join(ways, ", "))
	return out, report.String(), nil
}

// ridgeGrid are the ridge strengths of the output-layer refits tried,
// strongest (closest to the shipped model) first.
var ridgeGrid = []float64{100, 10, 1, 1e-1, 1e-2, 1e-3, 1e-4}

// choose is the index of the calibration to keep among scores (in
// calibrations' order: simplest first) by the one-standard-error rule:
// the simplest whose cross-validated error is within one standard error
// of the lowest — a calibration must beat the shipped model by more than
// the folds disagree before it replaces it. The error is the rank loss for
// the configuration model (byRank: how much slower than the best measured
// configuration of an input its first choice runs, which is what the
// dispatch pays) and the squared error for the vendor model (one row per
// input: its level is all it has). Where that is as-is or affine — which
// rank alike, and two parameters are fit well by any data set — the one of
// the lower squared error is kept.
func choose(scores []tune.Scored, byRank bool) int {
	err := func(s tune.Scored) (float64, float64) {
		if byRank {
			return s.Rank, s.RankSE
		}
		return s.MSE, s.MSESE
	}
	best := 0
	for i, s := range scores {
		e, _ := err(s)
		if b, _ := err(scores[best]); e < b {
			best = i
		}
	}
	b, se := err(scores[best])
	pick := best
	for i, s := range scores {
		if e, _ := err(s); e <= b+se {
			pick = i
			break
		}
	}
	if pick < 2 && len(scores) > 1 && scores[1].Name == "affine" && scores[0].Name == "as-is" {
		if scores[1].MSE < scores[0].MSE {
			return 1
		}
		return 0
	}
	return pick
}

// calibrations are the ways of calibrating nets that -method allows.
func calibrations(nets predictor.Ensemble, o calibrateOptions, inputs int) []tune.Calibration {
	asIs := tune.Calibration{Name: "as-is", Fit: func(tune.Grouped) (predictor.Ensemble, error) { return nets, nil }}
	affine := tune.Calibration{Name: "affine", Fit: func(tr tune.Grouped) (predictor.Ensemble, error) {
		a, b, err := predictor.FitAffine(nets.Predict(tr.X, tr.N), tr.Y, affineRidge)
		if err != nil {
			return nil, err
		}
		return nets.Affine(a, b), nil
	}}
	refit := func(l float64) tune.Calibration {
		return tune.Calibration{Name: fmt.Sprintf("refit %g", l), Fit: func(tr tune.Grouped) (predictor.Ensemble, error) {
			return nets.Calibrate(tr.X, tr.Y, tr.N, l)
		}}
	}
	var refits []tune.Calibration
	if o.lambda > 0 {
		refits = []tune.Calibration{refit(o.lambda)}
	} else {
		for _, l := range ridgeGrid {
			refits = append(refits, refit(l))
		}
	}
	fineTune := tune.Calibration{Name: "fine-tune", Fit: func(tr tune.Grouped) (predictor.Ensemble, error) {
		return tune.FineTune(nets, tr, fineTuneOptions)
	}}
	switch o.method {
	case "as-is":
		return []tune.Calibration{asIs}
	case "affine":
		return []tune.Calibration{affine}
	case "refit":
		return refits
	case "fine-tune":
		return []tune.Calibration{fineTune}
	}
	all := append([]tune.Calibration{asIs, affine}, refits...)
	if inputs >= fineTuneInputs {
		all = append(all, fineTune)
	}
	return all
}

// fineTuneOptions are the fine-tuning calibration's (those of the H200's
// shipped convolution models: weights/results/conv/h200/train-ft.log).
var fineTuneOptions = tune.TrainOptions{Epochs: 100, Patience: 20, Batch: 256, LR: 1e-3, Seed: 1}

// fineTuneInputs are the inputs a model's data need before -method auto
// also tries fine-tuning: on the 258 convolutions of the H200's 2,000
// calibration samples it ranked later convolutions worse than the shipped
// model (weights/results/conv/h200/finetune-cal01.log); on its 661
// convolutions of 30,273 rows, and cuDNN's model on 7,212, it predicted
// held-out ones best (calibrate-all-ft.log, train-ft.log). Its
// cross-validation trains the networks once per fold.
const fineTuneInputs = 500

// affineRidge pulls an affine calibration towards the identity, per row.
const affineRidge = 1e-3

// distinct is how many different values ids holds.
func distinct(ids []int) int {
	seen := map[int]bool{}
	for _, id := range ids {
		seen[id] = true
	}
	return len(seen)
}

// pct writes a rank loss as a percentage ("-" where no input has two rows).
func pct(v float64) string {
	if math.IsNaN(v) {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*v)
}

// checkCalibrations scores every way of calibrating the GEMM models (fit
// on all of the calibration samples) on another data set of the same
// device: its squared error and, for the configuration model, its rank
// loss.
func checkCalibrations(samples, check []tune.Sample, o calibrateOptions) (string, error) {
	src, err := gemmWeightsFrom(o.from)
	if err != nil {
		return "", err
	}
	var report strings.Builder
	for _, c := range []struct {
		name string
		rows func([]tune.Sample) tune.Grouped
	}{{"config", func(s []tune.Sample) tune.Grouped {
		m, _ := src.Model("config")
		return tune.ConfigGrouped(s, m.ConfigLayout())
	}}, {"vendor", tune.VendorGrouped}} {
		m, _ := src.Model(c.name)
		fit, held := c.rows(samples), c.rows(check)
		fmt.Fprintf(&report, "%s model on the -check data (%d rows of %d inputs), each way fit on all %d calibration rows:\n", c.name, held.N, distinct(held.Input), fit.N)
		for _, cal := range calibrations(m.Nets, calibrateOptions{lambda: o.lambda}, distinct(fit.Input)) {
			nets, err := cal.Fit(fit)
			if err != nil {
				return "", err
			}
			pred := nets.Predict(held.X, held.N)
			fmt.Fprintf(&report, "  %-14s MSE %.4f  rank %s\n", cal.Name, tune.MSE(nets, held.Matrix), pct(tune.RankLoss(pred, held.Y, held.Input)))
		}
	}
	return report.String(), nil
}

// gemmWeightsFrom is the GEMM weights shipped for device key from, or else
// those of the weights file from.
func gemmWeightsFrom(from string) (*predictor.Weights, error) {
	w, err := weights.For(from)
	if err == nil {
		return w, nil
	}
	if w, ferr := weights.Load(from); ferr == nil {
		return w, nil
	}
	return nil, err
}
