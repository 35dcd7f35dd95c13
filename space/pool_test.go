package space

import (
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// SeedPool, drawn in parallel, is the pool of the serial loops over the
// batches' generators: the class's first Pool distinct legal draws, then
// (wgmma classes) the first Pool/4 of the warpgroup space, whatever the
// number of processors.
func TestPoolMatchesSerial(t *testing.T) {
	for _, cls := range []ptx.InputClass{
		{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8},
		{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.T, TransB: ptx.N, AlignA: 1, AlignB: 2, AlignC: 1},
	} {
		h := fnv.New64a()
		h.Write([]byte(cls.String()))
		serial := func(sp Space, n int, stream uint64) []ptx.GemmConfig {
			var rng *rand.Rand
			seen := map[ptx.GemmConfig]bool{}
			var out []ptx.GemmConfig
			for draws := 0; len(out) < n && draws < 100*n; draws++ {
				if draws%drawBatch == 0 {
					rng = batchRNG(h.Sum64(), stream, draws/drawBatch)
				}
				cfg := sp.Random(rng)
				if !seen[cfg] && ptx.Legal(cfg, cls, ptx.H100()) == nil {
					seen[cfg] = true
					out = append(out, cfg)
				}
			}
			return out
		}
		want := serial(For(cls), 300, poolStream)
		if ws := ForWarpgroup(cls); len(ws.Math) > 0 {
			want = append(want, serial(ws, 75, warpgroupPoolStream)...)
		}
		for _, procs := range []int{1, 3, 16} {
			prev := runtime.GOMAXPROCS(procs)
			got := SeedPool(cls, ptx.H100(), 300)
			runtime.GOMAXPROCS(prev)
			if !slices.Equal(got, want) {
				t.Errorf("%s, %d processors: pool of %d differs from the serial loop's %d", cls, procs, len(got), len(want))
			}
		}
	}
}
