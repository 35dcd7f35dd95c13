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
// kernel: the calling thread's current context. The kernel has no input
// class beyond its data type.
func (rt *Runtime) WindowTarget(c *request.Conv, s request.ConvShape) (Target, error) {
	dev, ctx, err := rt.current()
	if err != nil {
		return Target{}, err
	}
	if !space.WindowServes(s) {
		return Target{}, fmt.Errorf("%w: not a window convolution", ErrUnsupported)
	}
	return Target{Ctx: ctx, Dev: dev}, nil
}

// WindowKernel is the window kernel of convolution shape s with
// configuration cfg in t's context, loaded once.
func (rt *Runtime) WindowKernel(t Target, s request.ConvShape, cfg ptx.WindowConfig) (*Kernel, error) {
	cls := space.WindowClass(s)
	if cfg.KB<<10 > t.Dev.Limits.MaxSharedPerBlockOptin {
		return nil, fmt.Errorf("%w: %d KiB of shared memory", ErrUnsupported, cfg.KB)
	}
	if _, err := ptx.WindowGeometryOf(cfg, WindowProblem(s)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return rt.specKernel(t, windowSpec{cls, cfg}, func() (*ptx.Kernel, error) {
		gen, err := ptx.GenerateWindowConv(cls, cfg, t.Dev.Limits.Arch())
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		return gen, nil
	})
}

// windowSpec is what a window kernel's code depends on.
type windowSpec struct {
	cls ptx.WindowClass
	cfg ptx.WindowConfig
}

// LaunchWindow launches convolution c (of shape s) on its stream with
// window kernel k (WindowKernel's), with the shared memory its geometry
// needs. It does not synchronize.
func (rt *Runtime) LaunchWindow(c *request.Conv, s request.ConvShape, k *Kernel) error {
	cfg, pr := k.gen.Window(), WindowProblem(s)
	g, err := ptx.WindowGeometryOf(cfg, pr)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
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
	return cuda.Launch(k.fn, cuda.Dim3{uint32(grid[0]), uint32(grid[1]), uint32(grid[2])},
		cuda.Dim3{uint32(k.gen.Block[0]), 1, 1}, g.Bytes, cuda.Stream(c.Stream), p)
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
	return rt.LaunchWindow(c, s, k)
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
