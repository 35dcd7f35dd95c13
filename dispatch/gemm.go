package dispatch

import (
	"github.com/isaacgo/isaac/engine"
	"github.com/isaacgo/isaac/request"
)

// DecideGemm answers request.Served when ISAAC may serve g (given its
// arguments alone), or why the vendor must take it: a class ISAAC does not
// serve, or ISAAC_POLICY=never. The caller then completes g with the
// handle's state and calls ServeGemm, which makes the final decision.
func DecideGemm(g *request.Gemm) request.Reason {
	if r := ClassifyGemm(g); r != request.Served {
		return r
	}
	if policy() == PolicyNever {
		return request.FwdPolicy
	}
	return request.Served
}

// ServeGemm runs g, complete with its handle's state, when the policy
// decides so: under auto (the default) only where the device's performance
// model predicts a win over the vendor, under always (or a forced
// ISAAC_CONFIG) every time. Any other outcome is a forward reason.
func ServeGemm(g *request.Gemm) request.Reason {
	mode := engine.Auto
	if policy() == PolicyAlways {
		mode = engine.Always
	}
	return engine.Serve(g, mode)
}

// AfterGemm follows a call ServeGemm forwarded with reason
// request.FwdMeasuring, once the vendor's call is on g's stream: it closes
// the vendor's timing (engine.AfterForward).
func AfterGemm(g *request.Gemm) { engine.AfterForward(g) }

// ClassifyGemm returns request.Served for a GEMM that ISAAC's kernels could
// compute, or the reason the vendor must take it.
func ClassifyGemm(g *request.Gemm) request.Reason {
	if g.Validate() != nil {
		return request.FwdInvalid
	}
	if g.Empty() {
		return request.FwdEmpty
	}
	if !g.Fits32() {
		return request.FwdTooLarge
	}
	if !SupportedGemmTypes(g.AType, g.BType, g.CType, g.Compute) {
		return request.FwdUnsupported
	}
	return request.Served
}

// SupportedGemmTypes reports the data and compute types ISAAC serves:
// cublasSgemm/Dgemm/Hgemm and cublasGemmEx with 16F/16F→16F (compute 32F or
// 16F), 16BF/16BF→16BF (compute 32F), 32F (compute 32F, 32F_PEDANTIC or
// 32F_FAST_TF32) and 64F (compute 64F).
func SupportedGemmTypes(a, b, c request.DataType, compute request.ComputeType) bool {
	if a != b || b != c {
		return false
	}
	switch a {
	case request.R16F:
		return compute == request.Compute32F || compute == request.Compute16F
	case request.R16BF:
		return compute == request.Compute32F
	case request.R32F:
		return compute == request.Compute32F || compute == request.Compute32FPedantic ||
			compute == request.Compute32FFastTF32
	case request.R64F:
		return compute == request.Compute64F
	}
	return false
}
