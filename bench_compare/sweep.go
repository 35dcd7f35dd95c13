package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"sort"
	"sync"

	"github.com/isaacgo/isaac/engine"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/internal/cuda"
)

// Sweeper finds, per input, the fastest of many legal configurations: the
// heuristic's plus up to Candidates drawn from the parameter space and kept
// when they suit the shape (no block tile far larger than the problem,
// grid splits only when K is deep enough). Candidates are screened with
// Screen repeats; then up to Rounds of local search move one parameter at a
// time from the best; the best few are re-timed with the bench's full
// repeats.
type Sweeper struct {
	Candidates int
	Screen     int
	Finalists  int
	Rounds     int // local-search rounds after the random screening
	Seed       uint64
	Seeds      Seeds // configurations recorded by earlier runs, screened first
	ctx        cuda.Context
	pools      map[ptx.InputClass][]ptx.GemmConfig
}

// poolSize is how many random legal configurations are drawn per input
// class; every input of the class picks its candidates from the same pool,
// so each kernel is compiled once for the whole sweep.
const poolSize = 400

// pool is the class's pool of random legal configurations, drawn once.
func (s *Sweeper) pool(in ptx.InputClass, lim ptx.DeviceLimits, rng *rand.Rand) []ptx.GemmConfig {
	if p, ok := s.pools[in]; ok {
		return p
	}
	if s.pools == nil {
		s.pools = map[ptx.InputClass][]ptx.GemmConfig{}
	}
	seen := map[ptx.GemmConfig]bool{}
	var p []ptx.GemmConfig
	space := ptx.SweepSpaceFor(in)
	for tries := 0; len(p) < poolSize && tries < 4*poolSize; tries++ {
		c, ok := space.RandomLegal(rng, in, lim, 5000)
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

// candidates are the heuristic's configuration, up to Candidates from the
// class's pool that suit the shape and, where the device and the class
// allow wgmma, the warpgroup grid (warpgroupGrid) with as many random
// warpgroup configurations as it has entries.
func (s *Sweeper) candidates(in ptx.InputClass, lim ptx.DeviceLimits, m, n, k int, rng *rand.Rand) []ptx.GemmConfig {
	out := []ptx.GemmConfig{ptx.DefaultConfig(in, m, n, k, lim)}
	for _, c := range s.pool(in, lim, rng) {
		if len(out) > s.Candidates {
			break
		}
		if c != out[0] && ptx.Suits(c, m, n, k) {
			out = append(out, c)
		}
	}
	for _, c := range append(ptx.SIMTGrid(in, lim, m, n, k), ptx.MMAGrid(in, lim, m, n, k)...) {
		if !containsConfig(out, c) {
			out = append(out, c)
		}
	}
	wsp := ptx.WarpgroupSpace(in)
	if len(wsp.Math) == 0 {
		return out
	}
	grid := ptx.WarpgroupGrid(in, lim, m, n, k)
	out = append(out, grid...)
	whole := 0 // as many random draws as the grid has whole-K entries
	for _, c := range grid {
		if c.KG == 1 {
			whole++
		}
	}
	for range whole {
		c, ok := wsp.RandomLegal(rng, in, lim, 2000)
		if ok && ptx.Suits(c, m, n, k) && !containsConfig(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// compileAll prepares every candidate, in parallel (the JIT is the cost);
// configurations whose kernels do not load are dropped.
func (s *Sweeper) compileAll(g *request.Gemm, cands []ptx.GemmConfig) []ptx.GemmConfig {
	ok := make([]bool, len(cands))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, runtime.NumCPU()-1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			s.ctx.SetCurrent()
			for i := range next {
				ok[i] = engine.Prepare(g, cands[i]) == nil
			}
		}()
	}
	for i := range cands {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []ptx.GemmConfig
	for i, c := range cands {
		if ok[i] {
			out = append(out, c)
		}
	}
	return out
}

// Sweep measures one input: the vendor, the heuristic's configuration and
// the best swept configuration. The row's ISAAC time and config are the
// best swept; the heuristic is an extra column.
func (s *Sweeper) Sweep(b *Bench, in Input, rng *rand.Rand) (Row, error) {
	setup, err := b.setup(in)
	if err != nil {
		return Row{}, err
	}
	defer setup.free()
	g := setup.g
	cls, err := engine.Class(g)
	if err != nil {
		return Row{}, err
	}
	lim, err := engine.Limits()
	if err != nil {
		return Row{}, err
	}
	cands := s.candidates(cls, lim, in.M, in.N, in.K, rng)
	for _, c := range s.Seeds[seedKeyOf(in)] {
		// Recorded by an earlier build: screened when still legal here.
		if ptx.Legal(c, cls, lim) == nil && !containsConfig(cands, c) {
			cands = append(cands, c)
		}
	}
	cands = s.compileAll(g, cands)
	if len(cands) == 0 {
		return Row{}, fmt.Errorf("no candidate configuration loads")
	}
	screened, err := s.screen(b, g, in, cands)
	if err != nil {
		return Row{}, err
	}
	seen := map[ptx.GemmConfig]bool{}
	for _, c := range screened {
		seen[c.cfg] = true
	}
	if screened, err = s.localSearch(b, g, in, cls, lim, screened, seen); err != nil {
		return Row{}, err
	}
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	// The pipelined twins of the best mma.sync and SIMT configurations: the
	// spaces do not draw PP, so the sweep tries it where it can matter.
	twins := pipelinedTwins(screened, pipelinedTwinsOf, func(c ptx.GemmConfig) bool {
		return !seen[c] && ptx.Legal(c, cls, lim) == nil
	})
	twins = s.compileAll(g, twins)
	// A twin that needs a few registers more than its plain configuration
	// and so fits fewer blocks per SM is tried capped too (mr).
	for _, t := range twins {
		plain := t
		plain.PP = 0
		r0, err0 := engine.Registers(g, plain)
		r1, err1 := engine.Registers(g, t)
		if err0 != nil || err1 != nil {
			continue
		}
		if mr := registerCap(r0, r1, t.Threads(), lim.RegistersPerSM); mr > 0 {
			c := t
			c.MR = mr
			if !seen[c] && ptx.Legal(c, cls, lim) == nil {
				seen[c] = true
				twins = append(twins, c)
			}
		}
	}
	more, err := s.screen(b, g, in, s.compileAll(g, twins))
	if err != nil {
		return Row{}, err
	}
	screened = append(screened, more...)
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	// The tensor-copy twins (TMA) of the best wgmma configurations and of
	// the warpgroup grid, which the spaces do not draw; when one of them is
	// the fastest, the local search goes on from it.
	tma := tmaTwins(screened, tmaTwinsOf, ptx.WarpgroupGrid(cls, lim, in.M, in.N, in.K), func(c ptx.GemmConfig) bool {
		return !seen[c] && ptx.Legal(c, cls, lim) == nil && ptx.Suits(c, in.M, in.N, in.K)
	})
	for _, c := range tma {
		seen[c] = true
	}
	if more, err = s.screen(b, g, in, s.compileAll(g, tma)); err != nil {
		return Row{}, err
	}
	screened = append(screened, more...)
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	if screened[0].cfg.TMA == 1 {
		if screened, err = s.localSearch(b, g, in, cls, lim, screened, seen); err != nil {
			return Row{}, err
		}
	}
	finalists := []Engine{{Name: "heuristic", Config: &cands[0]}}
	for i := 0; i < len(screened) && len(finalists) < s.Finalists+1; i++ {
		if screened[i].cfg != cands[0] {
			c := screened[i].cfg
			finalists = append(finalists, Engine{Name: fmt.Sprintf("finalist%d", len(finalists)), Config: &c})
		}
	}
	row, err := b.measureSetup(in, setup, finalists)
	if err != nil {
		return Row{}, err
	}
	// The best of the heuristic and the finalists is ISAAC's swept figure.
	best := Alt{Name: "heuristic", US: row.OursUS, Config: row.Config}
	for _, a := range row.Alt {
		if a.US < best.US {
			best = a
		}
	}
	heuristic := Alt{Name: "heuristic", US: row.OursUS, Config: row.Config}
	row.OursUS, row.Config = best.US, best.Config
	row.Speedup = row.VendorUS / row.OursUS
	row.Alt = []Alt{heuristic}
	return row, nil
}

// localSearch moves from the best screened configuration one parameter
// at a time (the next smaller or larger value in its space) while a step
// helps, for up to Rounds rounds; it returns every screened configuration,
// fastest first.
func (s *Sweeper) localSearch(b *Bench, g *request.Gemm, in Input, cls ptx.InputClass, lim ptx.DeviceLimits,
	screened []scored, seen map[ptx.GemmConfig]bool) ([]scored, error) {
	for round := 0; round < s.Rounds && len(screened) > 0; round++ {
		sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
		var next []ptx.GemmConfig
		space := ptx.SweepSpaceFor(cls)
		if screened[0].cfg.Math.IsWGMMA() {
			space = ptx.WarpgroupSpace(cls)
		}
		for _, c := range ptx.Neighbors(screened[0].cfg, space) {
			if !seen[c] && ptx.Legal(c, cls, lim) == nil && ptx.Suits(c, in.M, in.N, in.K) {
				seen[c] = true
				next = append(next, c)
			}
		}
		more, err := s.screen(b, g, in, s.compileAll(g, next))
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

// tmaTwins are the TMA = 1 twins of the n fastest screened wgmma
// configurations (screened sorted fastest first) and of every
// configuration of grid, each with u = 64 where its own k-slice keeps a
// k-contiguous tile from the 128-byte lines the copy engine writes, that
// ok accepts, without repeats.
func tmaTwins(screened []scored, n int, grid []ptx.GemmConfig, ok func(ptx.GemmConfig) bool) []ptx.GemmConfig {
	from := slices.Clone(grid)
	for _, sc := range screened[:min(n, len(screened))] {
		from = append(from, sc.cfg)
	}
	var out []ptx.GemmConfig
	for _, c := range from {
		if !c.Math.IsWGMMA() || c.TMA != 0 {
			continue
		}
		c.TMA = 1
		for _, u := range []int{c.U, 64} {
			c.U = u
			if ok(c) && !containsConfig(out, c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// pipelinedTwinsOf is how many of the best screened configurations the
// sweep also tries with pipelined fragments (ptx.GemmConfig.PP).
const pipelinedTwinsOf = 4

// pipelinedTwins are the PP = 1 twins of the n fastest screened mma.sync
// and SIMT configurations with cp.async stages (screened sorted fastest
// first) that ok accepts.
func pipelinedTwins(screened []scored, n int, ok func(ptx.GemmConfig) bool) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	for _, sc := range screened[:min(n, len(screened))] {
		c := sc.cfg
		if c.Math.IsWGMMA() || c.Stages < 2 || c.PP != 0 {
			continue
		}
		c.PP = 1
		if ok(c) {
			out = append(out, c)
		}
	}
	return out
}

// registerCap is the register cap (ptx.GemmConfig.MR) that gives a kernel
// of regs registers per thread and threads threads as many blocks per SM
// (registers alone: regsPerSM, allocated per thread in units of 8) as its
// plain twin of plain registers, when the kernel fits fewer; 0 when it does
// not lose a block or no cap of at least plain's registers keeps it.
func registerCap(plain, regs, threads, regsPerSM int) int {
	blocks := func(r int) int { return regsPerSM / ((r + 7) / 8 * 8 * threads) }
	want := blocks(plain)
	if want == 0 || blocks(regs) >= want {
		return 0
	}
	mr := min(regsPerSM/(want*threads)/8*8, 248)
	if mr < plain || mr < 32 {
		return 0
	}
	return mr
}

type scored struct {
	cfg ptx.GemmConfig
	us  float64
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
func (s *Sweeper) screen(b *Bench, g *request.Gemm, in Input, cands []ptx.GemmConfig) ([]scored, error) {
	var out []scored
	n := s.Screen
	if 2*float64(in.M)*float64(in.N)*float64(in.K) > 1e12 {
		n = 1 // the largest problems: one timed run screens
	}
	for _, c := range cands {
		run := func() error { return engine.Gemm(g, &c) }
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
		out = append(out, scored{c, Median(ts)})
	}
	return out, nil
}

// sweepAll sweeps every input with a progress line.
func sweepAll(b *Bench, s *Sweeper, inputs []Input, progress io.Writer) ([]Row, error) {
	rng := rand.New(rand.NewPCG(s.Seed, 3))
	var rows []Row
	for i, in := range inputs {
		row, err := s.Sweep(b, in, rng)
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

func ceilDiv(a, b int) int { return (a + b - 1) / b }
