package cuda

/*
#include "calls.h"
*/
import "C"

import "unsafe"

// Graph is a captured CUgraph; GraphExec its instantiation. Applications
// capture cuBLAS calls into graphs; the shim's launches must be legal there,
// and the tests capture them.
type (
	Graph     uintptr
	GraphExec uintptr
)

// BeginCapture starts capturing s in thread-local mode.
func (s Stream) BeginCapture() error {
	return check("cuStreamBeginCapture", C.isaac_cu_begin_capture(C.uintptr_t(s), 1 /* THREAD_LOCAL */))
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
