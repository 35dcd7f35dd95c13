package cuda

/*
#include "calls.h"
*/
import "C"

import "unsafe"

// Device is a CUdevice ordinal handle.
type Device int

// Context is a CUcontext.
type Context uintptr

// DeviceAttribute is a CUdevice_attribute.
type DeviceAttribute int

// CUdevice_attribute values ISAAC reads.
const (
	AttrMaxThreadsPerBlock     DeviceAttribute = 1
	AttrMaxSharedPerBlock      DeviceAttribute = 8
	AttrWarpSize               DeviceAttribute = 10
	AttrMaxRegistersPerBlock   DeviceAttribute = 12
	AttrClockRateKHz           DeviceAttribute = 13
	AttrMultiprocessorCount    DeviceAttribute = 16
	AttrMemoryClockRateKHz     DeviceAttribute = 36
	AttrGlobalMemoryBusWidth   DeviceAttribute = 37
	AttrL2CacheSize            DeviceAttribute = 38
	AttrMaxThreadsPerSM        DeviceAttribute = 39
	AttrComputeCapabilityMajor DeviceAttribute = 75
	AttrComputeCapabilityMinor DeviceAttribute = 76
	AttrMaxSharedPerSM         DeviceAttribute = 81
	AttrMaxRegistersPerSM      DeviceAttribute = 82
	AttrMaxSharedPerBlockOptin DeviceAttribute = 97
	AttrMaxBlocksPerSM         DeviceAttribute = 106
	AttrReservedSharedPerBlock DeviceAttribute = 111
	AttrMemoryPoolsSupported   DeviceAttribute = 115
	AttrClusterLaunch          DeviceAttribute = 120
)

// DeviceCount is the number of CUDA devices.
func DeviceCount() (int, error) {
	if err := Load(); err != nil {
		return 0, err
	}
	var n C.int
	err := check("cuDeviceGetCount", C.isaac_cu_device_get_count(&n))
	return int(n), err
}

// GetDevice returns the device with the given ordinal.
func GetDevice(ordinal int) (Device, error) {
	if err := Load(); err != nil {
		return 0, err
	}
	var d C.CUdevice
	err := check("cuDeviceGet", C.isaac_cu_device_get(&d, C.int(ordinal)))
	return Device(d), err
}

// Attribute reads one device attribute.
func (d Device) Attribute(a DeviceAttribute) (int, error) {
	var v C.int
	err := check("cuDeviceGetAttribute", C.isaac_cu_device_get_attribute(&v, C.int(a), C.CUdevice(d)))
	return int(v), err
}

// Name is the device's marketing name.
func (d Device) Name() (string, error) {
	var buf [256]C.char
	if err := check("cuDeviceGetName", C.isaac_cu_device_get_name(&buf[0], C.int(len(buf)), C.CUdevice(d))); err != nil {
		return "", err
	}
	return C.GoString(&buf[0]), nil
}

// TotalMemory is the device memory in bytes.
func (d Device) TotalMemory() (int64, error) {
	var b C.size_t
	err := check("cuDeviceTotalMem", C.isaac_cu_device_total_mem(&b, C.CUdevice(d)))
	return int64(b), err
}

// RetainPrimaryContext retains the device's primary context (the one the
// CUDA runtime, PyTorch and CuPy use) and makes it current on this thread.
// Tools and tests use it; the shim itself never makes a context current.
func (d Device) RetainPrimaryContext() (Context, error) {
	var c C.CUcontext
	if err := check("cuDevicePrimaryCtxRetain", C.isaac_cu_primary_ctx_retain(&c, C.CUdevice(d))); err != nil {
		return 0, err
	}
	if err := check("cuCtxSetCurrent", C.isaac_cu_ctx_set_current(C.uintptr_t(uintptr(unsafe.Pointer(c))))); err != nil {
		return 0, err
	}
	return Context(unsafe.Pointer(c)), nil
}

// ReleasePrimaryContext releases a reference taken by RetainPrimaryContext.
func (d Device) ReleasePrimaryContext() error {
	return check("cuDevicePrimaryCtxRelease", C.isaac_cu_primary_ctx_release(C.CUdevice(d)))
}

// SetCurrent makes c current on the calling OS thread (callers lock the
// goroutine to its thread).
func (c Context) SetCurrent() error {
	return check("cuCtxSetCurrent", C.isaac_cu_ctx_set_current(C.uintptr_t(c)))
}

// CurrentContext is the calling thread's current context, 0 if none.
func CurrentContext() (Context, error) {
	if err := Load(); err != nil {
		return 0, err
	}
	var c C.CUcontext
	err := check("cuCtxGetCurrent", C.isaac_cu_ctx_get_current(&c))
	return Context(unsafe.Pointer(c)), err
}

// currentCalls name isaac_cu_current's driver calls by its which.
var currentCalls = [...]string{"cuCtxGetCurrent", "cuCtxGetId", "cuCtxGetDevice"}

// Current is the calling thread's current context, its ID (Context.ID)
// and its device (CurrentDevice), read in one call into C: what every
// served call asks first, at the cost of one cgo call and no allocation
// where the three would cost three of each. A thread without a current
// context gets context 0 and no error.
func Current() (Context, uint64, Device, error) {
	if err := Load(); err != nil {
		return 0, 0, 0, err
	}
	c := C.isaac_cu_current()
	if c.r != 0 {
		return 0, 0, 0, check(currentCalls[c.which], c.r)
	}
	return Context(c.ctx), uint64(c.id), Device(c.dev), nil
}

// CurrentDevice is the device of the calling thread's current context.
func CurrentDevice() (Device, error) {
	var d C.CUdevice
	err := check("cuCtxGetDevice", C.isaac_cu_ctx_get_device(&d))
	return Device(d), err
}

// ID is the context's unique identifier: unlike the handle, it is never
// reused after the context is destroyed, so caches key on it.
func (c Context) ID() (uint64, error) {
	var id C.ulonglong
	err := check("cuCtxGetId", C.isaac_cu_ctx_get_id(C.uintptr_t(c), &id))
	return uint64(id), err
}
