package cuda

/*
#include "calls.h"
*/
import "C"

import "unsafe"

// CaptureStatus is CUstreamCaptureStatus.
type CaptureStatus int

// CUstreamCaptureStatus values.
const (
	CaptureNone        CaptureStatus = 0
	CaptureActive      CaptureStatus = 1
	CaptureInvalidated CaptureStatus = 2
)

// NewStream creates a non-blocking stream (tests and tools).
func NewStream() (Stream, error) {
	var s C.CUstream
	err := check("cuStreamCreate", C.isaac_cu_stream_create(&s, 1 /* CU_STREAM_NON_BLOCKING */))
	return Stream(unsafe.Pointer(s)), err
}

// Destroy destroys the stream.
func (s Stream) Destroy() error {
	return check("cuStreamDestroy", C.isaac_cu_stream_destroy(C.uintptr_t(s)))
}

// Synchronize waits for the stream's work.
func (s Stream) Synchronize() error {
	return check("cuStreamSynchronize", C.isaac_cu_stream_synchronize(C.uintptr_t(s)))
}

// CaptureStatus reports whether the stream is being captured into a graph:
// while it is, nothing may allocate or synchronize.
func (s Stream) CaptureStatus() (CaptureStatus, error) {
	var st C.int
	err := check("cuStreamIsCapturing", C.isaac_cu_stream_is_capturing(C.uintptr_t(s), &st))
	return CaptureStatus(st), err
}
