package space

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// The warpgroup grid: only legal wgmma configurations that suit the
// shape, whole-K ones for large outputs, and K splits where the tiles leave
// SMs idle; nothing for classes wgmma does not serve.
func TestWarpgroupGrid(t *testing.T) {
	lim := ptx.H100()
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, s := range [][3]int{{8192, 8192, 8192}, {2560, 16, 2560}, {32, 32, 60000}, {4096, 4096, 32}} {
		grid := WarpgroupGrid(f16, lim, s[0], s[1], s[2])
		if len(grid) == 0 {
			t.Errorf("%v: empty grid", s)
		}
		splits := 0
		for _, c := range grid {
			if !c.Math.IsWGMMA() || ptx.Legal(c, f16, lim) != nil || !Suits(c, s[0], s[1], s[2]) {
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
	if g := WarpgroupGrid(misaligned, lim, 4096, 4096, 4096); len(g) != 0 {
		t.Errorf("misaligned operands: %d wgmma configurations", len(g))
	}
}

// The SIMT grid: legal 16-wide and 8×8 thread tiles that suit the
// shape, among them the 256×128 block of 16×8 tiles, for f32 LINPACK, whole-K
// there; K splits for a skinny, deep shape; none for a class no SIMT math
// serves well enough to be legal at that size (f64: 256 accumulator
// registers).
func TestSIMTGrid(t *testing.T) {
	lim := ptx.H100()
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	grid := SIMTGrid(f32, lim, 8192, 8192, 8192)
	want := ptx.GemmConfig{MS: 16, NS: 8, ML: 256, NL: 128, U: 8, KS: 1, KL: 1, KG: 1, VecA: 4, VecB: 4, Stages: 3, Math: ptx.FFMA}
	if !slices.Contains(grid, want) {
		t.Errorf("8192³ f32: %s missing from the grid (%d configurations)", want, len(grid))
	}
	for _, c := range grid {
		if c.Math.IsMMA() || c.MS*c.NS < 64 || c.KG != 1 || ptx.Legal(c, f32, lim) != nil || !Suits(c, 8192, 8192, 8192) {
			t.Errorf("%s is not a legal whole-K SIMT configuration of 64 or 128 elements per thread that suits 8192³", c)
		}
	}
	nn := f32
	nn.TransB = ptx.N
	splits := map[int]bool{}
	for _, c := range SIMTGrid(nn, lim, 2560, 64, 2560) {
		if ptx.Legal(c, nn, lim) != nil || !Suits(c, 2560, 64, 2560) {
			t.Errorf("2560×64×2560: %s is not legal or does not suit the shape", c)
		}
		splits[c.KG] = true
	}
	if !splits[3] || !splits[6] {
		t.Errorf("2560×64×2560: grid splits %v, want 3 and 6 among them", splits)
	}
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.T, AlignA: 2, AlignB: 2, AlignC: 2}
	if g := SIMTGrid(f64, lim, 8192, 8192, 8192); len(g) != 0 {
		t.Errorf("f64: %d configurations, the first %s", len(g), g[0])
	}
}

// The mma grid: for f64, legal configurations that suit the shape,
// among them the block, warp and split shaped like the vendor's kernel on
// FP64 DeepBench 2560×64×2560 NN (results/h100/ab/
// f64-cublas-like-configs.txt), which the random draws had missed; none for
// a class wgmma serves.
func TestMMAGrid(t *testing.T) {
	lim := ptx.H100()
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.N, AlignA: 2, AlignB: 2, AlignC: 2}
	grid := MMAGrid(f64, lim, 2560, 64, 2560)
	want := ptx.GemmConfig{MS: 2, NS: 2, ML: 64, NL: 32, U: 32, KS: 1, KL: 1, KG: 3, VecA: 2, VecB: 2, Stages: 3, Math: ptx.MMA_F64_K8}
	if !slices.Contains(grid, want) {
		t.Errorf("2560×64×2560 f64: %s missing from the grid (%d configurations)", want, len(grid))
	}
	for _, c := range grid {
		if !c.Math.IsMMA() || c.Math.IsWGMMA() || ptx.Legal(c, f64, lim) != nil || !Suits(c, 2560, 64, 2560) {
			t.Errorf("%s is not a legal mma.sync configuration that suits 2560×64×2560", c)
		}
	}
	if len(grid) > 1000 {
		t.Errorf("%d configurations: too many to compile per input", len(grid))
	}
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	if g := MMAGrid(f16, lim, 2560, 64, 2560); len(g) != 0 {
		t.Errorf("f16 (wgmma's): %d mma configurations", len(g))
	}
}

// Grid is the three grids' configurations without repeats; the FP64 grid
// holds mma.sync configurations of the model's space (Contains), and a
// 16-wide SIMT tile is in the sweep's space only (SpaceFor stops at 8).
func TestGrid(t *testing.T) {
	dev := ptx.H100()
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.N, AlignA: 2, AlignB: 2, AlignC: 2}
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	for _, in := range []ptx.InputClass{f16, f64, f32} {
		g := Grid(in, dev, 2560, 64, 2560)
		seen := map[ptx.GemmConfig]bool{}
		for _, c := range g {
			if seen[c] {
				t.Errorf("%s: %s twice", in, c)
			}
			seen[c] = true
		}
		want := len(SIMTGrid(in, dev, 2560, 64, 2560)) + len(MMAGrid(in, dev, 2560, 64, 2560)) + len(WarpgroupGrid(in, dev, 2560, 64, 2560))
		if len(g) == 0 || len(g) > want {
			t.Errorf("%s: %d configurations, the grids hold %d", in, len(g), want)
		}
	}
	for _, c := range Grid(f64, dev, 2560, 64, 2560) {
		if !c.Math.IsMMA() || c.Math.IsWGMMA() {
			t.Errorf("f64: %s", c)
		}
		if !For(f64).Contains(c) {
			t.Errorf("f64: %s outside the model's space", c)
		}
	}
	wide := ptx.GemmConfig{MS: 16, NS: 8, ML: 256, NL: 128, U: 8, KS: 1, KL: 1, KG: 1, VecA: 4, VecB: 4, Stages: 3, Math: ptx.FFMA}
	if For(f32).Contains(wide) || !ForSweep(f32).Contains(wide) {
		t.Errorf("%s: Contains disagrees with the spaces' MS values", wide)
	}
}

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
		grid := Grid(tc.cls, lim, tc.m, tc.n, tc.k)
		sp, wsp := For(tc.cls), ForWarpgroup(tc.cls)
		inSpaces := 0
		for _, c := range grid {
			if sp.Contains(c) || c.Math.IsWGMMA() && wsp.Contains(c) {
				inSpaces++
			}
		}
		if inSpaces < 12 {
			t.Fatalf("%v %dx%dx%d: only %d of %d grid configurations in the spaces", tc.cls, tc.m, tc.n, tc.k, inSpaces, len(grid))
		}
		got := GridDraw(grid, tc.cls, 12, rng)
		if len(got) != 12 {
			t.Fatalf("%dx%dx%d: drew %d, want 12", tc.m, tc.n, tc.k, len(got))
		}
		seen := map[ptx.GemmConfig]bool{}
		for _, c := range got {
			if seen[c] {
				t.Errorf("%dx%dx%d: %v drawn twice", tc.m, tc.n, tc.k, c)
			}
			seen[c] = true
			if !(sp.Contains(c) || c.Math.IsWGMMA() && wsp.Contains(c)) {
				t.Errorf("%dx%dx%d: %v outside the class's spaces", tc.m, tc.n, tc.k, c)
			}
			if err := ptx.Legal(c, tc.cls, lim); err != nil || !Suits(c, tc.m, tc.n, tc.k) {
				t.Errorf("%dx%dx%d: %v illegal or unsuited (%v)", tc.m, tc.n, tc.k, c, err)
			}
		}
		if all := GridDraw(grid, tc.cls, len(grid)+5, rng); len(all) != inSpaces {
			t.Errorf("%dx%dx%d: drawing more than there are gave %d, want all %d", tc.m, tc.n, tc.k, len(all), inSpaces)
		}
		if tc.k == 60000 {
			split := 0
			for _, c := range GridDraw(grid, tc.cls, inSpaces, rng) {
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
