package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"

	"github.com/isaacgo/isaac/engine"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/shim/cuda"
)

// Sweeper finds, per input, the fastest of many legal configurations: the
// heuristic's plus up to Candidates drawn from the parameter space and kept
// when they suit the shape (no block tile far larger than the problem,
// grid splits only when K is deep enough). Candidates are screened with
// Screen repeats, the best few re-timed with the bench's full repeats.
type Sweeper struct {
	Candidates int
	Screen     int
	Finalists  int
	Seed       uint64
	ctx        cuda.Context
	pools      map[ptx.InputClass][]ptx.GemmConfig
}

// poolSize is how many random legal configurations are drawn per input
// class; every input of the class picks its candidates from the same pool,
// so each kernel is compiled once for the whole sweep.
const poolSize = 400

// fits reports whether a configuration suits an m×n×k problem.
func fits(c ptx.GemmConfig, m, n, k int) bool {
	ceil2 := func(x int) int {
		p := 1
		for p < x {
			p *= 2
		}
		return p
	}
	if c.ML > 2*ceil2(m) && c.ML > 16 || c.NL > 2*ceil2(n) && c.NL > 16 {
		return false
	}
	return c.KG == 1 || k/c.KG >= 2*c.U
}

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
	space := ptx.SpaceFor(in)
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

// candidates are the heuristic's configuration and up to Candidates from
// the class's pool that suit the shape.
func (s *Sweeper) candidates(in ptx.InputClass, lim ptx.DeviceLimits, m, n, k int, rng *rand.Rand) []ptx.GemmConfig {
	out := []ptx.GemmConfig{ptx.DefaultConfig(in, m, n, k, lim)}
	for _, c := range s.pool(in, lim, rng) {
		if len(out) > s.Candidates {
			break
		}
		if c != out[0] && fits(c, m, n, k) {
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
	cands := s.compileAll(g, s.candidates(cls, lim, in.M, in.N, in.K, rng))
	if len(cands) == 0 {
		return Row{}, fmt.Errorf("no candidate configuration loads")
	}
	type scored struct {
		cfg ptx.GemmConfig
		us  float64
	}
	var screened []scored
	for _, c := range cands {
		c := c
		run := func() error { return engine.Gemm(g, &c) }
		if err := run(); err != nil {
			continue
		}
		screen := s.Screen
		if 2*float64(in.M)*float64(in.N)*float64(in.K) > 1e12 {
			screen = 1 // the largest problems: one timed run screens
		}
		var ts []float64
		for r := 0; r < screen; r++ {
			us, err := b.time(run)
			if err != nil {
				return Row{}, err
			}
			ts = append(ts, us)
		}
		screened = append(screened, scored{c, Median(ts)})
	}
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
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
