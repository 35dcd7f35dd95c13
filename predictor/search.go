package predictor

import (
	"sort"

	"github.com/isaacgo/isaac/ptx"
)

// Ranked is a configuration and its predicted ln TFLOP/s.
type Ranked struct {
	Config ptx.GemmConfig
	Score  float64
}

// Search ranks configurations for one input: it scores the seeds (legal
// configurations: a random sample, the heuristic's candidates) in one batch,
// then for up to rounds rounds scores every legal neighbour (one parameter
// one step away, ptx.Neighbors) of the beam best-predicted configurations
// that suits the input, and stops when a round finds nothing predicted
// better. It returns every configuration it scored, best first.
func (m *Model) Search(in Input, cls ptx.InputClass, dev ptx.DeviceLimits, seeds []ptx.GemmConfig, rounds, beam int) []Ranked {
	seen := map[ptx.GemmConfig]bool{}
	var all []Ranked
	score := func(cfgs []ptx.GemmConfig) {
		var fresh []ptx.GemmConfig
		for _, c := range cfgs {
			if !seen[c] {
				seen[c] = true
				fresh = append(fresh, c)
			}
		}
		for i, s := range m.Scores(in, fresh) {
			all = append(all, Ranked{fresh[i], s})
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].Score > all[j].Score })
	}
	score(seeds)
	space := ptx.SpaceFor(cls)
	for r := 0; r < rounds && len(all) > 0; r++ {
		best := all[0].Score
		var next []ptx.GemmConfig
		for _, top := range all[:min(beam, len(all))] {
			for _, c := range ptx.Neighbors(top.Config, space) {
				if !seen[c] && ptx.Legal(c, cls, dev) == nil && ptx.Suits(c, in.M, in.N, in.K) {
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
	return all
}
