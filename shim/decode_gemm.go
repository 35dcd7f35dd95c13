package shim

/*
#include "shim.h"
*/
import "C"

import (
	"math"
	"unsafe"

	"github.com/isaacgo/isaac/request"
)

// DecodeGemm turns the C call record at call (an isaac_gemm_call) into a
// typed request: the call's own arguments (for the non-batched entry
// points, whose records say so, a batch of 1 and strides 0). The handle's
// state and the scalars, which cost vendor calls, are read by
// ReadGemmState once the dispatcher decides it would serve the call.
func DecodeGemm(call unsafe.Pointer, g *request.Gemm) {
	c := (*C.isaac_gemm_call)(call)
	*g = request.Gemm{
		Entry:   request.Entry(c.entry),
		Handle:  uintptr(c.handle),
		TransA:  request.Op(c.transa),
		TransB:  request.Op(c.transb),
		AType:   request.DataType(c.a_type),
		BType:   request.DataType(c.b_type),
		CType:   request.DataType(c.c_type),
		Compute: request.ComputeType(c.compute_type),
		Algo:    int(c.algo),
		M:       int64(c.m),
		N:       int64(c.n),
		K:       int64(c.k),
		LDA:     int64(c.lda),
		LDB:     int64(c.ldb),
		LDC:     int64(c.ldc),
		A:       uintptr(c.A),
		B:       uintptr(c.B),
		C:       uintptr(c.C),
		StrideA: int64(c.stride_a),
		StrideB: int64(c.stride_b),
		StrideC: int64(c.stride_c),
		Batch:   int64(c.batch),
		// The scalars' values are read with the handle's pointer mode.
		Alpha: request.Scalar{Ptr: uintptr(c.alpha)},
		Beta:  request.Scalar{Ptr: uintptr(c.beta)},
	}
}

// ReadGemmState completes a decoded request with the handle's state, read
// through the vendor's getters (stream, pointer mode, math mode, atomics
// mode) unless the entry point read it for its lookup, and the scalars
// (their values when they live on the host). It answers request.FwdHandle
// when a getter fails: the vendor then returns its own status for that
// handle. The call's answer then depends on the state (RememberGemm).
func ReadGemmState(call unsafe.Pointer, g *request.Gemm) request.Reason {
	c := (*C.isaac_gemm_call)(call)
	if c.state_read == 0 {
		C.isaac_read_cublas_state(c.handle, &c.state)
		c.state_read = 1
	}
	c.state_used = 1
	st := c.state
	if st.status != 0 {
		return request.FwdHandle
	}
	g.Stream = uintptr(st.stream)
	g.PointerMode = request.PointerMode(st.pointer_mode)
	g.MathMode = request.MathMode(st.math_mode)
	g.Atomics = st.atomics_mode != 0
	onDevice := g.PointerMode == request.PointerDevice
	g.Alpha = readScalar(c.alpha, onDevice, gemmScalarType(g))
	g.Beta = readScalar(c.beta, onDevice, gemmScalarType(g))
	return request.Served
}

// gemmScalarType is the type of alpha and beta: the compute type's.
func gemmScalarType(g *request.Gemm) request.DataType {
	switch g.Compute {
	case request.Compute16F, request.Compute16FPedantic:
		return request.R16F
	case request.Compute64F, request.Compute64FPedantic:
		return request.R64F
	}
	return request.R32F
}

// readScalar reads a host scalar of type t (nothing for device pointers or
// NULL: cuBLAS rejects a NULL scalar itself).
func readScalar(p unsafe.Pointer, onDevice bool, t request.DataType) request.Scalar {
	s := request.Scalar{Ptr: uintptr(p), OnDevice: onDevice}
	if onDevice || p == nil {
		return s
	}
	switch t {
	case request.R16F:
		h := *(*uint16)(p)
		s.Value, s.Bits = request.HalfValue(h), uint64(h)
	case request.R64F:
		s.Value = *(*float64)(p)
		s.Bits = math.Float64bits(s.Value)
	default:
		f := *(*float32)(p)
		s.Value, s.Bits = float64(f), uint64(math.Float32bits(f))
	}
	return s
}

// SetToken keeps t in the call record for the hook that follows a
// forward with reason request.FwdMeasuring.
func SetToken(call unsafe.Pointer, t uintptr) { (*C.isaac_gemm_call)(call).token = C.uintptr_t(t) }

// Token is the call record's token (0: none).
func Token(call unsafe.Pointer) uintptr { return uintptr((*C.isaac_gemm_call)(call).token) }
