package shim

/*
#include <stdlib.h>
#include "conv_repeats.h"

// repeat_driver is the driver of internal/cuda's C functions at these
// addresses (passed as integers: cgo does not convert function pointers).
static isaac_repeat_driver repeat_driver(uintptr_t launch, uintptr_t launch_ex, uintptr_t context, uintptr_t capturing)
{
	isaac_repeat_driver d = {
		(void *)launch, (void *)launch_ex, (void *)context, (void *)capturing,
	};
	return d;
}
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/internal/cuda"
)

// RememberConvRepeat has the entry point serve every later call like the
// one at call (decoded: DecodeConv; the same handle, descriptors, pointer
// alignments, context, stream and scalars) by launching its kernels as
// launches say, patched with the call's addresses, without asking Go:
// launches recorded in context ctx, when the streams' workspaces had moved
// recordedAt times, using the stream's kept workspace (workspace) or
// none (serve.Server.ConvRepeat). It reports whether they are kept: not
// where the table is full, the call kept already, a workspace moved since
// the recording or a launch is beyond the table's limits.
func RememberConvRepeat(call unsafe.Pointer, ctx uint64, workspace bool, recordedAt uint64, launches []cuda.LaunchRecord) bool {
	launch, launchEx, current, capturing, err := cuda.LaunchEntries()
	if err != nil {
		return false
	}
	drv := C.repeat_driver(C.uintptr_t(uintptr(launch)), C.uintptr_t(uintptr(launchEx)),
		C.uintptr_t(uintptr(current)), C.uintptr_t(uintptr(capturing)))
	return rememberRepeat(call, &drv, ctx, workspace, recordedAt, launches)
}

// rememberRepeat is RememberConvRepeat with driver drv (tests: a fake).
func rememberRepeat(call unsafe.Pointer, drv *C.isaac_repeat_driver, ctx uint64, workspace bool, recordedAt uint64,
	launches []cuda.LaunchRecord) bool {
	n := len(launches)
	if n < 1 || n > C.ISAAC_REPEAT_LAUNCHES {
		return false
	}
	ls := (*[C.ISAAC_REPEAT_LAUNCHES]C.isaac_repeat_launch)(C.calloc(C.size_t(n), C.sizeof_isaac_repeat_launch))
	if ls == nil {
		return false
	}
	defer C.free(unsafe.Pointer(ls))
	for i, l := range launches {
		if !fillLaunch(&ls[i], l) {
			return false
		}
	}
	ws := C.int(0)
	if workspace {
		ws = 1
	}
	return C.isaac_conv_repeat_remember((*C.isaac_conv_call)(call), drv, C.ulonglong(ctx), ws,
		C.uint64_t(recordedAt), &ls[0], C.int(n)) == 1
}

// fillLaunch writes l into c, or reports that it is beyond the table's
// limits.
func fillLaunch(c *C.isaac_repeat_launch, l cuda.LaunchRecord) bool {
	if len(l.Params) > C.ISAAC_REPEAT_PARAM_BYTES || len(l.Offsets) > C.ISAAC_REPEAT_PARAMS ||
		len(l.Patches) > C.ISAAC_REPEAT_PATCHES || l.SharedBytes < 0 {
		return false
	}
	c.fn = C.uintptr_t(l.Fn)
	for i := 0; i < 3; i++ {
		c.grid[i], c.block[i], c.cluster[i] = C.uint(l.Grid[i]), C.uint(l.Block[i]), C.uint(l.Cluster[i])
	}
	if l.Dependent {
		c.dependent = 1
	}
	c.shared_bytes = C.uint(l.SharedBytes)
	c.nparams, c.nbytes, c.npatches = C.int(len(l.Offsets)), C.int(len(l.Params)), C.int(len(l.Patches))
	for i, o := range l.Offsets {
		c.offsets[i] = C.int(o)
	}
	for i, p := range l.Patches {
		c.patches[i] = C.isaac_repeat_patch{at: C.int32_t(p.At), operand: C.int32_t(p.Operand), add: C.int64_t(p.Add)}
	}
	for i, b := range l.Params {
		c.params[i] = C.uchar(b)
	}
	return true
}

// ConvRepeatsRoom reports whether the entry point's table takes another
// repeat.
func ConvRepeatsRoom() bool { return C.isaac_conv_repeats_room() != 0 }

// ForgetConvRepeats empties the table once no repeat is being launched:
// the streams' workspaces are about to move for the moves-th time (a
// repeat recorded before is refused from now on). ^uint64(0) keeps none
// from now on (the server closes).
func ForgetConvRepeats(moves uint64) { C.isaac_conv_repeats_forget(C.uint64_t(moves)) }

// ConvRepeatedCalls is how many calls the entry point served from the
// table (counted under ISAAC_LOG).
func ConvRepeatedCalls() uint64 { return uint64(C.isaac_conv_repeated_calls()) }
