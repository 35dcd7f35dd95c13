package convcheck_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// TestGPUConvTF32Rounded: a float convolution with TF32 allowed, run by
// wgmma's TF32 kernels, has x and the filter rounded to TF32 to nearest,
// as cuDNN's TF32 kernels round them. The NHWC copies round (an NCHW x
// transposed, a channels_last one copied); a channels_last x (and its
// filter) read in place is rounded in
// shared memory by the kernel (ptx.InputClass.RoundTF32), in each of the
// main loops (cp.async, tensor copies, tensor copies with a producer
// warp). On positive data (every product of one sign, nothing cancels)
// the mean signed error of y against the FP64 reference is within 1e-4 of
// y. wgmma reads float data by its top 19 bits: operands left unrounded
// truncate, about −6e-4 of y on this data, which the test also measures
// with the rounding turned off, to show that it tells the two apart.
func TestGPUConvTF32Rounded(t *testing.T) {
	rt, lim, stream := sm90aRuntime(t, "the wgmma kernels")
	for _, layout := range []convcheck.Layout{convcheck.NCHW, convcheck.NHWC} {
		c := convcheck.Case{Type: request.ConvTypes[0], Math: request.CudnnTensorOpMath, N: 2, C: 128, H: 14, W: 14, K: 128, R: 3, S: 3,
			PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: layout, Y: layout, FilterNHWC: layout == convcheck.NHWC, Alpha: 1, Seed: 3}
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
		// meanError runs cfg (through the NHWC copies or on x in place, with
		// target tg) and returns y's mean signed relative error.
		meanError := func(tg kernels.Target, cfg ptx.GemmConfig, copies bool) (float64, error) {
			k, err := rt.Kernel(tg, cfg)
			if err != nil {
				return 0, err
			}
			if copies {
				err = rt.LaunchConvNHWC(tg, req, shape, k)
			} else {
				err = rt.LaunchConv(tg, req, shape, k)
			}
			if err != nil {
				return 0, err
			}
			y, err := b.ReadY(stream)
			if err != nil {
				return 0, err
			}
			ys, yo, _ := c.YStrides()
			P, Q := c.P(), c.Q()
			var sum float64
			for i, ref := range d.Ref { // NCHW order
				q, p, k, n := i%Q, i/Q%P, i/(P*Q)%c.K, i/(P*Q*c.K)
				sum += (y[yo+n*ys[0]+k*ys[1]+p*ys[2]+q*ys[3]] - ref) / ref
			}
			return sum / float64(len(d.Ref)), nil
		}
		check := func(name string, tg kernels.Target, cfg ptx.GemmConfig, copies, rounded bool) {
			mean, err := meanError(tg, cfg, copies)
			if err != nil {
				t.Errorf("%s %v: %v", name, cfg, err)
				return
			}
			t.Logf("%s %v with %v: mean signed relative error %.3g over %d outputs", name, c, cfg, mean, len(d.Ref))
			switch {
			case math.IsNaN(mean):
				t.Errorf("%s: mean signed relative error NaN", name)
			case rounded && math.Abs(mean) > 1e-4:
				t.Errorf("%s: mean signed relative error %.3g: the operands are not rounded to TF32 to nearest", name, mean)
			case !rounded && mean > -3e-4:
				t.Errorf("%s: mean signed relative error %.3g with the rounding off: the test does not see truncation", name, mean)
			}
		}
		// Through the copies: an NCHW x transposed, a channels_last one
		// copied as rows, both rounded.
		{
			tg, err := rt.ConvNHWCTarget(req, shape)
			if err != nil {
				t.Fatal(err)
			}
			cfg := space.ConvDefault(tg.Class, shape, tg.Dev.Limits)
			if cfg.Math != ptx.WGMMA_TF32 {
				t.Fatalf("the heuristic's configuration %v is not wgmma's TF32", cfg)
			}
			check("NHWC copies", tg, cfg, true, true)
		}
		if layout == convcheck.NCHW {
			continue
		}
		tg, err := rt.ConvTarget(req, shape)
		if err != nil {
			t.Fatal(err)
		}
		if !tg.Class.RoundTF32 || !tg.Class.ChannelLines {
			t.Fatalf("class %+v: want RoundTF32 and ChannelLines", tg.Class)
		}
		cfg := space.ConvDefault(tg.Class, shape, tg.Dev.Limits)
		cfg.Math = ptx.WGMMA_TF32
		ran := 0
		for _, tma := range []int{0, 1, 2} {
			v := cfg
			v.TMA = tma
			if err := ptx.Legal(v, tg.Class, lim); err != nil {
				t.Logf("TMA=%d: %v", tma, err)
				continue
			}
			ran++
			check(fmt.Sprintf("in place, TMA=%d", tma), tg, v, false, true)
			if tma == 0 {
				off := tg
				off.Class.RoundTF32 = false
				check("in place, rounding off", off, v, false, false)
			}
		}
		if ran < 2 {
			t.Errorf("%d of the three main loops legal for %v from %v", ran, tg.Class, cfg)
		}
	}
}
