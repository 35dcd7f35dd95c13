package cuda

/*
#include "calls.h"
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Graph is a captured CUgraph; GraphExec its instantiation. Applications
// capture cuBLAS calls into graphs; the shim's launches must be legal there,
// and the tests capture them.
type (
	Graph     uintptr
	GraphExec uintptr
)

// CaptureMode is CUstreamCaptureMode: which threads' potentially unsafe
// calls (outside any stream's order) a capture forbids while it lasts.
type CaptureMode int

// CUstreamCaptureMode values.
const (
	// CaptureGlobal (the default of cudaStreamBeginCapture, and PyTorch's):
	// an unsafe call on any thread whose own mode is not relaxed
	// invalidates the capture.
	CaptureGlobal CaptureMode = 0
	// CaptureThreadLocal: an unsafe call on the capturing thread does.
	CaptureThreadLocal CaptureMode = 1
	// CaptureRelaxed: none does.
	CaptureRelaxed CaptureMode = 2
)

// CaptureModes are the three modes, for tests that try each.
var CaptureModes = [...]CaptureMode{CaptureGlobal, CaptureThreadLocal, CaptureRelaxed}

func (m CaptureMode) String() string {
	switch m {
	case CaptureGlobal:
		return "global"
	case CaptureThreadLocal:
		return "thread_local"
	case CaptureRelaxed:
		return "relaxed"
	}
	return fmt.Sprintf("CaptureMode(%d)", int(m))
}

// BeginCapture starts capturing s in the given mode.
func (s Stream) BeginCapture(mode CaptureMode) error {
	return check("cuStreamBeginCapture", C.isaac_cu_begin_capture(C.uintptr_t(s), C.int(mode)))
}

// SetRelaxUnsafeCalls turns on (the default) or off the relaxed capture
// mode of the binding's calls outside stream order (module loads, events,
// memory pools: see ISAAC_CU_RELAXED in calls.h), and returns the previous
// setting. Off is for tests that show what those calls would do to a
// capture without it.
func SetRelaxUnsafeCalls(on bool) bool {
	v := C.int(0)
	if on {
		v = 1
	}
	return C.isaac_set_relax_unsafe_calls(v) != 0
}

// EndCapture ends the capture and returns the graph.
func (s Stream) EndCapture() (Graph, error) {
	var g C.CUgraph
	err := check("cuStreamEndCapture", C.isaac_cu_end_capture(C.uintptr_t(s), &g))
	return Graph(unsafe.Pointer(g)), err
}

// Instantiate makes an executable graph.
func (g Graph) Instantiate() (GraphExec, error) {
	var e C.CUgraphExec
	err := check("cuGraphInstantiate", C.isaac_cu_graph_instantiate(&e, C.uintptr_t(g)))
	return GraphExec(unsafe.Pointer(e)), err
}

// Destroy destroys the graph.
func (g Graph) Destroy() error {
	return check("cuGraphDestroy", C.isaac_cu_graph_destroy(C.uintptr_t(g)))
}

// Launch launches the executable graph on s.
func (e GraphExec) Launch(s Stream) error {
	return check("cuGraphLaunch", C.isaac_cu_graph_launch(C.uintptr_t(e), C.uintptr_t(s)))
}

// Destroy destroys the executable graph.
func (e GraphExec) Destroy() error {
	return check("cuGraphExecDestroy", C.isaac_cu_graph_exec_destroy(C.uintptr_t(e)))
}
