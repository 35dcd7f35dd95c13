package predictor

import (
	"sort"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
)

// Ranked is a configuration and its predicted ln TFLOP/s.
type Ranked struct {
	Config ptx.GemmConfig
	Score  float64
}

// Search ranks configurations for one input: it scores the seeds (legal
// configurations: a random sample, the heuristic's candidates) in one batch,
// then for up to rounds rounds scores every legal neighbour (one parameter
// one step away, space.Neighbors) of the beam best-predicted configurations
// that suits the input, and stops when a round finds nothing predicted
// better; a configuration of a math the model has no feature for
// (ConfigLayout.KnowsMath) is never scored. A model whose schema tells staged and
// pipelined twins apart (ConfigLayout.Staging) also scores the twins
// the server runs (space.ServedTwins) of each round's beam and of the final beam, and a twin's
// neighbours are its own twin's. It returns every configuration it scored,
// best first.
func (m *Model) Search(in Input, cls ptx.InputClass, dev ptx.DeviceLimits, seeds []ptx.GemmConfig, rounds, beam int) []Ranked {
	return m.SearchScreened(in, cls, dev, seeds, rounds, beam, 0)
}

// SearchScreened is Search where every batch of more than screen new
// configurations (seeds, each round's neighbours) is first screened by the
// ensemble's first member (Model.Screen) and only screen of them are scored
// by the whole ensemble (screen 0: no screening). It is the run-time
// search: about five times less arithmetic for a five-member ensemble.
func (m *Model) SearchScreened(in Input, cls ptx.InputClass, dev ptx.DeviceLimits, seeds []ptx.GemmConfig, rounds, beam, screen int) []Ranked {
	return m.search(gemmSearch(in, m.ConfigLayout()), cls, dev, seeds, rounds, beam, screen)
}

// searchInput is what the search needs of one input: the feature rows of
// configurations on it (width features each), which configurations the
// model describes, whether it scores their twins, and the GEMM dimensions
// a configuration must suit (space.Suits).
type searchInput struct {
	rows      func([]ptx.GemmConfig) []float64
	width     int
	describes func(ptx.GemmConfig) bool
	twins     bool
	m, n, k   int
}

// gemmSearch is a GEMM input's, for a configuration model of layout l.
func gemmSearch(in Input, l *ConfigLayout) searchInput {
	return searchInput{rows: func(c []ptx.GemmConfig) []float64 { return l.Rows(in, c) }, width: l.Width,
		describes: l.Describes, twins: l.Staging, m: in.M, n: in.N, k: in.K}
}

// batchSearch is a batch of b matrices of input in, for the configuration
// model of layout l, which was measured on single matrices: a configuration
// is scored on the batch as on one matrix b times as wide (in.N·b columns:
// as many block tiles, each with the same work), and must suit one matrix
// (space.Suits on in's own extents, which the folded input would widen).
// Its twins are not scored: a batch's staging follows its own rule
// (space.BatchStaged), measured on batches, which the model was not.
func batchSearch(in Input, b int, l *ConfigLayout) searchInput {
	folded := in
	folded.N = in.N * max(b, 1)
	s := gemmSearch(folded, l)
	s.m, s.n, s.k = in.M, in.N, in.K
	s.twins = false
	return s
}

// search is SearchScreened for any family's input.
func (m *Model) search(in searchInput, cls ptx.InputClass, dev ptx.DeviceLimits, seeds []ptx.GemmConfig, rounds, beam, screen int) []Ranked {
	seen := make(map[ptx.GemmConfig]bool, len(seeds))
	var all []Ranked
	score := func(cfgs []ptx.GemmConfig) {
		fresh := make([]ptx.GemmConfig, 0, len(cfgs))
		for _, c := range cfgs {
			if !seen[c] && in.describes(c) {
				seen[c] = true
				fresh = append(fresh, c)
			}
		}
		if len(fresh) == 0 {
			return
		}
		x := in.rows(fresh)
		if screen > 0 && screen < len(fresh) && len(m.Nets) > 1 {
			fresh, x = m.screenRows(fresh, x, in.width, screen)
		}
		for i, s := range m.Nets.Score(x, len(fresh)) {
			all = append(all, Ranked{fresh[i], s})
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	}
	score(seeds)
	full, wsp := space.For(cls), space.ForWarpgroup(cls)
	suited := func(c ptx.GemmConfig) bool { return !seen[c] && space.Suits(c, in.m, in.n, in.k) }
	// twins are the unscored twins of the beam (Twins checks legality).
	twins := func() []ptx.GemmConfig {
		var out []ptx.GemmConfig
		if !in.twins {
			return nil
		}
		for _, top := range all[:min(beam, len(all))] {
			for _, c := range space.ServedTwins(top.Config, cls, dev) {
				if suited(c) {
					out = append(out, c)
				}
			}
		}
		return out
	}
	for r := 0; r < rounds && len(all) > 0; r++ {
		best := all[0].Score
		next := twins()
		for _, top := range all[:min(beam, len(all))] {
			sp := full
			if top.Config.Math.IsWGMMA() {
				sp = wsp // a wgmma configuration moves in its own space
			}
			for _, c := range space.Neighbors(top.Config, sp) {
				if suited(c) && ptx.Legal(c, cls, dev) == nil {
					next = append(next, c)
				}
			}
		}
		if len(next) == 0 {
			break
		}
		score(next)
		if all[0].Score <= best {
			break
		}
	}
	if t := twins(); len(t) > 0 {
		score(t)
	}
	return all
}
