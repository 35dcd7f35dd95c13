package gemmcheck_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/serve"
)

// kernelFixture is what a test of ISAAC's kernels on random cases needs
// (TestGPUBatched, TestGPUEpilogue): the calling thread's context, a
// runtime and its device's limits, a stream, the server that gives the
// heuristic's configuration as it runs it, the fixed configurations the
// cases take in turn, and the number of cases.
type kernelFixture struct {
	ctx    cuda.Context
	rt     *kernels.Runtime
	lim    ptx.DeviceLimits
	stream cuda.Stream
	heur   *serve.Server
	cfgs   []ptx.GemmConfig
	n      int
}

// newKernelFixture makes the fixture on the calling thread (skipping t
// without a GPU): cases from the environment variable env, else n; the
// configurations parsed from cfgs.
func newKernelFixture(t *testing.T, env string, n int, cfgs []string) *kernelFixture {
	f := &kernelFixture{ctx: gemmcheck.GPUThread(t), n: n}
	f.rt = kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	var err error
	if f.lim, err = f.rt.Limits(); err != nil {
		t.Fatal(err)
	}
	if v, err := strconv.Atoi(os.Getenv(env)); err == nil {
		f.n = v
	}
	if f.stream, err = cuda.NewStream(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.stream.Destroy() })
	f.heur = serve.NewOn(f.rt, serve.Defaults())
	for _, s := range cfgs {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		f.cfgs = append(f.cfgs, c)
	}
	return f
}

// configFor is case i's fixed configuration: the first legal for its class
// from the i-th on (false: none).
func (f *kernelFixture) configFor(i int, cls ptx.InputClass) (ptx.GemmConfig, bool) {
	for j := range f.cfgs {
		if cfg := f.cfgs[(i+j)%len(f.cfgs)]; ptx.Legal(cfg, cls, f.lim) == nil {
			return cfg, true
		}
	}
	return ptx.GemmConfig{}, false
}
