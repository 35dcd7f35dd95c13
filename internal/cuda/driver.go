package cuda

/*
#include "calls.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"sync/atomic"
)

// Error is a CUresult other than CUDA_SUCCESS, with the call that failed.
type Error struct {
	Code int
	Call string
}

// Named CUresult codes that callers test for.
const (
	ErrorInvalidValue   = 1
	ErrorOutOfMemory    = 2
	ErrorNotInitialized = 3
	ErrorNoDevice       = 100
	ErrorInvalidPTX     = 218
	ErrorNotFound       = 500
	ErrorNotReady       = 600
	ErrorCaptureIllegal = 900 // CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED
)

func (e *Error) Error() string {
	name, desc := "CUDA_ERROR", ""
	if Load() == nil {
		var s *C.char
		if C.isaac_cu.cuGetErrorName != nil && callGetErrorName(C.CUresult(e.Code), &s) == 0 && s != nil {
			name = C.GoString(s)
		}
		if C.isaac_cu.cuGetErrorString != nil && callGetErrorString(C.CUresult(e.Code), &s) == 0 && s != nil {
			desc = ": " + C.GoString(s)
		}
	}
	return fmt.Sprintf("%s: %s (%d)%s", e.Call, name, e.Code, desc)
}

// ErrNoDriver reports that the CUDA driver could not be loaded.
var ErrNoDriver = errors.New("cuda: driver not available")

func check(call string, r C.CUresult) error {
	if r == 0 {
		return nil
	}
	return &Error{Code: int(r), Call: call}
}

// loaded is set once the driver loaded: later calls of Load cost no cgo
// call (it is on every served GEMM's path).
var loaded atomic.Bool

// Load loads the driver once (dlopen libcuda.so.1, or $ISAAC_LIBCUDA) and
// resolves every entry point. It is cheap after the first call.
func Load() error {
	if loaded.Load() {
		return nil
	}
	var buf [256]C.char
	if C.isaac_cuda_load(&buf[0], C.size_t(len(buf))) != 0 {
		return fmt.Errorf("%w: %s", ErrNoDriver, C.GoString(&buf[0]))
	}
	loaded.Store(true)
	return nil
}

// DriverVersion is the driver's CUDA version, e.g. 13000.
func DriverVersion() (int, error) {
	if err := Load(); err != nil {
		return 0, err
	}
	var v C.int
	err := check("cuDriverGetVersion", C.isaac_cu_driver_get_version(&v))
	return int(v), err
}

func callGetErrorName(r C.CUresult, s **C.char) C.CUresult { return C.isaac_cu_get_error_name(r, s) }
func callGetErrorString(r C.CUresult, s **C.char) C.CUresult {
	return C.isaac_cu_get_error_string(r, s)
}
