package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// A batch's wgmma configuration runs with tensor copies (at the engine's
// 128-byte k-slice where its own does not fit the swizzled lines), and
// persistent with the deepest pipeline that fits once the batch's 16-bit
// 128-row tiles fill the SMs twice and the reduction is long, or for a
// 128×256 tile in one warpgroup (run at half the width, the producer
// warp's registers beside its accumulators) from two k-slices on; other
// maths, a plain class and tf32's persistent twin are left as they are.
func TestBatchStaged(t *testing.T) {
	dev := ptx.H100()
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N,
		AlignA: 8, AlignB: 8, AlignC: 8, Batched: true}
	parse := func(s string) ptx.GemmConfig {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	wide := parse("ms=1,ns=32,ml=128,nl=256,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	square := parse("ms=2,ns=16,ml=128,nl=128,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	small := parse("ms=1,ns=4,ml=64,nl=32,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	for _, tc := range []struct {
		cfg            ptx.GemmConfig
		m, n, k, batch int
		tma, ps, u, nl int
	}{
		{wide, 1024, 1024, 128, 128, 2, 1, 64, 128},  // 8,192 half-width tiles, two slices
		{wide, 1024, 1024, 64, 128, 1, 0, 64, 256},   // one slice
		{wide, 128, 128, 128, 32, 1, 0, 64, 256},     // 64 half-width tiles
		{square, 128, 2048, 2048, 32, 2, 1, 64, 128}, // 32 slices
		{square, 512, 512, 128, 128, 1, 0, 64, 128},  // two slices of a tile that keeps its width
		{small, 512, 512, 1024, 128, 1, 0, 64, 32},   // 64-row tiles
	} {
		got := BatchStaged(tc.cfg, f16, tc.m, tc.n, tc.k, tc.batch, dev)
		if err := ptx.Legal(got, f16, dev); err != nil {
			t.Fatalf("%v for %d×%d×%d ×%d: %v", got, tc.m, tc.n, tc.k, tc.batch, err)
		}
		if got.TMA != tc.tma || got.PS != tc.ps || got.U != tc.u || got.NL != tc.nl {
			t.Errorf("%v for %d×%d×%d ×%d: tma=%d ps=%d u=%d nl=%d, want %d %d %d %d", tc.cfg, tc.m, tc.n, tc.k, tc.batch,
				got.TMA, got.PS, got.U, got.NL, tc.tma, tc.ps, tc.u, tc.nl)
		}
		if deeper := got; got.PS == 1 && got.Stages < 8 {
			deeper.Stages = map[int]int{4: 5, 5: 6, 6: 8}[got.Stages]
			if ptx.Legal(deeper, f16, dev) == nil {
				t.Errorf("%v: %d stages, %d fit", got, got.Stages, deeper.Stages)
			}
		}
		plain := f16
		plain.Batched = false
		if BatchStaged(tc.cfg, plain, tc.m, tc.n, tc.k, tc.batch, dev) != tc.cfg {
			t.Errorf("%v changed for a plain class", tc.cfg)
		}
	}
	mma := parse("ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16")
	if BatchStaged(mma, f16, 1024, 1024, 1024, 128, dev) != mma {
		t.Errorf("an mma.sync configuration changed")
	}
	tf32 := f16
	tf32.AType, tf32.BType, tf32.CType, tf32.AllowTF32, tf32.AlignA, tf32.AlignB, tf32.AlignC = ptx.F32, ptx.F32, ptx.F32, true, 4, 4, 4
	c := parse("ms=1,ns=8,ml=128,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32")
	if got := BatchStaged(c, tf32, 1024, 1024, 1024, 128, dev); got.TMA != 1 || got.PS != 0 {
		t.Errorf("tf32 %v staged as %v, want its tensor-copy twin only", c, got)
	}
}
