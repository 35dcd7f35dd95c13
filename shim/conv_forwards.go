package shim

/*
#include <stdlib.h>
#include "shim.h"

// conv_record_set sets a test record's addresses (uintptr_t: not Go pointers).
static void conv_record_set(isaac_conv_call *c, uintptr_t handle, uintptr_t x, uintptr_t w, uintptr_t y, uintptr_t stream)
{
	c->handle = (void *)handle;
	c->x = (const void *)x;
	c->w = (const void *)w;
	c->y = (void *)y;
	c->state.stream = (void *)stream;
}
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/request"
)

// RememberConv has the entry point forward every later call like the one
// at call (same handle, descriptors and pointer alignments) to cuDNN
// without asking Go, with reason r: r must be settled (Reason.Settled), and
// the call decoded (DecodeConv). A reason not settled is not remembered.
func RememberConv(call unsafe.Pointer, r request.Reason) {
	if r.Settled() {
		C.isaac_conv_remember((*C.isaac_conv_call)(call), C.int(r))
	}
}

// ForwardAllConvs has the entry point forward every later convolution to
// cuDNN without asking Go (reason request.FwdPolicy): the process's policy
// serves none.
func ForwardAllConvs() { C.isaac_conv_forward_all() }

// convRecord is a convolution's C call record with its descriptors read,
// as the entry point makes it (tests of the remembered calls): its
// addresses, and x's dimensions.
type convRecord struct {
	p                       *C.isaac_conv_call
	handle, x, w, y, stream uintptr
}

func newConvRecord(handle, x, w, y uintptr, dims [4]int) *convRecord {
	p := (*C.isaac_conv_call)(C.calloc(1, C.sizeof_isaac_conv_call))
	p.alpha, p.beta = unsafe.Pointer(p), unsafe.Pointer(p)
	p.state_read = 1
	p.state.x_dims, p.state.y_dims, p.state.w_dims, p.state.conv_dims = 4, 4, 4, 2
	for i, d := range dims {
		p.state.x_dim[i] = C.int(d)
	}
	r := &convRecord{p: p, handle: handle, x: x, w: w, y: y}
	r.set()
	return r
}

// set writes the record's addresses into its C record.
func (r *convRecord) set() {
	C.conv_record_set(r.p, C.uintptr_t(r.handle), C.uintptr_t(r.x), C.uintptr_t(r.w), C.uintptr_t(r.y), C.uintptr_t(r.stream))
}

func (r *convRecord) free() { C.free(unsafe.Pointer(r.p)) }
func (r *convRecord) remember(reason request.Reason) {
	r.set()
	RememberConv(unsafe.Pointer(r.p), reason)
}
func (r *convRecord) setDim(i, d int) { r.p.state.x_dim[i] = C.int(d) }

// find is the entry point's lookup: the remembered reason, if any.
func (r *convRecord) find() (request.Reason, bool) {
	r.set()
	var reason C.int
	if C.isaac_conv_find(r.p, &reason) == 0 {
		return 0, false
	}
	return request.Reason(reason), true
}

// forgetConvs empties the table of remembered calls (tests: not while
// calls are made).
func forgetConvs() { C.isaac_conv_forget() }
