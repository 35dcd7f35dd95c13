package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// loadConvData reads the convolution data sets matching glob, in name
// order, and hashes their bytes; rows that timed the host's code
// generation are kept for cuDNN's times only (tune.WithoutHostTimed).
func loadConvData(glob string) ([]tune.ConvSample, []string, string, error) {
	files, err := filepath.Glob(glob)
	if err != nil {
		return nil, nil, "", err
	}
	if len(files) == 0 {
		return nil, nil, "", fmt.Errorf("no data set matches %s", glob)
	}
	h := sha256.New()
	all, comments, err := readDataSets(files, h, func(f string, raw []byte) ([]tune.ConvSample, []string, error) {
		s, c, err := tune.ReadConv(bytes.NewReader(raw))
		if err != nil {
			return nil, nil, err
		}
		s, changed := tune.WithoutHostTimed(s, c)
		if changed > 0 {
			fmt.Fprintf(os.Stderr, "%s: %d rows of the NHWC-copies and direct paths kept for cuDNN's times only (their own timed the host's code generation: tune.ConvLaunchOnly)\n", f, changed)
		}
		return s, c, nil
	})
	if err != nil {
		return nil, nil, "", err
	}
	return all, comments, hex.EncodeToString(h.Sum(nil)), nil
}

// trainConvCmd fits the convolution models: the configuration model (ln
// TFLOP/s of a path and configuration on a convolution) and cuDNN's (ln
// TFLOP/s of its fastest algorithm), as train does GEMM's.
func trainConvCmd(args []string) error {
	fs := flag.NewFlagSet("train-conv", flag.ExitOnError)
	data := fs.String("data", "weights/data/h100-conv-*.csv.zst", "convolution data sets (glob)")
	var t trainFlags
	t.bind(fs, "cuDNN's model")
	vmembers := fs.Int("vendor-ensemble", 5, "networks of cuDNN's model, averaged (its data are few and noisy: an ensemble predicts better than one network)")
	startFrom := fs.String("start", "", "fine-tune: start both models from this convolution weights file's (or shipped device key's) networks, their layer sizes and standardization kept (-arch, -vendor-arch unused)")
	fs.Parse(args)
	hidden, vhidden, err := t.archs()
	if err != nil {
		return err
	}
	samples, comments, hash, err := loadConvData(*data)
	if err != nil {
		return err
	}
	dev, err := deviceOf(comments)
	if err != nil {
		return err
	}
	train, valid, test := tune.ConvConfigMatrices(samples)
	fmt.Fprintf(os.Stderr, "%d samples from %s (%s): %d train, %d validation, %d test rows (folds by convolution)\n",
		len(samples), *data, dev.Name, train.N, valid.N, test.N)
	var start *convStart
	if *startFrom != "" {
		if start, err = loadConvStart(*startFrom); err != nil {
			return err
		}
		t.startConfig = start.config
		fmt.Fprintf(os.Stderr, "fine-tuning the networks of %s (%s, %d samples, trained %s)\n", *startFrom, start.device, start.samples, start.trained)
	}
	first, err := t.table2(train, valid, test, len(samples), hash, dev, hidden)
	if err != nil {
		return err
	}
	net, testMSE := t.ensemble(first, train, valid, test, hidden)
	if sub := tune.ConvRanking(net, samples, 8); len(sub) > 0 {
		sort.Float64s(sub)
		fmt.Fprintf(os.Stderr, "held-out convolutions (fold 9, 8 or more measured configurations): %d; the model's pick against the fastest measured: median %.1f %%, p90 %.1f %% slower\n",
			len(sub), 100*sub[len(sub)/2], 100*sub[len(sub)*9/10])
	}
	fmt.Fprintf(os.Stderr, "held-out rows by kind of kernel (fold 9): type, math, rows, MSE, mean of predicted less measured ln TFLOP/s\n")
	for _, e := range tune.ConvErrorsByKind(net, samples) {
		fmt.Fprintf(os.Stderr, "  %-12s %-14s %6d  %.4f  %+.3f\n", e.Type, e.Math, e.Rows, e.MSE, e.Bias)
	}
	vtrain, vvalid, vtest := tune.ConvVendorMatrices(samples)
	vopts := t.options()
	vopts.Hidden, vopts.Log = vhidden, nil
	if start != nil {
		vopts.Start = start.vendor
	}
	if vtrain.N < 20000 { // few convolutions: many cheap epochs
		vopts.Patience, vopts.Epochs = max(vopts.Patience, 30), max(vopts.Epochs, 400)
	}
	vnet, vreps := tune.TrainEnsemble(vtrain, vvalid, vopts, max(*vmembers, 1))
	vtestMSE := tune.MSE(vnet, vtest)
	varch := fmt.Sprint(vhidden)
	if start != nil {
		varch = fmt.Sprintf("fine-tuned from -start's %d networks of sizes %v", len(start.vendor), start.vendor[0].Sizes)
	}
	fmt.Fprintf(os.Stderr, "cuDNN's model %s, ensemble of %d, on %d convolutions: test MSE %.4f (members' validation MSE and best epoch %v)\n",
		varch, len(vnet), vtrain.N, vtestMSE, convReports(vreps))
	if t.out == "" {
		return nil
	}
	w := &predictor.Weights{
		Header: predictor.Header{
			Device: dev, Dataset: hash, Samples: len(samples), Trained: time.Now().UTC().Format(time.RFC3339), Commit: buildCommit,
			Comment: trainConvComment(t, len(vnet), *startFrom, start),
		},
		Models: []predictor.Model{
			{ModelHeader: predictor.ModelHeader{Name: "conv-config", Target: "ln TFLOP/s of the path's kernels with the configuration", Schema: predictor.ConvConfigSchema, TestMSE: testMSE, Check: heldOutChecks(net, test)}, Nets: net},
			{ModelHeader: predictor.ModelHeader{Name: "conv-vendor", Target: "ln TFLOP/s of cuDNN's fastest algorithm", Schema: predictor.ConvVendorSchema, TestMSE: vtestMSE, Check: heldOutChecks(vnet, vtest)}, Nets: vnet},
		},
	}
	f, err := os.Create(t.out)
	if err != nil {
		return err
	}
	if err := predictor.Encode(f, w); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// convStart are the networks train-conv -start fine-tunes: another
// device's convolution models, and where they came from.
type convStart struct {
	config, vendor  predictor.Ensemble
	device, trained string
	samples         int
}

// loadConvStart reads the convolution networks of a weights file, or of
// the convolution weights shipped for a device key.
func loadConvStart(from string) (*convStart, error) {
	w, err := weights.ConvFor(from)
	if err != nil {
		var ferr error
		if w, ferr = weights.Load(from); ferr != nil {
			return nil, fmt.Errorf("-start %s: neither a shipped device key nor a weights file: %w", from, err)
		}
	}
	c, okc := w.Model("conv-config")
	v, okv := w.Model("conv-vendor")
	if !okc || !okv || c.Schema != predictor.ConvConfigSchema || v.Schema != predictor.ConvVendorSchema {
		return nil, fmt.Errorf("-start %s: no convolution configuration and cuDNN models of this build's schemas", from)
	}
	return &convStart{config: c.Nets, vendor: v.Nets, device: w.Device.Name, trained: w.Trained, samples: w.Samples}, nil
}

// trainConvComment is the trained weights' header comment: how to train
// them again.
func trainConvComment(t trainFlags, vmembers int, from string, start *convStart) string {
	how := fmt.Sprintf("-arch %s -vendor-arch %s", t.arch, t.vendorArch)
	if start != nil {
		how = fmt.Sprintf("-start %s (%s, %d samples: %s)", from, start.device, start.samples, start.trained)
	}
	return fmt.Sprintf("isaac-tune train-conv %s -ensemble %d -vendor-ensemble %d -epochs %d -patience %d -batch %d -lr %g -seed %d; folds 0-7 train, 8 early stopping, 9 test (by convolution)",
		how, t.members, vmembers, t.epochs, t.patience, t.batch, t.lr, t.seed)
}

// convReports are training reports as "validation MSE @ best epoch".
func convReports(reps []tune.TrainReport) []string {
	var out []string
	for _, r := range reps {
		out = append(out, fmt.Sprintf("%.4f@%d", r.ValidMSE, r.BestEpoch))
	}
	return out
}
