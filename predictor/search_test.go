package predictor

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
)

// A model of schema v3 scores the staged twins of its search's final beam (space.ServedTwins, those legal that suit the input); a
// model of v2, which cannot tell them from their plain twins, scores none.
func TestSearchScoresTwins(t *testing.T) {
	cls := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	in := Input{Type: "gemmex_f16_f32", TransA: true, M: 3000, N: 2000, K: 1500, AlignA: 8, AlignB: 8, AlignC: 8}
	dev := ptx.H100()
	// wgmma seeds, whose beam has staged twins
	rng := rand.New(rand.NewPCG(1, 2))
	var seeds []ptx.GemmConfig
	for len(seeds) < 64 {
		if c, ok := space.ForWarpgroup(cls).RandomLegal(rng, cls, dev, 20000); ok && space.Suits(c, in.M, in.N, in.K) {
			seeds = append(seeds, c)
		}
	}
	const beam = 8
	for _, l := range []*ConfigLayout{ConfigV3, ConfigV2} {
		m := &Model{ModelHeader: ModelHeader{Name: "config", Schema: l.Schema}, Nets: Ensemble{randomMLP([]int{l.Width, 16, 8, 1}, 5)}}
		ranked := m.Search(in, cls, dev, seeds, 3, beam)
		scored := map[ptx.GemmConfig]bool{}
		twins := 0
		for _, r := range ranked {
			scored[r.Config] = true
			if r.Config.TMA != 0 || r.Config.PP != 0 {
				twins++
			}
		}
		if l == ConfigV2 {
			if twins > 0 {
				t.Errorf("v2: %d twins scored", twins)
			}
			continue
		}
		missed := 0
		for _, r := range ranked[:beam] {
			for _, tw := range space.ServedTwins(r.Config, cls, dev) {
				if space.Suits(tw, in.M, in.N, in.K) && !scored[tw] {
					missed++
				}
			}
		}
		if twins == 0 || missed > 0 {
			t.Errorf("v3: %d twins scored, %d of the final beam's not", twins, missed)
		}
	}
}
