package convcheck_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// TestGPUConvTF32Rounded: an NCHW float convolution with TF32 allowed, run
// by the heuristic's wgmma kernel on NHWC copies, has x and the filter
// rounded to TF32 to nearest by the copies, as cuDNN's TF32 kernels round
// them: on positive data (every product of one sign, nothing cancels) the
// mean signed error of y against the FP64 reference is within 1e-4 of y.
// wgmma reads float data by its top 19 bits: unrounded copies truncate
// both operands, about −6e-4 of y on this data.
func TestGPUConvTF32Rounded(t *testing.T) {
	rt, _, stream := sm90aRuntime(t, "the wgmma kernels")
	c := convcheck.Case{Type: request.ConvTypes[0], Math: request.CudnnTensorOpMath, N: 2, C: 128, H: 14, W: 14, K: 128, R: 3, S: 3,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1, Seed: 3}
	f := convcheck.Fill(c)
	rng := rand.New(rand.NewPCG(3, 5))
	for _, v := range [][]float64{f.X, f.Wt} {
		for i := range v {
			v[i] = float64(float32(0.5 + 0.5*rng.Float64())) // positive, full float mantissas
		}
	}
	d := convcheck.NewDataFrom(c, f.X, f.Wt, f.Y0)
	b, err := convcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	req := b.Request(stream)
	shape, r := req.Shape()
	if r != request.Served {
		t.Fatal(r)
	}
	tg, err := rt.ConvNHWCTarget(req, shape)
	if err != nil {
		t.Fatal(err)
	}
	cfg := space.ConvDefault(tg.Class, shape, tg.Dev.Limits)
	if cfg.Math != ptx.WGMMA_TF32 {
		t.Fatalf("the heuristic's configuration %v is not wgmma's TF32", cfg)
	}
	if err := rt.ConvNHWC(req, shape, cfg); err != nil {
		t.Fatal(err)
	}
	y, err := b.ReadY(stream)
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	for i, ref := range d.Ref {
		sum += (y[i] - ref) / ref // y is packed NCHW like the reference
	}
	mean := sum / float64(len(d.Ref))
	t.Logf("%v with %v: mean signed relative error %.3g over %d outputs", c, cfg, mean, len(d.Ref))
	if math.Abs(mean) > 1e-4 || math.IsNaN(mean) {
		t.Errorf("mean signed relative error %.3g: the copies are not rounded to TF32 to nearest", mean)
	}
}
