package tune

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/ptx"
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

// The lines distribution draws what the copy engine stages: wgmma types
// and maths only (16-bit, FLOAT with TF32), ungrouped convolutions whose
// channels fill 128-byte lines; in NHWC most of their input classes take
// the im2col staging (ChannelLines), and of the wgmma configurations drawn
// for them a fair share has a staged twin (space.ConvStaged).
func TestLinesConvDistribution(t *testing.T) {
	d := LinesConvDistribution()
	rng := rand.New(rand.NewPCG(10, 11))
	var scalars [2]float64
	dev := ptx.H100()
	samplers := map[ptx.InputClass]*space.Sampler{}
	layers, lines, drawn, staged := 0, 0, 0, 0
	for i := 0; i < 200; i++ {
		b := d.Batch(rng, 4)
		if b.Type.Data == request.CudnnDouble || b.Type.Data == request.CudnnFloat && b.Math == request.CudnnFMAMath {
			t.Fatalf("drew %s with math %d: no wgmma", b.Type.Name, b.Math)
		}
		for j := range b.Layers {
			c := b.Case(j)
			shape, reason := c.RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0).Shape()
			if reason != request.Served {
				t.Fatalf("%v: %v", c, reason)
			}
			if shape.G != 1 || shape.C*shape.Type.Data.Size()%128 != 0 {
				t.Fatalf("%v: grouped, or channels not of whole 128-byte lines", c)
			}
			if b.Layout != convcheck.NHWC {
				continue
			}
			layers++
			cls := space.ConvClass(shape, 1<<20, 2<<20)
			if !cls.ChannelLines {
				continue
			}
			lines++
			sm, ok := samplers[cls]
			if !ok {
				sm = space.NewWarpgroupSampler(cls, dev, 200, 20000, rng)
				samplers[cls] = sm
			}
			if sm == nil {
				continue
			}
			m, n, k := shape.Pixels(), shape.K, shape.ReductionCRS()
			for q := 0; q < 4; q++ {
				if cfg, ok := sm.Draw(rng, func(g ptx.GemmConfig) bool { return space.Suits(g, m, n, k) }, 2000); ok {
					drawn++
					if space.ConvStaged(cfg, cls, shape, dev) != cfg {
						staged++
					}
				}
			}
		}
	}
	t.Logf("NHWC layers %d, of whole lines %d; wgmma configurations drawn %d, staged %d", layers, lines, drawn, staged)
	if lines < layers*3/4 || staged < drawn/5 {
		t.Errorf("NHWC layers %d, of whole lines %d; wgmma configurations drawn %d, staged %d", layers, lines, drawn, staged)
	}
}
