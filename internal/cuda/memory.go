package cuda

/*
#include "calls.h"
*/
import "C"

import "unsafe"

// DevicePtr is a CUdeviceptr.
type DevicePtr uint64

// Alloc allocates device memory in the current context (never while a
// stream is being captured: use AllocAsync there, or preallocate).
func Alloc(bytes int) (DevicePtr, error) {
	var p C.CUdeviceptr
	err := check("cuMemAlloc", C.isaac_cu_mem_alloc(&p, C.size_t(bytes)))
	return DevicePtr(p), err
}

// Free frees memory from Alloc.
func (p DevicePtr) Free() error { return check("cuMemFree", C.isaac_cu_mem_free(C.CUdeviceptr(p))) }

// AllocAsync allocates stream-ordered memory (legal during stream capture).
func AllocAsync(bytes int, s Stream) (DevicePtr, error) {
	var p C.CUdeviceptr
	err := check("cuMemAllocAsync", C.isaac_cu_mem_alloc_async(&p, C.size_t(bytes), C.uintptr_t(s)))
	return DevicePtr(p), err
}

// FreeAsync frees stream-ordered memory.
func (p DevicePtr) FreeAsync(s Stream) error {
	return check("cuMemFreeAsync", C.isaac_cu_mem_free_async(C.CUdeviceptr(p), C.uintptr_t(s)))
}

// MemsetD8Async sets n bytes to v on stream s.
func (p DevicePtr) MemsetD8Async(v byte, n int, s Stream) error {
	return check("cuMemsetD8Async", C.isaac_cu_memset_d8_async(C.CUdeviceptr(p), C.uchar(v), C.size_t(n), C.uintptr_t(s)))
}

// MemsetD32Async sets n 32-bit words to v on stream s.
func (p DevicePtr) MemsetD32Async(v uint32, n int, s Stream) error {
	return check("cuMemsetD32Async", C.isaac_cu_memset_d32_async(C.CUdeviceptr(p), C.uint(v), C.size_t(n), C.uintptr_t(s)))
}

// CopyFromHost copies b to p and returns once the copy has landed. A
// cuMemcpyHtoD from pageable memory may return with its DMA still queued
// on the legacy stream, which work on a non-blocking stream does not wait
// for: a kernel launched there next could read p before the copy lands.
// So the legacy stream is synchronized after the copy.
func (p DevicePtr) CopyFromHost(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	if err := check("cuMemcpyHtoD", C.isaac_cu_memcpy_htod(C.CUdeviceptr(p), unsafe.Pointer(&b[0]), C.size_t(len(b)))); err != nil {
		return err
	}
	return check("cuStreamSynchronize", C.isaac_cu_stream_synchronize(0))
}

// CopyToHost copies len(b) bytes from p to host memory (synchronous).
func (p DevicePtr) CopyToHost(b []byte) error {
	if len(b) == 0 {
		return nil
	}
	return check("cuMemcpyDtoH", C.isaac_cu_memcpy_dtoh(unsafe.Pointer(&b[0]), C.CUdeviceptr(p), C.size_t(len(b))))
}
