package tune

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// The convolution distribution: every draw a convolution the shim serves
// (decoded as cuDNN's getters would give it: NCHW or NHWC, grouped ones of
// at most 8 channels a group), within the work and size bounds, never a
// suite's layer; every type, math, layout and mode drawn, and depthwise,
// grouped, strided, dilated, separable and deep layers among them.
func TestConvDistribution(t *testing.T) {
	d := DefaultConvDistribution()
	rng := rand.New(rand.NewPCG(8, 9))
	seen := map[string]int{}
	var scalars [2]float64
	for i := 0; i < 300; i++ {
		b := d.Batch(rng, 4)
		seen[b.Type.Name]++
		seen["layout "+b.Layout.String()]++
		seen[map[bool]string{true: "flip", false: "cross-correlation"}[b.Flip]]++
		if b.Math == request.CudnnTensorOpMath && b.Type.Data == request.CudnnFloat {
			seen["tf32"]++
		}
		for j, l := range b.Layers {
			if isSuiteLayer(l) {
				t.Fatalf("drew the suite layer %+v", l)
			}
			c := b.Case(j)
			es := c.Type.Data.Size()
			flops := 2 * float64(c.N*c.K) * float64(c.P()*c.Q()) * float64(c.C/c.G()*c.R*c.S)
			if flops > d.MaxFlops(b.Type, b.Math) || c.N*c.C*c.H*c.W*es > d.MaxBytes || c.N*c.K*c.P()*c.Q()*es > d.MaxBytes {
				t.Fatalf("%v: beyond the bounds (%g flops)", c, flops)
			}
			shape, reason := c.RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0).Shape()
			if reason != request.Served {
				t.Fatalf("%v: %v", c, reason)
			}
			if shape.G > 1 && !space.GroupedDirect(shape) {
				t.Fatalf("%v: a grouped convolution the direct kernel does not take", c)
			}
			switch {
			case shape.G > 1 && shape.G == shape.C && shape.G == shape.K:
				seen["depthwise"]++
			case shape.G > 1:
				seen["grouped"]++
			}
			if shape.StrH > 1 {
				seen["strided"]++
			}
			if shape.DilH > 1 {
				seen["dilated"]++
			}
			if shape.R != shape.S {
				seen["rectangular"]++
			}
			if shape.ReductionCRS() >= 8192 {
				seen["deep"]++
			}
			if c.N == 1 {
				seen["batch 1"]++
			}
		}
	}
	for _, want := range []string{"float", "double", "pseudo_half", "true_half", "bfloat16", "tf32", "layout nchw", "layout nhwc",
		"flip", "cross-correlation", "depthwise", "grouped", "strided", "dilated", "rectangular", "deep", "batch 1"} {
		if seen[want] == 0 {
			t.Errorf("no %s drawn: %v", want, seen)
		}
	}
	if float64(seen["depthwise"]) < 300*4*d.DepthwiseShare/3 {
		t.Errorf("%d depthwise layers of 1,200", seen["depthwise"])
	}
	t.Logf("%v", seen)
}

// A layer of a suite is never drawn, whatever its name.
func TestIsSuiteLayer(t *testing.T) {
	l := convSuiteLayers()[3]
	l.Name, l.Suite = "other", "tune"
	if !isSuiteLayer(l) {
		t.Errorf("%+v not recognized", l)
	}
	l.N++
	if isSuiteLayer(l) {
		t.Errorf("%+v taken for a suite's", l)
	}
}
