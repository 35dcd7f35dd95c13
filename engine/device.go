package engine

import (
	"sync"
	"sync/atomic"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/internal/cuda"
)

// deviceInfo is what the engine needs to know about a device, read once.
type deviceInfo struct {
	dev    cuda.Device
	limits ptx.DeviceLimits
	pools  bool // stream-ordered allocation (cuMemAllocAsync) is supported

	workspace workspacePool
	kept      atomic.Int64 // bytes of the streams' kept workspaces (streamWorkspace)
	model     deviceModel
}

var devices sync.Map // cuda.Device → *deviceInfo

func infoFor(d cuda.Device) (*deviceInfo, error) {
	if v, ok := devices.Load(d); ok {
		return v.(*deviceInfo), nil
	}
	attr := func(a cuda.DeviceAttribute, dst *int, err *error) {
		if *err == nil {
			*dst, *err = d.Attribute(a)
		}
	}
	var err error
	var l ptx.DeviceLimits
	var pools, reserved int
	attr(cuda.AttrComputeCapabilityMajor, &l.SMMajor, &err)
	attr(cuda.AttrComputeCapabilityMinor, &l.SMMinor, &err)
	attr(cuda.AttrMaxThreadsPerBlock, &l.MaxThreadsPerBlock, &err)
	attr(cuda.AttrMaxSharedPerBlockOptin, &l.MaxSharedPerBlockOptin, &err)
	attr(cuda.AttrMaxSharedPerSM, &l.MaxSharedPerSM, &err)
	attr(cuda.AttrMaxRegistersPerSM, &l.RegistersPerSM, &err)
	attr(cuda.AttrMaxRegistersPerBlock, &l.RegistersPerBlock, &err)
	attr(cuda.AttrMultiprocessorCount, &l.SMCount, &err)
	attr(cuda.AttrMemoryPoolsSupported, &pools, &err)
	attr(cuda.AttrReservedSharedPerBlock, &reserved, &err)
	if err != nil {
		return nil, err
	}
	l.MaxRegistersPerThread = 255
	// The per-SM budget also holds each block's reserved shared memory.
	l.MaxSharedPerSM -= reserved
	info := &deviceInfo{dev: d, limits: l, pools: pools != 0}
	v, _ := devices.LoadOrStore(d, info)
	return v.(*deviceInfo), nil
}
