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
	// The strided-batched GEMMs, after the convolution so that the entry
	// points before them keep their numbers.
	EntrySgemmStridedBatched
	EntryDgemmStridedBatched
	EntryHgemmStridedBatched
	EntryGemmStridedBatchedEx
	EntrySgemmStridedBatched64
	EntryDgemmStridedBatched64
	EntryHgemmStridedBatched64
	EntryGemmStridedBatchedEx64
	// cublasLtMatmul: one call of its descriptors (LtMatmul), a batch when
	// its layouts say so (Gemm.Batch), with an epilogue.
	EntryLtMatmul
	// cudnnBackendExecute: cuDNN's graph API, the executions of plans
	// whose one operation is a convolution (request.Conv, as
	// EntryConvForward's).
	EntryConvGraph
)

// Is64 reports whether the entry point takes 64-bit sizes.
func (e Entry) Is64() bool {
	return e >= EntrySgemm64 && e <= EntryGemmEx64 ||
		e >= EntrySgemmStridedBatched64 && e <= EntryGemmStridedBatchedEx64
}

// Batched reports whether the entry point is a strided-batched GEMM: its
// call carries strides and a batch count.
func (e Entry) Batched() bool {
	return e >= EntrySgemmStridedBatched && e <= EntryGemmStridedBatchedEx64
}

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

	// StrideA, StrideB and StrideC are the distances, in elements, from
	// one matrix of a strided-batched call to the next; Batch is its
	// number of matrices. The non-batched entry points have Batch 1 (and
	// strides 0): one matrix, and the strides are then irrelevant.
	StrideA, StrideB, StrideC int64
	Batch                     int64

	// The epilogue of a cublasLtMatmul call: D = Act(alpha·op(A)·op(B) +
	// beta·C + bias), bias (C's type, one element per row, 0: none) added
	// to every column (the same bias for every matrix of a batch). D is 0
	// (or C) in place; else D has C's layout (and a batch's D the strides
	// of C). The cuBLAS entry points leave them zero.
	D, Bias uintptr
	Act     Activation

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
	case g.Batch < 0:
		// cuBLAS's strided-batched routines reject batchCount < 0 (and
		// take any stride, negative ones too).
		return fmt.Errorf("%w: batchCount=%d", ErrInvalid, g.Batch)
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

// Empty reports a GEMM with nothing to compute or write (m or n is 0, or
// a strided-batched call of no matrices). A request of another entry point
// is one matrix whatever its Batch (requests built in Go may leave it 0).
func (g *Gemm) Empty() bool { return g.M == 0 || g.N == 0 || g.Entry.Batched() && g.Batch == 0 }

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

// BatchAlignment is Alignment for every matrix of a strided batch: with
// more than one matrix it also divides the byte stride between them, so
// that the batch's later matrices are aligned like its first.
func BatchAlignment(ptr uintptr, ld, stride, batch int64, elemSize int) int {
	a := Alignment(ptr, ld, elemSize)
	if batch <= 1 {
		return a
	}
	for a > elemSize && (stride*int64(elemSize))%int64(a) != 0 {
		a /= 2
	}
	return a
}

// AlignA, AlignB and AlignC are the vector alignments in bytes of A, B, C
// (of every matrix of a batch).
func (g *Gemm) AlignA() int { return BatchAlignment(g.A, g.LDA, g.StrideA, g.Batch, g.AType.Size()) }

// AlignB is B's vector alignment in bytes.
func (g *Gemm) AlignB() int { return BatchAlignment(g.B, g.LDB, g.StrideB, g.Batch, g.BType.Size()) }

// AlignC is C's vector alignment in bytes (and D's, out of place).
func (g *Gemm) AlignC() int {
	a := BatchAlignment(g.C, g.LDC, g.StrideC, g.Batch, g.CType.Size())
	if g.OutOfPlace() {
		a = min(a, BatchAlignment(g.D, g.LDC, g.StrideC, g.Batch, g.CType.Size()))
	}
	return a
}

// OutOfPlace reports a D apart from C (see Gemm.D).
func (g *Gemm) OutOfPlace() bool { return g.D != 0 && g.D != g.C }

// Activation is the elementwise function of an epilogue (cuBLASLt's RELU
// and GELU epilogues).
type Activation int

const (
	ActNone Activation = iota
	ActReLU
	ActGELU
)

func (g *Gemm) String() string {
	s := fmt.Sprintf("gemm %s%s m=%d n=%d k=%d %v/%v/%v compute=%v lda=%d ldb=%d ldc=%d",
		g.TransA, g.TransB, g.M, g.N, g.K, g.AType, g.BType, g.CType, g.Compute, g.LDA, g.LDB, g.LDC)
	if g.Entry.Batched() {
		s += fmt.Sprintf(" batch=%d strides=%d/%d/%d", g.Batch, g.StrideA, g.StrideB, g.StrideC)
	}
	return s
}
