package kernels

import (
	"fmt"
	"math"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// ConvTarget is where convolution c of shape s runs: the calling thread's
// current context and the class of its implicit GEMM.
func (rt *Runtime) ConvTarget(c *request.Conv, s request.ConvShape) (Target, error) {
	dev, ctx, err := rt.current()
	if err != nil {
		return Target{}, err
	}
	in := space.ConvClass(s, c.XPtr, c.WPtr)
	if err := in.Validate(); err != nil {
		return Target{}, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return Target{Ctx: ctx, Dev: dev, Class: in}, nil
}

// Conv launches convolution c (of shape s, as c.Shape gives it) on its
// stream in the calling thread's current context with configuration cfg,
// compiling its kernel if it is not loaded yet. It does not synchronize.
func (rt *Runtime) Conv(c *request.Conv, s request.ConvShape, cfg ptx.GemmConfig) error {
	t, err := rt.ConvTarget(c, s)
	if err != nil {
		return err
	}
	if err := ptx.Legal(cfg, t.Class, t.Dev.Limits); err != nil {
		return fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	k, err := rt.Kernel(t, cfg)
	if err != nil {
		return err
	}
	return rt.LaunchConv(t, c, s, k)
}

// LaunchConv launches convolution kernel k for c on c's stream in t's
// context, with the split-K workspace it needs. It does not synchronize.
func (rt *Runtime) LaunchConv(t Target, c *request.Conv, s request.ConvShape, k *Kernel) error {
	return rt.launchProblem(t, cuda.Stream(c.Stream), k, s.Pixels(), s.K, s.ReductionCRS(), func(p *cuda.Params, ws, ctrs cuda.DevicePtr) error {
		packConvParams(p, c, s, k.compute, ws, ctrs)
		return nil
	})
}

// packConvParams writes a convolution kernel's parameters: the GEMM ABI's
// for its implicit GEMM (alpha and beta, host values, in the compute type),
// then ptx.ConvParams.
func packConvParams(p *cuda.Params, c *request.Conv, s request.ConvShape, compute ptx.DataType, ws, ctrs cuda.DevicePtr) {
	crs := s.ReductionCRS()
	p.Ptr(c.XPtr).Ptr(c.WPtr).Ptr(c.YPtr)
	p.I32(int32(s.Pixels())).I32(int32(s.K)).I32(int32(crs))
	p.I32(0).I32(int32(crs)).I32(0)
	for _, v := range [2]float64{c.Alpha.Value, c.Beta.Value} {
		switch compute {
		case ptx.F16:
			p.U16(request.HalfBits(v))
		case ptx.F64:
			p.U64(math.Float64bits(v))
		default:
			p.U32(math.Float32bits(float32(v)))
		}
	}
	p.Ptr(0).Ptr(0).Ptr(uintptr(ws)).Ptr(uintptr(ctrs))
	hOff, wOff, hStep, wStep := -s.PadH, -s.PadW, s.DilH, s.DilW
	if s.Flip {
		hOff, hStep = hOff+(s.R-1)*s.DilH, -s.DilH
		wOff, wStep = wOff+(s.S-1)*s.DilW, -s.DilW
	}
	for _, v := range []int{
		s.C / s.G, s.H, s.W, s.P, s.Q, s.R, s.S, s.StrH, s.StrW, hOff, wOff, hStep, wStep,
		s.XStrides[0], s.XStrides[1], s.XStrides[2], s.XStrides[3],
		s.YStrides[0], s.YStrides[1], s.YStrides[2], s.YStrides[3],
	} {
		p.I32(int32(v))
	}
}
