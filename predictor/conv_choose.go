package predictor

import (
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
)

// ConvRoute is one way the caller can run a convolution's implicit GEMM:
// a path (ConvPaths: on x as it lies, on NHWC copies) and the input class
// of its kernels there, with extra seeds for the search (the heuristic's
// configuration).
type ConvRoute struct {
	Path  string
	Class ptx.InputClass
	Seeds []ptx.GemmConfig
}

// ConvRanked is a path and configuration with its predicted ln TFLOP/s:
// an implicit GEMM's configuration, or for the direct path the direct
// kernel's.
type ConvRanked struct {
	Path   string
	Route  int // the index of the route (implicit GEMMs)
	Config ptx.GemmConfig
	Direct ptx.GroupedConfig
	Score  float64
}

// ConvChoice is the convolution chooser's answer for one input.
type ConvChoice struct {
	Top          []ConvRanked // best-predicted, best first (at most TopK, then each route's best where those leave it out)
	OursTFLOPs   float64      // predicted rate of Top[0]
	VendorTFLOPs float64      // predicted rate of cuDNN's fastest algorithm (NaN without its model)
	Serve        bool         // a predicted win by the margin
}

// ConvChooser is Chooser for convolutions: the convolution configuration
// model (ConvConfigSchema) ranks the paths and configurations that suit a
// convolution, cuDNN's model (ConvVendorSchema) predicts the vendor's
// rate. Its seed pools and search are Chooser's (a convolution's implicit
// GEMM has a GEMM input class); it is safe for concurrent use.
type ConvChooser struct {
	Config *Model           // predicts ln TFLOP/s of (convolution, path, configuration)
	Vendor *Model           // predicts ln TFLOP/s of cuDNN's fastest algorithm (nil: never serve)
	Dev    ptx.DeviceLimits // the device the models are for
	TopK   int              // configurations kept per input, best first
	Margin float64          // serve when exp(ours − vendor) ≥ Margin
	Pool   int              // legal configurations drawn per input class (the search's seeds)
	Screen int              // as Chooser.Screen
	pools  seedPools
}

// SeedPool, HasSeedPool and SetSeedPool are Chooser's, for the implicit
// GEMMs' input classes.
func (c *ConvChooser) SeedPool(cls ptx.InputClass) []ptx.GemmConfig {
	return c.pools.get(cls, c.Dev, c.Pool)
}
func (c *ConvChooser) HasSeedPool(cls ptx.InputClass) bool                { return c.pools.has(cls) }
func (c *ConvChooser) SetSeedPool(cls ptx.InputClass, p []ptx.GemmConfig) { c.pools.set(cls, p) }

// Limits are the limits of the device the chooser's models are for.
func (c *ConvChooser) Limits() ptx.DeviceLimits { return c.Dev }

// convSearch is a convolution input's search input on one route.
func convSearch(in ConvInput) searchInput {
	m, n, k := in.GemmDims()
	return searchInput{
		rows: func(cfgs []ptx.GemmConfig) []float64 {
			x := make([]float64, len(cfgs)*ConvConfigFeatures)
			for i, c := range cfgs {
				PutConvConfig(x[i*ConvConfigFeatures:(i+1)*ConvConfigFeatures], in, c)
			}
			return x
		},
		width: ConvConfigFeatures, describes: convModelled, m: m, n: n, k: k,
	}
}

// convModelled reports whether the model was trained on configurations
// like c: one the schema describes, without the copy engine's staging or
// a persistent grid (the sampler draws neither; the caller stages the
// choice as the heuristic would, space.ConvStaged).
func convModelled(c ptx.GemmConfig) bool { return ConvDescribes(c) && c.TMA == 0 && c.PS == 0 }

// Choose ranks the configurations of every route for an ungrouped
// convolution (in's Path and alignments are set per route): each route's
// seed pool and extra seeds that suit its implicit GEMM, searched (as
// Chooser.Choose), then all routes' together, best first. The routes are
// searched concurrently (a class's first convolution also draws their
// pools), and ranked as searched one after the other.
func (c *ConvChooser) Choose(in ConvInput, routes []ConvRoute) *ConvChoice {
	ranked := make([][]ConvRanked, len(routes))
	var wg sync.WaitGroup
	for i, r := range routes {
		wg.Go(func() { ranked[i] = c.chooseRoute(in, i, r) })
	}
	wg.Wait()
	var all []ConvRanked
	for _, r := range ranked {
		all = append(all, r...)
	}
	return c.finish(in, all)
}

// chooseRoute is Choose's search of route r, the i-th.
func (c *ConvChooser) chooseRoute(in ConvInput, i int, r ConvRoute) []ConvRanked {
	rin := in
	rin.Path, rin.AlignA, rin.AlignB = r.Path, r.Class.AlignA, r.Class.AlignB
	m, n, k := rin.GemmDims()
	seeds := space.Suited(c.SeedPool(r.Class), m, n, k)
	for _, s := range r.Seeds {
		s.TMA, s.PS = 0, 0 // scored as its cp.async twin, staged again by the caller
		if space.Suits(s, m, n, k) && ptx.Legal(s, r.Class, c.Dev) == nil {
			seeds = append(seeds, s)
		}
	}
	var out []ConvRanked
	for _, rk := range c.Config.search(convSearch(rin), r.Class, c.Dev, seeds, 3, 8, c.Screen) {
		out = append(out, ConvRanked{Path: r.Path, Route: i, Config: rk.Config, Score: rk.Score})
	}
	return out
}

// ChooseDirect ranks the direct kernel's configurations (every one the
// caller lists: they are few) for a grouped convolution whose x and y are
// aligned to align elements (space.GroupedAlign: the direct path's
// alignment feature, as the sampler records it).
func (c *ConvChooser) ChooseDirect(in ConvInput, align int, cfgs []ptx.GroupedConfig) *ConvChoice {
	in.Path, in.AlignA, in.AlignB = ConvPaths[2], align, 0
	x := make([]float64, len(cfgs)*ConvConfigFeatures)
	for i, g := range cfgs {
		PutConvDirect(x[i*ConvConfigFeatures:(i+1)*ConvConfigFeatures], in, g)
	}
	var all []ConvRanked
	if len(cfgs) > 0 {
		for i, s := range c.Config.Nets.Score(x, len(cfgs)) {
			all = append(all, ConvRanked{Path: in.Path, Direct: cfgs[i], Score: s})
		}
	}
	return c.finish(in, all)
}

// finish sorts the ranked configurations, keeps the best TopK and compares
// the best with cuDNN's predicted rate.
func (c *ConvChooser) finish(in ConvInput, all []ConvRanked) *ConvChoice {
	sort.SliceStable(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	ch := &ConvChoice{VendorTFLOPs: math.NaN()}
	k := min(max(c.TopK, 1), len(all))
	ch.Top = slices.Clone(all[:k])
	routes := map[int]bool{}
	for _, r := range ch.Top {
		routes[r.Route] = true
	}
	for _, r := range all[k:] { // each route's best, where the best TopK leave it out
		if !routes[r.Route] {
			routes[r.Route] = true
			ch.Top = append(ch.Top, r)
		}
	}
	if len(ch.Top) == 0 {
		return ch
	}
	ch.OursTFLOPs = math.Exp(ch.Top[0].Score)
	if c.Vendor != nil {
		v := c.Vendor.ConvVendorScore(in)
		ch.VendorTFLOPs = math.Exp(v)
		ch.Serve = ch.Top[0].Score-v >= math.Log(max(c.Margin, 1e-9))
	}
	return ch
}

// ConvVendorScore is cuDNN's model's prediction (ln TFLOP/s) for a
// convolution.
func (m *Model) ConvVendorScore(in ConvInput) float64 {
	x := make([]float64, ConvVendorFeatures)
	PutConvVendorInput(x, in)
	return m.Nets.Predict(x, 1)[0]
}

// ConvScores are the configuration model's predictions for configurations
// of one path on a convolution (in.Path and its alignments set).
func (m *Model) ConvScores(in ConvInput, cfgs []ptx.GemmConfig) []float64 {
	if len(cfgs) == 0 {
		return nil
	}
	return m.Nets.Score(convSearch(in).rows(cfgs), len(cfgs))
}
