package engine

import (
	"errors"
	"fmt"
	"sync"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/internal/cuda"
)

// Errors that say why a GEMM was not launched; Serve turns them into
// forward reasons.
var (
	ErrNoContext   = errors.New("engine: no current CUDA context")
	ErrUnsupported = errors.New("engine: input not served by the kernel family")
)

// reasonOf turns an error of the engine into a forward reason.
func reasonOf(err error) request.Reason {
	switch {
	case err == nil:
		return request.Served
	case errors.Is(err, cuda.ErrNoDriver), errors.Is(err, ErrNoContext):
		return request.FwdNoDriver
	case errors.Is(err, ErrUnsupported):
		return request.FwdUnsupported
	case errors.Is(err, ErrNoWeights):
		return request.FwdNoWeights
	case errors.Is(err, ErrWeights):
		return request.FwdWeights
	}
	return request.FwdError
}

var paramPool = sync.Pool{New: func() any { return new(cuda.Params) }}

// Chosen is the configuration Gemm(g, nil) runs for g in the current
// context (compiling its kernel if it is not loaded yet).
func Chosen(g *request.Gemm) (ptx.GemmConfig, error) {
	ctxID, info, in, err := prepare(g)
	if err != nil {
		return ptx.GemmConfig{}, err
	}
	lk, err := kernelForCall(ctxID, in, int(g.M), int(g.N), int(g.K), nil, info)
	if err != nil {
		return ptx.GemmConfig{}, err
	}
	return lk.cfg, nil
}

// prepare finds the current context, its device and the request's class.
func prepare(g *request.Gemm) (uint64, *deviceInfo, ptx.InputClass, error) {
	var in ptx.InputClass
	if err := cuda.Load(); err != nil {
		return 0, nil, in, err
	}
	ctx, err := cuda.CurrentContext()
	if err != nil {
		return 0, nil, in, err
	}
	if ctx == 0 {
		return 0, nil, in, ErrNoContext
	}
	ctxID, err := ctx.ID()
	if err != nil {
		return 0, nil, in, err
	}
	dev, err := cuda.CurrentDevice()
	if err != nil {
		return 0, nil, in, err
	}
	info, err := infoFor(dev)
	if err != nil {
		return 0, nil, in, err
	}
	if in, err = Class(g); err != nil {
		return 0, nil, in, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return ctxID, info, in, nil
}

// Gemm launches g on its stream in the calling thread's current context,
// with configuration cfg, or the chosen one when cfg is nil (ISAAC_CONFIG or
// the generator's heuristic; Serve is the model's path). It does not
// synchronize. g must have passed dispatch's classification (valid, not
// empty, 32-bit sizes).
func Gemm(g *request.Gemm, cfg *ptx.GemmConfig) error {
	ctxID, info, in, err := prepare(g)
	if err != nil {
		return err
	}
	lk, err := kernelForCall(ctxID, in, int(g.M), int(g.N), int(g.K), cfg, info)
	if err != nil {
		return err
	}
	return launchGemm(ctxID, g, lk, info)
}

// launchGemm launches a loaded kernel for g in context ctx: the kernel, and
// its reduction kernel when it has one, with the split-K workspace they need
// (see splitWorkspace).
func launchGemm(ctx uint64, g *request.Gemm, lk *loadedKernel, info *deviceInfo) error {
	m, n, k := int(g.M), int(g.N), int(g.K)
	grid := lk.kernel.Grid(m, n, k)
	if !lk.kernel.SplitLimit(m, n) {
		return fmt.Errorf("%w: %d×%d output too large for a split-K reduction", ErrUnsupported, m, n)
	}
	if grid[1] > 65535 || grid[2] > 65535 {
		return fmt.Errorf("%w: grid %v too large", ErrUnsupported, grid)
	}
	stream := cuda.Stream(g.Stream)
	var ws, ctrs cuda.DevicePtr
	if bytes := lk.kernel.WorkspaceBytes(m, n, k); bytes > 0 {
		words := lk.kernel.Counters(m, n)
		if sw := info.streamWorkspaceFor(ctx, stream, bytes, words); sw != nil {
			// Held until the kernels are on the stream.
			defer sw.mu.Unlock()
			ws, ctrs = sw.ws, sw.ctrs
		} else {
			// A workspace of this call's own, stream-ordered (legal during
			// graph capture): the partials, then the counters, zeroed.
			off := (bytes + 15) / 16 * 16
			var err error
			if ws, err = info.allocWorkspace(off+4*words, stream); err != nil {
				return err
			}
			defer ws.FreeAsync(stream)
			if words > 0 {
				ctrs = ws + cuda.DevicePtr(off)
				if err := ctrs.MemsetD32Async(0, words, stream); err != nil {
					return err
				}
			}
		}
	}
	p := paramPool.Get().(*cuda.Params)
	defer paramPool.Put(p)
	p.Reset()
	packParams(p, g, lk.compute, ws, ctrs)
	if err := packTensorMaps(p, g, lk); err != nil {
		return err
	}
	if err := launch(lk.fn, lk.kernel, grid, stream, p); err != nil {
		return err
	}
	if lk.reduce != 0 {
		return launch(lk.reduce, lk.kernel.Reduce, lk.kernel.Reduce.Grid(m, n, k), stream, p)
	}
	return nil
}

// choiceKey identifies a call whose kernel the engine chose: the same
// context, input class and shape get the same kernel without choosing again.
type choiceKey struct {
	ctx     uint64
	in      ptx.InputClass
	m, n, k int
}

var choices sync.Map // choiceKey → *loadedKernel

// kernelForCall is the loaded kernel for a call: cfg when given, else the
// cached or newly made choice.
func kernelForCall(ctx uint64, in ptx.InputClass, m, n, k int, cfg *ptx.GemmConfig, info *deviceInfo) (*loadedKernel, error) {
	if cfg != nil {
		if err := ptx.Legal(*cfg, in, info.limits); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
		}
		return kernelFor(ctx, *cfg, in, info)
	}
	key := choiceKey{ctx, in, m, n, k}
	if v, ok := choices.Load(key); ok {
		return v.(*loadedKernel), nil
	}
	c, err := choose(in, m, n, k, info)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	lk, err := kernelFor(ctx, c, in, info)
	if err != nil {
		return nil, err
	}
	choices.Store(key, lk)
	return lk, nil
}

func launch(f cuda.Function, k *ptx.Kernel, grid [3]int, s cuda.Stream, p *cuda.Params) error {
	if cl := k.Cluster(); cl > 0 {
		return cuda.LaunchCluster(f, cuda.Dim3{uint32(grid[0]), uint32(grid[1]), uint32(grid[2])},
			cuda.Dim3{uint32(k.Block[0]), uint32(k.Block[1]), uint32(k.Block[2])}, cuda.Dim3{1, 1, uint32(cl)},
			k.SharedBytes, s, p)
	}
	return cuda.Launch(f, cuda.Dim3{uint32(grid[0]), uint32(grid[1]), uint32(grid[2])},
		cuda.Dim3{uint32(k.Block[0]), uint32(k.Block[1]), uint32(k.Block[2])}, k.SharedBytes, s, p)
}

// packParams writes the kernel ABI's parameters (see package ptx).
func packParams(p *cuda.Params, g *request.Gemm, compute ptx.DataType, ws, ctrs cuda.DevicePtr) {
	p.Ptr(g.A).Ptr(g.B).Ptr(g.C)
	p.I32(int32(g.M)).I32(int32(g.N)).I32(int32(g.K))
	p.I32(int32(g.LDA)).I32(int32(g.LDB)).I32(int32(g.LDC))
	for _, s := range [2]request.Scalar{g.Alpha, g.Beta} {
		bits := s.Bits
		if s.OnDevice {
			bits = 0
		}
		switch compute {
		case ptx.F16:
			p.U16(uint16(bits))
		case ptx.F64:
			p.U64(bits)
		default:
			p.U32(uint32(bits))
		}
	}
	var alphaPtr, betaPtr uintptr
	if g.Alpha.OnDevice {
		alphaPtr, betaPtr = g.Alpha.Ptr, g.Beta.Ptr
	}
	p.Ptr(alphaPtr).Ptr(betaPtr).Ptr(uintptr(ws)).Ptr(uintptr(ctrs))
}

// Prepare loads (generating and compiling if needed) the kernel that
// Gemm(g, &cfg) would launch, without launching it: a tuner compiles its
// candidates ahead, from many threads, each with the context current.
func Prepare(g *request.Gemm, cfg ptx.GemmConfig) error {
	ctxID, info, in, err := prepare(g)
	if err != nil {
		return err
	}
	_, err = kernelForCall(ctxID, in, int(g.M), int(g.N), int(g.K), &cfg, info)
	return err
}

// Registers is how many registers per thread the driver gave the kernel of
// cfg for g's input class (loading it first, as Prepare does).
func Registers(g *request.Gemm, cfg ptx.GemmConfig) (int, error) {
	ctxID, info, in, err := prepare(g)
	if err != nil {
		return 0, err
	}
	lk, err := kernelForCall(ctxID, in, int(g.M), int(g.N), int(g.K), &cfg, info)
	if err != nil {
		return 0, err
	}
	return lk.fn.Attribute(cuda.FuncNumRegs)
}

// Limits are the current context's device limits, as Legal takes them.
func Limits() (ptx.DeviceLimits, error) {
	if err := cuda.Load(); err != nil {
		return ptx.DeviceLimits{}, err
	}
	dev, err := cuda.CurrentDevice()
	if err != nil {
		return ptx.DeviceLimits{}, err
	}
	info, err := infoFor(dev)
	if err != nil {
		return ptx.DeviceLimits{}, err
	}
	return info.limits, nil
}
