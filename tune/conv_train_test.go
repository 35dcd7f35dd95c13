package tune

import (
	"fmt"
	"math"
	"testing"

	"github.com/isaacgo/isaac/predictor"
)

// The convolution matrices: a row per measured configuration of a path the
// schema describes, every row of one convolution in one fold, one vendor row
// per convolution with the faster of cuDNN's two times, targets in
// ln TFLOP/s.
func TestConvMatrices(t *testing.T) {
	var samples []ConvSample
	for i := 0; i < 60; i++ {
		base := ConvSample{Type: "pseudo_half", Math: 1, Layout: "nchw", N: 1 + i%7, C: 16 * (1 + i%5), H: 20 + i, W: 30, K: 32, R: 3, S: 3, G: 1,
			Pad: 1, Stride: 1, Dil: 1, VendorV7US: 40, VendorBestUS: 30}
		for _, p := range []struct{ path, cfg string }{
			{PathImplicit, "ms=4,ns=2,ml=128,nl=32,u=16,ks=1,kl=1,kg=1,va=1,vb=8,st=1,math=mma_f16"},
			{PathNHWCCopies, "ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1"},
			{PathNHWCCopies, "ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,pp=1"}, // not described: left out
		} {
			s := base
			s.Path, s.Config, s.AlignA, s.AlignB, s.US = p.path, p.cfg, 8, 8, 10+float64(i)
			samples = append(samples, s)
		}
	}
	train, valid, test := ConvConfigMatrices(samples)
	if n := train.N + valid.N + test.N; n != 120 {
		t.Fatalf("%d configuration rows, want 120", n)
	}
	for _, m := range []Matrix{train, valid, test} {
		if m.F != predictor.ConvConfigFeatures || len(m.X) != m.N*m.F {
			t.Fatalf("matrix %d×%d holds %d values", m.N, m.F, len(m.X))
		}
	}
	folds := map[int]bool{}
	for _, s := range samples {
		in := ConvSampleInput(s)
		other := in
		other.Path, other.AlignA = "direct", 1
		if ConvFold(in) != ConvFold(other) {
			t.Fatalf("%+v: the fold depends on the path", in)
		}
		folds[ConvFold(in)] = true
	}
	if len(folds) < 5 {
		t.Errorf("60 convolutions in %d folds", len(folds))
	}
	in := ConvSampleInput(samples[0])
	if got, want := train.Y[0], math.Log(in.FLOPs()/samples[0].US/1e6); ConvFold(in) < 8 && math.Abs(got-want) > 1e-12 {
		t.Errorf("target %v, want %v", got, want)
	}
	vt, vv, vs := ConvVendorMatrices(samples)
	if n := vt.N + vv.N + vs.N; n != 60 {
		t.Errorf("%d vendor rows, want one per convolution (60)", n)
	}
	all := append(append(append([]float64{}, vt.Y...), vv.Y...), vs.Y...)
	for i, y := range all {
		if math.IsNaN(y) || math.IsInf(y, 0) {
			t.Fatalf("vendor target %d: %v", i, y)
		}
	}
	if want := math.Log(in.FLOPs() / 30 / 1e6); ConvFold(in) < 8 && math.Abs(vt.Y[0]-want) > 1e-12 {
		t.Errorf("vendor target %v, want %v (the faster time)", vt.Y[0], want)
	}
}

// stagesPredictor scores a row by its stages feature (sign +1: more is
// faster; -1: slower).
type stagesPredictor struct{ sign float64 }

func (p stagesPredictor) Predict(raw []float64, n int) []float64 {
	f := predictor.ConvConfigFeatures
	at := predictor.ConvInputFeatures + 11 // log2_stages
	out := make([]float64, n)
	for i := range out {
		out[i] = p.sign * raw[i*f+at]
	}
	return out
}

// ConvRanking: a model that ranks the held-out convolutions' rows in the
// order of their times picks the fastest (0), one that ranks them in reverse
// the slowest (its time over the fastest's, less one); convolutions with
// fewer rows than asked are left out.
func TestConvRanking(t *testing.T) {
	var samples []ConvSample
	convs := 0
	for i := 0; convs < 6; i++ {
		base := ConvSample{Type: "bfloat16", Math: 1, Layout: "nhwc", N: 2, C: 64, H: 10 + i, W: 12, K: 64, R: 3, S: 3, G: 1, Pad: 1, Stride: 1, Dil: 1,
			Path: PathImplicit, AlignA: 8, AlignB: 8, VendorV7US: 9, VendorBestUS: 9}
		if ConvFold(ConvSampleInput(base)) != 9 {
			continue
		}
		convs++
		rows := 8
		if convs == 6 {
			rows = 3 // too few
		}
		for st := 1; st <= rows; st++ {
			s := base
			s.Config = fmt.Sprintf("ms=4,ns=2,ml=128,nl=32,u=16,ks=1,kl=1,kg=1,va=1,vb=8,st=%d,math=mma_bf16", st)
			s.US = 100 / float64(st) // more stages, faster
			samples = append(samples, s)
		}
	}
	good := ConvRanking(stagesPredictor{1}, samples, 8)
	bad := ConvRanking(stagesPredictor{-1}, samples, 8)
	if len(good) != 5 || len(bad) != 5 {
		t.Fatalf("%d and %d convolutions ranked, want 5", len(good), len(bad))
	}
	for i := range good {
		if good[i] != 0 || math.Abs(bad[i]-7) > 1e-12 {
			t.Fatalf("suboptimality %v and %v, want 0 and 7", good[i], bad[i])
		}
	}
}

// constPredictor predicts c for every row.
type constPredictor struct{ c float64 }

func (p constPredictor) Predict(_ []float64, n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = p.c
	}
	return out
}

// ConvErrorsByKind: the test fold's rows grouped by type and kind of
// kernel (the configuration's math, or the direct kernel), each group's
// squared error and bias those of its own rows; rows of other folds and
// vendor-only rows are left out.
func TestConvErrorsByKind(t *testing.T) {
	var samples []ConvSample
	var want = map[string][]float64{} // kind: its test rows' targets
	for i := 0; len(want["mma_bf16"]) < 4 || len(want["direct"]) < 2; i++ {
		mma := ConvSample{Type: "bfloat16", Math: 1, Layout: "nhwc", N: 2, C: 64, H: 10 + i, W: 12, K: 64, R: 3, S: 3, G: 1, Pad: 1, Stride: 1, Dil: 1,
			Path: PathImplicit, AlignA: 8, AlignB: 8, VendorV7US: 9, VendorBestUS: 9,
			Config: "ms=4,ns=2,ml=128,nl=32,u=16,ks=1,kl=1,kg=1,va=1,vb=8,st=3,math=mma_bf16", US: float64(10 + i)}
		direct := mma
		direct.G, direct.K, direct.Path, direct.AlignA, direct.AlignB, direct.Config, direct.US = 64, 64, PathDirect, 8, 0, "direct t64 q8 r2 v1", float64(20+i)
		vendor := mma
		vendor.Path, vendor.Config, vendor.US = "", "", 0
		samples = append(samples, mma, direct, vendor)
		if ConvFold(ConvSampleInput(mma)) == 9 {
			want["mma_bf16"] = append(want["mma_bf16"], ConvLogTFLOPs(ConvSampleInput(mma), mma.US))
		}
		if ConvFold(ConvSampleInput(direct)) == 9 {
			want["direct"] = append(want["direct"], ConvLogTFLOPs(ConvSampleInput(direct), direct.US))
		}
	}
	const c = 1.5
	got := ConvErrorsByKind(constPredictor{c}, samples)
	if len(got) != len(want) {
		t.Fatalf("%d kinds %+v, want %d", len(got), got, len(want))
	}
	for i, e := range got {
		if i > 0 && got[i-1].Math >= e.Math || e.Type != "bfloat16" {
			t.Errorf("kinds out of order or of another type: %+v", got)
		}
		ys := want[e.Math]
		var mse, bias float64
		for _, y := range ys {
			mse += (c - y) * (c - y) / float64(len(ys))
			bias += (c - y) / float64(len(ys))
		}
		if e.Rows != len(ys) || math.Abs(e.MSE-mse) > 1e-9 || math.Abs(e.Bias-bias) > 1e-9 {
			t.Errorf("%s: %+v, want %d rows, MSE %v, bias %v", e.Math, e, len(ys), mse, bias)
		}
	}
	if ConvKind(samples[2]) != "" || ConvKind(samples[1]) != "direct" || ConvKind(samples[0]) != "mma_bf16" {
		t.Errorf("kinds %q %q %q", ConvKind(samples[0]), ConvKind(samples[1]), ConvKind(samples[2]))
	}
}
