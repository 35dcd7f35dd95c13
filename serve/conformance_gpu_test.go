package serve

import (
	"fmt"
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// TestGPUConformance runs the conformance table through the server under
// ISAAC_POLICY=always, from 4 threads on 2 streams: every call served with
// the model's choice (the jobs' configurations are not used), none
// forwarded.
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
	s := testServer(Always)
	run := func(g *request.Gemm, _ *ptx.GemmConfig) error {
		if r, _ := s.Serve(g); r != request.Served {
			return fmt.Errorf("forwarded (%v) under ISAAC_POLICY=always", r)
		}
		return nil
	}
	gemmcheck.Conformance(t, gemmcheck.OnDevice("serve", ctx, 4, 2,
		func(int) (gemmcheck.DeviceGemm, func(), error) { return run, nil, nil }), jobs)
}
