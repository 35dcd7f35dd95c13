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
)

// loadConvData reads the convolution data sets matching glob, in name
// order, and hashes their bytes.
func loadConvData(glob string) ([]tune.ConvSample, []string, string, error) {
	files, err := filepath.Glob(glob)
	if err != nil {
		return nil, nil, "", err
	}
	if len(files) == 0 {
		return nil, nil, "", fmt.Errorf("no data set matches %s", glob)
	}
	h := sha256.New()
	all, comments, err := readDataSets(files, h, func(_ string, raw []byte) ([]tune.ConvSample, []string, error) {
		return tune.ReadConv(bytes.NewReader(raw))
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
	arch := fs.String("arch", "64,128,192,256,192,128,64", "hidden layer widths of the exported configuration model")
	vendorArch := fs.String("vendor-arch", "64,128,64", "hidden layer widths of cuDNN's model")
	table := fs.String("table2", "", "also train the paper's seven Table 2 architectures and write their MSE table (Markdown) here")
	epochs := fs.Int("epochs", 60, "epochs at most")
	patience := fs.Int("patience", 6, "early stopping: epochs without a better validation MSE")
	batch := fs.Int("batch", 256, "minibatch rows")
	lr := fs.Float64("lr", 1e-3, "Adam step size")
	maxTime := fs.Duration("max-time", 0, "stop each training after this long (0: none)")
	members := fs.Int("ensemble", 5, "networks of the exported configuration model, averaged (seeds seed, seed+1, …)")
	out := fs.String("out", "", "weights file to write (.isw.zst)")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Parse(args)
	hidden, err := parseArch(*arch)
	if err != nil {
		return err
	}
	vhidden, err := parseArch(*vendorArch)
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
	opts := tune.TrainOptions{Epochs: *epochs, Patience: *patience, Batch: *batch, LR: *lr, Seed: *seed, MaxTime: *maxTime, Log: os.Stderr}
	var first *predictor.MLP
	if *table != "" {
		if first, _, err = writeTable2(*table, train, valid, test, opts, len(samples), hash, dev, hidden); err != nil {
			return err
		}
	}
	opts.Hidden = hidden
	start := time.Now()
	var net predictor.Ensemble
	if first != nil {
		o := opts
		o.Seed++
		rest, _ := tune.TrainEnsemble(train, valid, o, *members-1)
		net = append(predictor.Ensemble{first}, rest...)
	} else {
		net, _ = tune.TrainEnsemble(train, valid, opts, *members)
	}
	testMSE := tune.MSE(net, test)
	fmt.Fprintf(os.Stderr, "configuration model %v: ensemble of %d, test MSE %.4f (%s)\n", hidden, len(net), testMSE, time.Since(start).Round(time.Second))
	if sub := tune.ConvRanking(net, samples, 8); len(sub) > 0 {
		sort.Float64s(sub)
		fmt.Fprintf(os.Stderr, "held-out convolutions (fold 9, 8 or more measured configurations): %d; the model's pick against the fastest measured: median %.1f %%, p90 %.1f %% slower\n",
			len(sub), 100*sub[len(sub)/2], 100*sub[len(sub)*9/10])
	}
	vtrain, vvalid, vtest := tune.ConvVendorMatrices(samples)
	vopts := opts
	vopts.Hidden, vopts.Log = vhidden, nil
	if vtrain.N < 20000 { // few convolutions: many cheap epochs
		vopts.Patience, vopts.Epochs = max(vopts.Patience, 30), max(vopts.Epochs, 400)
	}
	vnet, vrep := tune.Train(vtrain, vvalid, vopts)
	vtestMSE := tune.MSE(vnet, vtest)
	fmt.Fprintf(os.Stderr, "cuDNN's model %v on %d convolutions: test MSE %.4f (validation %.4f, epoch %d)\n",
		vhidden, vtrain.N, vtestMSE, vrep.ValidMSE, vrep.BestEpoch)
	if *out == "" {
		return nil
	}
	w := &predictor.Weights{
		Header: predictor.Header{
			Device: dev, Dataset: hash, Samples: len(samples), Trained: time.Now().UTC().Format(time.RFC3339), Commit: buildCommit,
			Comment: fmt.Sprintf("isaac-tune train-conv -arch %s -ensemble %d -vendor-arch %s -epochs %d -patience %d -batch %d -lr %g -seed %d; folds 0-7 train, 8 early stopping, 9 test (by convolution)",
				*arch, *members, *vendorArch, *epochs, *patience, *batch, *lr, *seed),
		},
		Models: []predictor.Model{
			{ModelHeader: predictor.ModelHeader{Name: "conv-config", Target: "ln TFLOP/s of the path's kernels with the configuration", Schema: predictor.ConvConfigSchema, TestMSE: testMSE, Check: heldOutChecks(net, test)}, Nets: net},
			{ModelHeader: predictor.ModelHeader{Name: "conv-vendor", Target: "ln TFLOP/s of cuDNN's fastest algorithm", Schema: predictor.ConvVendorSchema, TestMSE: vtestMSE, Check: heldOutChecks(vnet, vtest)}, Nets: predictor.Ensemble{vnet}},
		},
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := predictor.Encode(f, w); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
