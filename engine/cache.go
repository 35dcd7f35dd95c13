package engine

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/internal/cuda"
)

// kernelKey identifies a compiled kernel: the context it is loaded in (by
// its unique ID, never reused) and the kernel's name, which encodes the
// configuration and the input class.
type kernelKey struct {
	ctx  uint64
	name string
}

// loadedKernel is a kernel (and its split-K reduction) loaded in one context.
type loadedKernel struct {
	once    sync.Once
	loaded  atomic.Bool // load succeeded
	err     error
	cfg     ptx.GemmConfig
	compute ptx.DataType // the class's compute type: the scalars' width
	kernel  *ptx.Kernel
	fn      cuda.Function
	reduce  cuda.Function
	maps    atomic.Pointer[encodedMaps] // a TMA kernel's maps of its last call (packTensorMaps)
}

var kernels sync.Map // kernelKey → *loadedKernel

// Stats counts what the kernel cache did, for tests and ISAAC_LOG.
type Stats struct {
	Generated, DiskHits, Compiled int
}

var (
	statsMu sync.Mutex
	stats   Stats
)

// CacheStats returns the kernel cache's counters.
func CacheStats() Stats {
	statsMu.Lock()
	defer statsMu.Unlock()
	return stats
}

func count(f func(*Stats)) {
	statsMu.Lock()
	f(&stats)
	statsMu.Unlock()
}

// kernelFor returns the kernel for (cfg, in), loaded in context ctx,
// generating and compiling it on first use (once per context, whatever the
// number of threads asking).
func kernelFor(ctx uint64, cfg ptx.GemmConfig, in ptx.InputClass, dev *deviceInfo) (*loadedKernel, error) {
	key := kernelKey{ctx, ptx.KernelName(cfg, in)}
	v, ok := kernels.Load(key)
	if !ok {
		v, _ = kernels.LoadOrStore(key, &loadedKernel{})
	}
	lk := v.(*loadedKernel)
	lk.once.Do(func() {
		lk.cfg, lk.compute = cfg, in.Compute
		lk.err = lk.load(cfg, in, dev)
		lk.loaded.Store(lk.err == nil)
	})
	return lk, lk.err
}

// kernelCached reports whether kernelFor(ctx, cfg, in, dev) would be quick:
// the kernel is loaded in the context, or the disk cache holds its images
// (its reduction kernel's too), or it cannot be generated (an error
// kernelFor reports at once). Otherwise kernelFor would compile.
func kernelCached(ctx uint64, cfg ptx.GemmConfig, in ptx.InputClass, dev *deviceInfo) bool {
	if v, ok := kernels.Load(kernelKey{ctx, ptx.KernelName(cfg, in)}); ok && v.(*loadedKernel).loaded.Load() {
		return true
	}
	k, err := ptx.GenerateGemm(cfg, in, dev.limits.Arch())
	if err != nil {
		return true
	}
	arch := fmt.Sprintf("sm_%d%d", dev.limits.SMMajor, dev.limits.SMMinor)
	driver, _ := cuda.DriverVersion()
	for _, k := range []*ptx.Kernel{k, k.Reduce} {
		if k == nil {
			continue
		}
		if p := imagePath(k.PTX, arch, driver); p == "" || !fileExists(p) {
			return false
		}
	}
	return true
}

func (lk *loadedKernel) load(cfg ptx.GemmConfig, in ptx.InputClass, dev *deviceInfo) error {
	arch := fmt.Sprintf("sm_%d%d", dev.limits.SMMajor, dev.limits.SMMinor)
	k, err := ptx.GenerateGemm(cfg, in, dev.limits.Arch())
	if err != nil {
		return err
	}
	count(func(s *Stats) { s.Generated++ })
	lk.kernel = k
	if lk.fn, err = loadFunction(k, arch); err != nil {
		return err
	}
	// The JIT's register allocation decides how many threads a block may
	// have; Legal only estimates it.
	if max, err := lk.fn.Attribute(cuda.FuncMaxThreadsPerBlock); err != nil {
		return err
	} else if k.Block[0]*k.Block[1]*k.Block[2] > max {
		return fmt.Errorf("%w: %s needs %d threads per block, its registers allow %d",
			ErrUnsupported, k.Name, k.Block[0]*k.Block[1]*k.Block[2], max)
	}
	if k.SharedBytes > 48<<10 {
		if err := lk.fn.SetMaxDynamicShared(k.SharedBytes); err != nil {
			return err
		}
	}
	if k.Reduce != nil {
		if lk.reduce, err = loadFunction(k.Reduce, arch); err != nil {
			return err
		}
	}
	return nil
}

// loadFunction loads one kernel's image, from the disk cache when it is
// there, else by compiling its PTX (and keeping the image).
func loadFunction(k *ptx.Kernel, arch string) (cuda.Function, error) {
	driver, _ := cuda.DriverVersion()
	path := imagePath(k.PTX, arch, driver)
	image := readImage(path)
	if image != nil {
		count(func(s *Stats) { s.DiskHits++ })
	} else {
		var err error
		if image, _, err = cuda.CompilePTX(k.PTX); err != nil {
			return 0, fmt.Errorf("engine: compiling %s: %w", k.Name, err)
		}
		count(func(s *Stats) { s.Compiled++ })
		writeImage(path, image)
	}
	mod, err := cuda.LoadImage(image)
	if err != nil {
		return 0, err
	}
	return mod.Function(k.Name)
}
