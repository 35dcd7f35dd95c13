package kernels

import (
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
)

// kernelKey identifies a compiled kernel: the context it is loaded in (by
// its unique ID, never reused) and the kernel's name, which encodes the
// configuration and the input class.
type kernelKey struct {
	ctx  uint64
	name string
}

// Kernel is a configuration's kernel (and its split-K reduction kernel)
// loaded in one context.
type Kernel struct {
	once    sync.Once
	loaded  atomic.Bool // load succeeded
	err     error
	cfg     ptx.GemmConfig
	compute ptx.DataType // the class's compute type: the scalars' width
	gen     *ptx.Kernel
	fn      cuda.Function
	reduce  cuda.Function
	maps    atomic.Pointer[encodedMaps] // a TMA kernel's maps of its last call (packTensorMaps)
	// resident is how many blocks of a persistent kernel the device holds
	// at once (its grid's cap, grid); 0 for the others.
	resident int
}

// grid is the kernel's launch grid for an m×n×kk problem: the generator's,
// a persistent kernel's capped at the blocks the device holds at once.
func (k *Kernel) grid(m, n, kk int) [3]int {
	g := k.gen.Grid(m, n, kk)
	if k.resident > 0 {
		g[0] = min(g[0], k.resident)
	}
	return g
}

// batchGrid is grid for batch m×n×kk problems: the z slices of each after
// the previous one's, or a persistent kernel's blocks over every matrix's
// tiles (capped at the resident blocks).
func (k *Kernel) batchGrid(m, n, kk, batch int) [3]int {
	g := k.gen.BatchGrid(m, n, kk, batch)
	if k.resident > 0 {
		g[0] = min(g[0], k.resident)
	}
	return g
}

// Fits reports whether the kernel can be launched for an m×n×kk problem:
// its grid within the device's limits, its split-K output within the
// reduction's.
func (k *Kernel) Fits(m, n, kk int) bool {
	g := k.grid(m, n, kk)
	return g[1] <= 65535 && g[2] <= 65535 && k.gen.SplitLimit(m, n)
}

// residentBlocks is how many blocks of f (threads per block, dynamic
// shared bytes) an SM of dev holds at once, by threads, shared memory (1
// KiB of it reserved a block) and registers (allocated 256 a warp), times
// the SMs.
func residentBlocks(f cuda.Function, threads, shared int, dev ptx.DeviceLimits) (int, error) {
	regs, err := f.Attribute(cuda.FuncNumRegs)
	if err != nil {
		return 0, err
	}
	warps := (threads + 31) / 32
	perSM := min(32, 64/warps)
	if shared > 0 {
		perSM = min(perSM, dev.MaxSharedPerSM/(shared+1024))
	}
	if perWarp := (regs*32 + 255) / 256 * 256; perWarp > 0 {
		perSM = min(perSM, dev.RegistersPerSM/(warps*perWarp))
	}
	return max(perSM, 1) * dev.SMCount, nil
}

// Config is the kernel's configuration.
func (k *Kernel) Config() ptx.GemmConfig { return k.cfg }

// WaitsOnPrior reports whether the kernel waits for the grids before it in
// its stream (ptx.Kernel.WaitsOnPrior), so that LaunchConvNHWC may launch
// it as a programmatic dependent of its copies' transposes.
func (k *Kernel) WaitsOnPrior() bool { return k.gen.WaitsOnPrior() }

// Registers is the driver's count of registers per thread of the kernel.
func (k *Kernel) Registers() (int, error) { return k.fn.Attribute(cuda.FuncNumRegs) }

// Kernel returns cfg's kernel for t's class, loaded in t's context,
// generating and compiling it on first use (once per context, whatever the
// number of threads asking; from the disk cache when it holds the image).
func (rt *Runtime) Kernel(t Target, cfg ptx.GemmConfig) (*Kernel, error) {
	key := kernelKey{t.Ctx, ptx.KernelName(cfg, t.Class)}
	v, ok := rt.kernels.Load(key)
	if !ok {
		v, _ = rt.kernels.LoadOrStore(key, &Kernel{})
	}
	k := v.(*Kernel)
	k.once.Do(func() {
		k.cfg, k.compute = cfg, t.Class.Compute
		k.err = rt.load(k, cfg, t.Class, t.Dev)
		k.loaded.Store(k.err == nil)
	})
	return k, k.err
}

// Loaded reports whether Kernel(t, cfg) would be quick: the kernel is
// loaded in the context, or the disk cache holds its images (its reduction
// kernel's too), or it cannot be generated (an error Kernel reports at
// once). Otherwise Kernel would compile.
func (rt *Runtime) Loaded(t Target, cfg ptx.GemmConfig) bool {
	if v, ok := rt.kernels.Load(kernelKey{t.Ctx, ptx.KernelName(cfg, t.Class)}); ok && v.(*Kernel).loaded.Load() {
		return true
	}
	k, err := ptx.GenerateGemm(cfg, t.Class, t.Dev.Limits.Arch())
	if err != nil {
		return true
	}
	arch := fmt.Sprintf("sm_%d%d", t.Dev.Limits.SMMajor, t.Dev.Limits.SMMinor)
	driver, _ := cuda.DriverVersion()
	for _, k := range []*ptx.Kernel{k, k.Reduce} {
		if k == nil {
			continue
		}
		if p := rt.imagePath(k.PTX, arch, driver); p == "" || !fileExists(p) {
			return false
		}
	}
	return true
}

func (rt *Runtime) load(k *Kernel, cfg ptx.GemmConfig, in ptx.InputClass, dev *Device) error {
	arch := fmt.Sprintf("sm_%d%d", dev.Limits.SMMajor, dev.Limits.SMMinor)
	gen, err := ptx.GenerateGemm(cfg, in, dev.Limits.Arch())
	if err != nil {
		return err
	}
	rt.count(func(s *Stats) { s.Generated++ })
	k.gen = gen
	if k.fn, err = rt.loadFunction(gen, arch); err != nil {
		return err
	}
	// The JIT's register allocation decides how many threads a block may
	// have; Legal only estimates it.
	if max, err := k.fn.Attribute(cuda.FuncMaxThreadsPerBlock); err != nil {
		return err
	} else if gen.Block[0]*gen.Block[1]*gen.Block[2] > max {
		return fmt.Errorf("%w: %s needs %d threads per block, its registers allow %d",
			ErrUnsupported, gen.Name, gen.Block[0]*gen.Block[1]*gen.Block[2], max)
	}
	if gen.SharedBytes > 48<<10 {
		if err := k.fn.SetMaxDynamicShared(gen.SharedBytes); err != nil {
			return err
		}
	}
	if gen.Persistent() {
		if k.resident, err = residentBlocks(k.fn, gen.Block[0]*gen.Block[1]*gen.Block[2], gen.SharedBytes, dev.Limits); err != nil {
			return err
		}
	}
	if gen.Reduce != nil {
		if k.reduce, err = rt.loadFunction(gen.Reduce, arch); err != nil {
			return err
		}
	}
	return nil
}

// loadFunction loads one kernel's image, from the disk cache when it is
// there, else by compiling its PTX (and keeping the image).
func (rt *Runtime) loadFunction(k *ptx.Kernel, arch string) (cuda.Function, error) {
	// A slot first, then the read lock: Close waits only for the loads
	// that hold a slot, and those waiting for one find the runtime closed.
	rt.jits <- struct{}{}
	defer func() { <-rt.jits }()
	rt.loading.RLock()
	defer rt.loading.RUnlock()
	if rt.closed {
		return 0, ErrClosed
	}
	driver, _ := cuda.DriverVersion()
	path := rt.imagePath(k.PTX, arch, driver)
	image := readImage(path)
	if image != nil {
		rt.count(func(s *Stats) { s.DiskHits++ })
	} else {
		var err error
		if image, _, err = cuda.CompilePTX(k.PTX); err != nil {
			return 0, fmt.Errorf("kernels: compiling %s: %w", k.Name, err)
		}
		rt.count(func(s *Stats) { s.Compiled++ })
		if f := rt.onCompiled.Load(); f != nil {
			rt.compiledOnce.Do(*f)
		}
		writeImage(path, image)
	}
	mod, err := cuda.LoadImage(image)
	if err != nil {
		return 0, err
	}
	return mod.Function(k.Name)
}
