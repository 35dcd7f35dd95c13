package shim

/*
#include "shim.h"
*/
import "C"

import "github.com/isaacgo/isaac/request"

// cReasons and cEntries are shim.h's enums in the order of request.Reason
// and request.Entry; a test checks that the Go and C numbering agree.
var cReasons = [...]C.int{
	C.ISAAC_SERVED, C.ISAAC_FWD_DISABLED, C.ISAAC_FWD_FORK, C.ISAAC_FWD_NO_GO,
	C.ISAAC_FWD_HANDLE, C.ISAAC_FWD_INVALID, C.ISAAC_FWD_EMPTY, C.ISAAC_FWD_UNSUPPORTED,
	C.ISAAC_FWD_TOO_LARGE, C.ISAAC_FWD_NO_KERNEL, C.ISAAC_FWD_NO_DRIVER, C.ISAAC_FWD_POLICY,
	C.ISAAC_FWD_ERROR, C.ISAAC_FWD_NO_WEIGHTS, C.ISAAC_FWD_WEIGHTS, C.ISAAC_FWD_PREDICTED,
	C.ISAAC_FWD_SEARCHING, C.ISAAC_FWD_COMPILING, C.ISAAC_FWD_MEASURING, C.ISAAC_FWD_MEASURED,
	C.ISAAC_FWD_CAPTURING,
}

const cReasonCount = C.ISAAC_REASON_COUNT

var cEntries = [...]C.int{
	C.ISAAC_ENTRY_SGEMM, C.ISAAC_ENTRY_DGEMM, C.ISAAC_ENTRY_HGEMM, C.ISAAC_ENTRY_GEMMEX,
	C.ISAAC_ENTRY_SGEMM_64, C.ISAAC_ENTRY_DGEMM_64, C.ISAAC_ENTRY_HGEMM_64, C.ISAAC_ENTRY_GEMMEX_64,
	C.ISAAC_ENTRY_CONV_FWD,
	C.ISAAC_ENTRY_SGEMM_STRIDED_BATCHED, C.ISAAC_ENTRY_DGEMM_STRIDED_BATCHED,
	C.ISAAC_ENTRY_HGEMM_STRIDED_BATCHED, C.ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX,
	C.ISAAC_ENTRY_SGEMM_STRIDED_BATCHED_64, C.ISAAC_ENTRY_DGEMM_STRIDED_BATCHED_64,
	C.ISAAC_ENTRY_HGEMM_STRIDED_BATCHED_64, C.ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX_64,
	C.ISAAC_ENTRY_LT_MATMUL,
}

const cEntryCount = C.ISAAC_ENTRY_COUNT

// cEntryPairs name some of the C entries with their Go entries, for the
// test to check that the two lists line up where entries were appended.
var cEntryPairs = map[request.Entry]C.int{
	request.EntryGemmEx64:               C.ISAAC_ENTRY_GEMMEX_64,
	request.EntryConvForward:            C.ISAAC_ENTRY_CONV_FWD,
	request.EntrySgemmStridedBatched:    C.ISAAC_ENTRY_SGEMM_STRIDED_BATCHED,
	request.EntryGemmStridedBatchedEx:   C.ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX,
	request.EntrySgemmStridedBatched64:  C.ISAAC_ENTRY_SGEMM_STRIDED_BATCHED_64,
	request.EntryGemmStridedBatchedEx64: C.ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX_64,
	request.EntryLtMatmul:               C.ISAAC_ENTRY_LT_MATMUL,
}
