package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// sweeper finds, per input, the fastest of many legal configurations: the
// heuristic's plus up to Candidates drawn from the parameter sp and kept
// when they suit the shape (no block tile far larger than the problem,
// grid splits only when K is deep enough). Candidates are screened with
// Screen repeats; then up to Rounds of local search move one parameter at a
// time from the best; the best few are re-timed with the bench's full
// repeats.
type sweeper struct {
	Candidates int
	Screen     int
	Finalists  int
	Rounds     int // local-search rounds after the random screening
	Seed       uint64
	Seeds      seedSet // configurations recorded by earlier runs, screened first
	draws      space.Sweep
}

// sweep measures one input: the vendor, the heuristic's configuration and
// the best swept configuration. The row's ISAAC time and config are the
// best swept; the heuristic is an extra column.
func (s *sweeper) sweep(b *bench, in input, rng *rand.Rand) (report.Row, error) {
	setup, err := b.setup(in)
	if err != nil {
		return report.Row{}, err
	}
	defer setup.free()
	g := setup.g
	cls, err := space.Class(g)
	if err != nil {
		return report.Row{}, err
	}
	lim := b.Limits
	s.draws.N = s.Candidates
	cands := s.draws.Candidates(cls, lim, in.M, in.N, in.K, rng)
	for _, c := range s.Seeds[seedKeyOf(in)] {
		// Recorded by an earlier build: screened when still legal here.
		if ptx.Legal(c, cls, lim) == nil && !slices.Contains(cands, c) {
			cands = append(cands, c)
		}
	}
	cands = b.Compile(g, cands)
	if len(cands) == 0 {
		return report.Row{}, fmt.Errorf("no candidate configuration loads")
	}
	screened, err := s.screen(b, g, in, cands)
	if err != nil {
		return report.Row{}, err
	}
	seen := map[ptx.GemmConfig]bool{}
	for _, c := range screened {
		seen[c.cfg] = true
	}
	if screened, err = s.localSearch(b, g, in, cls, lim, screened, seen); err != nil {
		return report.Row{}, err
	}
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	// The pipelined twins of the best mma.sync and SIMT configurations: the
	// spaces do not draw PP, so the sweep tries it where it can matter.
	twins := space.PipelinedTwins(configs(screened[:min(pipelinedTwinsOf, len(screened))]), pipelinedTwinsOf, func(c ptx.GemmConfig) bool {
		return !seen[c] && ptx.Legal(c, cls, lim) == nil
	})
	twins = b.Compile(g, twins)
	// A twin that needs a few registers more than its plain configuration
	// and so fits fewer blocks per SM is tried capped too (mr).
	registers := func(c ptx.GemmConfig) (int, error) { return b.Kernels.Registers(g, c) }
	for _, t := range twins {
		if c, ok := space.CappedTwin(t, cls, lim, registers); ok && !seen[c] {
			seen[c] = true
			twins = append(twins, c)
		}
	}
	more, err := s.screen(b, g, in, b.Compile(g, twins))
	if err != nil {
		return report.Row{}, err
	}
	screened = append(screened, more...)
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	// The tensor-copy twins (TMA) of the best wgmma configurations and of
	// the warpgroup grid, which the spaces do not draw; when one of them is
	// the fastest, the local search goes on from it.
	from := append(space.WarpgroupGrid(cls, lim, in.M, in.N, in.K), configs(screened[:min(tmaTwinsOf, len(screened))])...)
	tma := space.TMATwins(from, func(c ptx.GemmConfig) bool {
		return !seen[c] && ptx.Legal(c, cls, lim) == nil && space.Suits(c, in.M, in.N, in.K)
	})
	for _, c := range tma {
		seen[c] = true
	}
	if more, err = s.screen(b, g, in, b.Compile(g, tma)); err != nil {
		return report.Row{}, err
	}
	screened = append(screened, more...)
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	if screened[0].cfg.TMA != 0 {
		if screened, err = s.localSearch(b, g, in, cls, lim, screened, seen); err != nil {
			return report.Row{}, err
		}
	}
	finalists := []engine{{Name: "heuristic", Config: &cands[0]}}
	for i := 0; i < len(screened) && len(finalists) < s.Finalists+1; i++ {
		if screened[i].cfg != cands[0] {
			c := screened[i].cfg
			finalists = append(finalists, engine{Name: fmt.Sprintf("finalist%d", len(finalists)), Config: &c})
		}
	}
	row, err := b.measureSetup(in, setup, finalists)
	if err != nil {
		return report.Row{}, err
	}
	// The best of the heuristic and the finalists is ISAAC's swept figure.
	best := report.Alt{Name: "heuristic", US: row.OursUS, Config: row.Config}
	for _, a := range row.Alt {
		if a.US < best.US {
			best = a
		}
	}
	heuristic := report.Alt{Name: "heuristic", US: row.OursUS, Config: row.Config}
	row.OursUS, row.Config = best.US, best.Config
	row.Speedup = row.VendorUS / row.OursUS
	row.Alt = []report.Alt{heuristic}
	return row, nil
}

// localSearch moves from the best screened configuration one parameter
// at a time (the next smaller or larger value in its sp) while a step
// helps, for up to Rounds rounds; it returns every screened configuration,
// fastest first.
func (s *sweeper) localSearch(b *bench, g *request.Gemm, in input, cls ptx.InputClass, lim ptx.DeviceLimits,
	screened []scored, seen map[ptx.GemmConfig]bool) ([]scored, error) {
	for round := 0; round < s.Rounds && len(screened) > 0; round++ {
		sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
		var next []ptx.GemmConfig
		sp := space.ForSweep(cls)
		if screened[0].cfg.Math.IsWGMMA() {
			sp = space.ForWarpgroup(cls)
		}
		for _, c := range space.Neighbors(screened[0].cfg, sp) {
			if !seen[c] && ptx.Legal(c, cls, lim) == nil && space.Suits(c, in.M, in.N, in.K) {
				seen[c] = true
				next = append(next, c)
			}
		}
		more, err := s.screen(b, g, in, b.Compile(g, next))
		if err != nil {
			return nil, err
		}
		improved := len(more) > 0 && minUS(more) < screened[0].us
		screened = append(screened, more...)
		if !improved {
			break
		}
	}
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	return screened, nil
}

// tmaTwinsOf is how many of the best screened wgmma configurations the
// sweep also tries staged by the bulk tensor copy engine (ptx.GemmConfig.TMA).
const tmaTwinsOf = 8

// pipelinedTwinsOf is how many of the best screened configurations the
// sweep also tries with pipelined fragments (ptx.GemmConfig.PP).
const pipelinedTwinsOf = 4

type scored struct {
	cfg ptx.GemmConfig
	us  float64
}

// configs are the configurations of s, in order.
func configs(s []scored) []ptx.GemmConfig {
	out := make([]ptx.GemmConfig, len(s))
	for i, x := range s {
		out[i] = x.cfg
	}
	return out
}

func minUS(s []scored) float64 {
	m := s[0].us
	for _, x := range s[1:] {
		m = min(m, x.us)
	}
	return m
}

// screen times each configuration a few times (once for the largest
// problems) and returns the medians.
func (s *sweeper) screen(b *bench, g *request.Gemm, in input, cands []ptx.GemmConfig) ([]scored, error) {
	var out []scored
	n := s.Screen
	if 2*float64(in.M)*float64(in.N)*float64(in.K) > 1e12 {
		n = 1 // the largest problems: one timed run screens
	}
	for _, c := range cands {
		run := func() error { return b.Kernels.Gemm(g, c) }
		if err := run(); err != nil {
			continue
		}
		var ts []float64
		for r := 0; r < n; r++ {
			us, err := b.time(run)
			if err != nil {
				return nil, err
			}
			ts = append(ts, us)
		}
		out = append(out, scored{c, median(ts)})
	}
	return out, nil
}

// sweepAll sweeps every input with a progress line.
func sweepAll(b *bench, s *sweeper, inputs []input, progress io.Writer) ([]report.Row, error) {
	rng := rand.New(rand.NewPCG(s.Seed, 3))
	var rows []report.Row
	for i, in := range inputs {
		row, err := s.sweep(b, in, rng)
		if err != nil {
			return nil, fmt.Errorf("%s %s %dx%dx%d %s: %w", in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, err)
		}
		rows = append(rows, row)
		fmt.Fprintf(progress, "[%3d/%d] sweep %-12s %-18s %5dx%-5dx%-5d %s  cuBLAS %9.1f µs  best %9.1f µs  %5.2f×  heuristic %9.1f µs  %s\n",
			i+1, len(inputs), in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, row.VendorUS, row.OursUS,
			row.Speedup, row.Alt[0].US, row.Config)
	}
	return rows, nil
}
