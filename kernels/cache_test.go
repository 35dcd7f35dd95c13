package kernels

import (
	"os"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
)

// TestKernelCached: a kernel counts as quick to load (the default policy
// serves its first call instead of compiling in the background) only when
// the disk cache holds every module it needs, the GEMM kernel's and its
// reduction kernel's; a kernel loaded in the context counts whatever the
// disk holds.
func TestKernelCached(t *testing.T) {
	rt := New(t.TempDir())
	dev := &Device{Limits: ptx.H100()}
	in := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 1, AlignB: 1, AlignC: 1}
	cfg := diskCacheConfig // a GEMM kernel and its reduction kernel
	tg := Target{Ctx: 0xC0FFEE, Dev: dev, Class: in}
	if rt.Loaded(tg, cfg) {
		t.Fatal("cached before anything was written")
	}
	k, err := ptx.GenerateGemm(cfg, in, dev.Limits.Arch())
	if err != nil || k.Reduce == nil {
		t.Fatalf("generate: %v (reduction kernel %v)", err, k != nil && k.Reduce != nil)
	}
	driver, _ := cuda.DriverVersion()
	main, reduce := rt.imagePath(k.PTX, "sm_90", driver), rt.imagePath(k.Reduce.PTX, "sm_90", driver)
	writeImage(main, []byte("image"))
	if rt.Loaded(tg, cfg) {
		t.Error("cached without the reduction kernel's image")
	}
	writeImage(reduce, []byte("image"))
	if !rt.Loaded(tg, cfg) {
		t.Error("not cached with both images on disk")
	}
	os.Remove(main)
	if rt.Loaded(tg, cfg) {
		t.Error("cached without the GEMM kernel's image")
	}
	lk := &Kernel{}
	lk.loaded.Store(true)
	rt.kernels.Store(kernelKey{tg.Ctx, ptx.KernelName(cfg, in)}, lk)
	if !rt.Loaded(tg, cfg) {
		t.Error("a kernel loaded in the context is not quick to load")
	}
	if other := (Target{Ctx: tg.Ctx + 1, Dev: dev, Class: in}); rt.Loaded(other, cfg) {
		t.Error("a kernel loaded in another context counts in this one")
	}
}
