package serve

import (
	"math"
	"math/rand/v2"
	"sort"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/weights"
)

// BenchmarkFirstChoice is the latency a call on a new shape pays for the
// model's choice (CPU only: the shipped H100 weights, H100 limits): the
// Table 4 shapes and 40 random shapes per type, every type, through a fresh
// chooser, split into the first shape of its input class (which also draws
// the class's seed pool) and the class's later shapes. It reports the
// median, 90th percentile and maximum of each, in milliseconds.
func BenchmarkFirstChoice(b *testing.B) {
	w, err := weights.For("h100")
	if err != nil {
		b.Skip(err)
	}
	var inputs []*request.Gemm
	rng := rand.New(rand.NewPCG(7, 7))
	logU := func() int { return int(math.Exp2(rng.Float64() * 14)) }
	for _, ty := range gemmcheck.Types {
		for _, s := range suites.Table4() {
			ta, tb := s.Ops()
			c := gemmcheck.Case{Type: ty, TransA: ta, TransB: tb, M: s.M, N: s.N, K: s.K}
			inputs = append(inputs, c.RequestAt(0x100000, 0x200000, 0x300000, 0, 0))
		}
		for i := 0; i < 40; i++ {
			c := gemmcheck.Case{Type: ty, TransA: request.Op(rng.IntN(2)), TransB: request.Op(rng.IntN(2)), M: logU(), N: logU(), K: logU()}
			inputs = append(inputs, c.RequestAt(0x100000, 0x200000, 0x300000, 0, 0))
		}
	}
	for i := 0; i < b.N; i++ {
		ch, err := newChooser(w, ptx.H100())
		if err != nil {
			b.Fatal(err)
		}
		seen := map[ptx.InputClass]bool{}
		var first, later []float64
		for _, g := range inputs {
			cls, err := space.Class(g)
			if err != nil {
				b.Fatal(err)
			}
			in, ok := predictor.InputOf(g, cls)
			if !ok {
				b.Fatalf("no model input for %v", g)
			}
			t0 := time.Now()
			ch.Choose(in, cls)
			ms := float64(time.Since(t0).Microseconds()) / 1000
			if seen[cls] {
				later = append(later, ms)
			} else {
				seen[cls] = true
				first = append(first, ms)
			}
		}
		for _, d := range []struct {
			name string
			v    []float64
		}{{"first-of-class", first}, {"new-shape", later}} {
			sort.Float64s(d.v)
			b.ReportMetric(d.v[len(d.v)/2], "ms-p50-"+d.name)
			b.ReportMetric(d.v[len(d.v)*9/10], "ms-p90-"+d.name)
			b.ReportMetric(d.v[len(d.v)-1], "ms-max-"+d.name)
		}
		b.ReportMetric(float64(len(later)), "new-shapes")
	}
}
