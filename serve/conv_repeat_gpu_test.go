package serve

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
)

// TestGPUConvRepeat: a convolution served under Always is recorded
// (ConvRepeating, which leaves y as the served call wrote it) and its
// launches, made again on a second set of buffers holding the same data
// with those buffers' addresses patched in (as the shim's C repeats them),
// write y bit for bit as the served call did, and within the reference's
// bound. Random convolutions of every type and layout under the model's
// choices reach every path; those of 64 to 192 channels under the
// heuristic's (ISAAC_CONV_WEIGHTS=none) take wgmma kernels whose tiles the
// tensor copy engine stages, their maps in the parameters: repeated where
// the two recordings differ only by the addresses' shifts, refused (and
// counted) where the encoding differs otherwise. No other refusal.
func TestGPUConvRepeat(t *testing.T) {
	gemmcheck.GPUThread(t)
	o := FromEnv()
	o.Policy, o.ConvWeights = Always, "none"
	heuristic := NewOn(testRT, o)
	rng := rand.New(rand.NewPCG(51, 52))
	paths := map[convPath]int{}
	refused := map[string]int{}
	repeated, mapped := 0, 0
	for i := 0; i < 300; i++ {
		ct := request.ConvTypes[i%len(request.ConvTypes)]
		srv := testServer(Always)
		var c convcheck.Case
		switch {
		case i >= 240: // wide channels in 16-bit and TF32 types: the copy engine's kernels
			ct = []request.ConvType{request.ConvTypes[2], request.ConvTypes[4], request.ConvTypes[0]}[i%3]
			for {
				c = convcheck.RandomCase(rng, ct, 8_000_000)
				if c.Type.Data == request.CudnnFloat {
					c.Math = request.CudnnTensorOpMath
				}
				c.Groups, c.C = 0, 64*(1+rng.IntN(3))
				c.X = []convcheck.Layout{convcheck.NHWC, convcheck.NHWC, convcheck.NCHW}[rng.IntN(3)]
				c.FilterNHWC = c.X == convcheck.NHWC
				if c.Work() <= 8_000_000 && c.N*c.P()*c.Q() >= 128 {
					break
				}
			}
			srv = heuristic
		case i%5 == 4:
			c = convcheck.RandomPointwise(rng, ct, 4_000_000)
		default:
			c = convcheck.RandomCase(rng, ct, 4_000_000)
		}
		d, b1 := uploadConv(t, c)
		_, b2 := uploadConv(t, c)
		req := b1.Request(0)
		r, _, rep, ok := srv.ConvRepeating(req)
		if r != request.Served {
			continue
		}
		want, err := b1.ReadY(0)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		key, _, _, _ := srv.convTarget(req)
		v, _ := srv.convs.Load(key)
		dec := v.(*convDecision)
		if res := d.Check(c, want); res.Bad > 0 { // the recordings launched nothing
			t.Errorf("%v served by %v and recorded: %s", c, dec, res.FirstBad)
		}
		tma := dec.run(0).k.TensorMapped()
		if !ok {
			why := "tensor maps"
			if !tma {
				why = "other"
				t.Errorf("%v: served by %v, not recorded", c, dec)
			}
			refused[why]++
			continue
		}
		if _, again := srv.ConvRepeat(req); !again {
			t.Errorf("%v: recorded once, refused the second time", c)
		}
		paths[dec.path]++
		if tma {
			mapped++
		}
		req2 := b2.Request(0)
		for _, l := range rep.Launches {
			if err := l.Make(0, [3]uintptr{req2.XPtr, req2.WPtr, req2.YPtr}); err != nil {
				t.Fatalf("%v: %v", c, err)
			}
		}
		if err := cuda.Stream(0).Synchronize(); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		got, err := b2.ReadY(0)
		if err != nil {
			t.Fatal(err)
		}
		if res := d.Check(c, got); res.Bad > 0 {
			t.Errorf("%v repeated by %v: %s", c, dec, res.FirstBad)
		}
		if !equalBits(want, got) {
			t.Errorf("%v repeated by %v: not bit for bit the served result", c, dec)
		}
		repeated++
	}
	t.Logf("repeated %d convolutions (%d with tensor maps), by path %v (0 implicit, 1 copies, 2 grouped, 3 window, 4 gemm); not recorded %v",
		repeated, mapped, paths, refused)
	if repeated == 0 || len(paths) < 4 {
		t.Errorf("repeated %d convolutions on %d paths: the sample should reach every path but one", repeated, len(paths))
	}
}

// equalBits reports whether two results read back are the same values
// (NaNs of the same bits compare equal as bytes).
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}
