package shim

/*
#include <stdlib.h>
#include "shim.h"

// gemm_record_set sets a test record's addresses (uintptr_t: not Go pointers).
static void gemm_record_set(isaac_gemm_call *c, uintptr_t handle, uintptr_t a, uintptr_t b, uintptr_t cc)
{
	c->handle = (void *)handle;
	c->A = (const void *)a;
	c->B = (const void *)b;
	c->C = (void *)cc;
}
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/request"
)

// RememberGemm has the entry point forward every later call like the one at
// call to cuBLAS without asking Go, with reason r: the same handle,
// arguments and pointer alignments, and where Go read the handle's state for
// its answer (ReadGemmState) the same state. A reason not settled
// (Reason.Settled) is not remembered.
func RememberGemm(call unsafe.Pointer, r request.Reason) {
	if r.Settled() {
		C.isaac_gemm_remember((*C.isaac_gemm_call)(call), C.int(r))
	}
}

// gemmRecord is a GEMM's C call record as the entry point makes it (tests
// of the remembered calls): its addresses, sizes and the handle's state.
type gemmRecord struct {
	p               *C.isaac_gemm_call
	handle, a, b, c uintptr
}

func newGemmRecord(handle, a, b, c uintptr, m, n, k int) *gemmRecord {
	p := (*C.isaac_gemm_call)(C.calloc(1, C.sizeof_isaac_gemm_call))
	p.alpha, p.beta = unsafe.Pointer(p), unsafe.Pointer(p)
	p.m, p.n, p.k = C.int64_t(m), C.int64_t(n), C.int64_t(k)
	p.lda, p.ldb, p.ldc = C.int64_t(m), C.int64_t(k), C.int64_t(m)
	p.batch = 1
	r := &gemmRecord{p: p, handle: handle, a: a, b: b, c: c}
	r.set()
	return r
}

func (r *gemmRecord) set() {
	C.gemm_record_set(r.p, C.uintptr_t(r.handle), C.uintptr_t(r.a), C.uintptr_t(r.b), C.uintptr_t(r.c))
}

func (r *gemmRecord) free() { C.free(unsafe.Pointer(r.p)) }

// remember is Go's answer r, given with the handle's state (mathMode) or
// from the arguments alone (mathMode < 0).
func (r *gemmRecord) remember(reason request.Reason, mathMode int) {
	r.set()
	r.p.state_used, r.p.state_read = 0, 0
	if mathMode >= 0 {
		r.p.state_used, r.p.state_read, r.p.state.math_mode = 1, 1, C.int(mathMode)
	}
	RememberGemm(unsafe.Pointer(r.p), reason)
}

// find is the entry point's lookup with the handle's state (its math mode)
// already read: the remembered reason, if any.
func (r *gemmRecord) find(mathMode int) (request.Reason, bool) {
	r.set()
	r.p.state_used, r.p.state_read, r.p.state.status, r.p.state.math_mode = 0, 1, 0, C.int(mathMode)
	var reason C.int
	if C.isaac_gemm_forwarded(r.p, &reason) == 0 {
		return 0, false
	}
	return request.Reason(reason), true
}

func (r *gemmRecord) setM(m int) { r.p.m = C.int64_t(m) }

// forgetGemms empties the tables of remembered calls (tests: not while
// calls are made).
func forgetGemms() { C.isaac_gemm_forget() }
