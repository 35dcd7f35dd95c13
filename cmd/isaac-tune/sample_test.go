package main

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// gridDraw takes distinct configurations of the grid that the class's spaces
// hold, as many as asked, split ones among them for a deep-K input.
func TestGridDraw(t *testing.T) {
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	lim := ptx.H100()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		cls     ptx.InputClass
		m, n, k int
	}{{f32, 64, 64, 60000}, {f32, 2560, 64, 2560}, {f16, 2560, 16, 2560}, {f16, 4096, 4096, 4096}} {
		grid := ptx.Grid(tc.cls, lim, tc.m, tc.n, tc.k)
		space, wspace := ptx.SpaceFor(tc.cls), ptx.WarpgroupSpace(tc.cls)
		inSpaces := 0
		for _, c := range grid {
			if space.Contains(c) || c.Math.IsWGMMA() && wspace.Contains(c) {
				inSpaces++
			}
		}
		if inSpaces < 12 {
			t.Fatalf("%v %dx%dx%d: only %d of %d grid configurations in the spaces", tc.cls, tc.m, tc.n, tc.k, inSpaces, len(grid))
		}
		got := gridDraw(grid, tc.cls, 12, rng)
		if len(got) != 12 {
			t.Fatalf("%dx%dx%d: drew %d, want 12", tc.m, tc.n, tc.k, len(got))
		}
		seen := map[ptx.GemmConfig]bool{}
		for _, c := range got {
			if seen[c] {
				t.Errorf("%dx%dx%d: %v drawn twice", tc.m, tc.n, tc.k, c)
			}
			seen[c] = true
			if !(space.Contains(c) || c.Math.IsWGMMA() && wspace.Contains(c)) {
				t.Errorf("%dx%dx%d: %v outside the class's spaces", tc.m, tc.n, tc.k, c)
			}
			if err := ptx.Legal(c, tc.cls, lim); err != nil || !ptx.Suits(c, tc.m, tc.n, tc.k) {
				t.Errorf("%dx%dx%d: %v illegal or unsuited (%v)", tc.m, tc.n, tc.k, c, err)
			}
		}
		if all := gridDraw(grid, tc.cls, len(grid)+5, rng); len(all) != inSpaces {
			t.Errorf("%dx%dx%d: drawing more than there are gave %d, want all %d", tc.m, tc.n, tc.k, len(all), inSpaces)
		}
		if tc.k == 60000 {
			split := 0
			for _, c := range gridDraw(grid, tc.cls, inSpaces, rng) {
				if c.KG > 1 {
					split++
				}
			}
			if split == 0 {
				t.Errorf("deep K: no split configuration among the grid's")
			}
		}
	}
}

// The sampler's pipelined twins: pp=1 copies of the most recently drawn
// mma.sync and SIMT configurations with cp.async stages, legal and suited,
// as many as asked.
func TestPipelinedTwins(t *testing.T) {
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.T, AlignA: 2, AlignB: 2, AlignC: 2}
	var cfgs []ptx.GemmConfig
	for _, s := range []string{
		"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8",
		"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=1,math=mma_f64",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=dfma",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64k8,pp=1",
	} {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	got := pipelinedTwins(cfgs, 5, f64, ptx.H100(), 1000, 1000, 1000)
	if len(got) != 2 || got[0].Math != ptx.DFMA || got[1].Math != ptx.MMA_F64_K8 || got[0].PP != 1 || got[1].PP != 1 {
		t.Fatalf("twins %v", got)
	}
	if got := pipelinedTwins(cfgs, 1, f64, ptx.H100(), 1000, 1000, 1000); len(got) != 1 || got[0].Math != ptx.DFMA {
		t.Fatalf("one twin: %v", got)
	}
}
