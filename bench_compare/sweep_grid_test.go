package main

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// The sweep's warpgroup grid: only legal wgmma configurations that suit the
// shape, whole-K ones for large outputs, and K splits where the tiles leave
// SMs idle; nothing for classes wgmma does not serve.
func TestWarpgroupGrid(t *testing.T) {
	lim := ptx.H100()
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, s := range [][3]int{{8192, 8192, 8192}, {2560, 16, 2560}, {32, 32, 60000}, {4096, 4096, 32}} {
		grid := warpgroupGrid(f16, lim, s[0], s[1], s[2])
		if len(grid) == 0 {
			t.Errorf("%v: empty grid", s)
		}
		splits := 0
		for _, c := range grid {
			if !c.Math.IsWGMMA() || ptx.Legal(c, f16, lim) != nil || !ptx.Suits(c, s[0], s[1], s[2]) {
				t.Errorf("%v: %s is not a legal wgmma configuration that suits the shape", s, c)
			}
			if c.KG > 1 {
				splits++
			}
		}
		deep := s[2] >= 2560 && s[0]*s[1] <= 2560*16
		if deep && splits == 0 {
			t.Errorf("%v: no K split for a skinny, deep shape", s)
		}
		if s == [3]int{8192, 8192, 8192} && splits != 0 {
			t.Errorf("%v: %d K splits for a shape whose tiles fill the GPU", s, splits)
		}
	}
	misaligned := f16
	misaligned.AlignA = 2
	if g := warpgroupGrid(misaligned, lim, 4096, 4096, 4096); len(g) != 0 {
		t.Errorf("misaligned operands: %d wgmma configurations", len(g))
	}
}

// The sweep's SIMT grid: legal 16-wide and 8×8 thread tiles that suit the
// shape, among them the 256×128 block of 16×8 tiles, for f32 LINPACK, whole-K
// there; K splits for a skinny, deep shape; none for a class no SIMT math
// serves well enough to be legal at that size (f64: 256 accumulator
// registers).
func TestSIMTGrid(t *testing.T) {
	lim := ptx.H100()
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	grid := simtGrid(f32, lim, 8192, 8192, 8192)
	want := ptx.GemmConfig{MS: 16, NS: 8, ML: 256, NL: 128, U: 8, KS: 1, KL: 1, KG: 1, VecA: 4, VecB: 4, Stages: 3, Math: ptx.FFMA}
	if !containsConfig(grid, want) {
		t.Errorf("8192³ f32: %s missing from the grid (%d configurations)", want, len(grid))
	}
	for _, c := range grid {
		if c.Math.IsMMA() || c.MS*c.NS < 64 || c.KG != 1 || ptx.Legal(c, f32, lim) != nil || !ptx.Suits(c, 8192, 8192, 8192) {
			t.Errorf("%s is not a legal whole-K SIMT configuration of 64 or 128 elements per thread that suits 8192³", c)
		}
	}
	nn := f32
	nn.TransB = ptx.N
	splits := map[int]bool{}
	for _, c := range simtGrid(nn, lim, 2560, 64, 2560) {
		if ptx.Legal(c, nn, lim) != nil || !ptx.Suits(c, 2560, 64, 2560) {
			t.Errorf("2560×64×2560: %s is not legal or does not suit the shape", c)
		}
		splits[c.KG] = true
	}
	if !splits[3] || !splits[6] {
		t.Errorf("2560×64×2560: grid splits %v, want 3 and 6 among them", splits)
	}
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.T, AlignA: 2, AlignB: 2, AlignC: 2}
	if g := simtGrid(f64, lim, 8192, 8192, 8192); len(g) != 0 {
		t.Errorf("f64: %d configurations, the first %s", len(g), g[0])
	}
}

// The sweep's mma grid: for f64, legal configurations that suit the shape,
// among them the block, warp and split shaped like the vendor's kernel that
// measured 36.8 µs on FP64 DeepBench 2560×64×2560 NN (../results/h100/ab/
// f64-cublas-like-configs.txt), which the random draws had missed; none for
// a class wgmma serves.
func TestMMAGrid(t *testing.T) {
	lim := ptx.H100()
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.N, AlignA: 2, AlignB: 2, AlignC: 2}
	grid := mmaGrid(f64, lim, 2560, 64, 2560)
	want := ptx.GemmConfig{MS: 2, NS: 2, ML: 64, NL: 32, U: 32, KS: 1, KL: 1, KG: 3, VecA: 2, VecB: 2, Stages: 3, Math: ptx.MMA_F64_K8}
	if !containsConfig(grid, want) {
		t.Errorf("2560×64×2560 f64: %s missing from the grid (%d configurations)", want, len(grid))
	}
	for _, c := range grid {
		if !c.Math.IsMMA() || c.Math.IsWGMMA() || ptx.Legal(c, f64, lim) != nil || !ptx.Suits(c, 2560, 64, 2560) {
			t.Errorf("%s is not a legal mma.sync configuration that suits 2560×64×2560", c)
		}
	}
	if len(grid) > 1000 {
		t.Errorf("%d configurations: too many to compile per input", len(grid))
	}
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	if g := mmaGrid(f16, lim, 2560, 64, 2560); len(g) != 0 {
		t.Errorf("f16 (wgmma's): %d mma configurations", len(g))
	}
}
