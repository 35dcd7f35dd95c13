package kernels

import (
	"fmt"
	"sync"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

var paramPool = sync.Pool{New: func() any { return new(cuda.Params) }}

// Launch launches kernel k for g on g's stream in t's context: the kernel,
// and its reduction kernel when it has one, with the split-K workspace
// they need. It does not synchronize. g must be valid, not empty, with
// 32-bit sizes.
func (rt *Runtime) Launch(t Target, g *request.Gemm, k *Kernel) error {
	if t.Class.Batched {
		return rt.launchBatch(t, g, k)
	}
	return rt.launchProblem(t, cuda.Stream(g.Stream), k, int(g.M), int(g.N), int(g.K), 1, func(p *cuda.Params, ws, ctrs cuda.DevicePtr) error {
		packParams(p, g, k.compute, ws, ctrs)
		if err := packTensorMaps(p, g, k); err != nil {
			return err
		}
		packEpilogue(p, g, t.Class)
		return nil
	})
}

// packEpilogue writes an epilogue class's parameters (ptx's
// epilogueParamsOf): D's byte offset from C, the bias vector.
func packEpilogue(p *cuda.Params, g *request.Gemm, cls ptx.InputClass) {
	if cls.Epi.OutOfPlace {
		p.U64(uint64(int64(g.D) - int64(g.C)))
	}
	if cls.Epi.Bias {
		p.Ptr(g.Bias)
	}
}

// launchBatch launches kernel k (of a batched class) for strided-batched
// g: its g.Batch matrices in launches of as many as the grid's z
// dimension holds, each launch's A, B and C moved to its first matrix.
func (rt *Runtime) launchBatch(t Target, g *request.Gemm, k *Kernel) error {
	m, n, kk := int(g.M), int(g.N), int(g.K)
	per := int64(max(k.grid(m, n, kk)[2], 1))
	most := maxGridZ / per
	if k.gen.Persistent() {
		// The blocks walk every matrix's tiles by a 32-bit index.
		most = maxTiles / int64(max(k.gen.Grid(m, n, kk)[0], 1))
	}
	if most < 1 {
		return fmt.Errorf("%w: %d grid slices a matrix", ErrUnsupported, per)
	}
	ea, eb, ec := int64(g.AType.Size()), int64(g.BType.Size()), int64(g.CType.Size())
	for first := int64(0); first < g.Batch; first += most {
		part := *g
		part.Batch = min(most, g.Batch-first)
		part.A += uintptr(first * g.StrideA * ea)
		part.B += uintptr(first * g.StrideB * eb)
		part.C += uintptr(first * g.StrideC * ec)
		if g.OutOfPlace() {
			part.D += uintptr(first * g.StrideC * ec) // D has C's strides
		}
		err := rt.launchProblem(t, cuda.Stream(g.Stream), k, m, n, kk, int(part.Batch), func(p *cuda.Params, ws, ctrs cuda.DevicePtr) error {
			packParams(p, &part, k.compute, ws, ctrs)
			if err := packTensorMaps(p, &part, k); err != nil {
				return err
			}
			p.U64(uint64(part.StrideA)).U64(uint64(part.StrideB)).U64(uint64(part.StrideC)).I32(int32(part.Batch))
			packEpilogue(p, &part, t.Class)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// maxGridZ is the largest z dimension of a launch grid.
const maxGridZ = 65535

// maxTiles is the most tiles a persistent kernel's launch walks.
const maxTiles = 1<<31 - 1

// launchProblem launches kernel k for batch m×n×kk problems (1, or the
// matrices of a batched class's launch) on stream (and its reduction
// kernel when it has one), with the split-K workspace they need and the
// parameters pack writes.
func (rt *Runtime) launchProblem(t Target, stream cuda.Stream, k *Kernel, m, n, kk, batch int, pack func(p *cuda.Params, ws, ctrs cuda.DevicePtr) error) error {
	grid := k.batchGrid(m, n, kk, batch)
	if !k.Fits(m, n, kk) || grid[2] > maxGridZ {
		return fmt.Errorf("%w: grid %v too large, or a %d×%d output too large for a split-K reduction", ErrUnsupported, grid, m, n)
	}
	_, ws, ctrs, done, err := rt.workspace(t, stream, k, m, n, kk, 0)
	if err != nil {
		return err
	}
	defer done()
	p := paramPool.Get().(*cuda.Params)
	defer paramPool.Put(p)
	p.Reset()
	if err := pack(p, ws, ctrs); err != nil {
		return err
	}
	if err := launch(t.Record, k.fn, k.gen, grid, stream, p); err != nil {
		return err
	}
	if k.reduce != 0 {
		return launch(t.Record, k.reduce, k.gen.Reduce, k.gen.Reduce.Grid(m, n, kk), stream, p)
	}
	return nil
}

// workspace is the memory kernel k needs for an m×n×kk problem on stream
// beside its operands: extra bytes first (a convolution's transposed
// operands, at front), then the split-K partials (at ws) and counters (at
// ctrs); and what to do once the kernels are on the stream. It is the
// stream's kept workspace, held until then, or, on a stream being captured
// (or beyond the kept limits), one of the call's own, stream-ordered (the
// graph's allocation), freed after.
func (rt *Runtime) workspace(t Target, stream cuda.Stream, k *Kernel, m, n, kk, extra int) (front, ws, ctrs cuda.DevicePtr, done func(), err error) {
	extra = (extra + 255) / 256 * 256
	bytes := extra + k.gen.WorkspaceBytes(m, n, kk)
	if bytes == 0 {
		return 0, 0, 0, func() {}, nil
	}
	words := k.gen.Counters(m, n)
	if sw := rt.streamWorkspaceFor(t, stream, bytes, words); sw != nil {
		if t.Record != nil {
			t.Record.StreamWorkspace = true
		}
		return sw.ws, sw.ws + cuda.DevicePtr(extra), sw.ctrs, sw.mu.Unlock, nil
	}
	if t.Record != nil {
		return 0, 0, 0, nil, ErrNotRepeatable // a workspace of the call's own is not repeated
	}
	off := (bytes + 15) / 16 * 16
	if front, err = t.Dev.allocWorkspace(off+4*words, stream); err != nil {
		return 0, 0, 0, nil, err
	}
	done = func() { front.FreeAsync(stream) }
	if words > 0 {
		ctrs = front + cuda.DevicePtr(off)
		if err := ctrs.MemsetD32Async(0, words, stream); err != nil {
			done()
			return 0, 0, 0, nil, err
		}
	}
	return front, front + cuda.DevicePtr(extra), ctrs, done, nil
}

// Gemm launches g on its stream in the calling thread's current context
// with configuration cfg, compiling its kernel if it is not loaded yet. It
// does not synchronize (tuners, benchmarks, tests).
func (rt *Runtime) Gemm(g *request.Gemm, cfg ptx.GemmConfig) error {
	t, k, err := rt.kernelFor(g, cfg)
	if err != nil {
		return err
	}
	return rt.Launch(t, g, k)
}

// Prepare loads (generating and compiling if needed) the kernel that
// Gemm(g, cfg) would launch, without launching it: a tuner compiles its
// candidates ahead, from many threads, each with the context current.
func (rt *Runtime) Prepare(g *request.Gemm, cfg ptx.GemmConfig) error {
	_, _, err := rt.kernelFor(g, cfg)
	return err
}

// Registers is how many registers per thread the driver gave the kernel of
// cfg for g's input class (loading it first, as Prepare does).
func (rt *Runtime) Registers(g *request.Gemm, cfg ptx.GemmConfig) (int, error) {
	_, k, err := rt.kernelFor(g, cfg)
	if err != nil {
		return 0, err
	}
	return k.Registers()
}

// kernelFor is cfg's kernel for g in the current context, where cfg is
// legal for g's class.
func (rt *Runtime) kernelFor(g *request.Gemm, cfg ptx.GemmConfig) (Target, *Kernel, error) {
	t, err := rt.Target(g)
	if err != nil {
		return t, nil, err
	}
	k, err := rt.legalKernel(t, cfg)
	return t, k, err
}

// legalKernel is cfg's kernel for t, cfg legal for t's class (else
// ErrUnsupported).
func (rt *Runtime) legalKernel(t Target, cfg ptx.GemmConfig) (*Kernel, error) {
	if err := ptx.Legal(cfg, t.Class, t.Dev.Limits); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return rt.Kernel(t, cfg)
}

func launch(rec *Recording, f cuda.Function, k *ptx.Kernel, grid [3]int, s cuda.Stream, p *cuda.Params) error {
	return launchAfter(rec, f, k, grid, s, p, false)
}

// launchAfter is launch, as a programmatic dependent of the grid before it
// in s where dependent is set and k waits for that grid
// (ptx.Kernel.WaitsOnPrior); recorded into rec where it is set.
func launchAfter(rec *Recording, f cuda.Function, k *ptx.Kernel, grid [3]int, s cuda.Stream, p *cuda.Params, dependent bool) error {
	var cluster cuda.Dim3
	if cl := k.Cluster(); cl > 0 {
		cluster = cuda.Dim3{1, 1, uint32(cl)}
	}
	return put(rec, f, dims(grid), blockOf(k), cluster, dependent && k.WaitsOnPrior(), k.SharedBytes, s, p)
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
