package shim

/*
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/request"
)

// DecodeGraphPlan fills the C plan record at plan (an isaac_graph_plan)
// from a cuDNN execution plan's JSON representation and its engine's
// numerical notes (ParseGraphPlan): the convolution's descriptors as
// cudnnConvolutionForward's getters would give them, and the tensors'
// unique ids. It answers the record's reason: request.Served for a plan
// the shim may serve, otherwise why cuDNN keeps it.
func DecodeGraphPlan(plan unsafe.Pointer, js []byte, notes []int) request.Reason {
	p := (*C.isaac_graph_plan)(plan)
	*p = C.isaac_graph_plan{}
	g, r := ParseGraphPlan(js, notes)
	p.reason = cReasons[r]
	if r != request.Served {
		return r
	}
	st := &p.state
	put := func(t Tensor64, typ *C.int, dims *C.int, dim, stride *[C.ISAAC_MAX_DIMS]C.int) {
		*typ, *dims = C.int(t.Type), 4
		for i := range 4 {
			dim[i] = C.int(t.Dims[i])
			if stride != nil {
				stride[i] = C.int(t.Strides[i])
			}
		}
	}
	put(g.X, &st.x_type, &st.x_dims, &st.x_dim, &st.x_stride)
	put(g.Y, &st.y_type, &st.y_dims, &st.y_dim, &st.y_stride)
	put(g.W, &st.w_type, &st.w_dims, &st.w_dim, nil)
	st.w_format = C.int(g.FilterFormat)
	st.conv_dims = 2
	for i := range 2 {
		if g.Pad[i] < 0 || g.Pad[i] >= 1<<31 || g.Stride[i] <= 0 || g.Stride[i] >= 1<<31 ||
			g.Dilation[i] <= 0 || g.Dilation[i] >= 1<<31 {
			p.reason = cReasons[request.FwdUnsupported]
			return request.FwdUnsupported
		}
		st.pad[i], st.stride[i], st.dilation[i] = C.int(g.Pad[i]), C.int(g.Stride[i]), C.int(g.Dilation[i])
	}
	if g.Groups <= 0 || g.Groups >= 1<<31 {
		p.reason = cReasons[request.FwdUnsupported]
		return request.FwdUnsupported
	}
	st.mode, st.compute_type, st.groups, st.math_type = C.int(g.Mode), C.int(g.Compute), C.int(g.Groups), C.int(g.MathType)
	p.uid_x, p.uid_w, p.uid_y = C.int64_t(g.UIDX), C.int64_t(g.UIDW), C.int64_t(g.UIDY)
	p.alpha, p.beta = C.double(g.Alpha), C.double(g.Beta)
	return request.Served
}
