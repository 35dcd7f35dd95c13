// Package jitlink compiles PTX into cubins with NVIDIA's nvJitLink library,
// loaded at first use with dlopen (the copy the process already has, as
// under PyTorch and CuPy, else ISAAC_LIBNVJITLINK, else libnvJitLink.so.13
// or .12). Unlike the driver's JIT (cuLink*), it needs no CUDA context and
// takes none of the driver's locks, so a kernel compiled in the background
// does not hold up the application's own module loads (cuBLAS loads its
// kernels on their first use). Where the library is missing the engine
// uses the driver's JIT.
package jitlink

/*
#cgo CFLAGS: -O2 -Wall -fvisibility=hidden
#cgo LDFLAGS: -ldl -lpthread
#include <stdlib.h>
#include "jitlink.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"strings"
	"unsafe"
)

// ErrUnavailable is returned when nvJitLink cannot be loaded.
var ErrUnavailable = errors.New("jitlink: nvJitLink is not available")

// Available reports whether nvJitLink is loaded (loading it on first use),
// or why not.
func Available() error {
	var buf [256]C.char
	if C.isaac_jitlink_load(&buf[0], C.size_t(len(buf))) != 0 {
		return fmt.Errorf("%w: %s", ErrUnavailable, C.GoString(&buf[0]))
	}
	return nil
}

// Version is the loaded library's version.
func Version() (major, minor int, err error) {
	if err := Available(); err != nil {
		return 0, 0, err
	}
	var ma, mi C.uint
	if r := C.isaac_jitlink_version(&ma, &mi); r != 0 {
		return 0, 0, &Error{Result: int(r), Call: "nvJitLinkVersion"}
	}
	return int(ma), int(mi), nil
}

// Error is a failed nvJitLink call, with the library's error log.
type Error struct {
	Result int    // nvJitLinkResult
	Call   string // what failed
	Log    string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("jitlink: %s: nvJitLinkResult %d", e.Call, e.Result)
	if e.Log != "" {
		s += ": " + strings.TrimSpace(e.Log)
	}
	return s
}

const logSize = 8 << 10

// Compile compiles a PTX text into a cubin for the architecture its
// .target directive names (sm_90a for a wgmma kernel).
func Compile(ptx string) ([]byte, error) {
	arch, err := Target(ptx)
	if err != nil {
		return nil, err
	}
	if err := Available(); err != nil {
		return nil, err
	}
	src := C.CString(ptx)
	defer C.free(unsafe.Pointer(src))
	carch := C.CString(arch)
	defer C.free(unsafe.Pointer(carch))
	log := (*C.char)(C.malloc(logSize))
	defer C.free(unsafe.Pointer(log))
	var image unsafe.Pointer
	var size C.size_t
	if r := C.isaac_jitlink_compile(src, C.size_t(len(ptx)+1), carch, &image, &size, log, logSize); r != 0 {
		return nil, &Error{Result: int(r), Call: "compiling PTX for " + arch, Log: C.GoString(log)}
	}
	defer C.free(image)
	return C.GoBytes(image, C.int(size)), nil
}

// Target is the architecture of a PTX text's .target directive (its first
// target: "sm_90a" of ".target sm_90a, texmode_independent").
func Target(ptx string) (string, error) {
	for _, line := range strings.Split(ptx, "\n") {
		f := strings.Fields(strings.ReplaceAll(line, ",", " "))
		if len(f) >= 2 && f[0] == ".target" && strings.HasPrefix(f[1], "sm_") {
			return f[1], nil
		}
	}
	return "", errors.New("jitlink: the PTX has no .target sm_XX directive")
}
