package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// The heuristic's wgmma candidates: first for large 16-bit outputs with
// 16-byte aligned operands on sm_90, legal, and never elsewhere (sm_80,
// misaligned operands, f32/f64, small outputs).
func TestHeuristicWarpgroup(t *testing.T) {
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, tc := range []struct {
		in      ptx.InputClass
		dev     ptx.DeviceLimits
		m, n, k int
		want    bool
		nl      int
	}{
		{f16, ptx.H100(), 8192, 8192, 8192, true, 256},
		{f16, ptx.H100(), 2048, 2048, 2048, true, 256},
		{f16, ptx.H100(), 1024, 1024, 1024, true, 64},
		{f16, ptx.H100(), 4096, 4096, 32, true, 128},
		{f16, ptx.A100(), 8192, 8192, 8192, false, 0},
		{f16, ptx.H100(), 512, 512, 512, false, 0},
		{f16, ptx.H100(), 2560, 16, 2560, false, 0},
		{func() ptx.InputClass { c := f16; c.AlignA = 4; return c }(), ptx.H100(), 4096, 4096, 4096, false, 0},
		{ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, AlignA: 4, AlignB: 4, AlignC: 4}, ptx.H100(), 4096, 4096, 4096, false, 0},
	} {
		c := Default(tc.in, tc.m, tc.n, tc.k, tc.dev)
		if c.Math.IsWGMMA() != tc.want {
			t.Errorf("%s %d×%d×%d on sm_%d%d: %s, want wgmma %v", tc.in, tc.m, tc.n, tc.k, tc.dev.SMMajor, tc.dev.SMMinor, c, tc.want)
			continue
		}
		if err := ptx.Legal(c, tc.in, tc.dev); err != nil {
			t.Errorf("%s: %v", c, err)
		}
		if tc.want && c.NL != tc.nl {
			t.Errorf("%s %d×%d×%d: %s, want a %d-wide tile", tc.in, tc.m, tc.n, tc.k, c, tc.nl)
		}
	}
}

// DefaultBatch counts a batch's tiles: a batch of small matrices that
// fills the SMs keeps the tiles of one large matrix (Default of a single
// such matrix shrinks them, and splits K, to fill the SMs alone), a batch
// of one is Default, and every choice is legal for the batched class.
func TestHeuristicBatch(t *testing.T) {
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8, Batched: true}
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 4, AlignB: 4, AlignC: 4, Batched: true}
	dev := ptx.H100()
	for _, tc := range []struct {
		in          ptx.InputClass
		m, n, k     int
		batch       int
		wantMinArea int // ML·NL of the batch's choice at least
	}{
		{f16, 128, 128, 64, 512, 64 * 64},  // attention's QKᵀ of 128 tokens
		{f16, 256, 64, 256, 64, 64 * 64},   // a small layer per image
		{f32, 3136, 64, 256, 32, 64 * 64},  // ResNet's 1×1 reduction in NCHW at batch 32, per image
		{f32, 196, 256, 1024, 32, 64 * 64}, // and stage 3's
	} {
		one := Default(tc.in, tc.m, tc.n, tc.k, dev)
		many := DefaultBatch(tc.in, tc.m, tc.n, tc.k, tc.batch, dev)
		if err := ptx.Legal(many, tc.in, dev); err != nil {
			t.Errorf("%d×%d×%d ×%d: %s: %v", tc.m, tc.n, tc.k, tc.batch, many, err)
		}
		if many.ML*many.NL < tc.wantMinArea || many.ML*many.NL < one.ML*one.NL || many.KG != 1 {
			t.Errorf("%d×%d×%d ×%d: %s (one matrix: %s), want tiles of %d elements or more, no split", tc.m, tc.n, tc.k, tc.batch, many, one, tc.wantMinArea)
		}
		if got := DefaultBatch(tc.in, tc.m, tc.n, tc.k, 1, dev); got != one {
			t.Errorf("a batch of one: %s, Default %s", got, one)
		}
	}
}
