package engine

import (
	"os"
	"testing"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/internal/cuda"
)

// TestKernelCached: a kernel counts as quick to load (the default policy
// serves its first call instead of compiling in the background) only when
// the disk cache holds every module it needs, the GEMM kernel's and its
// reduction kernel's; a kernel loaded in the context counts whatever the
// disk holds.
func TestKernelCached(t *testing.T) {
	dir := t.TempDir()
	prev := cacheDir
	cacheDir = func() string { return dir }
	defer func() { cacheDir = prev }()

	info := &deviceInfo{limits: ptx.H100()}
	in := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 1, AlignB: 1, AlignC: 1}
	cfg := diskCacheConfig // a GEMM kernel and its reduction kernel
	const ctx = 0xC0FFEE
	if kernelCached(ctx, cfg, in, info) {
		t.Fatal("cached before anything was written")
	}
	k, err := ptx.GenerateGemm(cfg, in, info.limits.Arch())
	if err != nil || k.Reduce == nil {
		t.Fatalf("generate: %v (reduction kernel %v)", err, k != nil && k.Reduce != nil)
	}
	driver, _ := cuda.DriverVersion()
	main, reduce := imagePath(k.PTX, "sm_90", driver), imagePath(k.Reduce.PTX, "sm_90", driver)
	writeImage(main, []byte("image"))
	if kernelCached(ctx, cfg, in, info) {
		t.Error("cached without the reduction kernel's image")
	}
	writeImage(reduce, []byte("image"))
	if !kernelCached(ctx, cfg, in, info) {
		t.Error("not cached with both images on disk")
	}
	os.Remove(main)
	if kernelCached(ctx, cfg, in, info) {
		t.Error("cached without the GEMM kernel's image")
	}
	lk := &loadedKernel{}
	lk.loaded.Store(true)
	kernels.Store(kernelKey{ctx, ptx.KernelName(cfg, in)}, lk)
	defer kernels.Delete(kernelKey{ctx, ptx.KernelName(cfg, in)})
	if !kernelCached(ctx, cfg, in, info) {
		t.Error("a kernel loaded in the context is not quick to load")
	}
	if kernelCached(ctx+1, cfg, in, info) {
		t.Error("a kernel loaded in another context counts in this one")
	}
}
