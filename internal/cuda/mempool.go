package cuda

/*
#include "calls.h"
*/
import "C"

import "unsafe"

// MemPool is a CUmemoryPool: stream-ordered device memory that, unlike the
// device's default pool, can keep what it reserved across synchronizations,
// so a workspace allocated and freed on every call costs no mapping.
type MemPool uintptr

// memPoolAttrReleaseThreshold is CU_MEMPOOL_ATTR_RELEASE_THRESHOLD.
const memPoolAttrReleaseThreshold = 4

// NewMemPool creates a pool of device d's memory that keeps up to keep
// reserved bytes when streams synchronize (the default pool keeps none). It
// is accessible from every context on d.
func NewMemPool(d Device, keep uint64) (MemPool, error) {
	props := C.isaac_mem_pool_props{alloc_type: 1, location_type: 1, location_id: C.int(d)}
	var p C.CUmemoryPool
	if err := check("cuMemPoolCreate", C.isaac_cu_mem_pool_create(&p, &props)); err != nil {
		return 0, err
	}
	v := C.uint64_t(keep)
	pool := MemPool(uintptr(unsafe.Pointer(p)))
	err := check("cuMemPoolSetAttribute", C.isaac_cu_mem_pool_set_attribute(C.uintptr_t(pool), memPoolAttrReleaseThreshold, unsafe.Pointer(&v)))
	return pool, err
}

// AllocAsync allocates bytes from the pool in stream order (legal during
// stream capture, where it becomes an allocation node). Free it with
// DevicePtr.FreeAsync.
func (p MemPool) AllocAsync(bytes int, s Stream) (DevicePtr, error) {
	var d C.CUdeviceptr
	err := check("cuMemAllocFromPoolAsync", C.isaac_cu_mem_alloc_from_pool_async(&d, C.size_t(bytes), C.uintptr_t(p), C.uintptr_t(s)))
	return DevicePtr(d), err
}
