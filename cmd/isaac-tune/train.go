package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// table2 are the paper's Table 2 architectures (hidden layer widths).
var table2 = [][]int{
	{64}, {512}, {32, 64, 32}, {64, 128, 64}, {32, 64, 128, 64, 32},
	{64, 128, 256, 128, 64}, {64, 128, 192, 256, 192, 128, 64},
}

func parseArch(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || v <= 0 {
			return nil, fmt.Errorf("bad architecture %q", s)
		}
		out = append(out, v)
	}
	return out, nil
}

func archString(a []int) string {
	var s []string
	for _, v := range a {
		s = append(s, strconv.Itoa(v))
	}
	return strings.Join(s, ", ")
}

// globs is the files matching any of the comma-separated patterns of
// list, sorted, each once.
func globs(list string) ([]string, error) {
	var files []string
	for _, g := range strings.Split(list, ",") {
		f, err := filepath.Glob(g)
		if err != nil {
			return nil, err
		}
		files = append(files, f...)
	}
	slices.Sort(files)
	return slices.Compact(files), nil
}

// loadData reads the data sets matching glob, in name order, and hashes
// their bytes. The grid-split rows of those that also match staleSplits
// (empty: none) become vendor-only rows (tune.WithoutGridSplits), and the
// hash says so.
//
// Likewise the rows of staleMaths (the maths' names, comma-separated) in the
// data sets matching staleMathsData become vendor-only rows
// (tune.WithoutMaths).
func loadData(glob, staleSplits, staleMaths, staleMathsData string) ([]tune.Sample, []string, string, error) {
	files, err := globs(glob)
	if err != nil {
		return nil, nil, "", err
	}
	subset := func(flag, g string) (map[string]bool, error) {
		m := map[string]bool{}
		if g == "" {
			return m, nil
		}
		sf, err := filepath.Glob(g)
		if err != nil {
			return nil, err
		}
		if len(sf) == 0 {
			return nil, fmt.Errorf("%s: no data set matches %s", flag, g)
		}
		for _, f := range sf {
			if !slices.Contains(files, f) {
				return nil, fmt.Errorf("%s: %s is not one of %s", flag, f, glob)
			}
			m[f] = true
		}
		return m, nil
	}
	stale, err := subset("-stale-splits", staleSplits)
	if err != nil {
		return nil, nil, "", err
	}
	var maths []ptx.Math
	for _, name := range strings.Split(staleMaths, ",") {
		if name == "" {
			continue
		}
		m, err := ptx.ParseMath(strings.TrimSpace(name))
		if err != nil {
			return nil, nil, "", fmt.Errorf("-stale-maths: %w", err)
		}
		maths = append(maths, m)
	}
	if (len(maths) == 0) != (staleMathsData == "") {
		return nil, nil, "", fmt.Errorf("-stale-maths and -stale-maths-data go together")
	}
	staleM, err := subset("-stale-maths-data", staleMathsData)
	if err != nil {
		return nil, nil, "", err
	}
	if len(files) == 0 {
		return nil, nil, "", fmt.Errorf("no data set matches %s", glob)
	}
	h := sha256.New()
	all, comments, err := readDataSets(files, h, func(f string, raw []byte) ([]tune.Sample, []string, error) {
		s, c, err := tune.Read(bytes.NewReader(raw))
		if err != nil {
			return nil, nil, err
		}
		if stale[f] {
			var n int
			s, n = tune.WithoutGridSplits(s)
			fmt.Fprintf(os.Stderr, "%s: %d grid-split rows left out (-stale-splits)\n", f, n)
			h.Write([]byte("stale-splits\x00"))
		}
		if staleM[f] {
			var n int
			s, n = tune.WithoutMaths(s, maths)
			fmt.Fprintf(os.Stderr, "%s: %d rows of %s left out (-stale-maths)\n", f, n, staleMaths)
			h.Write([]byte("stale-maths\x00" + staleMaths + "\x00"))
		}
		return s, c, nil
	})
	if err != nil {
		return nil, nil, "", err
	}
	return all, comments, hex.EncodeToString(h.Sum(nil)), nil
}

// readDataSets reads the data set files in name order with read, each
// file's bytes written to h before read sees them.
func readDataSets[S any](files []string, h hash.Hash, read func(f string, raw []byte) ([]S, []string, error)) ([]S, []string, error) {
	files = slices.Clone(files)
	sort.Strings(files)
	var all []S
	var comments []string
	for _, f := range files {
		raw, err := os.ReadFile(f)
		if err != nil {
			return nil, nil, err
		}
		h.Write(raw)
		s, c, err := read(f, raw)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", f, err)
		}
		all = append(all, s...)
		comments = append(comments, c...)
	}
	return all, comments, nil
}

var deviceLine = regexp.MustCompile(`^device: (.+) \(compute ([0-9.]+), (\d+) SMs`)

// deviceOf reads the device the data was measured on from its provenance;
// data sets from different devices do not mix.
func deviceOf(comments []string) (predictor.DeviceID, error) {
	var id predictor.DeviceID
	for _, c := range comments {
		if m := deviceLine.FindStringSubmatch(c); m != nil {
			sms, _ := strconv.Atoi(m[3])
			d := predictor.DeviceID{Name: m[1], ComputeCap: m[2], SMs: sms}
			if id.Name != "" && (id.Name != d.Name || id.SMs != d.SMs) {
				return id, fmt.Errorf("data sets from two devices: %s and %s", id.Name, d.Name)
			}
			d.Key = id.Key
			id = d
		}
		if k, ok := strings.CutPrefix(c, "device_key: "); ok {
			id.Key = k
		}
	}
	if id.Name == "" {
		return id, fmt.Errorf("no device line in the data sets' provenance")
	}
	return id, nil
}

// trainFlags are the training flags of train and train-conv.
type trainFlags struct {
	arch, vendorArch, table, out     string
	epochs, patience, batch, members int
	lr                               float64
	maxTime                          time.Duration
	seed                             uint64
	startConfig                      predictor.Ensemble // train -start: the configuration model's networks to start from
}

// startNets are the networks train -start fine-tunes: another model's
// configuration ensemble and vendor network, and where they came from.
type startNets struct {
	config          predictor.Ensemble
	vendor          *predictor.MLP
	device, trained string
	samples         int
}

// loadStart reads the networks of a weights file, or of the weights shipped
// for a device key, for data of features configuration features (this
// build's schema): a configuration model of an older schema it knows is
// widened to it (predictor.Widen: the new features' weights zero).
func loadStart(from string, features int) (*startNets, error) {
	w, err := gemmWeightsFrom(from)
	if err != nil {
		return nil, fmt.Errorf("-start %s: neither a shipped device key nor a weights file: %w", from, err)
	}
	c, okc := w.ConfigModel()
	v, okv := w.Model("vendor")
	if !okc || !okv || v.Schema != predictor.VendorSchema || len(v.Nets) != 1 {
		return nil, fmt.Errorf("-start %s: no configuration and single-network vendor models of schemas this build knows", from)
	}
	nets := c.Nets
	if l := c.ConfigLayout(); l != predictor.ConfigV3 {
		nets = make(predictor.Ensemble, len(c.Nets))
		for i, n := range c.Nets {
			if nets[i], err = predictor.Widen(n, l, predictor.ConfigV3); err != nil {
				return nil, fmt.Errorf("-start %s: %w", from, err)
			}
		}
	}
	if nets[0].Sizes[0] != features {
		return nil, fmt.Errorf("-start %s: %d features, the data have %d", from, nets[0].Sizes[0], features)
	}
	return &startNets{config: nets, vendor: v.Nets[0], device: w.Device.Name, trained: w.Trained, samples: w.Samples}, nil
}

// bind defines the flags on fs; vendor names the vendor model in their help.
func (t *trainFlags) bind(fs *flag.FlagSet, vendor string) {
	fs.StringVar(&t.arch, "arch", "64,128,192,256,192,128,64", "hidden layer widths of the exported configuration model")
	fs.StringVar(&t.vendorArch, "vendor-arch", "64,128,64", "hidden layer widths of "+vendor)
	fs.StringVar(&t.table, "table2", "", "also train the paper's seven Table 2 architectures and write their MSE table (Markdown) here")
	fs.IntVar(&t.epochs, "epochs", 60, "epochs at most")
	fs.IntVar(&t.patience, "patience", 6, "early stopping: epochs without a better validation MSE")
	fs.IntVar(&t.batch, "batch", 256, "minibatch rows")
	fs.Float64Var(&t.lr, "lr", 1e-3, "Adam step size")
	fs.DurationVar(&t.maxTime, "max-time", 0, "stop each training after this long (0: none)")
	fs.StringVar(&t.out, "out", "", "weights file to write (.isw.zst)")
	fs.Uint64Var(&t.seed, "seed", 1, "random seed")
	fs.IntVar(&t.members, "ensemble", 5, "networks of the exported configuration model, averaged (seeds seed, seed+1, …)")
}

// archs are the configuration and vendor models' hidden layer widths.
func (t *trainFlags) archs() (hidden, vendor []int, err error) {
	if hidden, err = parseArch(t.arch); err != nil {
		return nil, nil, err
	}
	vendor, err = parseArch(t.vendorArch)
	return hidden, vendor, err
}

// options are the training options (Hidden left to the caller).
func (t *trainFlags) options() tune.TrainOptions {
	return tune.TrainOptions{Epochs: t.epochs, Patience: t.patience, Batch: t.batch, LR: t.lr, Seed: t.seed, MaxTime: t.maxTime, Log: os.Stderr}
}

// table2 writes the Table 2 comparison where -table2 asks and returns its
// network of the chosen architecture (trained with the first seed: the
// ensemble's first member), nil otherwise.
func (t *trainFlags) table2(train, valid, test tune.Matrix, samples int, hash string, dev predictor.DeviceID, hidden []int) (*predictor.MLP, error) {
	if t.table == "" {
		return nil, nil
	}
	if len(t.startConfig) > 0 {
		// its networks are trained from scratch; one of them would join
		// the fine-tuned ensemble as its first member
		return nil, fmt.Errorf("-table2 trains the architectures from scratch: not with -start")
	}
	first, _, err := writeTable2(t.table, train, valid, test, t.options(), samples, hash, dev, hidden)
	return first, err
}

// ensemble trains the configuration model's members (first, when not nil,
// is the first) and reports each one's test MSE and the ensemble's.
func (t *trainFlags) ensemble(first *predictor.MLP, train, valid, test tune.Matrix, hidden []int) (predictor.Ensemble, float64) {
	opts := t.options()
	opts.Hidden = hidden
	if len(t.startConfig) > 0 {
		opts.Start = t.startConfig
		fmt.Fprintf(os.Stderr, "configuration model from -start's %d networks of sizes %v, %d members\n", len(t.startConfig), t.startConfig[0].Sizes, t.members)
	} else {
		fmt.Fprintf(os.Stderr, "configuration model %v, %d members\n", hidden, t.members)
	}
	start := time.Now()
	var net predictor.Ensemble
	var reps []tune.TrainReport
	if first != nil {
		opts.Seed++
		rest, r := tune.TrainEnsemble(train, valid, opts, t.members-1)
		net, reps = append(predictor.Ensemble{first}, rest...), r
	} else {
		net, reps = tune.TrainEnsemble(train, valid, opts, t.members)
	}
	for i, n := range net {
		fmt.Fprintf(os.Stderr, "  member %d: test MSE %.4f\n", i, tune.MSE(n, test))
	}
	testMSE := tune.MSE(net, test)
	fmt.Fprintf(os.Stderr, "configuration model: ensemble of %d, test MSE %.4f (%s; member reports %+v)\n",
		len(net), testMSE, time.Since(start).Round(time.Second), reps)
	return net, testMSE
}

func trainCmd(args []string) error {
	fs := flag.NewFlagSet("train", flag.ExitOnError)
	data := fs.String("data", "weights/data/h100-gemm-*.csv.zst", "data sets (globs, comma-separated)")
	vendorData := fs.String("vendor-data", "weights/data/h100-vendor-*.csv.zst", "vendor-only data sets (glob; none is fine): the vendor model trains on these and -data's cuBLAS times")
	var t trainFlags
	t.bind(fs, "the vendor model")
	configFrom := fs.String("config-from", "", "take the configuration model from this weights file (trained on the same -data) and train only the vendor model")
	vendorFrom := fs.String("vendor-from", "", "take the vendor model from this weights file (same device) and train only the configuration model")
	staleMaths := fs.String("stale-maths", "", "maths (comma-separated, e.g. mma_f64,mma_f64k8,mma_f64k16) whose kernels changed after -stale-maths-data were measured: those rows are left out of the configuration model, their cuBLAS times kept")
	staleMathsData := fs.String("stale-maths-data", "", "data sets (glob, a subset of -data) that -stale-maths applies to")
	staleSplits := fs.String("stale-splits", "", "data sets (glob, a subset of -data) measured before a change to the split-K path: their grid-split rows (kg > 1) are left out of the configuration model, their cuBLAS times kept")
	startFrom := fs.String("start", "", "fine-tune: start both models from this weights file's (or shipped device key's) networks, their layer sizes kept (-arch, -vendor-arch unused)")
	fs.Parse(args)
	hidden, vhidden, err := t.archs()
	if err != nil {
		return err
	}
	samples, comments, hash, err := loadData(*data, *staleSplits, *staleMaths, *staleMathsData)
	if err != nil {
		return err
	}
	dev, err := deviceOf(comments)
	if err != nil {
		return err
	}
	train, valid, test := tune.ConfigMatrices(samples)
	fmt.Fprintf(os.Stderr, "%d samples from %s (%s): %d train, %d validation, %d test rows (folds by input)\n",
		len(samples), *data, dev.Name, train.N, valid.N, test.N)
	opts := t.options()
	var start *startNets
	if *startFrom != "" {
		if start, err = loadStart(*startFrom, train.F); err != nil {
			return err
		}
		t.startConfig, opts.Start = start.config, predictor.Ensemble{start.vendor}
	}
	first, err := t.table2(train, valid, test, len(samples), hash, dev, hidden)
	if err != nil {
		return err
	}
	var net predictor.Ensemble
	var testMSE float64
	var configChecks []predictor.Check
	comment := fmt.Sprintf("isaac-tune train -arch %s -ensemble %d -vendor-arch %s -epochs %d -patience %d -batch %d -lr %g -seed %d; folds 0-7 train, 8 early stopping, 9 test (by input)",
		t.arch, t.members, t.vendorArch, t.epochs, t.patience, t.batch, t.lr, t.seed)
	if *staleSplits != "" {
		comment += fmt.Sprintf("; grid-split rows of %s left out (-stale-splits)", *staleSplits)
	}
	if start != nil {
		comment = fmt.Sprintf("isaac-tune train -start %s (%s, %d samples: %s) -ensemble %d -epochs %d -patience %d -batch %d -lr %g -seed %d; folds 0-7 train, 8 early stopping, 9 test (by input)",
			*startFrom, start.device, start.samples, start.trained, t.members, t.epochs, t.patience, t.batch, t.lr, t.seed)
	}
	if *configFrom != "" {
		old, err := weights.Load(*configFrom)
		if err != nil {
			return err
		}
		m, ok := old.Model("config")
		if !ok || m.Schema != predictor.ConfigSchema || old.Dataset == "" || !strings.HasPrefix(old.Dataset, hash) {
			return fmt.Errorf("-config-from %s: no configuration model of this schema trained on %s", *configFrom, *data)
		}
		net, testMSE, configChecks = m.Nets, m.TestMSE, m.Check
		if got := tune.MSE(net, test); math.Abs(got-testMSE) > 1e-9 {
			return fmt.Errorf("-config-from %s: test MSE %.6f on this data, the file says %.6f", *configFrom, got, testMSE)
		}
		comment = fmt.Sprintf("configuration model from %s (%s); vendor model: isaac-tune train -config-from -vendor-arch %s -epochs %d -patience %d -batch %d -lr %g -seed %d",
			*configFrom, old.Comment, t.vendorArch, t.epochs, t.patience, t.batch, t.lr, t.seed)
		if start != nil {
			comment = fmt.Sprintf("configuration model from %s (%s); vendor model: isaac-tune train -config-from -start %s (%s, %d samples: %s) -epochs %d -patience %d -batch %d -lr %g -seed %d",
				*configFrom, old.Comment, *startFrom, start.device, start.samples, start.trained, t.epochs, t.patience, t.batch, t.lr, t.seed)
		}
		fmt.Fprintf(os.Stderr, "configuration model from %s: ensemble of %d, test MSE %.4f (recomputed)\n", *configFrom, len(net), testMSE)
	} else {
		net, testMSE = t.ensemble(first, train, valid, test, hidden)
	}
	var vnet *predictor.MLP
	var vtestMSE float64
	var vchecks []predictor.Check
	if *vendorFrom != "" {
		old, err := weights.Load(*vendorFrom)
		if err != nil {
			return err
		}
		m, ok := old.Model("vendor")
		if !ok || m.Schema != predictor.VendorSchema || old.Device.Name != dev.Name || len(m.Nets) != 1 {
			return fmt.Errorf("-vendor-from %s: no single-network vendor model of this schema for %s", *vendorFrom, dev.Name)
		}
		vnet, vtestMSE, vchecks = m.Nets[0], m.TestMSE, m.Check
		hash += "+vendor:" + old.Dataset
		comment += fmt.Sprintf("; vendor model from %s (trained on %d samples and the vendor-only data of %s; its test MSE %.4f): %s",
			*vendorFrom, old.Samples, old.Dataset, vtestMSE, old.Comment)
		fmt.Fprintf(os.Stderr, "vendor model from %s: test MSE %.4f (as recorded)\n", *vendorFrom, vtestMSE)
	} else if vnet, vtestMSE, vchecks, hash, err = trainVendor(samples, *vendorData, dev, hash, opts, vhidden); err != nil {
		return err
	}
	if t.out == "" {
		return nil
	}
	if configChecks == nil {
		configChecks = heldOutChecks(net, test)
	}
	w := &predictor.Weights{
		Header: predictor.Header{
			Device: dev, Dataset: hash, Samples: len(samples), Trained: time.Now().UTC().Format(time.RFC3339), Commit: buildCommit,
			Comment: comment,
		},
		Models: []predictor.Model{
			{ModelHeader: predictor.ModelHeader{Name: "config", Target: "ln TFLOP/s of the configuration's kernel", Schema: predictor.ConfigSchema, TestMSE: testMSE, Check: configChecks}, Nets: net},
			{ModelHeader: predictor.ModelHeader{Name: "vendor", Target: "ln TFLOP/s of cuBLAS", Schema: predictor.VendorSchema, TestMSE: vtestMSE, Check: vchecks}, Nets: predictor.Ensemble{vnet}},
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

// writeTable2 trains the seven Table 2 architectures on the same split and
// writes their test MSE (in ln-TFLOP/s², the paper's "MSE on log
// performance") as a Markdown table.
// The network of the architecture chosen (when it is one of them) is returned.
func writeTable2(path string, train, valid, test tune.Matrix, o tune.TrainOptions, samples int, hash string, dev predictor.DeviceID, chosen []int) (*predictor.MLP, tune.TrainReport, error) {
	var keep *predictor.MLP
	var keepRep tune.TrainReport
	var b strings.Builder
	fmt.Fprintf(&b, "| Hidden layer sizes | #weights | test MSE | validation MSE | train MSE | epochs (best) | training time |\n|---|--:|--:|--:|--:|--:|--:|\n")
	for _, h := range table2 {
		o.Hidden = h
		fmt.Fprintf(os.Stderr, "Table 2: %v\n", h)
		logw := o.Log
		o.Log = io.Discard
		net, rep := tune.Train(train, valid, o)
		o.Log = logw
		t := tune.MSE(net, test)
		if archString(h) == archString(chosen) {
			keep, keepRep = net, rep
		}
		fmt.Fprintf(os.Stderr, "  test MSE %.4f, validation %.4f, train %.4f, epoch %d of %d, %s\n", t, rep.ValidMSE, rep.TrainMSE, rep.BestEpoch, rep.Epochs, rep.Elapsed.Round(time.Second))
		fmt.Fprintf(&b, "| %s | %d | %.4f | %.4f | %.4f | %d (%d) | %s |\n", archString(h), net.Params(), t, rep.ValidMSE, rep.TrainMSE, rep.Epochs, rep.BestEpoch, rep.Elapsed.Round(time.Second))
	}
	fmt.Fprintf(&b, "\n%d samples (%s, data set sha256 %s…), split by input: folds 0–7 train (%d rows), 8 early stopping (%d), 9 test (%d).\n",
		samples, dev.Name, hash[:12], train.N, valid.N, test.N)
	return keep, keepRep, os.WriteFile(path, []byte(b.String()), 0o644)
}

// heldOutChecks are a few held-out rows with the predictions made here, for
// the check that decoded weights predict exactly the same.
func heldOutChecks(net tune.Predictor, m tune.Matrix) []predictor.Check {
	var c []predictor.Check
	for i := 0; i < min(8, m.N); i++ {
		x := append([]float64(nil), m.X[i*m.F:(i+1)*m.F]...)
		c = append(c, predictor.Check{X: x, Y: net.Predict(x, 1)[0]})
	}
	return c
}

// trainVendor trains the vendor model on the configuration data's cuBLAS
// times and the vendor-only data sets; it returns the model, its test MSE,
// its held-out checks and the data hash extended by the vendor-only sets'.
func trainVendor(samples []tune.Sample, vendorData string, dev predictor.DeviceID, hash string, opts tune.TrainOptions, vhidden []int) (*predictor.MLP, float64, []predictor.Check, string, error) {
	vsamples := samples
	if files, _ := filepath.Glob(vendorData); len(files) > 0 {
		vs, vcomments, vhash, err := loadData(vendorData, "", "", "")
		if err != nil {
			return nil, 0, nil, "", err
		}
		vdev, err := deviceOf(vcomments)
		if err != nil {
			return nil, 0, nil, "", err
		}
		if vdev.Name != dev.Name {
			return nil, 0, nil, "", fmt.Errorf("vendor data from %s, configuration data from %s", vdev.Name, dev.Name)
		}
		vsamples = append(append([]tune.Sample{}, samples...), vs...)
		hash += "+" + vhash
		fmt.Fprintf(os.Stderr, "vendor model: %d more vendor-only rows from %s\n", len(vs), vendorData)
	}
	vtrain, vvalid, vtest := tune.VendorMatrices(vsamples)
	opts.Hidden = vhidden
	if vtrain.N < 20000 { // few inputs: many cheap epochs
		opts.Patience = max(opts.Patience, 30)
		opts.Epochs = max(opts.Epochs, 400)
	}
	opts.Log = nil
	vnet, vrep := tune.Train(vtrain, vvalid, opts)
	vtestMSE := tune.MSE(vnet, vtest)
	fmt.Fprintf(os.Stderr, "vendor model %v on %d inputs: test MSE %.4f (validation %.4f, epoch %d)\n",
		vhidden, vtrain.N, vtestMSE, vrep.ValidMSE, vrep.BestEpoch)
	return vnet, vtestMSE, heldOutChecks(vnet, vtest), hash, nil
}
