package space

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
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
