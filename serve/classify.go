package serve

import "github.com/isaacgo/isaac/request"

// Classify returns request.Served for a GEMM that ISAAC's kernels could
// compute, or the reason the vendor must take it: arguments the vendor
// rejects (it gives its own status), nothing to compute, sizes beyond 32
// bits, a type ISAAC does not serve, a batch the kernels do not compute
// (batchServable).
func Classify(g *request.Gemm) request.Reason {
	_, typed := request.TypeOf(g)
	switch {
	case g.Validate() != nil:
		return request.FwdInvalid
	case g.Empty():
		return request.FwdEmpty
	case !g.Fits32():
		return request.FwdTooLarge
	case !typed:
		return request.FwdUnsupported
	case !batchServable(g):
		return request.FwdUnsupported
	}
	return request.Served
}

// batchServable reports whether the kernels can compute g's batch. A batch
// of one matrix is the plain GEMM of its A, B and C (the strides point past
// it, to matrices that are not there). A batch of several (the kernels'
// grid walks it, ptx.InputClass.Batched) needs strides that do not go
// backwards, and matrices of C that do not overlap: where they do, the
// result depends on the order in which cuBLAS writes them.
func batchServable(g *request.Gemm) bool {
	switch {
	case g.Batch <= 1:
		return true
	case g.StrideA < 0 || g.StrideB < 0 || g.StrideC < 0:
		return false
	case g.StrideC < g.LDC*g.N:
		return false
	}
	return true
}
