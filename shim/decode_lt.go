package shim

/*
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/request"
)

// DecodeLt turns the C record of a cublasLtMatmul call (an isaac_lt_call
// whose descriptors the entry point has read) into a request.LtMatmul.
// Its scalars are read later, by ReadLtScalars, once the dispatcher would
// serve the call.
func DecodeLt(call unsafe.Pointer, l *request.LtMatmul) {
	c := (*C.isaac_lt_call)(call)
	st := &c.state
	*l = request.LtMatmul{
		Handle:            uintptr(c.handle),
		Stream:            uintptr(c.stream),
		Compute:           request.ComputeType(st.compute_type),
		Scale:             request.DataType(st.scale_type),
		PointerMode:       int(st.pointer_mode),
		TransA:            request.Op(st.transa),
		TransB:            request.Op(st.transb),
		TransC:            request.Op(st.transc),
		Epilogue:          int(st.epilogue),
		Bias:              uintptr(st.bias),
		BiasType:          request.DataType(st.bias_type),
		BiasBatchStride:   int64(st.bias_batch_stride),
		AuxPointer:        uintptr(st.aux),
		ScalePointers:     st.scaled != 0,
		AlphaVectorStride: int64(st.alpha_vector_batch_stride),
		A:                 ltMatrix(&st.a),
		B:                 ltMatrix(&st.b),
		C:                 ltMatrix(&st.c),
		D:                 ltMatrix(&st.d),
		APtr:              uintptr(c.A),
		BPtr:              uintptr(c.B),
		CPtr:              uintptr(c.C),
		DPtr:              uintptr(c.D),
		Alpha:             uintptr(c.alpha),
		Beta:              uintptr(c.beta),
	}
}

func ltMatrix(l *C.isaac_lt_layout) request.LtMatrix {
	return request.LtMatrix{
		Type:        request.DataType(l._type),
		Order:       request.LtOrder(l.order),
		Rows:        int64(l.rows),
		Cols:        int64(l.cols),
		LD:          int64(l.ld),
		Batch:       int64(l.batch),
		BatchMode:   int(l.batch_mode),
		Stride:      int64(l.stride),
		PlaneOffset: int64(l.plane_offset),
	}
}

// ReadLtScalars reads the alpha and beta of call (an isaac_lt_call) into
// g, its request (the pointer mode set from the descriptor): their values
// when they live on the host.
func ReadLtScalars(call unsafe.Pointer, g *request.Gemm) {
	c := (*C.isaac_lt_call)(call)
	onDevice := g.PointerMode == request.PointerDevice
	g.Alpha = readScalar(c.alpha, onDevice, gemmScalarType(g))
	g.Beta = readScalar(c.beta, onDevice, gemmScalarType(g))
}

// ForwardAllLt has the entry point forward every later cublasLtMatmul
// call to cuBLASLt (reason policy) without reading its descriptors or
// asking Go: the policy serves none.
func ForwardAllLt() { C.isaac_lt_forward_all() }

// RememberLt has the entry point forward every later cublasLtMatmul call
// like the one at call (same handle, descriptors, pointer alignments,
// D in place or not) to cuBLASLt without asking Go, with reason r: r must
// be settled (Reason.Settled). A reason not settled is not remembered.
func RememberLt(call unsafe.Pointer, r request.Reason) {
	if r.Settled() {
		C.isaac_lt_remember((*C.isaac_lt_call)(call), C.int(r))
	}
}

// SetLtToken keeps t in the call record for the hook that follows a
// forward with reason request.FwdMeasuring.
func SetLtToken(call unsafe.Pointer, t uintptr) { (*C.isaac_lt_call)(call).token = C.uintptr_t(t) }

// LtToken is the call record's token (0: none).
func LtToken(call unsafe.Pointer) uintptr { return uintptr((*C.isaac_lt_call)(call).token) }
