package space

import (
	"math/rand/v2"
	"slices"

	"github.com/isaacgo/isaac/ptx"
)

// Grids of configurations: structured complements to random draws from the
// parameter space, for the sweep (bench_compare) and the chooser's seeds
// (predictor). Each grid holds the configurations of a few tile families
// the vendor's own kernels use, whole-K and split along K with several
// split counts (GridSplits), that are legal and suit the shape.

// Grid is every grid's configurations for an input (SIMTGrid, MMAGrid,
// WarpgroupGrid), without repeats.
func Grid(in ptx.InputClass, dev ptx.DeviceLimits, m, n, k int) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	seen := map[ptx.GemmConfig]bool{}
	for _, c := range slices.Concat(SIMTGrid(in, dev, m, n, k), MMAGrid(in, dev, m, n, k), WarpgroupGrid(in, dev, m, n, k)) {
		if !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// WarpgroupGrid is a grid of wgmma configurations for a shape: block tiles
// of 64 to 256 by 16 to 256 from one to four warpgroups, every wgmma math
// of the class, k-slices of 32 with 5 stages and of 64 with 4, each whole-K
// and split (gridSplits); those that are legal and suit the shape. The
// random draws and the local search add cluster splits.
func WarpgroupGrid(in ptx.InputClass, dev ptx.DeviceLimits, m, n, k int) []ptx.GemmConfig {
	v := 16 / in.AType.Size()
	var out []ptx.GemmConfig
	for _, math := range ForWarpgroup(in).Math {
		for _, ml := range []int{64, 128, 256} {
			for _, nl := range []int{16, 32, 64, 128, 256} {
				for _, ms := range []int{1, 2} {
					for _, ns := range []int{2, 4, 8, 16, 32} {
						for _, us := range [][2]int{{32, 5}, {64, 4}} {
							c := ptx.GemmConfig{MS: ms, NS: ns, ML: ml, NL: nl, U: us[0], KS: 1, KL: 1, KG: 1,
								VecA: v, VecB: v, Stages: us[1], Math: math}
							// at most 4 warpgroups, each at least 64×64
							// unless the block is one warpgroup
							wgs := (ml / (64 * ms)) * (nl / (8 * ns))
							if wgs > 4 || wgs > 1 && 8*ns < 64 {
								continue
							}
							out = withSplits(out, c, in, dev, m, n, k)
						}
					}
				}
			}
		}
	}
	return out
}

// gridSplits are the grid splits (KG) the grids try beside whole-K: those
// whose grid of tiles·KG blocks fills between half the GPU's SMs and three
// waves of them, K deep enough (Suits: K/KG ≥ 2U). A split's time depends on
// how its blocks fall into waves, so several counts, not powers of two only.
func gridSplits(c ptx.GemmConfig, dev ptx.DeviceLimits, m, n, k int) []int {
	tiles := ceilDiv(m, c.ML) * ceilDiv(n, c.NL)
	var out []int
	for _, kg := range []int{2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256} {
		if blocks := tiles * kg; blocks >= dev.SMCount/2 && blocks <= 3*dev.SMCount && k/kg >= 2*c.U {
			out = append(out, kg)
		}
	}
	return out
}

// withSplits appends c (whole-K) and its grid splits (gridSplits) that are
// legal and suit the shape.
func withSplits(out []ptx.GemmConfig, c ptx.GemmConfig, in ptx.InputClass, dev ptx.DeviceLimits, m, n, k int) []ptx.GemmConfig {
	if ptx.Legal(c, in, dev) == nil && Suits(c, m, n, k) {
		out = append(out, c)
	}
	for _, kg := range gridSplits(c, dev, m, n, k) {
		s := c
		s.KG = kg
		if ptx.Legal(s, in, dev) == nil && Suits(s, m, n, k) {
			out = append(out, s)
		}
	}
	return out
}

// MMAGrid is a grid of mma.sync configurations for the classes wgmma does
// not serve (f64, tf32): block tiles of 32 to 128 rows by 16 to 128
// columns from 2 to 8 warps of 32×32, 32×16 or 64×32 elements (the
// vendor's FP64 kernels use 64×32 and 128×64 blocks of such warps), every
// mma math of the class, k-slices of 16 with 4 stages and of 32 with 3, the
// widest vectors, whole-K and split (gridSplits); those that are legal and
// suit the shape. The random draws rarely land on one exact block, warp
// and split together, and the time of a skinny input changes by up to a
// third from one split count to the next.
func MMAGrid(in ptx.InputClass, dev ptx.DeviceLimits, m, n, k int) []ptx.GemmConfig {
	if len(ForWarpgroup(in).Math) > 0 {
		return nil
	}
	sp := ForSweep(in)
	va, vb := slices.Max(sp.VecA), slices.Max(sp.VecB)
	var out []ptx.GemmConfig
	for _, math := range sp.Math {
		if !math.IsMMA() || math.IsWGMMA() {
			continue
		}
		mm, mn, _ := math.Shape()
		for _, ml := range []int{32, 64, 128} {
			for _, nl := range []int{16, 32, 64, 128} {
				for _, w := range [][2]int{{32, 32}, {32, 16}, {64, 32}} {
					if ml%w[0] != 0 || nl%w[1] != 0 || w[0]%mm != 0 || w[1]%mn != 0 {
						continue
					}
					if warps := (ml / w[0]) * (nl / w[1]); warps < 2 || warps > 8 {
						continue
					}
					for _, us := range [][2]int{{16, 4}, {32, 3}} {
						c := ptx.GemmConfig{MS: w[0] / mm, NS: w[1] / mn, ML: ml, NL: nl, U: us[0], KS: 1, KL: 1, KG: 1,
							VecA: va, VecB: vb, Stages: us[1], Math: math}
						out = withSplits(out, c, in, dev, m, n, k)
					}
				}
			}
		}
	}
	return out
}

// SIMTGrid is a grid of large SIMT thread tiles for a shape: 16×8 and 8×16
// elements per thread (the register-blocking of the vendor's SIMT SGEMM) in
// blocks of 64 to 256 threads, and 8×8 in blocks of 64 to 128, k-slices of
// 8 and 16 with 3 and 4 stages, the widest vectors the class allows,
// whole-K and split (gridSplits); those that are legal and
// suit the shape. Random draws rarely reach these corners of the space, and
// the local search then tries their splits and neighbours.
func SIMTGrid(in ptx.InputClass, dev ptx.DeviceLimits, m, n, k int) []ptx.GemmConfig {
	sp := ForSweep(in)
	va, vb := slices.Max(sp.VecA), slices.Max(sp.VecB)
	var out []ptx.GemmConfig
	for _, math := range sp.Math {
		if math.IsMMA() {
			continue
		}
		for _, t := range [][4]int{
			{16, 8, 256, 128}, {8, 16, 128, 256}, {16, 8, 128, 128}, {8, 16, 128, 128},
			{16, 8, 128, 64}, {8, 16, 64, 128}, {16, 8, 256, 64}, {8, 16, 64, 256},
			{8, 8, 64, 64}, {8, 8, 128, 64}, {8, 8, 64, 128},
		} {
			for _, us := range [][2]int{{8, 3}, {8, 4}, {16, 3}, {16, 4}} {
				c := ptx.GemmConfig{MS: t[0], NS: t[1], ML: t[2], NL: t[3], U: us[0], KS: 1, KL: 1, KG: 1,
					VecA: va, VecB: vb, Stages: us[1], Math: math}
				out = withSplits(out, c, in, dev, m, n, k)
			}
		}
	}
	return out
}

// GridDraw draws up to n configurations of grid, without replacement,
// among those the class's spaces (For, ForWarpgroup) contain: the tile
// families and split counts the sweep searches, which the categorical draws
// rarely hit exactly (isaac-tune sample -grid).
func GridDraw(grid []ptx.GemmConfig, cls ptx.InputClass, n int, rng *rand.Rand) []ptx.GemmConfig {
	sp, wsp := For(cls), ForWarpgroup(cls)
	var in []ptx.GemmConfig
	for _, c := range grid {
		if sp.Contains(c) || c.Math.IsWGMMA() && wsp.Contains(c) {
			in = append(in, c)
		}
	}
	rng.Shuffle(len(in), func(i, j int) { in[i], in[j] = in[j], in[i] })
	return in[:min(n, len(in))]
}
