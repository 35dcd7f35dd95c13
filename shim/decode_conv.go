package shim

/*
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/request"
)

// DecodeConv turns the C call record at call (an isaac_conv_call) into a
// typed request, reading the descriptors through cuDNN's getters. It answers
// request.FwdHandle when a getter fails.
func DecodeConv(call unsafe.Pointer, r *request.Conv) request.Reason {
	c := (*C.isaac_conv_call)(call)
	var st C.isaac_conv_state
	C.isaac_read_conv_state(c, &st)
	if st.status != 0 {
		return request.FwdHandle
	}
	if st.x_dims < 3 || st.x_dims > C.ISAAC_MAX_DIMS || st.y_dims != st.x_dims ||
		st.w_dims != st.x_dims || st.conv_dims != st.x_dims-2 {
		return request.FwdUnsupported
	}
	*r = request.Conv{
		Handle:         uintptr(c.handle),
		Stream:         uintptr(st.stream),
		X:              tensor(st.x_type, st.x_dims, &st.x_dim, &st.x_stride),
		Y:              tensor(st.y_type, st.y_dims, &st.y_dim, &st.y_stride),
		W:              request.Filter{Type: request.CudnnDataType(st.w_type), Format: int(st.w_format), Dims: ints(st.w_dim[:st.w_dims])},
		Pad:            ints(st.pad[:st.conv_dims]),
		Stride:         ints(st.stride[:st.conv_dims]),
		Dilation:       ints(st.dilation[:st.conv_dims]),
		Mode:           int(st.mode),
		Compute:        request.CudnnDataType(st.compute_type),
		Groups:         int(st.groups),
		MathType:       int(st.math_type),
		Algo:           int(c.algo),
		XPtr:           uintptr(c.x),
		WPtr:           uintptr(c.w),
		YPtr:           uintptr(c.y),
		Workspace:      uintptr(c.workspace),
		WorkspaceBytes: uint64(c.workspace_bytes),
	}
	// cuDNN scalars are host memory: double for double data, float otherwise.
	t := request.R32F
	if r.X.Type == request.CudnnDouble {
		t = request.R64F
	}
	r.Alpha = readScalar(c.alpha, false, t)
	r.Beta = readScalar(c.beta, false, t)
	return request.Served
}

func tensor(t C.int, n C.int, dims, strides *[C.ISAAC_MAX_DIMS]C.int) request.Tensor {
	return request.Tensor{Type: request.CudnnDataType(t), Dims: ints(dims[:n]), Strides: ints(strides[:n])}
}

func ints(cs []C.int) []int {
	out := make([]int, len(cs))
	for i, v := range cs {
		out[i] = int(v)
	}
	return out
}

// SetConvToken keeps t in the convolution's call record for the hook that
// follows a forward with reason request.FwdMeasuring.
func SetConvToken(call unsafe.Pointer, t uintptr) {
	(*C.isaac_conv_call)(call).token = C.uintptr_t(t)
}

// ConvToken is the convolution call record's token (0: none).
func ConvToken(call unsafe.Pointer) uintptr { return uintptr((*C.isaac_conv_call)(call).token) }
