package shim

/*
#include "shim.h"
*/
import "C"

// cReasons and cEntries are shim.h's enums in the order of request.Reason
// and request.Entry; a test checks that the Go and C numbering agree.
var cReasons = [...]C.int{
	C.ISAAC_SERVED, C.ISAAC_FWD_DISABLED, C.ISAAC_FWD_FORK, C.ISAAC_FWD_NO_GO,
	C.ISAAC_FWD_HANDLE, C.ISAAC_FWD_INVALID, C.ISAAC_FWD_EMPTY, C.ISAAC_FWD_UNSUPPORTED,
	C.ISAAC_FWD_TOO_LARGE, C.ISAAC_FWD_NO_KERNEL, C.ISAAC_FWD_NO_DRIVER, C.ISAAC_FWD_POLICY,
	C.ISAAC_FWD_ERROR,
}

const cReasonCount = C.ISAAC_REASON_COUNT

var cEntries = [...]C.int{
	C.ISAAC_ENTRY_SGEMM, C.ISAAC_ENTRY_DGEMM, C.ISAAC_ENTRY_HGEMM, C.ISAAC_ENTRY_GEMMEX,
	C.ISAAC_ENTRY_SGEMM_64, C.ISAAC_ENTRY_DGEMM_64, C.ISAAC_ENTRY_HGEMM_64, C.ISAAC_ENTRY_GEMMEX_64,
	C.ISAAC_ENTRY_CONV_FWD,
}
