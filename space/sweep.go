package space

import (
	"math/rand/v2"
	"slices"

	"github.com/isaacgo/isaac/ptx"
)

// Sweep draws the candidates of a sweep (bench_compare -sweep), which
// measures, per input, what the kernel family reaches: the heuristic's
// configuration, up to N configurations of the class's pool that suit the
// input, the SIMT and mma grids and, where the device and the class allow
// wgmma, the warpgroup grid with as many random warpgroup configurations as
// it has whole-K entries.
type Sweep struct {
	N     int
	pools map[ptx.InputClass][]ptx.GemmConfig
}

// sweepPool is how many random legal configurations of ForSweep are drawn
// per input class: every input of the class picks its candidates from the
// same pool, so each kernel is compiled once for the whole sweep.
const sweepPool = 400

// pool is the class's pool, drawn once.
func (s *Sweep) pool(in ptx.InputClass, lim ptx.DeviceLimits, rng *rand.Rand) []ptx.GemmConfig {
	if p, ok := s.pools[in]; ok {
		return p
	}
	if s.pools == nil {
		s.pools = map[ptx.InputClass][]ptx.GemmConfig{}
	}
	seen := map[ptx.GemmConfig]bool{}
	var p []ptx.GemmConfig
	sp := ForSweep(in)
	for tries := 0; len(p) < sweepPool && tries < 4*sweepPool; tries++ {
		c, ok := sp.RandomLegal(rng, in, lim, 5000)
		if !ok {
			break
		}
		if !seen[c] {
			seen[c] = true
			p = append(p, c)
		}
	}
	s.pools[in] = p
	return p
}

// Candidates are an m×n×k input's candidates, the heuristic's first.
func (s *Sweep) Candidates(in ptx.InputClass, lim ptx.DeviceLimits, m, n, k int, rng *rand.Rand) []ptx.GemmConfig {
	out := []ptx.GemmConfig{Default(in, m, n, k, lim)}
	for _, c := range s.pool(in, lim, rng) {
		if len(out) > s.N {
			break
		}
		if c != out[0] && Suits(c, m, n, k) {
			out = append(out, c)
		}
	}
	for _, c := range append(SIMTGrid(in, lim, m, n, k), MMAGrid(in, lim, m, n, k)...) {
		if !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	wsp := ForWarpgroup(in)
	if len(wsp.Math) == 0 {
		return out
	}
	grid := WarpgroupGrid(in, lim, m, n, k)
	out = append(out, grid...)
	whole := 0
	for _, c := range grid {
		if c.KG == 1 {
			whole++
		}
	}
	for range whole {
		c, ok := wsp.RandomLegal(rng, in, lim, 2000)
		if ok && Suits(c, m, n, k) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}
