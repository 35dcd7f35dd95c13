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
