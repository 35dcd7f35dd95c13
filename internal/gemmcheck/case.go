package gemmcheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// Type is a served GEMM type (request.GemmType).
type Type = request.GemmType

// Types are the served types, request.GemmTypes.
var Types = request.GemmTypes

// Case is one GEMM input.
type Case struct {
	Type           Type
	TransA, TransB request.Op
	M, N, K        int
	PadA, PadB     int // leading dimension minus its minimum
	PadC           int
	OffA, OffB     int // pointer offset in elements (1: misaligned for vectors)
	OffC           int
	Alpha, Beta    float64
	DeviceScalars  bool
	Seed           uint64
}

func (c Case) String() string {
	ta, tb := "N", "N"
	if c.TransA.Transposed() {
		ta = "T"
	}
	if c.TransB.Transposed() {
		tb = "T"
	}
	return fmt.Sprintf("%s %s%s m=%d n=%d k=%d pad=%d,%d,%d off=%d,%d,%d alpha=%g beta=%g devscalars=%v",
		c.Type.Name, ta, tb, c.M, c.N, c.K, c.PadA, c.PadB, c.PadC, c.OffA, c.OffB, c.OffC,
		c.Alpha, c.Beta, c.DeviceScalars)
}

// Rows of the stored A and B (before op).
func (c Case) rowsA() int {
	if c.TransA.Transposed() {
		return c.K
	}
	return c.M
}

func (c Case) colsA() int {
	if c.TransA.Transposed() {
		return c.M
	}
	return c.K
}

func (c Case) rowsB() int {
	if c.TransB.Transposed() {
		return c.N
	}
	return c.K
}

func (c Case) colsB() int {
	if c.TransB.Transposed() {
		return c.K
	}
	return c.N
}

// LDA, LDB and LDC are the leading dimensions.
func (c Case) LDA() int { return max(1, c.rowsA()+c.PadA) }

// LDB is B's leading dimension.
func (c Case) LDB() int { return max(1, c.rowsB()+c.PadB) }

// LDC is C's leading dimension.
func (c Case) LDC() int { return max(1, c.M+c.PadC) }

// Elements of the stored A, B and C, offsets included.
func (c Case) ElemsA() int { return c.OffA + c.LDA()*max(c.colsA(), 1) }

// ElemsB is B's element count.
func (c Case) ElemsB() int { return c.OffB + c.LDB()*max(c.colsB(), 1) }

// ElemsC is C's element count.
func (c Case) ElemsC() int { return c.OffC + c.LDC()*max(c.N, 1) }

// logUniform draws an integer in [lo, hi], log-uniformly, sometimes a prime.
func logUniform(rng *rand.Rand, lo, hi int) int {
	v := int(math.Exp(math.Log(float64(lo)) + rng.Float64()*(math.Log(float64(hi))-math.Log(float64(lo)))))
	v = min(max(v, lo), hi)
	if rng.IntN(4) == 0 {
		for v < hi && !isPrime(v) {
			v++
		}
	}
	return v
}

func isPrime(v int) bool {
	if v < 2 {
		return false
	}
	for d := 2; d*d <= v; d++ {
		if v%d == 0 {
			return false
		}
	}
	return true
}

var scalars = []float64{1, 1, 0.5, -1.5, 2, 0}

// RandomCase draws a case of type t. maxWork bounds m·n·k (the host
// reference's cost); one dimension may still reach 5000, and k 100,000.
func RandomCase(rng *rand.Rand, t Type, maxWork int) Case {
	c := Case{Type: t, Seed: rng.Uint64()}
	c.TransA = request.Op(rng.IntN(2))
	c.TransB = request.Op(rng.IntN(2))
	for {
		switch rng.IntN(5) {
		case 0: // deep reduction, small output
			c.M, c.N, c.K = logUniform(rng, 1, 64), logUniform(rng, 1, 64), logUniform(rng, 1000, 100000)
		case 1: // one long dimension
			c.M, c.N, c.K = logUniform(rng, 1, 5000), logUniform(rng, 1, 32), logUniform(rng, 1, 256)
			if rng.IntN(2) == 0 {
				c.M, c.N = c.N, c.M
			}
		default:
			c.M, c.N, c.K = logUniform(rng, 1, 700), logUniform(rng, 1, 700), logUniform(rng, 1, 700)
		}
		if c.M*c.N*c.K <= maxWork {
			break
		}
	}
	if rng.IntN(3) == 0 {
		c.PadA, c.PadB, c.PadC = rng.IntN(9), rng.IntN(9), rng.IntN(9)
	}
	if rng.IntN(5) == 0 {
		c.OffA, c.OffB, c.OffC = rng.IntN(2), rng.IntN(2), rng.IntN(2)
	}
	c.Alpha = scalars[rng.IntN(len(scalars))]
	c.Beta = scalars[rng.IntN(len(scalars))]
	c.DeviceScalars = rng.IntN(5) == 0
	return c
}

// Entry is the cuBLAS entry point a program calls the case through: the
// type's own routine (cublasSgemm_v2, cublasDgemm_v2, cublasHgemm), where
// it has one, or cublasGemmEx, in the 32- or 64-bit API, drawn from the
// case's seed.
func (c Case) Entry() request.Entry {
	e := request.EntryGemmEx
	legacy := map[request.DataType]struct {
		compute request.ComputeType // the compute type cuBLAS uses for the routine
		entry   request.Entry
	}{
		request.R32F: {request.Compute32F, request.EntrySgemm},
		request.R64F: {request.Compute64F, request.EntryDgemm},
		request.R16F: {request.Compute16F, request.EntryHgemm},
	}
	if l, ok := legacy[c.Type.AB]; ok && c.Seed&1 == 0 && c.Type.C == c.Type.AB && c.Type.Compute() == l.compute {
		e = l.entry
	}
	if c.Seed&2 != 0 {
		e += request.EntrySgemm64 - request.EntrySgemm
	}
	return e
}

// Class is the generator's input class of the case (its alignments those
// of buffers allocated on 1 MiB boundaries, as the driver's are).
func (c Case) Class() ptx.InputClass {
	in, err := space.Class(c.RequestAt(0x100000, 0x200000, 0x300000, 0x400000, 0))
	if err != nil {
		panic(fmt.Sprintf("gemmcheck: %v has no input class: %v", c, err)) // every served type has one
	}
	return in
}

// RequestAt is the case's GEMM request for buffers allocated at a, b and c
// (before the case's offsets) and device scalars at scalars (alpha, then
// beta), as the shim would build it from a cuBLAS call.
func (c Case) RequestAt(a, b, cc, scalars, stream uintptr) *request.Gemm {
	es := func(t request.DataType) uintptr { return uintptr(t.Size()) }
	g := &request.Gemm{
		Entry:  c.Entry(),
		Algo:   request.AlgoDefault,
		Stream: stream,
		TransA: c.TransA, TransB: c.TransB,
		AType: c.Type.AB, BType: c.Type.AB, CType: c.Type.C, Compute: c.Type.Compute(),
		M: int64(c.M), N: int64(c.N), K: int64(c.K),
		LDA: int64(c.LDA()), LDB: int64(c.LDB()), LDC: int64(c.LDC()),
		A:        a + uintptr(c.OffA)*es(c.Type.AB),
		B:        b + uintptr(c.OffB)*es(c.Type.AB),
		C:        cc + uintptr(c.OffC)*es(c.Type.C),
		MathMode: c.Type.Math(),
	}
	ab, size := ScalarBits(c.Type.Compute(), c.Alpha)
	bb, _ := ScalarBits(c.Type.Compute(), c.Beta)
	if c.DeviceScalars {
		g.PointerMode = request.PointerDevice
		g.Alpha = request.Scalar{Ptr: scalars, OnDevice: true}
		g.Beta = request.Scalar{Ptr: scalars + uintptr(size), OnDevice: true}
	} else {
		g.Alpha = request.Scalar{Value: c.Alpha, Bits: ab}
		g.Beta = request.Scalar{Value: c.Beta, Bits: bb}
	}
	return g
}
