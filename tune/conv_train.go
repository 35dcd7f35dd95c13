package tune

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strings"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// ConvSampleInput is the convolution models' view of a sample's input.
func ConvSampleInput(s ConvSample) predictor.ConvInput {
	return predictor.ConvInput{Type: s.Type, TF32: s.Type == "float" && s.Math != request.CudnnFMAMath, NHWC: s.Layout == "nhwc", Flip: s.Flip,
		N: s.N, C: s.C, H: s.H, W: s.W, K: s.K, R: s.R, S: s.S, G: s.G, Pad: s.Pad, Stride: s.Stride, Dil: s.Dil,
		Path: s.Path, AlignA: s.AlignA, AlignB: s.AlignB}
}

// ConvFold assigns a convolution to one of 10 folds by a hash of the call
// alone (not the path), so that every path and configuration of one
// convolution lands in the same fold.
func ConvFold(in predictor.ConvInput) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%v|%v|%v|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d|%d", in.Type, in.TF32, in.NHWC, in.Flip,
		in.N, in.C, in.H, in.W, in.K, in.R, in.S, in.G, in.Pad, in.Stride, in.Dil)
	return int(h.Sum32() % 10)
}

// convFoldOf is the set a convolution's rows go to (as foldOf).
func convFoldOf(in predictor.ConvInput, train, valid, test *Matrix) *Matrix {
	switch ConvFold(in) {
	case 8:
		return valid
	case 9:
		return test
	}
	return train
}

// ConvLogTFLOPs is the convolution models' target: the natural log of the
// direct convolution's arithmetic over the time, in TFLOP/s.
func ConvLogTFLOPs(in predictor.ConvInput, us float64) float64 {
	return math.Log(in.FLOPs() / us / 1e6)
}

// ConvConfigMatrices are the convolution configuration model's training
// (folds 0–7), validation (fold 8) and test (fold 9) sets: a row per
// (convolution, path, configuration) measured.
func ConvConfigMatrices(samples []ConvSample) (train, valid, test Matrix) {
	f := predictor.ConvConfigFeatures
	train.F, valid.F, test.F = f, f, f
	convConfigRows(samples, func(in predictor.ConvInput, x []float64, y float64) { convFoldOf(in, &train, &valid, &test).add(x, y) })
	return
}

// convConfigRows calls row with the convolution configuration model's
// features and target of each sample with a configuration the schema
// describes.
func convConfigRows(samples []ConvSample, row func(in predictor.ConvInput, x []float64, y float64)) {
	x := make([]float64, predictor.ConvConfigFeatures)
	for _, s := range samples {
		in := ConvSampleInput(s)
		if putConvSample(x, s, in) {
			row(in, x, ConvLogTFLOPs(in, s.US))
		}
	}
}

// putConvSample writes a measured sample's (input, configuration) features
// into x; it is false for a vendor-only row and for a configuration the
// schema does not describe (predictor.ConvDescribes).
func putConvSample(x []float64, s ConvSample, in predictor.ConvInput) bool {
	switch s.Path {
	case PathImplicit, PathNHWCCopies:
		c, err := ptx.ParseConfig(s.Config)
		if err != nil || !predictor.ConvDescribes(c) {
			return false
		}
		predictor.PutConvConfig(x, in, c)
	case PathDirect:
		c, err := ptx.ParseGroupedConfig(s.Config)
		if err != nil {
			return false
		}
		predictor.PutConvDirect(x, in, c)
	default:
		return false
	}
	return true
}

// ConvVendorMatrices are cuDNN's model's sets: one row per distinct
// convolution, the target its fastest algorithm's rate (the faster of the
// v7 pick and FindEx's fastest).
func ConvVendorMatrices(samples []ConvSample) (train, valid, test Matrix) {
	f := predictor.ConvVendorFeatures
	train.F, valid.F, test.F = f, f, f
	convVendorRows(samples, func(in predictor.ConvInput, x []float64, y float64) { convFoldOf(in, &train, &valid, &test).add(x, y) })
	return
}

// convVendorRows calls row with cuDNN's model's features and target of
// each distinct convolution (its path and alignments cleared).
func convVendorRows(samples []ConvSample, row func(in predictor.ConvInput, x []float64, y float64)) {
	seen := map[predictor.ConvInput]bool{}
	x := make([]float64, predictor.ConvVendorFeatures)
	for _, s := range samples {
		in := ConvSampleInput(s)
		in.Path, in.AlignA, in.AlignB = "", 0, 0
		us := min(s.VendorV7US, s.VendorBestUS)
		if seen[in] || us <= 0 {
			continue
		}
		seen[in] = true
		predictor.PutConvVendorInput(x, in)
		row(in, x, ConvLogTFLOPs(in, us))
	}
}

// ConvRanking is how a configuration model ranks the measured
// configurations of held-out convolutions: per convolution of fold 9 with
// at least minConfigs rows the schema describes (every path together), the
// time of the row the model scores fastest over the fastest row's, less one
// (0: the model picked the fastest measured). This is the suboptimality of
// the model's choice among what the sampler measured, not among every
// legal configuration (cmd/isaac-tune eval times those on the GPU).
func ConvRanking(net Predictor, samples []ConvSample, minConfigs int) (subopt []float64) {
	type row struct {
		x  []float64
		us float64
	}
	byConv := map[predictor.ConvInput][]row{}
	for _, s := range samples {
		in := ConvSampleInput(s)
		if ConvFold(in) != 9 {
			continue
		}
		x := make([]float64, predictor.ConvConfigFeatures)
		if !putConvSample(x, s, in) {
			continue
		}
		key := in
		key.Path, key.AlignA, key.AlignB = "", 0, 0
		byConv[key] = append(byConv[key], row{x, s.US})
	}
	for _, rows := range byConv {
		if len(rows) < minConfigs {
			continue
		}
		var raw []float64
		for _, r := range rows {
			raw = append(raw, r.x...)
		}
		scores := net.Predict(raw, len(rows))
		pick, best := 0, rows[0].us
		for i, r := range rows {
			if scores[i] > scores[pick] {
				pick = i
			}
			best = min(best, r.us)
		}
		subopt = append(subopt, rows[pick].us/best-1)
	}
	return subopt
}

// ConvKindError is a configuration model's error on the test fold's rows of
// one kind of kernel: a type and math ("direct" for the direct kernel).
type ConvKindError struct {
	Type, Math string
	Rows       int
	MSE        float64 // mean squared error, in the target's units
	Bias       float64 // mean of predicted less measured: > 0 predicts the kind too fast
}

// ConvKind is a sample's kind of kernel: its configuration's math, or
// "direct" for the direct kernel ("" for a vendor-only row).
func ConvKind(s ConvSample) string {
	switch s.Path {
	case PathDirect:
		return "direct"
	case "":
		return ""
	}
	for _, p := range strings.Split(s.Config, ",") {
		if m, ok := strings.CutPrefix(p, "math="); ok {
			return m
		}
	}
	return ""
}

// ConvErrorsByKind is net's error on the test fold (ConvFold 9) per type
// and kind of kernel, in type and kind order: where a model's error
// concentrates (a kind the training data hold few rows of predicts worse).
func ConvErrorsByKind(net Predictor, samples []ConvSample) []ConvKindError {
	type key struct{ t, m string }
	groups := map[key][]ConvSample{}
	for _, s := range samples {
		if k := ConvKind(s); k != "" {
			groups[key{s.Type, k}] = append(groups[key{s.Type, k}], s)
		}
	}
	var out []ConvKindError
	for k, ss := range groups {
		_, _, test := ConvConfigMatrices(ss)
		if test.N == 0 {
			continue
		}
		pred := net.Predict(test.X, test.N)
		e := ConvKindError{Type: k.t, Math: k.m, Rows: test.N}
		for i, p := range pred {
			d := p - test.Y[i]
			e.MSE += d * d
			e.Bias += d
		}
		e.MSE /= float64(test.N)
		e.Bias /= float64(test.N)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b ConvKindError) int { return cmp.Or(cmp.Compare(a.Type, b.Type), cmp.Compare(a.Math, b.Math)) })
	return out
}
