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
// launches, made again on a second set of buffers
// holding the same data with those buffers' addresses patched in (as the
// shim's C repeats them), write y bit for bit as the served call did, and
// within the reference's bound. Every path that serves random
// convolutions of every type and layout is covered; decisions whose
// kernels take tensor maps are not recorded, and no recording is refused
// for another reason.
func TestGPUConvRepeat(t *testing.T) {
	gemmcheck.GPUThread(t)
	srv := testServer(Always)
	rng := rand.New(rand.NewPCG(51, 52))
	paths := map[convPath]int{}
	refused := map[string]int{}
	repeated := 0
	for i := 0; i < 240; i++ {
		ct := request.ConvTypes[i%len(request.ConvTypes)]
		var c convcheck.Case
		if i%5 == 4 {
			c = convcheck.RandomPointwise(rng, ct, 4_000_000)
		} else {
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
		if !ok {
			why := "tensor maps"
			if !dec.run(0).k.TensorMapped() {
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
	t.Logf("repeated %d convolutions, by path %v (0 implicit, 1 copies, 2 grouped, 3 window, 4 gemm); not recorded %v", repeated, paths, refused)
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
