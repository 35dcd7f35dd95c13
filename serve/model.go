package serve

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/weights"
)

// Chooser settings used at run time.
const (
	// serveMargin is the predicted speed-up over the vendor a call needs
	// to be served under Auto without a check (Options.Check off): the
	// models' test errors make a smaller predicted win a coin toss. With
	// the check, checkMargin.
	serveMargin = 1.1
	// choiceTopK configurations are kept per input, best first; when the
	// best fails to compile the next is used.
	choiceTopK = 5
	// convCheckMargin is the predicted speed-up over cuDNN a convolution
	// needs under Auto to be checked on its first calls (and served where
	// the check measures ours faster): only a convolution predicted
	// slower than cuDNN by two standard errors of the predicted ratio (both
	// models' test errors together, cuDNN's the most of it:
	// weights/results/conv/README.md) is forwarded on the prediction; the
	// rest are measured.
	convCheckMargin = 0.33
	// seedPool is the number of legal configurations per input class the
	// model search starts from; of each batch the search scores (the seeds
	// that suit the input, each round's neighbours) the ensemble's first
	// member keeps seedScreen for the whole ensemble.
	seedPool   = 1024
	seedScreen = 64
)

// Why a device has no model: no weights for it, or weights that did not
// load (both are forward reasons under Auto).
var (
	ErrNoWeights = errors.New("serve: no performance model for this device")
	ErrWeights   = errors.New("serve: the performance model's weights failed to load")
)

// deviceModel is a device's performance model, loaded on first use.
type deviceModel struct {
	once sync.Once
	ch   *predictor.Chooser
	id   string // names the weights: the disk cache of choices is per id
	err  error
}

// deviceConvModel is a device's convolution models, loaded on first use.
type deviceConvModel struct {
	once sync.Once
	ch   *predictor.ConvChooser
	id   string
	err  error
	// auto: the weights are the shipped ones of a device in
	// convDispatchMeasured, whose dispatch Auto runs by default.
	auto bool
}

// convDispatchMeasured are the devices whose convolutions Auto dispatches
// by default (ISAAC_CONV_AUTO unset) with their shipped convolution
// weights: those where that dispatch was measured from an empty cache on
// each of bench_compare's convolution suites (Table 5 in every served type
// and layout, the CNN layers, the depthwise layers) and served no row
// slower than cuDNN's fastest algorithm beyond the benchmark's noise
// (docs/method.md says which calls, with their figures). Elsewhere, and
// with other weights, the dispatch waits for ISAAC_CONV_AUTO=1.
var convDispatchMeasured = map[string]bool{"h200": true}

// convDispatchDefault reports whether Auto dispatches convolutions by
// default with the weights for the device key that came from source
// (findWeights' third result): only the shipped weights of a device in
// convDispatchMeasured.
func convDispatchDefault(source, key string) bool {
	return source == "shipped" && convDispatchMeasured[key]
}

// convModel returns the device's convolution models: the weights in
// Options.ConvWeights, none when that is "none", else those shipped for
// the device's key.
func (s *Server) convModel(dev *kernels.Device) (*predictor.ConvChooser, string, error) {
	m := s.deviceConvModel(dev)
	return m.ch, m.id, m.err
}

// deviceConvModel is the device's convolution models, loaded on first use.
func (s *Server) deviceConvModel(dev *kernels.Device) *deviceConvModel {
	v, ok := s.convModels.Load(dev.Dev)
	if !ok {
		v, _ = s.convModels.LoadOrStore(dev.Dev, &deviceConvModel{})
	}
	m := v.(*deviceConvModel)
	m.once.Do(func() {
		m.ch, m.id, m.auto, m.err = loadConvModel(s.opts.ConvWeights, s.opts.CacheDir, s.opts.Log, dev)
	})
	return m
}

// loadConvModel is the convolution chooser of the weights in path, else
// those shipped for the device, else those calibrated for it in cacheDir
// (weights.CalibratedConvPath), and whether they are the shipped weights
// of a device in convDispatchMeasured; with log, which serve is said.
func loadConvModel(path, cacheDir string, log bool, dev *kernels.Device) (*predictor.ConvChooser, string, bool, error) {
	if path == "none" {
		return nil, "", false, fmt.Errorf("%w: ISAAC_CONV_WEIGHTS=none", ErrNoWeights)
	}
	name, err := deviceName(dev)
	if err != nil {
		return nil, "", false, err
	}
	w, id, source, err := loadConvWeights(path, cacheDir, name)
	if err != nil {
		return nil, "", false, err
	}
	ch, err := ConvChooserOf(w, dev.Limits)
	auto := convDispatchDefault(source, w.Device.Key)
	if err == nil && log {
		os.Stderr.WriteString(fmt.Sprintf("isaac: convolution weights for %s: %s (measured on %s, %d samples, %s)%s\n",
			w.Device.Key, source, w.Device.Name, w.Samples, w.Trained, convAutoNote(auto)))
	}
	return ch, "conv-" + id, auto, err
}

// convAutoNote is what the log adds about the default dispatch of the
// convolution weights just named.
func convAutoNote(auto bool) string {
	if auto {
		return "; auto dispatches convolutions by default"
	}
	return "; auto dispatches convolutions only with ISAAC_CONV_AUTO=1"
}

// loadConvWeights finds the convolution weights of the device named name
// (loadConvModel's order), their id and where they came from.
func loadConvWeights(path, cacheDir, name string) (*predictor.Weights, string, string, error) {
	return findWeights(path, "ISAAC_CONV_WEIGHTS", cacheDir, name, weights.ConvFor, weights.CalibratedConvPath)
}

// ConvChooserOf is the run-time convolution chooser of a device's
// convolution weights (the server's, for tools that time its choices).
func ConvChooserOf(w *predictor.Weights, lim ptx.DeviceLimits) (*predictor.ConvChooser, error) {
	cfg, ok := w.Model("conv-config")
	if !ok || cfg.Schema != predictor.ConvConfigSchema {
		return nil, fmt.Errorf("%w: no convolution model of schema %.40s…", ErrWeights, predictor.ConvConfigSchema)
	}
	vendor, ok := w.Model("conv-vendor")
	if !ok || vendor.Schema != predictor.ConvVendorSchema {
		vendor = nil // Always can still use the model; Auto never serves
	}
	return &predictor.ConvChooser{Config: cfg, Vendor: vendor, Dev: lim,
		TopK: choiceTopK, Margin: convCheckMargin, Pool: seedPool, Screen: seedScreen}, nil
}

// model returns the device's model: the weights in Options.Weights (a file
// isaac-tune wrote), else those shipped for the device's key, else those
// isaac-tune calibrate wrote for it in the cache directory
// (weights.CalibratedPath). With Options.Log, which weights serve is said
// once.
func (s *Server) model(dev *kernels.Device) (*predictor.Chooser, string, error) {
	v, _ := s.models.LoadOrStore(dev.Dev, &deviceModel{})
	m := v.(*deviceModel)
	m.once.Do(func() {
		var w *predictor.Weights
		var name, source string
		name, m.err = deviceName(dev)
		if m.err == nil {
			w, m.id, source, m.err = loadWeights(s.opts.Weights, s.opts.CacheDir, name)
		}
		if m.err == nil {
			m.ch, m.err = newChooser(w, dev.Limits)
		}
		if m.err == nil && s.opts.Log {
			os.Stderr.WriteString(fmt.Sprintf("isaac: GEMM weights for %s: %s (measured on %s, %d samples, %s)\n",
				w.Device.Key, source, w.Device.Name, w.Samples, w.Trained))
		}
	})
	return m.ch, m.id, m.err
}

// deviceName is dev's name (its weights' key: weights.DeviceKey).
func deviceName(dev *kernels.Device) (string, error) {
	name, err := dev.Dev.Name()
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrNoWeights, err)
	}
	return name, nil
}

// Weights are the GEMM weights the server of options o uses on the device
// named name (the weights in o.Weights, else those shipped for the device,
// else those calibrated for it in o.CacheDir), and where they came from.
func Weights(o Options, name string) (*predictor.Weights, string, error) {
	w, _, source, err := loadWeights(o.Weights, o.CacheDir, name)
	return w, source, err
}

// loadWeights finds the GEMM weights of the device named name
// (Server.model's order), their id and where they came from.
func loadWeights(path, cacheDir, name string) (*predictor.Weights, string, string, error) {
	return findWeights(path, "ISAAC_WEIGHTS", cacheDir, name, weights.For, weights.CalibratedPath)
}

// findWeights finds weights of the device named name: the file at path
// (named by the variable env), else those shipped, else those isaac-tune
// calibrate wrote for the device in cacheDir (at calibrated's path); their
// id and where they came from.
func findWeights(path, env, cacheDir, name string, shipped func(string) (*predictor.Weights, error),
	calibrated func(cacheDir, key string) string) (*predictor.Weights, string, string, error) {
	w, id, err := weightsOf(path, env, name, shipped)
	switch {
	case err == nil && path != "":
		return w, id, env + "=" + path, nil
	case err == nil:
		return w, id, "shipped", nil
	case path != "" || cacheDir == "" || !errors.Is(err, ErrNoWeights):
		return nil, "", "", err
	}
	cal := calibrated(cacheDir, weights.DeviceKey(name))
	if _, serr := os.Stat(cal); serr != nil {
		return nil, "", "", err // none shipped, none calibrated
	}
	w, id, cerr := weightsOf(cal, "calibrated weights", name, shipped)
	if cerr != nil {
		return nil, "", "", cerr
	}
	return w, id, "calibrated, " + cal, nil
}

// weightsOf reads the weights file at path (named by the variable env)
// or, without one, the weights shipped for the device named name (from
// shipped), and names them: the device's key and a hash of the file or of
// the shipped weights' provenance.
func weightsOf(path, env, name string, shipped func(string) (*predictor.Weights, error)) (*predictor.Weights, string, error) {
	key := weights.DeviceKey(name)
	if path != "" {
		raw, err := os.ReadFile(path)
		if err != nil {
			return nil, "", fmt.Errorf("%w: %s: %v", ErrWeights, env, err)
		}
		w, err := predictor.Decode(raw)
		if err != nil {
			return nil, "", fmt.Errorf("%w: %s=%s: %v", ErrWeights, env, path, err)
		}
		if w.Device.Key != key {
			return nil, "", fmt.Errorf("%w: %s=%s was measured on %q, this is %q (%s)",
				ErrWeights, env, path, w.Device.Key, key, name)
		}
		sum := sha256.Sum256(raw)
		return w, key + "-" + hex.EncodeToString(sum[:8]), nil
	}
	w, err := shipped(key)
	if err != nil {
		if errors.Is(err, weights.ErrNoWeights) {
			return nil, "", fmt.Errorf("%w: %s (%s)", ErrNoWeights, key, name)
		}
		return nil, "", fmt.Errorf("%w: %v", ErrWeights, err)
	}
	sum := sha256.Sum256([]byte(w.Dataset + w.Trained + w.Commit))
	return w, key + "-" + hex.EncodeToString(sum[:8]), nil
}

// newChooser is the run-time chooser of a device's weights.
func newChooser(w *predictor.Weights, lim ptx.DeviceLimits) (*predictor.Chooser, error) {
	cfg, ok := w.ConfigModel()
	if !ok {
		return nil, fmt.Errorf("%w: no configuration model of a schema this build knows (%.20s…)", ErrWeights, predictor.ConfigSchema)
	}
	vendor, ok := w.Model("vendor")
	if !ok || vendor.Schema != predictor.VendorSchema && vendor.Schema != predictor.InputSchema {
		vendor = nil // Always can still use the model; Auto never serves
	}
	return &predictor.Chooser{Config: cfg, Vendor: vendor, Dev: lim, TopK: choiceTopK,
		Margin: serveMargin, Check: checkMargin(cfg, vendor), Pool: seedPool, Screen: seedScreen}, nil
}

// checkMargin is the predicted speed-up over the vendor a GEMM needs under
// Auto to be checked on its first calls (and served where the check
// measures ours faster): two standard errors of the predicted ratio,
// whose error is that of a difference of the two models' ln TFLOP/s
// (their test MSEs added), so that only a call predicted slower beyond
// the models' errors goes to the vendor unmeasured. Weights that do not
// record both errors keep serveMargin.
func checkMargin(cfg, vendor *predictor.Model) float64 {
	if vendor == nil || !(cfg.TestMSE > 0) || !(vendor.TestMSE > 0) {
		return serveMargin
	}
	return math.Exp(-2 * math.Sqrt(cfg.TestMSE+vendor.TestMSE))
}
