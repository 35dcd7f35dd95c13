package space

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// convShapes are a 3×3 convolution of every served type, NCHW and NHWC.
func convShapes() []request.ConvShape {
	var out []request.ConvShape
	for _, t := range request.ConvTypes {
		for _, nhwc := range []bool{false, true} {
			s := request.ConvShape{Type: t, TF32: t.Data == request.CudnnFloat, N: 8, C: 64, H: 28, W: 28, K: 128, R: 3, S: 3, G: 1,
				P: 28, Q: 28, PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, FilterNHWC: nhwc,
				XStrides: [4]int{64 * 28 * 28, 28 * 28, 28, 1}, YStrides: [4]int{128 * 28 * 28, 28 * 28, 28, 1}}
			if nhwc {
				s.XStrides, s.YStrides = [4]int{64 * 28 * 28, 1, 28 * 64, 64}, [4]int{128 * 28 * 28, 1, 28 * 128, 128}
			}
			out = append(out, s)
		}
	}
	return out
}

// A convolution's class follows its types, layout and filter format; the
// heuristic's configuration and every drawn one are legal for it, and the
// draws' kernels assemble.
func TestConvClassAndDraws(t *testing.T) {
	dev := ptx.H100()
	rng := rand.New(rand.NewPCG(3, 4))
	_, ptxasErr := ptxas.Find()
	for _, s := range convShapes() {
		in := ConvClass(s, 0x20000, 0x10000)
		if err := in.Validate(); err != nil {
			t.Fatalf("%v: %v", s, err)
		}
		if want := map[bool]ptx.ConvOrder{false: ptx.ConvCRS, true: ptx.ConvRSC}[s.FilterNHWC]; in.Conv != want {
			t.Errorf("%v: order %s, want %s", s, in.Conv, want)
		}
		if want := map[bool]ptx.Op{false: ptx.N, true: ptx.T}[s.XStrides[1] == 1]; in.TransA != want || in.AlignB != 8/max(1, s.Type.Data.Size()/2) ||
			(in.AlignA == in.AlignB) != (s.XStrides[1] == 1 && s.FilterNHWC) {
			t.Errorf("%v: class %s", s, in)
		}
		cfg := ConvDefault(in, s, dev)
		if err := ptx.Legal(cfg, in, dev); err != nil {
			t.Errorf("%v: heuristic %s: %v", s, cfg, err)
		}
		sm := NewSampler(in, dev, 100, 200000, rng)
		for i := 0; i < 3; i++ {
			c, ok := sm.Draw(rng, nil, 20000)
			if !ok {
				t.Fatalf("%s: no legal draw", in)
			}
			if ptxasErr != nil {
				continue
			}
			k, err := ptx.GenerateGemm(c, in, "sm_90")
			if err != nil {
				t.Fatalf("%s %s: %v", c, in, err)
			}
			if _, err := ptxas.Compile(k.PTX, "sm_90"); err != nil {
				t.Errorf("%s %s: %v", c, in, err)
			}
		}
	}
	if ptxasErr != nil {
		t.Logf("ptxas not found: the draws were not assembled")
	}
}

// The heuristic on Table 5's layers, each configuration legal for its
// class: in FP16 NHWC (x channel-contiguous, channels of whole 128-byte
// lines where C is a multiple of 64) the wgmma blocks, stages, split and
// copy loop that call 17's grid measured fastest or within a few percent
// of it (gputest/results/h100/conv/call17), persistent where the tiles
// fill the SMs twice (conv9, conv10: call 35's grid); in FP32 (FMA) NCHW, no wgmma,
// a deep reduction on a small grid taking smaller blocks split further
// (conv8: 20,800 taps) and a shorter one keeping its large blocks with the
// split halved until it finishes in one pass (conv13: 4,608 taps), as
// call 24 measured, and the layers that fill the device with 4×8 thread
// tiles taking convFMACandidates' (call 99).
func TestConvHeuristicTable5(t *testing.T) {
	dev := ptx.H100()
	half, float := request.ConvTypes[2], request.ConvTypes[0]
	for _, c := range []struct {
		layer string
		t     request.ConvType
		nhwc  bool
		want  string
	}{
		{"conv5", half, true, "ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1"},
		{"conv6", half, true, "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2"},
		{"conv7", half, true, "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=6,math=wgmma_f16,tma=2"},
		{"conv8", half, true, "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=8,va=8,vb=8,st=6,math=wgmma_f16,tma=2"},
		{"conv9", half, true, "ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2,ps=1"},
		{"conv10", half, true, "ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2,ps=1"},
		{"conv11", half, true, "ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1"},
		{"conv12", half, true, "ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1"},
		{"conv13", half, true, "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2"},
		{"conv14", half, true, "ms=1,ns=16,ml=64,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2"},
		{"conv8", float, false, "ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=8,va=1,vb=4,st=3,math=ffma"},
		{"conv13", float, false, "ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=4,va=1,vb=4,st=3,math=ffma"},
		{"conv1", float, false, "ms=4,ns=8,ml=128,nl=32,u=8,ks=1,kl=1,kg=1,va=1,vb=4,st=3,math=ffma"},
		{"conv4", float, false, "ms=4,ns=8,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=4,st=3,math=ffma"},
		{"conv9", float, false, "ms=4,ns=8,ml=64,nl=128,u=16,ks=1,kl=1,kg=1,va=1,vb=4,st=3,math=ffma"},
		{"conv4", float, true, "ms=4,ns=8,ml=64,nl=32,u=16,ks=1,kl=1,kg=1,va=1,vb=4,st=3,math=ffma"},
	} {
		i := slices.IndexFunc(suites.Table5(), func(l suites.Conv) bool { return l.Name == c.layer })
		s := suiteShape(suites.Table5()[i], c.t, c.nhwc)
		in := ConvClass(s, 0x20000, 0x10000)
		cfg := ConvDefault(in, s, dev)
		if cfg.String() != c.want {
			t.Errorf("%s %s (%s): %s, want %s", c.layer, c.t.Name, in, cfg, c.want)
		}
		if err := ptx.Legal(cfg, in, dev); err != nil {
			t.Errorf("%s %s: %v", c.layer, c.t.Name, err)
		}
	}
}

// suiteShape is a suite's layer l of type t, x and y in NHWC with its
// filter in NHWC format, or all in NCHW.
func suiteShape(l suites.Conv, t request.ConvType, nhwc bool) request.ConvShape {
	P, Q := l.P(), l.Q()
	s := request.ConvShape{Type: t, N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S, G: l.Groups,
		P: P, Q: Q, PadH: l.Pad, PadW: l.Pad, StrH: l.Stride, StrW: l.Stride, DilH: l.Dil, DilW: l.Dil, FilterNHWC: nhwc,
		XStrides: [4]int{l.C * l.H * l.W, l.H * l.W, l.W, 1}, YStrides: [4]int{l.K * P * Q, P * Q, Q, 1}}
	if nhwc {
		s.XStrides, s.YStrides = [4]int{l.H * l.W * l.C, 1, l.W * l.C, l.C}, [4]int{P * Q * l.K, 1, Q * l.K, l.K}
	}
	return s
}
