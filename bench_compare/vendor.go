package main

import (
	"errors"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/request"
)

// vendorGemm is the vendor's call of g: for a cublasLtMatmul request (the
// linear suite's) cublasLtMatmul as PyTorch makes it, with the first
// algorithm of cuBLASLt's heuristic under PyTorch's workspace on Hopper
// (32 MiB; descriptors and algorithm kept per shape, so that a timed call
// is cublasLtMatmul alone); otherwise cuBLAS's routine (cublasGemmEx, or
// cublasGemmStridedBatchedEx for a batch).
func (b *bench) vendorGemm(g *request.Gemm) error {
	if g.Entry != request.EntryLtMatmul {
		return b.Vendor.Gemm(g)
	}
	if b.lt == nil {
		lt, err := cublas.NewLt()
		if err != nil {
			return err
		}
		ws, err := cuda.Alloc(cublas.LtWorkspaceBytes)
		if err != nil {
			lt.Destroy()
			return err
		}
		b.lt, b.ltWorkspace = lt, ws
	}
	return b.lt.Matmul(g, uintptr(b.ltWorkspace), cublas.LtWorkspaceBytes)
}

// arraysKey identifies a batched input's matrices: its buffers, strides,
// element sizes and batch count (the addresses of the pointer arrays'
// entries).
type arraysKey struct {
	a, b, c                   uintptr
	strideA, strideB, strideC int64
	sizeA, sizeB, sizeC       int
	batch                     int64
}

// errArraysUnaligned: an input whose matrices cuBLAS's batched GEMM of
// arrays of pointers may not be given (cublas.ArraysAligned).
var errArraysUnaligned = errors.New("cublas-arrays: a matrix not 16-byte aligned")

// arraysEngine is the column "cublas-arrays" (-vendor-arrays): a batched
// input run by cuBLAS's batched GEMM of arrays of pointers
// (cublasGemmBatchedEx), its arrays pointing at the strided layout's
// matrices, so that it computes what cublasGemmStridedBatchedEx does on
// the same buffers; an unbatched input by the vendor's own call. The
// arrays are made on an input's first call (its warm-up) and kept.
func arraysEngine(b *bench) engine {
	return engine{
		Name: "cublas-arrays",
		Run: func(g *request.Gemm) error {
			if !g.Entry.Batched() {
				return b.vendorGemm(g)
			}
			if !cublas.ArraysAligned(g) {
				return errArraysUnaligned
			}
			arr, err := b.pointerArrays(g)
			if err != nil {
				return err
			}
			return b.Vendor.GemmArrays(g, uintptr(arr[0]), uintptr(arr[1]), uintptr(arr[2]))
		},
		Describe: func(g *request.Gemm) string {
			if !g.Entry.Batched() {
				return "the vendor's call (not batched)"
			}
			return "cublasGemmBatchedEx (arrays of pointers to the same matrices)"
		},
	}
}

// pointerArrays are the device arrays of g's matrices of A, B and C, made
// on first use.
func (b *bench) pointerArrays(g *request.Gemm) ([3]cuda.DevicePtr, error) {
	k := arraysKey{g.A, g.B, g.C, g.StrideA, g.StrideB, g.StrideC, g.AType.Size(), g.BType.Size(), g.CType.Size(), g.Batch}
	if arr, ok := b.arrays[k]; ok {
		return arr, nil
	}
	arr, err := cublas.MatrixArrays(g)
	if err != nil {
		return arr, err
	}
	if b.arrays == nil {
		b.arrays = map[arraysKey][3]cuda.DevicePtr{}
	}
	b.arrays[k] = arr
	return arr, nil
}
