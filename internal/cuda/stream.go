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

// Capturing reports whether work enqueued on s now would be captured into
// a graph rather than run: s is being captured, its capture was
// invalidated, or the driver cannot say (an error, e.g. the legacy stream
// while another stream is captured). Only stream-ordered work of the call
// itself may then go on s.
func (s Stream) Capturing() bool {
	st, err := s.CaptureStatus()
	return err != nil || st != CaptureNone
}

// ID is the stream's identifier, unique in the process for the life of the
// driver (a new stream never takes the ID of a destroyed one, though it may
// take its handle). The special handles name the stream they stand for in
// the calling thread: the legacy default stream, or the thread's own
// per-thread default stream.
func (s Stream) ID() (uint64, error) {
	var id C.ulonglong
	err := check("cuStreamGetId", C.isaac_cu_stream_get_id(C.uintptr_t(s), &id))
	return uint64(id), err
}
