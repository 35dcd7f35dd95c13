package kernels

import (
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// TestGPUConformance runs the conformance table (gemmcheck.Table) through
// ISAAC's kernels from 4 threads on 2 streams: each job with its
// configuration, drawn from every kernel family the generator emits, or
// the heuristic's where it has none.
func TestGPUConformance(t *testing.T) {
	ctx := gpuContext(t)
	lim, err := gemmcheck.InContext(ctx, testRT.Limits)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := gemmcheck.Table(gemmcheck.TableSizeFromEnv(), lim)
	if err != nil {
		t.Fatal(err)
	}
	run := func(g *request.Gemm, cfg *ptx.GemmConfig) error {
		if cfg == nil {
			return heuristicGemm(g)
		}
		return testRT.Gemm(g, *cfg)
	}
	gemmcheck.Conformance(t, gemmcheck.OnDevice("kernels", ctx, 4, 2,
		func(int) (gemmcheck.DeviceGemm, func(), error) { return run, nil, nil }), jobs)
}
