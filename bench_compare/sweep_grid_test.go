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

// The sweep's SIMT grid: legal 16-wide thread tiles that suit the shape,
// among them the 256×128 block of 16×8 tiles, for f32 LINPACK; none for a
// class no SIMT math serves well enough to be legal at that size (f64: 256
// accumulator registers).
func TestSIMTGrid(t *testing.T) {
	lim := ptx.H100()
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	grid := simtGrid(f32, lim, 8192, 8192, 8192)
	want := ptx.GemmConfig{MS: 16, NS: 8, ML: 256, NL: 128, U: 8, KS: 1, KL: 1, KG: 1, VecA: 4, VecB: 4, Stages: 3, Math: ptx.FFMA}
	if !containsConfig(grid, want) {
		t.Errorf("8192³ f32: %s missing from the grid (%d configurations)", want, len(grid))
	}
	for _, c := range grid {
		if c.Math.IsMMA() || c.MS*c.NS != 128 || ptx.Legal(c, f32, lim) != nil || !ptx.Suits(c, 8192, 8192, 8192) {
			t.Errorf("%s is not a legal 16-wide SIMT configuration that suits 8192³", c)
		}
	}
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.T, AlignA: 2, AlignB: 2, AlignC: 2}
	if g := simtGrid(f64, lim, 8192, 8192, 8192); len(g) != 0 {
		t.Errorf("f64: %d configurations, the first %s", len(g), g[0])
	}
}
