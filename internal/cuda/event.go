package cuda

/*
#include "calls.h"
*/
import "C"

import "unsafe"

// Event is a CUevent.
type Event uintptr

// NewEvent creates an event with timing enabled.
func NewEvent() (Event, error) {
	var e C.CUevent
	err := check("cuEventCreate", C.isaac_cu_event_create(&e, 0 /* CU_EVENT_DEFAULT */))
	return Event(unsafe.Pointer(e)), err
}

func (e Event) c() C.uintptr_t { return C.uintptr_t(e) }

// Record records the event on stream s.
func (e Event) Record(s Stream) error {
	return check("cuEventRecord", C.isaac_cu_event_record(e.c(), C.uintptr_t(s)))
}

// Synchronize waits for the event.
func (e Event) Synchronize() error {
	return check("cuEventSynchronize", C.isaac_cu_event_synchronize(e.c()))
}

// cudaErrorNotReady is CUDA_ERROR_NOT_READY: the work before an event (or
// on a stream) has not completed yet.
const cudaErrorNotReady = 600

// Done reports whether the work before the event's last record has
// completed, without waiting (cuEventQuery).
func (e Event) Done() (bool, error) {
	r := C.isaac_cu_event_query(e.c())
	if r == cudaErrorNotReady {
		return false, nil
	}
	return r == 0, check("cuEventQuery", r)
}

// Elapsed is the time in milliseconds from start to e.
func (e Event) Elapsed(start Event) (float32, error) {
	var ms C.float
	err := check("cuEventElapsedTime", C.isaac_cu_event_elapsed(&ms, start.c(), e.c()))
	return float32(ms), err
}

// Destroy destroys the event.
func (e Event) Destroy() error { return check("cuEventDestroy", C.isaac_cu_event_destroy(e.c())) }
