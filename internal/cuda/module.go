package cuda

/*
#include <stdlib.h>
#include "calls.h"
*/
import "C"

import (
	"fmt"
	"strings"
	"unsafe"
)

// Module is a loaded CUmodule.
type Module uintptr

// Function is a CUfunction.
type Function uintptr

// FuncAttribute is a CUfunction_attribute.
type FuncAttribute int

// CUfunction_attribute values.
const (
	FuncMaxThreadsPerBlock      FuncAttribute = 0
	FuncSharedSizeBytes         FuncAttribute = 1
	FuncConstSizeBytes          FuncAttribute = 2
	FuncLocalSizeBytes          FuncAttribute = 3
	FuncNumRegs                 FuncAttribute = 4
	FuncPTXVersion              FuncAttribute = 5
	FuncBinaryVersion           FuncAttribute = 6
	FuncMaxDynamicSharedBytes   FuncAttribute = 8
	FuncPreferredSharedCarveout FuncAttribute = 9
)

// JITError is a failed PTX compilation with the JIT's error log.
type JITError struct {
	Err error
	Log string
}

func (e *JITError) Error() string {
	return fmt.Sprintf("%v\n%s", e.Err, strings.TrimSpace(e.Log))
}

func (e *JITError) Unwrap() error { return e.Err }

// LoadPTX JIT-compiles a PTX image for the current context's device. It
// returns the JIT's info log (registers, spills) on success and a *JITError
// with the error log on failure. maxRegisters ≤ 0 leaves the limit to the
// PTX's own directives.
func LoadPTX(ptx string, maxRegisters int) (Module, string, error) {
	if err := Load(); err != nil {
		return 0, "", err
	}
	var m C.CUmodule
	info, err := jit("cuModuleLoadDataEx", ptx, func(src, errLog, infoLog *C.char) C.CUresult {
		return C.isaac_cuda_load_ptx(&m, src, C.int(maxRegisters), errLog, jitLogSize, infoLog, jitLogSize)
	})
	return Module(unsafe.Pointer(m)), info, err
}

const jitLogSize = 16 << 10

// jit runs one JIT call with the PTX in C memory and error and info log
// buffers, and returns the info log, or a *JITError with the error log.
func jit(call, ptx string, f func(src, errLog, infoLog *C.char) C.CUresult) (string, error) {
	src := C.CString(ptx)
	defer C.free(unsafe.Pointer(src))
	errLog := (*C.char)(C.malloc(jitLogSize))
	infoLog := (*C.char)(C.malloc(jitLogSize))
	defer C.free(unsafe.Pointer(errLog))
	defer C.free(unsafe.Pointer(infoLog))
	r := f(src, errLog, infoLog)
	info := C.GoString(infoLog)
	if err := check(call, r); err != nil {
		return info, &JITError{Err: err, Log: C.GoString(errLog)}
	}
	return info, nil
}

// Unload unloads the module.
func (m Module) Unload() error {
	return check("cuModuleUnload", C.isaac_cu_module_unload(C.uintptr_t(m)))
}

// Function looks a kernel up by name.
func (m Module) Function(name string) (Function, error) {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	var f C.CUfunction
	err := check("cuModuleGetFunction", C.isaac_cu_module_get_function(&f, C.uintptr_t(m), cname))
	return Function(unsafe.Pointer(f)), err
}

// Attribute reads a function attribute.
func (f Function) Attribute(a FuncAttribute) (int, error) {
	var v C.int
	err := check("cuFuncGetAttribute", C.isaac_cu_func_get_attribute(&v, C.int(a), C.uintptr_t(f)))
	return int(v), err
}

// SetAttribute sets a function attribute.
func (f Function) SetAttribute(a FuncAttribute, v int) error {
	return check("cuFuncSetAttribute", C.isaac_cu_func_set_attribute(C.uintptr_t(f), C.int(a), C.int(v)))
}

// SetMaxDynamicShared raises the function's dynamic shared-memory limit
// (needed above 48 KB).
func (f Function) SetMaxDynamicShared(bytes int) error {
	return f.SetAttribute(FuncMaxDynamicSharedBytes, bytes)
}

// CompilePTX JIT-compiles a PTX image into a cubin for the current
// context's device (cuLink*), so the result can be kept on disk and loaded by
// LoadImage in a later process. It returns the JIT's info log; failures are a
// *JITError with the error log.
func CompilePTX(ptx string) ([]byte, string, error) {
	if err := Load(); err != nil {
		return nil, "", err
	}
	var image unsafe.Pointer
	var size C.size_t
	info, err := jit("cuLinkComplete", ptx, func(src, errLog, infoLog *C.char) C.CUresult {
		return C.isaac_cuda_compile_ptx(src, C.size_t(len(ptx)+1), &image, &size, errLog, jitLogSize, infoLog, jitLogSize)
	})
	if err != nil {
		return nil, info, err
	}
	defer C.free(image)
	return C.GoBytes(image, C.int(size)), info, nil
}

// LoadImage loads a cubin (from CompilePTX) into the current context.
func LoadImage(image []byte) (Module, error) {
	if err := Load(); err != nil {
		return 0, err
	}
	if len(image) == 0 {
		return 0, &Error{Code: ErrorInvalidValue, Call: "cuModuleLoadData"}
	}
	buf := C.CBytes(image)
	defer C.free(buf)
	var m C.CUmodule
	if err := check("cuModuleLoadData", C.isaac_cuda_load_image(&m, buf)); err != nil {
		return 0, err
	}
	return Module(unsafe.Pointer(m)), nil
}
