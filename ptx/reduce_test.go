package ptx

import "testing"

// reduceShape keeps every vector inside one column, covers the output, and
// shares a vector's slices among more threads only while the grid is small.
func TestReduceShape(t *testing.T) {
	cases := []struct {
		m, n, kg, vec     int
		w, positions, par int
	}{
		{32, 32, 512, 4, 4, 256, 32},      // ICA: one small tile, deep split
		{2560, 16, 16, 4, 4, 10240, 8},    // DeepBench: P stops at 65,536 threads
		{2560, 128, 8, 4, 4, 81920, 1},    // enough vectors: one thread each
		{33, 7, 4, 4, 1, 231, 4},          // M odd: scalar, P capped by KG
		{64, 64, 2, 2, 2, 2048, 2},        // f64 vectors of 2
		{1, 1, 300, 4, 1, 1, 32},          // P capped at one warp
		{4096, 4096, 2, 4, 4, 4194304, 1}, // large output
	}
	for _, c := range cases {
		w, pos, par := reduceShape(c.m, c.n, c.kg, c.vec)
		if w != c.w || pos != c.positions || par != c.par {
			t.Errorf("reduceShape(%d,%d,%d,%d) = %d,%d,%d, want %d,%d,%d", c.m, c.n, c.kg, c.vec, w, pos, par, c.w, c.positions, c.par)
		}
		if par > c.kg || par&(par-1) != 0 {
			t.Errorf("%v: P = %d is not a power of two ≤ KG", c, par)
		}
		if c.m%w != 0 || pos*w < c.m*c.n {
			t.Errorf("%v: vectors of %d do not tile the %dx%d output", c, w, c.m, c.n)
		}
		if g := reduceGrid(c.m, c.n, c.kg, c.vec); g < 1 || g > reduceMaxBlocks || (g < reduceMaxBlocks && g*reduceThreads < pos*par) {
			t.Errorf("%v: grid %d for %d vectors × %d threads", c, g, pos, par)
		}
	}
}

// rasterTile is the block-to-tile mapping the GEMM kernel's rasterize emits.
func rasterTile(bx, by, nx, ny int) (int, int) {
	if nx > 65535 {
		return bx, by
	}
	lin := by*nx + bx
	per := ny * rasterGroup
	grp := lin / per
	first := grp * rasterGroup
	size := min(nx-first, rasterGroup)
	r := lin % per
	return first + r%size, r / size
}

// The grouped rasterization visits every tile exactly once for any grid.
func TestRasterBijection(t *testing.T) {
	for nx := 1; nx < 40; nx++ {
		for ny := 1; ny < 24; ny++ {
			seen := map[[2]int]bool{}
			for by := 0; by < ny; by++ {
				for bx := 0; bx < nx; bx++ {
					tm, tn := rasterTile(bx, by, nx, ny)
					if tm < 0 || tm >= nx || tn < 0 || tn >= ny || seen[[2]int{tm, tn}] {
						t.Fatalf("grid %dx%d: block (%d,%d) → tile (%d,%d) out of range or repeated", nx, ny, bx, by, tm, tn)
					}
					seen[[2]int{tm, tn}] = true
				}
			}
		}
	}
	// Consecutive blocks stay within rasterGroup tile rows.
	if tm, tn := rasterTile(8, 0, 64, 64); tm != 0 || tn != 1 {
		t.Errorf("block 8 of a 64x64 grid → (%d,%d), want (0,1)", tm, tn)
	}
}
