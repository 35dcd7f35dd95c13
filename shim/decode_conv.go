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
// typed request, reading the descriptors through cuDNN's getters (unless
// the entry point has read them already). It answers request.FwdHandle
// when a getter fails.
func DecodeConv(call unsafe.Pointer, r *request.Conv) request.Reason {
	c := (*C.isaac_conv_call)(call)
	switch c.state_read {
	case 0:
		C.isaac_read_conv_state(c, &c.state)
	case C.ISAAC_CONV_DESCRIPTORS: // the entry point read the descriptors, not the stream
		C.isaac_read_conv_stream(c, &c.state)
	}
	c.state_read = C.ISAAC_CONV_DESCRIPTORS | C.ISAAC_CONV_STREAM
	st := &c.state
	if st.status != 0 {
		return request.FwdHandle
	}
	if st.x_dims < 3 || st.x_dims > C.ISAAC_MAX_DIMS || st.y_dims != st.x_dims ||
		st.w_dims != st.x_dims || st.conv_dims != st.x_dims-2 {
		return request.FwdUnsupported
	}
	// One array holds every dimension the call's slices take (one
	// allocation a call, not seven: this runs on every convolution).
	nd, cd := int(st.x_dims), int(st.conv_dims)
	a := ints{buf: make([]int, 0, 5*nd+3*cd)}
	*r = request.Conv{
		Handle:         uintptr(c.handle),
		Stream:         uintptr(st.stream),
		X:              request.Tensor{Type: request.CudnnDataType(st.x_type), Dims: a.take(st.x_dim[:nd]), Strides: a.take(st.x_stride[:nd])},
		Y:              request.Tensor{Type: request.CudnnDataType(st.y_type), Dims: a.take(st.y_dim[:nd]), Strides: a.take(st.y_stride[:nd])},
		W:              request.Filter{Type: request.CudnnDataType(st.w_type), Format: int(st.w_format), Dims: a.take(st.w_dim[:nd])},
		Pad:            a.take(st.pad[:cd]),
		Stride:         a.take(st.stride[:cd]),
		Dilation:       a.take(st.dilation[:cd]),
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
		Graph:          c.graph != 0,
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

// ints hands out slices of one array.
type ints struct{ buf []int }

// take is cs as ints, the next len(cs) elements of the array.
func (a *ints) take(cs []C.int) []int {
	n := len(a.buf)
	for _, v := range cs {
		a.buf = append(a.buf, int(v))
	}
	return a.buf[n:len(a.buf):len(a.buf)]
}

// SetConvToken keeps t in the convolution's call record for the hook that
// follows a forward with reason request.FwdMeasuring.
func SetConvToken(call unsafe.Pointer, t uintptr) {
	(*C.isaac_conv_call)(call).token = C.uintptr_t(t)
}

// ConvToken is the convolution call record's token (0: none).
func ConvToken(call unsafe.Pointer) uintptr { return uintptr((*C.isaac_conv_call)(call).token) }
