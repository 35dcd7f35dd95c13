package predictor

import (
	"math"
	"sync"
	"sync/atomic"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
)

// Chooser picks kernel configurations for inputs with a configuration
// model and compares the predicted rate with a vendor model's, so that a
// call is served only where a win is predicted. It keeps the seed pools it
// draws, not its choices (the caller keeps those: serve's choice store);
// it is safe for concurrent use.
type Chooser struct {
	Config *Model           // predicts ln TFLOP/s of (input, configuration)
	Vendor *Model           // predicts ln TFLOP/s of the vendor on an input (nil: never serve)
	Dev    ptx.DeviceLimits // the device the model is for
	TopK   int              // configurations kept per input, best first
	Margin float64          // serve when exp(ours − vendor) ≥ Margin
	Check  float64          // serve under a measurement of the first calls when exp(ours − vendor) ≥ Check (Choice.Ratio): below Margin, since the measurement settles what the models' errors leave open
	Pool   int              // legal configurations drawn per input class (the search's seeds)
	Screen int              // per batch of the search, configurations the ensemble scores, kept by its first member's prediction (0: all)
	pools  seedPools
}

// seedPools are a chooser's seed pools per input class, each drawn once;
// pools of different classes are drawn concurrently.
type seedPools struct {
	m sync.Map // ptx.InputClass → *seedPool
}

// seedPool is one class's pool: drawn (or set) once.
type seedPool struct {
	once sync.Once
	done atomic.Bool
	cfgs []ptx.GemmConfig
}

func (p *seedPools) entry(cls ptx.InputClass) *seedPool {
	v, _ := p.m.LoadOrStore(cls, &seedPool{})
	return v.(*seedPool)
}

// get is the class's pool, drawn (n configurations) on first use.
func (p *seedPools) get(cls ptx.InputClass, dev ptx.DeviceLimits, n int) []ptx.GemmConfig {
	e := p.entry(cls)
	e.once.Do(func() { e.cfgs = space.SeedPool(cls, dev, n); e.done.Store(true) })
	return e.cfgs
}

func (p *seedPools) has(cls ptx.InputClass) bool {
	v, ok := p.m.Load(cls)
	return ok && v.(*seedPool).done.Load()
}

// set makes pool the class's pool unless one is drawn or set already.
func (p *seedPools) set(cls ptx.InputClass, pool []ptx.GemmConfig) {
	e := p.entry(cls)
	e.once.Do(func() { e.cfgs = pool; e.done.Store(true) })
}

// ChooseBatch is Choose for a strided batch of batch matrices of input in,
// of a batched class (ptx's batch rules keep the search to configurations
// the batch's kernels take): the model scores each configuration on the
// batch as on one matrix batch times as wide (batchSearch), the vendor
// model likewise; tiles are kept within one matrix (space.WithinMatrix).
func (c *Chooser) ChooseBatch(in Input, batch int, cls ptx.InputClass) *Choice {
	ranked := c.Config.search(batchSearch(in, batch, c.Config.ConfigLayout()), cls, c.Dev, c.seeds(in, cls), 3, 8, c.Screen)
	// A batch has the parallelism a wide tile would buy one matrix: no
	// tile larger than its matrix (Suits allows twice that).
	kept := ranked[:0:0]
	for _, r := range ranked {
		if space.WithinMatrix(r.Config, in.M, in.N) {
			kept = append(kept, r)
		}
	}
	if len(kept) > 0 {
		ranked = kept
	}
	folded := in
	folded.N = in.N * max(batch, 1)
	return c.choice(ranked, folded)
}

// choice is the Choice of a search's ranking for an input (the vendor
// model's prediction of in).
func (c *Chooser) choice(ranked []Ranked, in Input) *Choice {
	ch := &Choice{VendorTFLOPs: math.NaN()}
	ch.Top = ranked[:min(max(c.TopK, 1), len(ranked))]
	if len(ch.Top) > 0 {
		ch.OursTFLOPs = math.Exp(ch.Top[0].Score)
		if c.Vendor != nil {
			v := c.Vendor.InputScore(in)
			ch.VendorTFLOPs = math.Exp(v)
			ch.Serve = ch.Top[0].Score-v >= math.Log(max(c.Margin, 1e-9))
		}
	}
	return ch
}

// Choice is the chooser's answer for one input.
type Choice struct {
	Top          []Ranked // best-predicted configurations, best first (at most TopK)
	OursTFLOPs   float64  // predicted rate of Top[0]
	VendorTFLOPs float64  // predicted rate of the vendor (NaN without a vendor model)
	Serve        bool     // a predicted win by the margin
}

// Ratio is the predicted speed-up of the best configuration over the
// vendor (NaN without a vendor model).
func (c *Choice) Ratio() float64 { return c.OursTFLOPs / c.VendorTFLOPs }

// SeedPool is the class's seed configurations (drawing them on first use):
// Pool legal configurations drawn uniformly with generators seeded by the
// class, so that every process searches from the same seeds.
func (c *Chooser) SeedPool(cls ptx.InputClass) []ptx.GemmConfig { return c.pool(cls) }

// Limits are the limits of the device the chooser's model is for.
func (c *Chooser) Limits() ptx.DeviceLimits { return c.Dev }

// HasSeedPool reports whether the class's seed pool is drawn or installed
// already, so that choosing for an input of the class costs only the search.
func (c *Chooser) HasSeedPool(cls ptx.InputClass) bool { return c.pools.has(cls) }

// SetSeedPool installs a class's seed pool that an earlier process drew
// (SeedPool's result, kept by the caller): drawing it again costs the first
// input of the class a few milliseconds. It does nothing when the class
// already has one.
func (c *Chooser) SetSeedPool(cls ptx.InputClass, p []ptx.GemmConfig) { c.pools.set(cls, p) }

func (c *Chooser) pool(cls ptx.InputClass) []ptx.GemmConfig { return c.pools.get(cls, c.Dev, c.Pool) }

// Choose ranks configurations for an input of a class: the
// class's seed pool and the heuristic's candidates that suit the input,
// then a model-guided neighbourhood search (Search). (Seeding it with the
// sweep's grids, space.Grid, was measured and not kept: see
// results/h100/model/README.md.)
func (c *Chooser) Choose(in Input, cls ptx.InputClass) *Choice {
	return c.choice(c.Config.SearchScreened(in, cls, c.Dev, c.seeds(in, cls), 3, 8, c.Screen), in)
}

// seeds are a search's seeds for an input of class cls: the class's seed
// pool and the heuristic's candidates, those that suit the input.
func (c *Chooser) seeds(in Input, cls ptx.InputClass) []ptx.GemmConfig {
	return append(space.Suited(c.pool(cls), in.M, in.N, in.K),
		space.Suited(space.HeuristicCandidates(cls, in.M, in.N, in.K, c.Dev), in.M, in.N, in.K)...)
}
