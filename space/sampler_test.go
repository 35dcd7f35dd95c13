package space

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

func classes() []ptx.InputClass {
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N, AlignA: 4, AlignB: 4, AlignC: 4}
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.N, AlignA: 1, AlignB: 1, AlignC: 1}
	// The implicit GEMMs of Table 5's conv9 in FP16 NHWC and conv5 in FP64 NCHW.
	t5 := suites.Table5()
	conv16 := suiteShape(t5[8], request.ConvTypes[2], true)
	conv64 := suiteShape(t5[4], request.ConvTypes[1], false)
	return []ptx.InputClass{f16, f32, f64, ConvClass(conv16, 1<<20, 2<<20), ConvClass(conv64, 1<<20, 2<<20)}
}

// The categorical model accepts far more of its draws than uniform
// sampling does (the paper's Table 1), for GEMM and for the convolutions'
// implicit GEMMs, and everything it returns is legal.
func TestSamplerAcceptance(t *testing.T) {
	for _, in := range classes() {
		rng := rand.New(rand.NewPCG(1, 2))
		s := NewSampler(in, ptx.H100(), 300, 2_000_000, rng)
		if s.Uniform.Accepted < 300 {
			t.Fatalf("%v: warm-up found %d legal configurations in %d draws", in, s.Uniform.Accepted, s.Uniform.Draws)
		}
		for i := 0; i < 200; i++ {
			c, ok := s.Draw(rng, nil, 10000)
			if !ok {
				t.Fatalf("%v: no legal draw", in)
			}
			if err := ptx.Legal(c, in, ptx.H100()); err != nil {
				t.Fatalf("%v: drew illegal %v: %v", in, c, err)
			}
		}
		cat, uni := s.Categorical.Rate(), s.Uniform.Rate()
		t.Logf("%v: categorical %.2f%% of %d draws, uniform %.3f%% of %d", in, 100*cat, s.Categorical.Draws, 100*uni, s.Uniform.Draws)
		if cat < 1.5*uni {
			t.Errorf("%v: categorical acceptance %.4f not well above uniform %.4f", in, cat, uni)
		}
		for i := range s.Params() {
			sum := 0.0
			for j := range s.counts[i] {
				p := s.Probability(i, j)
				if p <= 0 {
					t.Errorf("%s value %d has probability %g: the prior keeps it positive", s.Params()[i], j, p)
				}
				sum += p
			}
			if math.Abs(sum-1) > 1e-9 {
				t.Errorf("%s probabilities sum to %g", s.Params()[i], sum)
			}
		}
	}
}

// Draw honours the caller's acceptance rule (here: suits a skinny shape).
func TestSamplerAccept(t *testing.T) {
	in := classes()[0]
	rng := rand.New(rand.NewPCG(3, 4))
	s := NewSampler(in, ptx.H100(), 200, 2_000_000, rng)
	for i := 0; i < 50; i++ {
		c, ok := s.Draw(rng, func(c ptx.GemmConfig) bool { return Suits(c, 4096, 16, 4096) }, 100000)
		if !ok || !Suits(c, 4096, 16, 4096) {
			t.Fatalf("draw %d: %v %v", i, c, ok)
		}
	}
}

// The warpgroup sampler exists only for classes and devices that wgmma
// serves, and draws legal wgmma configurations.
func TestWarpgroupSampler(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	misaligned := f16
	misaligned.AlignB = 2
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, AlignA: 2, AlignB: 2, AlignC: 2}
	for _, c := range []struct {
		in  ptx.InputClass
		dev ptx.DeviceLimits
	}{{misaligned, ptx.H100()}, {f64, ptx.H100()}, {f16, ptx.A100()}} {
		if s := NewWarpgroupSampler(c.in, c.dev, 100, 100000, rng); s != nil {
			t.Errorf("%s on sm_%d%d: a warpgroup sampler", c.in, c.dev.SMMajor, c.dev.SMMinor)
		}
	}
	s := NewWarpgroupSampler(f16, ptx.H100(), 200, 1000000, rng)
	if s == nil {
		t.Fatal("no warpgroup sampler for a 16-byte aligned f16 class on the H100")
	}
	for i := 0; i < 50; i++ {
		c, ok := s.Draw(rng, nil, 20000)
		if !ok {
			t.Fatal("no legal draw")
		}
		if !c.Math.IsWGMMA() || ptx.Legal(c, f16, ptx.H100()) != nil {
			t.Fatalf("draw %s is not a legal wgmma configuration", c)
		}
	}
}

// The mma.sync sampler exists only for classes with an mma.sync math, and
// draws legal configurations of those maths alone, which the whole space's
// sampler draws rarely (the log says how rarely; the convolution data's
// balance: weights/results/conv/README.md).
func TestMMASampler(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, AlignA: 4, AlignB: 4, AlignC: 4}
	if s := NewMMASampler(f32, ptx.H100(), 100, 100000, rng); s != nil {
		t.Error("an mma.sync sampler for FP32 without TF32")
	}
	conv := ConvClass(suiteShape(suites.Table5()[8], request.ConvTypes[2], true), 1<<20, 2<<20) // conv9, FP16 (f32 compute), NHWC
	for _, in := range []ptx.InputClass{
		conv,
		{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F16, AlignA: 2, AlignB: 2, AlignC: 2},
		{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, AlignA: 2, AlignB: 2, AlignC: 2},
		{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, AllowTF32: true, AlignA: 4, AlignB: 4, AlignC: 4},
	} {
		s := NewMMASampler(in, ptx.H100(), 200, 1000000, rng)
		if s == nil {
			t.Fatalf("%s: no mma.sync sampler", in)
		}
		all := NewSampler(in, ptx.H100(), 200, 1000000, rng)
		mma := 0
		for i := 0; i < 200; i++ {
			c, ok := s.Draw(rng, nil, 20000)
			if !ok {
				t.Fatalf("%s: no legal draw", in)
			}
			if !c.Math.IsMMA() || c.Math.IsWGMMA() || ptx.Legal(c, in, ptx.H100()) != nil {
				t.Fatalf("%s: draw %s is not a legal mma.sync configuration", in, c)
			}
			if c, ok := all.Draw(rng, nil, 20000); ok && c.Math.IsMMA() {
				mma++
			}
		}
		t.Logf("%s: %d of the whole space's 200 draws mma.sync", in, mma)
	}
}
