package main

import (
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
