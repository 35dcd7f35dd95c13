// Command isaac is built with -buildmode=c-shared into libisaac.so, the
// drop-in shim in front of cuBLAS and cuDNN. This file is the Go side of
// every exported entry point: the C entry points in package shim call these
// functions, which hand the call to the process's server (package serve)
// and return ISAAC_SERVED or the reason the vendor must take the call.
package main

/*
#cgo CFLAGS: -I${SRCDIR}/shim
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"os"
	"runtime/cgo"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
	"github.com/isaacgo/isaac/shim"
)

// server is the process's server, its options read from the environment at
// the first call; started holds it once made.
var (
	server = sync.OnceValue(func() *serve.Server {
		s := serve.New(serve.FromEnv())
		// The driver's PTX compiler, loaded at its first JIT, registers
		// exit code that must run after isaac_go_exit: registered again.
		s.Runtime().AfterFirstCompile(func() { C.isaac_go_exit_register() })
		// Launches the entry points repeat from C may use a stream's
		// workspace: dropped before it moves.
		s.Runtime().OnWorkspaceMove(shim.ForgetConvRepeats)
		started.Store(s)
		return s
	})
	started atomic.Pointer[serve.Server]
)

// exitWait is how long the process's exit waits for the server's
// background work (a kernel being compiled) to end.
const exitWait = 5 * time.Second

// exited: isaac_go_exit has run (its handler may be registered twice).
var exited atomic.Bool

//export isaac_go_exit
func isaac_go_exit() {
	defer func() { recover() }()
	if exited.Swap(true) {
		return
	}
	if s := started.Load(); s != nil {
		shim.ForgetConvRepeats(^uint64(0)) // from now on every call comes to Go, which ends
		t0 := time.Now()
		ended := s.Close(exitWait)
		if s.Options().Log && s.BackgroundRuns() > 0 {
			state := "all ended"
			if !ended {
				state = "not all ended"
			}
			fmt.Fprintf(os.Stderr, "isaac: exit: %d decisions made in the background, %s (waited %v)\n",
				s.BackgroundRuns(), state, time.Since(t0).Round(time.Microsecond))
		}
	}
}

// gemmCall is an intercepted GEMM's C record, as serve.GemmCall.
type gemmCall struct{ p unsafe.Pointer }

func (c gemmCall) Arguments(g *request.Gemm)                  { shim.DecodeGemm(c.p, g) }
func (c gemmCall) HandleState(g *request.Gemm) request.Reason { return shim.ReadGemmState(c.p, g) }
func (c gemmCall) SetToken(t serve.Token)                     { shim.SetToken(c.p, uintptr(cgo.NewHandle(t))) }

//export isaac_go_gemm
func isaac_go_gemm(call *C.isaac_gemm_call) (reason C.int) {
	defer recoverAsError(&reason)
	r := server().Gemm(gemmCall{unsafe.Pointer(call)})
	shim.RememberGemm(unsafe.Pointer(call), r) // a settled reason: later calls like it stay in C
	return C.int(r)
}

//export isaac_go_gemm_after
func isaac_go_gemm_after(call *C.isaac_gemm_call) {
	defer func() { recover() }()
	if t := shim.Token(unsafe.Pointer(call)); t != 0 {
		h := cgo.Handle(t)
		defer h.Delete()
		server().AfterForward(h.Value().(serve.Token))
	}
}

//export isaac_go_conv
func isaac_go_conv(call *C.isaac_conv_call) (reason C.int) {
	defer recoverAsError(&reason)
	srv := server()
	if r := srv.ConvPolicy(); r != request.Served {
		shim.ForwardAllConvs() // no call of this policy is decoded, nor any later one handed to Go
		return C.int(r)
	}
	var c request.Conv
	if r := shim.DecodeConv(unsafe.Pointer(call), &c); r != request.Served {
		return C.int(r)
	}
	var r request.Reason
	var t serve.Token
	if shim.ConvRepeatsRoom() {
		var rep serve.Repeat
		var ok bool
		if r, t, rep, ok = srv.ConvRepeating(&c); ok { // later calls like it are launched from C
			shim.RememberConvRepeat(unsafe.Pointer(call), rep.Ctx, rep.Workspace, rep.RecordedAt, rep.Launches)
		}
	} else {
		r, t = srv.Conv(&c)
	}
	if r == request.FwdMeasuring {
		shim.SetConvToken(unsafe.Pointer(call), uintptr(cgo.NewHandle(t)))
	}
	shim.RememberConv(unsafe.Pointer(call), r) // a settled reason: later calls like it stay in C
	return C.int(r)
}

//export isaac_go_conv_after
func isaac_go_conv_after(call *C.isaac_conv_call) {
	defer func() { recover() }()
	if t := shim.ConvToken(unsafe.Pointer(call)); t != 0 {
		h := cgo.Handle(t)
		defer h.Delete()
		server().AfterForward(h.Value().(serve.Token))
	}
}

//export isaac_go_graph_plan
func isaac_go_graph_plan(plan *C.isaac_graph_plan, js *C.char, n C.int64_t, notes *C.int, nnotes C.int) (reason C.int) {
	defer recoverAsError(&reason)
	ns := make([]int, int(nnotes))
	for i, v := range unsafe.Slice(notes, int(nnotes)) {
		ns[i] = int(v)
	}
	return C.int(shim.DecodeGraphPlan(unsafe.Pointer(plan), C.GoBytes(unsafe.Pointer(js), C.int(n)), ns))
}

// ltCall is an intercepted cublasLtMatmul, decoded (g), as serve.GemmCall.
type ltCall struct {
	p unsafe.Pointer
	g *request.Gemm
}

func (c ltCall) Arguments(g *request.Gemm) { *g = *c.g }
func (c ltCall) HandleState(g *request.Gemm) request.Reason {
	shim.ReadLtScalars(c.p, g) // cuBLASLt has no handle state: the descriptor said it all
	return request.Served
}
func (c ltCall) SetToken(t serve.Token) { shim.SetLtToken(c.p, uintptr(cgo.NewHandle(t))) }

//export isaac_go_lt
func isaac_go_lt(call *C.isaac_lt_call) (reason C.int) {
	defer recoverAsError(&reason)
	srv := server()
	if r := srv.LtPolicy(); r != request.Served {
		shim.ForwardAllLt() // no later call is read or handed to Go
		return C.int(r)
	}
	var l request.LtMatmul
	shim.DecodeLt(unsafe.Pointer(call), &l)
	g, r := l.Gemm(request.EntryLtMatmul)
	if r == request.Served {
		r = srv.Gemm(ltCall{unsafe.Pointer(call), g})
	}
	shim.RememberLt(unsafe.Pointer(call), r) // a settled reason: later calls like it stay in C
	return C.int(r)
}

//export isaac_go_lt_after
func isaac_go_lt_after(call *C.isaac_lt_call) {
	defer func() { recover() }()
	if t := shim.LtToken(unsafe.Pointer(call)); t != 0 {
		h := cgo.Handle(t)
		defer h.Delete()
		server().AfterForward(h.Value().(serve.Token))
	}
}

// recoverAsError turns a panic into "not served": the host process never
// crashes because of us, and the vendor computes the call.
func recoverAsError(reason *C.int) {
	if recover() != nil {
		*reason = C.int(request.FwdError)
	}
}

func main() {}
