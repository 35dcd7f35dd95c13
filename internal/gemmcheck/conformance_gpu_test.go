package gemmcheck_test

import (
	"testing"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// TestGPUConformanceVendor runs the conformance table through cuBLAS
// (cublasGemmEx, one handle per thread, 4 threads on 2 streams): the
// vendor meets the bound that ISAAC's implementations are held to.
func TestGPUConformanceVendor(t *testing.T) {
	ctx := gemmcheck.GPUContext(t)
	lim, err := gemmcheck.InContext(ctx, kernels.New("").Limits)
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := gemmcheck.Table(gemmcheck.TableSizeFromEnv(), lim)
	if err != nil {
		t.Fatal(err)
	}
	gemmcheck.Conformance(t, gemmcheck.OnDevice("cublas", ctx, 4, 2, func(int) (gemmcheck.DeviceGemm, func(), error) {
		h, err := cublas.New()
		if err != nil {
			return nil, nil, err
		}
		return func(g *request.Gemm, _ *ptx.GemmConfig) error { return h.Gemm(g) }, func() { h.Destroy() }, nil
	}), jobs)
}
