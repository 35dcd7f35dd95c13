package kernels

import (
	"fmt"
	"math"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// GroupedTarget is where grouped convolution c (of shape s) runs: the
// calling thread's current context. The direct kernel has no input class:
// the target's Class holds only AlignA, the elements both x and y are
// aligned to (space.GroupedAlign), which its class depends on.
func (rt *Runtime) GroupedTarget(c *request.Conv, s request.ConvShape) (Target, error) {
	dev, ctx, err := rt.current()
	if err != nil {
		return Target{}, err
	}
	if s.G < 2 {
		return Target{}, fmt.Errorf("%w: not a grouped convolution", ErrUnsupported)
	}
	return Target{Ctx: ctx, Dev: dev, Class: ptx.InputClass{AlignA: space.GroupedAlign(c.XPtr, c.YPtr, s)}}, nil
}

// GroupedKernel is the direct kernel of grouped convolution shape s with
// configuration cfg in t's context, loaded once.
func (rt *Runtime) GroupedKernel(t Target, s request.ConvShape, cfg ptx.GroupedConfig) (*Kernel, error) {
	cls := space.GroupedClass(s, t.Class.AlignA)
	return rt.specKernel(t, groupedSpec{cls, cfg}, groupedGen(t, cls, cfg))
}

// GroupedLoaded reports whether GroupedKernel(t, s, cfg) would be quick:
// loaded already, its image in the disk cache, or not to be made.
func (rt *Runtime) GroupedLoaded(t Target, s request.ConvShape, cfg ptx.GroupedConfig) bool {
	cls := space.GroupedClass(s, t.Class.AlignA)
	return rt.specLoaded(t, groupedSpec{cls, cfg}, groupedGen(t, cls, cfg))
}

// groupedGen generates the direct kernel of class cls and configuration
// cfg for t's device.
func groupedGen(t Target, cls ptx.GroupedClass, cfg ptx.GroupedConfig) func() (*ptx.Kernel, error) {
	return func() (*ptx.Kernel, error) {
		gen, err := ptx.GenerateGroupedConv(cls, cfg, t.Dev.Limits.Arch())
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		return gen, nil
	}
}

// groupedSpec is what a direct kernel's code depends on.
type groupedSpec struct {
	cls ptx.GroupedClass
	cfg ptx.GroupedConfig
}

// LaunchGrouped launches grouped convolution c (of shape s) on its stream
// with direct kernel k (GroupedKernel's). It does not synchronize.
func (rt *Runtime) LaunchGrouped(t Target, c *request.Conv, s request.ConvShape, k *Kernel) error {
	pr, cfg := GroupedProblem(s), k.gen.Grouped()
	pr.Vec = k.gen.GroupedVec()
	threads := ptx.GroupedThreads(cfg, pr.Vec, s.N, s.K, s.P, s.Q)
	grid, ok := ptx.GroupedGrid(cfg, threads)
	if !ok {
		return fmt.Errorf("%w: %d threads", ErrUnsupported, threads)
	}
	p := paramPool.Get().(*cuda.Params)
	defer paramPool.Put(p)
	p.Reset()
	p.Ptr(c.XPtr).Ptr(c.WPtr).Ptr(c.YPtr)
	if s.Type.Compute == request.CudnnDouble {
		p.F64(c.Alpha.Value).F64(c.Beta.Value)
	} else {
		p.F32(float32(c.Alpha.Value)).F32(float32(c.Beta.Value))
	}
	for _, v := range pr.Ints(cfg) {
		if v > math.MaxInt32 || v < math.MinInt32 {
			return fmt.Errorf("%w: parameter %d beyond 32 bits", ErrUnsupported, v)
		}
		p.I32(int32(v))
	}
	return launch(t.Record, k.fn, k.gen, grid, cuda.Stream(c.Stream), p)
}

// Grouped runs grouped convolution c (of shape s) with the direct kernel of
// configuration cfg (tests, benchmarks).
func (rt *Runtime) Grouped(c *request.Conv, s request.ConvShape, cfg ptx.GroupedConfig) error {
	t, err := rt.GroupedTarget(c, s)
	if err != nil {
		return err
	}
	k, err := rt.GroupedKernel(t, s, cfg)
	if err != nil {
		return err
	}
	return rt.LaunchGrouped(t, c, s, k)
}

// Grouped is a direct grouped convolution kernel's configuration.
func (k *Kernel) Grouped() ptx.GroupedConfig { return k.gen.Grouped() }

// GroupedProblem is shape s in the direct kernel's terms: the flip as the
// taps' offsets and steps, the filter's strides in its format.
func GroupedProblem(s request.ConvShape) ptx.GroupedProblem {
	cg := s.C / s.G
	pr := ptx.GroupedProblem{N: s.N, C: s.C, H: s.H, W: s.W, K: s.K, G: s.G, R: s.R, S: s.S, P: s.P, Q: s.Q,
		StrH: s.StrH, StrW: s.StrW, HOff: -s.PadH, WOff: -s.PadW, HStep: s.DilH, WStep: s.DilW,
		X: s.XStrides, Y: s.YStrides, Filter: [4]int{cg * s.R * s.S, s.R * s.S, s.S, 1}}
	if s.Flip {
		pr.HOff, pr.HStep = pr.HOff+(s.R-1)*s.DilH, -s.DilH
		pr.WOff, pr.WStep = pr.WOff+(s.S-1)*s.DilW, -s.DilW
	}
	if s.FilterNHWC {
		pr.Filter = [4]int{s.R * s.S * cg, 1, s.S * cg, cg}
	}
	return pr
}
