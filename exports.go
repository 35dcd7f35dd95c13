// Command isaac is built with -buildmode=c-shared into libisaac.so, the
// drop-in shim in front of cuBLAS and cuDNN. This file is the Go side of
// every exported entry point: the C entry points in package shim call these
// functions, which decode the call, let the dispatcher decide and return
// ISAAC_SERVED or the reason the vendor must take the call.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/shim
#include "shim.h"
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/dispatch"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/shim"
)

//export isaac_go_gemm
func isaac_go_gemm(call *C.isaac_gemm_call) (reason C.int) {
	defer recoverAsError(&reason)
	var g request.Gemm
	p := unsafe.Pointer(call)
	shim.DecodeGemm(p, &g)
	if r := dispatch.DecideGemm(&g); r != request.Served {
		return C.int(r)
	}
	if r := shim.ReadGemmState(p, &g); r != request.Served {
		return C.int(r)
	}
	return C.int(dispatch.ServeGemm(&g))
}

//export isaac_go_gemm_after
func isaac_go_gemm_after(call *C.isaac_gemm_call) {
	defer func() { recover() }()
	var g request.Gemm
	p := unsafe.Pointer(call)
	shim.DecodeGemm(p, &g)
	if shim.ReadGemmState(p, &g) == request.Served {
		dispatch.AfterGemm(&g)
	}
}

//export isaac_go_conv
func isaac_go_conv(call *C.isaac_conv_call) (reason C.int) {
	defer recoverAsError(&reason)
	var c request.Conv
	if r := shim.DecodeConv(unsafe.Pointer(call), &c); r != request.Served {
		return C.int(r)
	}
	return C.int(dispatch.Conv(&c))
}

// recoverAsError turns a panic into "not served": the host process never
// crashes because of us, and the vendor computes the call.
func recoverAsError(reason *C.int) {
	if recover() != nil {
		*reason = C.int(request.FwdError)
	}
}

func main() {}
