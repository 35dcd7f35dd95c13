package kernels

import (
	"fmt"
	"math"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// WindowTarget is where convolution c (of shape s) runs through the window
// kernel: the calling thread's current context. The target's Class holds
// the kernel's vectors (space.WindowClass: AlignA x's, AlignB the
// filter's), which c's addresses allow.
func (rt *Runtime) WindowTarget(c *request.Conv, s request.ConvShape) (Target, error) {
	dev, ctx, err := rt.current()
	if err != nil {
		return Target{}, err
	}
	if !space.WindowServes(s) {
		return Target{}, fmt.Errorf("%w: not a window convolution", ErrUnsupported)
	}
	cls := space.WindowClass(s, c.XPtr, c.WPtr)
	return Target{Ctx: ctx, Dev: dev, Class: ptx.InputClass{AlignA: cls.XVec, AlignB: cls.WVec}}, nil
}

// windowClass is the window kernel's class of shape s in target t.
func windowClass(t Target, s request.ConvShape) ptx.WindowClass {
	cls := space.WindowClass(s, 0, 0)
	cls.XVec, cls.WVec = min(cls.XVec, t.Class.AlignA), min(cls.WVec, t.Class.AlignB)
	return cls
}

// WindowKernel is the window kernel of convolution shape s with
// configuration cfg in t's context (WindowTarget's), loaded once.
func (rt *Runtime) WindowKernel(t Target, s request.ConvShape, cfg ptx.WindowConfig) (*Kernel, error) {
	cls := windowClass(t, s)
	if err := windowFits(t, s, cls, cfg); err != nil {
		return nil, err
	}
	return rt.specKernel(t, windowSpec{cls, cfg}, windowGen(t, cls, cfg))
}

// WindowLoaded reports whether WindowKernel(t, s, cfg) would be quick:
// loaded already, its image in the disk cache, or not to be made (it
// answers at once either way).
func (rt *Runtime) WindowLoaded(t Target, s request.ConvShape, cfg ptx.WindowConfig) bool {
	cls := windowClass(t, s)
	if windowFits(t, s, cls, cfg) != nil {
		return true
	}
	return rt.specLoaded(t, windowSpec{cls, cfg}, windowGen(t, cls, cfg))
}

// windowFits is why the window kernel of cfg cannot serve shape s in t's
// device, or nil.
func windowFits(t Target, s request.ConvShape, cls ptx.WindowClass, cfg ptx.WindowConfig) error {
	if cfg.KB<<10 > t.Dev.Limits.MaxSharedPerBlockOptin {
		return fmt.Errorf("%w: %d KiB of shared memory", ErrUnsupported, cfg.KB)
	}
	if _, err := ptx.WindowGeometryOf(cfg, cls, WindowProblem(s)); err != nil {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return nil
}

// windowGen generates the window kernel of class cls and configuration
// cfg for t's device.
func windowGen(t Target, cls ptx.WindowClass, cfg ptx.WindowConfig) func() (*ptx.Kernel, error) {
	return func() (*ptx.Kernel, error) {
		gen, err := ptx.GenerateWindowConv(cls, cfg, t.Dev.Limits.Arch())
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		return gen, nil
	}
}

// windowSpec is what a window kernel's code depends on.
type windowSpec struct {
	cls ptx.WindowClass
	cfg ptx.WindowConfig
}

// LaunchWindow launches convolution c (of shape s) on its stream with
// window kernel k (WindowKernel's, for target t), with the shared memory
// its geometry needs; where one chunk holds every channel, with a block
// per few tiles, as many blocks as the device holds at once. A call whose
// addresses do not allow the kernel's vectors is not launched (an
// unsupported error). It does not synchronize.
func (rt *Runtime) LaunchWindow(t Target, c *request.Conv, s request.ConvShape, k *Kernel) error {
	cfg, cls, pr := k.gen.Window(), k.gen.WindowClass(), WindowProblem(s)
	if now := space.WindowClass(s, c.XPtr, c.WPtr); now.XVec < cls.XVec || now.WVec < cls.WVec {
		return fmt.Errorf("%w: x or the filter not aligned to the kernel's vectors", ErrUnsupported)
	}
	g, err := ptx.WindowGeometryOf(cfg, cls, pr)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	if g.CC >= pr.C {
		resident, err := residentBlocks(k.fn, k.gen.Block[0], g.Bytes, t.Dev.Limits)
		if err != nil {
			return err
		}
		g.WindowTiles(pr, resident)
	}
	grid := ptx.WindowGrid(cfg, g, pr)
	if grid[0] >= 1<<31 || grid[1] > 65535 {
		return fmt.Errorf("%w: a grid of %v blocks", ErrUnsupported, grid)
	}
	p := paramPool.Get().(*cuda.Params)
	defer paramPool.Put(p)
	p.Reset()
	p.Ptr(c.XPtr).Ptr(c.WPtr).Ptr(c.YPtr)
	p.F32(float32(c.Alpha.Value)).F32(float32(c.Beta.Value))
	for _, v := range pr.Ints(g) {
		if v > math.MaxInt32 || v < math.MinInt32 {
			return fmt.Errorf("%w: parameter %d beyond 32 bits", ErrUnsupported, v)
		}
		p.I32(int32(v))
	}
	return put(t.Record, k.fn, dims(grid), cuda.Dim3{uint32(k.gen.Block[0]), 1, 1}, cuda.Dim3{}, false, g.Bytes, cuda.Stream(c.Stream), p)
}

// Window runs convolution c (of shape s) with the window kernel of
// configuration cfg (tests, benchmarks).
func (rt *Runtime) Window(c *request.Conv, s request.ConvShape, cfg ptx.WindowConfig) error {
	t, err := rt.WindowTarget(c, s)
	if err != nil {
		return err
	}
	k, err := rt.WindowKernel(t, s, cfg)
	if err != nil {
		return err
	}
	return rt.LaunchWindow(t, c, s, k)
}

// Window is a window kernel's configuration.
func (k *Kernel) Window() ptx.WindowConfig { return k.gen.Window() }

// WindowProblem is shape s in the window kernel's terms: the flip as the
// taps' offsets and steps within the window, the filter's strides in its
// format.
func WindowProblem(s request.ConvShape) ptx.WindowProblem {
	pr := ptx.WindowProblem{N: s.N, C: s.C, H: s.H, W: s.W, K: s.K, R: s.R, S: s.S, P: s.P, Q: s.Q,
		PadH: s.PadH, PadW: s.PadW, StrH: s.StrH, StrW: s.StrW, HStep: s.DilH, WStep: s.DilW,
		X: s.XStrides, Y: s.YStrides, Filter: [4]int{s.C * s.R * s.S, s.R * s.S, s.S, 1}}
	if s.Flip {
		pr.HO, pr.HStep = (s.R-1)*s.DilH, -s.DilH
		pr.WO, pr.WStep = (s.S-1)*s.DilW, -s.DilW
	}
	if s.FilterNHWC {
		pr.Filter = [4]int{s.R * s.S * s.C, 1, s.S * s.C, s.C}
	}
	return pr
}
