package serve

import "github.com/isaacgo/isaac/request"

// Classify returns request.Served for a GEMM that ISAAC's kernels could
// compute, or the reason the vendor must take it: arguments the vendor
// rejects (it gives its own status), nothing to compute, sizes beyond 32
// bits, a type ISAAC does not serve.
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
	}
	return request.Served
}
