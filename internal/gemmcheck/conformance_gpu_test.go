package gemmcheck_test

import (
	"fmt"
	"os"
	"runtime"
	"testing"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
)

// TestGPUConformance runs the conformance table (Table, sized by
// TableSizeFromEnv) through every implementation against one bound, each
// from 4 threads on 2 streams:
//
//   - kernels: ISAAC's kernels, each job with its configuration (drawn from
//     every kernel family the generator emits) or the heuristic's;
//   - serve: the server under ISAAC_POLICY=always, every call served with
//     the model's choice, none forwarded;
//   - cublas: the vendor (cublasGemmEx, a handle per thread);
//   - c-abi: libisaac.so's exported entry points, from a plain cuBLAS
//     client (abi_gpu_test.go).
//
// -test.run TestGPUConformance/kernels runs one of them.
func TestGPUConformance(t *testing.T) {
	ctx := gemmcheck.GPUContext(t)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	lim, err := inContext(ctx, rt.Limits)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := Table(TableSizeFromEnv(), lim)
	if err != nil {
		t.Fatal(err)
	}
	same := func(run DeviceGemm) func(int) (DeviceGemm, func(), error) {
		return func(int) (DeviceGemm, func(), error) { return run, nil, nil }
	}
	t.Run("kernels", func(t *testing.T) {
		srv := serve.NewOn(rt, serve.Defaults()) // the heuristic as the server runs it, without ISAAC_CONFIG
		Conformance(t, OnDevice("kernels", ctx, 4, 2, same(func(g *request.Gemm, cfg *ptx.GemmConfig) error {
			if cfg == nil {
				c, err := srv.Heuristic(g)
				if err != nil {
					return err
				}
				cfg = &c
			}
			return rt.Gemm(g, *cfg)
		})), jobs)
	})
	t.Run("serve", func(t *testing.T) {
		o := serve.FromEnv()
		o.Policy = serve.Always
		srv := serve.NewOn(rt, o) // the device's model
		Conformance(t, OnDevice("serve", ctx, 4, 2, same(func(g *request.Gemm, _ *ptx.GemmConfig) error {
			if r, _ := srv.Serve(g); r != request.Served {
				return fmt.Errorf("forwarded (%v) under ISAAC_POLICY=always", r)
			}
			return nil
		})), jobs)
	})
	t.Run("cublas", func(t *testing.T) {
		Conformance(t, OnDevice("cublas", ctx, 4, 2, func(int) (DeviceGemm, func(), error) {
			h, err := cublas.New()
			if err != nil {
				return nil, nil, err
			}
			return func(g *request.Gemm, _ *ptx.GemmConfig) error { return h.Gemm(g) }, func() { h.Destroy() }, nil
		}), jobs)
	})
	t.Run("c-abi", func(t *testing.T) { conformanceABI(t, jobs) })
}

// InContext runs f on the calling goroutine's thread, locked, with ctx
// current.
func inContext[T any](ctx cuda.Context, f func() (T, error)) (T, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if err := ctx.SetCurrent(); err != nil {
		var zero T
		return zero, err
	}
	return f()
}
