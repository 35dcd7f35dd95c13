// Package weights ships the trained performance models, one file per GPU
// and kernel family (zstd-compressed, predictor's versioned format:
// <key>.isw.zst for GEMM, <key>.conv.isw.zst for convolution), embedded in
// the library and decoded on first use only: a process that never asks
// for a model never pays for it. The measurements they were trained on
// are in data/ (not embedded).
package weights

import (
	"embed"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/isaacgo/isaac/predictor"
)

//go:embed *.isw.zst
var files embed.FS

// ErrNoWeights says no weights are shipped for a device.
var ErrNoWeights = errors.New("weights: none shipped for this device")

type entry struct {
	once sync.Once
	w    *predictor.Weights
	err  error
}

var decoded sync.Map // file name → *entry

// The families' file name suffixes.
const (
	gemmSuffix = ".isw.zst"
	convSuffix = ".conv.isw.zst"
)

// For returns the shipped GEMM weights of a device key ("h100"), decoding
// them on the first call.
func For(key string) (*predictor.Weights, error) { return decode(key, gemmSuffix) }

// ConvFor returns the shipped convolution weights of a device key.
func ConvFor(key string) (*predictor.Weights, error) { return decode(key, convSuffix) }

func decode(key, suffix string) (*predictor.Weights, error) {
	v, _ := decoded.LoadOrStore(key+suffix, &entry{})
	e := v.(*entry)
	e.once.Do(func() {
		raw, err := files.ReadFile(key + suffix)
		if err != nil {
			e.err = fmt.Errorf("%w (%s%s)", ErrNoWeights, key, strings.TrimSuffix(suffix, gemmSuffix))
			return
		}
		e.w, e.err = predictor.Decode(raw)
	})
	return e.w, e.err
}

// Load reads a weights file a user trained with isaac-tune.
func Load(path string) (*predictor.Weights, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return predictor.Decode(raw)
}

// CalibratedPath is where isaac-tune calibrate writes the GEMM weights it
// calibrated for a device key, and where the shim looks for them when none
// are shipped: <cacheDir>/weights/<key>.isw (cacheDir "": the shim's
// default cache directory, the user's cache directory's isaac/).
func CalibratedPath(cacheDir, key string) string {
	if cacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			cacheDir = filepath.Join(d, "isaac")
		}
	}
	return filepath.Join(cacheDir, "weights", key+".isw")
}

// CalibratedConvPath is where isaac-tune calibrate writes the convolution
// weights it calibrated for a device key, beside CalibratedPath's:
// <cacheDir>/weights/<key>.conv.isw.
func CalibratedConvPath(cacheDir, key string) string {
	return strings.TrimSuffix(CalibratedPath(cacheDir, key), ".isw") + ".conv.isw"
}

// Shipped lists the device keys with embedded GEMM weights.
func Shipped() []string { return shipped(gemmSuffix) }

// ConvShipped lists the device keys with embedded convolution weights.
func ConvShipped() []string { return shipped(convSuffix) }

func shipped(suffix string) []string {
	ents, _ := files.ReadDir(".")
	var keys []string
	for _, e := range ents {
		n := e.Name()
		if suffix == gemmSuffix && strings.HasSuffix(n, convSuffix) {
			continue
		}
		if k, ok := strings.CutSuffix(n, suffix); ok && k != "" {
			keys = append(keys, k)
		}
	}
	return keys
}

// DeviceKey is the key of a device's weights, from its name: "h100",
// "h200", … for the GPUs we know, else the name in lower case with every
// character other than a letter or digit replaced by '-'. Keys that
// contain another ("gh200" holds "h200", "l40s" "l4") are matched first: a
// GH200 is not an H200.
func DeviceKey(name string) string {
	n := strings.ToLower(name)
	for _, k := range []string{"gh200", "h100", "h200", "h800", "a100", "a800", "l40s", "l4", "b200"} {
		if strings.Contains(n, k) {
			return k
		}
	}
	n = strings.TrimPrefix(n, "nvidia ")
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, n)
}
