package space

import (
	"hash/fnv"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/isaacgo/isaac/ptx"
)

// SeedPool is the seed configurations of the performance model's search for
// a class on a device: n legal configurations drawn uniformly from For(cls)
// and, where the device runs wgmma kernels (sm_90a) and the class allows
// them, n/4 more from ForWarpgroup(cls), with generators seeded by the
// class, so that every process searches from the same seeds.
func SeedPool(cls ptx.InputClass, dev ptx.DeviceLimits, n int) []ptx.GemmConfig {
	h := fnv.New64a()
	h.Write([]byte(cls.String()))
	p := drawLegal(For(cls), cls, dev, n, h.Sum64(), poolStream)
	if wsp := ForWarpgroup(cls); len(wsp.Math) > 0 && dev.SMMajor == 9 && dev.SMMinor == 0 {
		// wgmma kernels where the class allows them: a quarter more seeds
		// from their own space, with their own generators.
		p = append(p, drawLegal(wsp, cls, dev, n/4, h.Sum64(), warpgroupPoolStream)...)
	}
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
func drawLegal(sp Space, cls ptx.InputClass, dev ptx.DeviceLimits, n int, seed, stream uint64) []ptx.GemmConfig {
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
					d.cand[i] = sp.Random(rng)
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
