package request

import (
	"errors"
	"fmt"
	"math"
)

// Entry identifies the exported function a call came through, in the order
// of shim/shim.h's enum isaac_entry.
type Entry int

// Entry points.
const (
	EntrySgemm Entry = iota
	EntryDgemm
	EntryHgemm
	EntryGemmEx
	EntrySgemm64
	EntryDgemm64
	EntryHgemm64
	EntryGemmEx64
	EntryConvForward
)

// Is64 reports whether the entry point takes 64-bit sizes.
func (e Entry) Is64() bool { return e >= EntrySgemm64 && e <= EntryGemmEx64 }

// Gemm is one column-major GEMM call, C = alpha·op(A)·op(B) + beta·C, with
// the state of its handle.
type Gemm struct {
	Entry  Entry
	Handle uintptr
	Stream uintptr

	TransA, TransB      Op
	AType, BType, CType DataType
	Compute             ComputeType // for legacy entry points, the one cuBLAS uses
	Algo                int         // cublasGemmAlgo_t; AlgoDefault for legacy entry points

	M, N, K       int64
	LDA, LDB, LDC int64
	A, B, C       uintptr
	Alpha, Beta   Scalar

	PointerMode PointerMode
	MathMode    MathMode
	Atomics     bool // the handle allows atomics (non-deterministic reductions)
}

// ErrInvalid marks arguments cuBLAS rejects with CUBLAS_STATUS_INVALID_VALUE.
var ErrInvalid = errors.New("invalid GEMM arguments")

// AlgoDefault is CUBLAS_GEMM_DEFAULT, the algorithm of the legacy entry
// points.
const AlgoDefault = -1

// ValidAlgo reports whether cuBLAS takes a as a cublasGemmAlgo_t:
// CUBLAS_GEMM_DEFAULT (-1), CUBLAS_GEMM_ALGO0–23 (0–23),
// CUBLAS_GEMM_DEFAULT_TENSOR_OP (99), CUBLAS_GEMM_ALGO0–15_TENSOR_OP
// (100–115), and 999, which cuBLAS 13.1 takes too. It rejects every other
// value with CUBLAS_STATUS_INVALID_VALUE: gputest/edge_cases.cu asks it
// for each value, and a test checks this function against its answers
// (gputest/results). ISAAC chooses its own kernel whatever the algorithm,
// as cuBLAS treats the named ones as hints.
func ValidAlgo(a int) bool {
	return a == AlgoDefault || a >= 0 && a <= 23 || a >= 99 && a <= 115 || a == 999
}

// Validate reports the arguments cuBLAS itself rejects; such calls go to the
// vendor so that the application gets exactly the vendor's status.
func (g *Gemm) Validate() error {
	switch {
	case g.TransA < OpN || g.TransA > OpC || g.TransB < OpN || g.TransB > OpC:
		return fmt.Errorf("%w: transa=%v transb=%v", ErrInvalid, g.TransA, g.TransB)
	case !ValidAlgo(g.Algo):
		return fmt.Errorf("%w: algo=%d", ErrInvalid, g.Algo)
	case g.Alpha.Ptr == 0 || g.Beta.Ptr == 0:
		return fmt.Errorf("%w: a NULL alpha or beta", ErrInvalid)
	case g.M < 0 || g.N < 0 || g.K < 0:
		return fmt.Errorf("%w: m=%d n=%d k=%d", ErrInvalid, g.M, g.N, g.K)
	}
	rowsA, rowsB := g.M, g.K
	if g.TransA.Transposed() {
		rowsA = g.K
	}
	if g.TransB.Transposed() {
		rowsB = g.N
	}
	if g.LDA < max(1, rowsA) || g.LDB < max(1, rowsB) || g.LDC < max(1, g.M) {
		return fmt.Errorf("%w: lda=%d ldb=%d ldc=%d for %s%s m=%d n=%d k=%d",
			ErrInvalid, g.LDA, g.LDB, g.LDC, g.TransA, g.TransB, g.M, g.N, g.K)
	}
	return nil
}

// Empty reports a GEMM with nothing to compute or write (m or n is 0).
func (g *Gemm) Empty() bool { return g.M == 0 || g.N == 0 }

// Fits32 reports whether every size and leading dimension fits the 32-bit
// integers that ISAAC's kernels take.
func (g *Gemm) Fits32() bool {
	for _, v := range [...]int64{g.M, g.N, g.K, g.LDA, g.LDB, g.LDC} {
		if v > math.MaxInt32 {
			return false
		}
	}
	return true
}

// Alignment is the largest power of two, at most 16, dividing the byte
// address of every column of a matrix: a vector load of that many bytes is
// legal on it.
func Alignment(ptr uintptr, ld int64, elemSize int) int {
	if elemSize <= 0 {
		return 0
	}
	a := 16
	for a > elemSize && (ptr%uintptr(a) != 0 || (ld*int64(elemSize))%int64(a) != 0) {
		a /= 2
	}
	return a
}

// AlignA, AlignB and AlignC are the vector alignments in bytes of A, B, C.
func (g *Gemm) AlignA() int { return Alignment(g.A, g.LDA, g.AType.Size()) }

// AlignB is B's vector alignment in bytes.
func (g *Gemm) AlignB() int { return Alignment(g.B, g.LDB, g.BType.Size()) }

// AlignC is C's vector alignment in bytes.
func (g *Gemm) AlignC() int { return Alignment(g.C, g.LDC, g.CType.Size()) }

func (g *Gemm) String() string {
	return fmt.Sprintf("gemm %s%s m=%d n=%d k=%d %v/%v/%v compute=%v lda=%d ldb=%d ldc=%d",
		g.TransA, g.TransB, g.M, g.N, g.K, g.AType, g.BType, g.CType, g.Compute, g.LDA, g.LDB, g.LDC)
}
