package predictor

import (
	"hash/fnv"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/isaacgo/isaac/ptx"
)

// Chooser picks kernel configurations for inputs with a configuration
// model and compares the predicted rate with a vendor model's, so that a
// call is served only where a win is predicted. Choices are cached per
// input; it is safe for concurrent use.
type Chooser struct {
	Config *Model           // predicts ln TFLOP/s of (input, configuration)
	Vendor *Model           // predicts ln TFLOP/s of the vendor on an input (nil: never serve)
	Dev    ptx.DeviceLimits // the device the model is for
	TopK   int              // configurations kept per input, best first
	Margin float64          // serve when exp(ours − vendor) ≥ Margin
	Pool   int              // legal configurations drawn per input class (the search's seeds)
	Screen int              // per batch of the search, configurations the ensemble scores, kept by its first member's prediction (0: all)
	pools  sync.Map         // ptx.InputClass → []ptx.GemmConfig
	cache  sync.Map         // choiceKey → *Choice
	mu     sync.Mutex       // serializes pool construction per chooser
}

// Choice is the chooser's answer for one input.
type Choice struct {
	Top          []Ranked // best-predicted configurations, best first (at most TopK)
	OursTFLOPs   float64  // predicted rate of Top[0]
	VendorTFLOPs float64  // predicted rate of the vendor (NaN without a vendor model)
	Serve        bool     // a predicted win by the margin
}

type choiceKey struct {
	in  Input
	cls ptx.InputClass
}

// SeedPool is the class's seed configurations (drawing them on first use):
// Pool legal configurations drawn uniformly with generators seeded by the
// class, so that every process searches from the same seeds.
func (c *Chooser) SeedPool(cls ptx.InputClass) []ptx.GemmConfig { return c.pool(cls) }

// HasSeedPool reports whether the class's seed pool is drawn or installed
// already, so that choosing for an input of the class costs only the search.
func (c *Chooser) HasSeedPool(cls ptx.InputClass) bool {
	_, ok := c.pools.Load(cls)
	return ok
}

// SetSeedPool installs a class's seed pool that an earlier process drew
// (SeedPool's result, kept by the caller): drawing it again costs the first
// input of the class a few milliseconds. It does nothing when the class
// already has one.
func (c *Chooser) SetSeedPool(cls ptx.InputClass, p []ptx.GemmConfig) {
	c.pools.LoadOrStore(cls, p)
}

func (c *Chooser) pool(cls ptx.InputClass) []ptx.GemmConfig {
	if p, ok := c.pools.Load(cls); ok {
		return p.([]ptx.GemmConfig)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p, ok := c.pools.Load(cls); ok {
		return p.([]ptx.GemmConfig)
	}
	h := fnv.New64a()
	h.Write([]byte(cls.String()))
	p := drawLegal(ptx.SpaceFor(cls), cls, c.Dev, c.Pool, h.Sum64(), poolStream)
	if wsp := ptx.WarpgroupSpace(cls); len(wsp.Math) > 0 && c.Dev.SMMajor == 9 && c.Dev.SMMinor == 0 {
		// wgmma kernels (sm_90a) where the class allows them: a quarter
		// more seeds from their own space, with their own generators.
		p = append(p, drawLegal(wsp, cls, c.Dev, c.Pool/4, h.Sum64(), warpgroupPoolStream)...)
	}
	c.pools.Store(cls, p)
	return p
}

// The seed pool's generator streams (seeded by the class's hash).
const (
	poolStream          = 0x15AAC
	warpgroupPoolStream = 0x15AAD
)

// drawBatch is how many configurations one generator of drawLegal draws.
const drawBatch = 512

// batchRNG is the generator of drawLegal's k-th batch: batches are
// independent, so that processors draw them at once and the pool is the
// same whatever their number.
func batchRNG(seed, stream uint64, k int) *rand.Rand {
	return rand.New(rand.NewPCG(seed+uint64(k)*0x9E3779B97F4A7C15, stream))
}

// drawLegal draws n distinct legal configurations of a space (at most 100·n
// draws), in batches of drawBatch, batch k from batchRNG(seed, stream, k).
// Every processor draws and checks one batch at a time (drawing costs
// about a third of the time, checking legality the rest); candidates are
// taken in batch and draw order, so the result is the one a serial loop
// over the batches would build.
func drawLegal(space ptx.Space, cls ptx.InputClass, dev ptx.DeviceLimits, n int, seed, stream uint64) []ptx.GemmConfig {
	type drawn struct {
		cand  [drawBatch]ptx.GemmConfig
		legal [drawBatch]bool
	}
	workers := max(runtime.GOMAXPROCS(0), 1)
	bufs := make([]drawn, workers)
	seen := map[ptx.GemmConfig]bool{}
	var p []ptx.GemmConfig
	for k0, draws := 0, 0; len(p) < n && draws < 100*n; k0 += workers {
		var wg sync.WaitGroup
		for w := range bufs {
			wg.Add(1)
			go func(d *drawn, k int) {
				defer wg.Done()
				rng := batchRNG(seed, stream, k)
				for i := range d.cand {
					d.cand[i] = space.Random(rng)
					d.legal[i] = ptx.Legal(d.cand[i], cls, dev) == nil
				}
			}(&bufs[w], k0+w)
		}
		wg.Wait()
		for w := 0; w < workers && len(p) < n && draws < 100*n; w++ {
			d := &bufs[w]
			for i := 0; i < drawBatch && len(p) < n && draws < 100*n; i, draws = i+1, draws+1 {
				if d.legal[i] && !seen[d.cand[i]] {
					seen[d.cand[i]] = true
					p = append(p, d.cand[i])
				}
			}
		}
	}
	return p
}

// parallelRange runs f over [0, n) split into one contiguous range per
// processor.
func parallelRange(n int, f func(lo, hi int)) {
	workers := min(runtime.GOMAXPROCS(0), n)
	if workers <= 1 {
		f(0, n)
		return
	}
	var wg sync.WaitGroup
	per := (n + workers - 1) / workers
	for lo := 0; lo < n; lo += per {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			f(lo, hi)
		}(lo, min(n, lo+per))
	}
	wg.Wait()
}

// Choose ranks configurations for an input of a class (cached): the
// class's seed pool and the heuristic's candidates that suit the input,
// then a model-guided neighbourhood search (Search). (Seeding it with the
// sweep's grids, ptx.Grid, was measured and not kept: see
// bench_compare/results/h100/model/README.md.)
func (c *Chooser) Choose(in Input, cls ptx.InputClass) *Choice {
	key := choiceKey{in, cls}
	if v, ok := c.cache.Load(key); ok {
		return v.(*Choice)
	}
	var seeds []ptx.GemmConfig
	for _, cfg := range c.pool(cls) {
		if ptx.Suits(cfg, in.M, in.N, in.K) {
			seeds = append(seeds, cfg)
		}
	}
	for _, cfg := range ptx.HeuristicCandidates(cls, in.M, in.N, in.K, c.Dev) {
		if ptx.Suits(cfg, in.M, in.N, in.K) {
			seeds = append(seeds, cfg)
		}
	}
	ch := &Choice{VendorTFLOPs: math.NaN()}
	ranked := c.Config.SearchScreened(in, cls, c.Dev, seeds, 3, 8, c.Screen)
	ch.Top = ranked[:min(max(c.TopK, 1), len(ranked))]
	if len(ch.Top) > 0 {
		ch.OursTFLOPs = math.Exp(ch.Top[0].Score)
		if c.Vendor != nil {
			v := c.Vendor.InputScore(in)
			ch.VendorTFLOPs = math.Exp(v)
			ch.Serve = ch.Top[0].Score-v >= math.Log(max(c.Margin, 1e-9))
		}
	}
	v, _ := c.cache.LoadOrStore(key, ch)
	return v.(*Choice)
}
