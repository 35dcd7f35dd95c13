package kernels

import (
	"os"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
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

// TestGeneratedKernelCached: the window and direct convolution kernels
// count as quick to load as GEMM kernels do: once the disk cache holds
// their image (a later process's first call then loads them in line), or
// once they are loaded in the context; a configuration that cannot be made
// answers at once.
func TestGeneratedKernelCached(t *testing.T) {
	rt := New(t.TempDir())
	dev := &Device{Limits: ptx.H100()}
	half := request.ConvTypes[2]
	window := request.ConvShape{Type: half, N: 2, C: 3, H: 20, W: 64, K: 8, R: 5, S: 4, G: 1, P: 16, Q: 61,
		StrH: 1, StrW: 1, DilH: 1, DilW: 1, XStrides: [4]int{3 * 20 * 64, 20 * 64, 64, 1}, YStrides: [4]int{8 * 16 * 61, 16 * 61, 61, 1}}
	depthwise := request.ConvShape{Type: half, N: 2, C: 32, H: 14, W: 14, K: 32, R: 3, S: 3, G: 32, P: 14, Q: 14,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1,
		XStrides: [4]int{32 * 196, 196, 14, 1}, YStrides: [4]int{32 * 196, 196, 14, 1}}
	wt := Target{Ctx: 0xC0FFEE, Dev: dev, Class: ptx.InputClass{AlignA: 8, AlignB: 4}}
	gt := Target{Ctx: 0xC0FFEE, Dev: dev, Class: ptx.InputClass{AlignA: space.GroupedAlign(1<<20, 1<<21, depthwise)}}
	wcfg, gcfg := space.WindowDefault(window), space.GroupedDefault(depthwise, gt.Class.AlignA)
	wcls := windowClass(wt, window)
	gcls := space.GroupedClass(depthwise, gt.Class.AlignA)
	for _, c := range []struct {
		name   string
		loaded func() bool
		gen    func() (*ptx.Kernel, error)
		spec   any
	}{
		{"window", func() bool { return rt.WindowLoaded(wt, window, wcfg) }, windowGen(wt, wcls, wcfg), windowSpec{wcls, wcfg}},
		{"direct", func() bool { return rt.GroupedLoaded(gt, depthwise, gcfg) }, groupedGen(gt, gcls, gcfg), groupedSpec{gcls, gcfg}},
	} {
		if c.loaded() {
			t.Fatalf("%s: quick before anything was written", c.name)
		}
		k, err := c.gen()
		if err != nil {
			t.Fatalf("%s: generate: %v", c.name, err)
		}
		driver, _ := cuda.DriverVersion()
		path := rt.imagePath(k.PTX, "sm_90", driver)
		writeImage(path, []byte("image"))
		if !c.loaded() {
			t.Errorf("%s: not quick with its image on disk", c.name)
		}
		os.Remove(path)
		if c.loaded() {
			t.Errorf("%s: quick after its image was removed", c.name)
		}
		lk := &Kernel{}
		lk.loaded.Store(true)
		rt.specs.Store(specKey{wt.Ctx, c.spec}, lk)
		if !c.loaded() {
			t.Errorf("%s: a kernel loaded in the context is not quick to load", c.name)
		}
	}
	big := wcfg
	big.KB = dev.Limits.MaxSharedPerBlockOptin>>10 + 1
	if !rt.WindowLoaded(wt, window, big) {
		t.Error("a window configuration beyond the device's shared memory is not answered at once")
	}
}
