package ptx

import "fmt"

// DeviceLimits are the hardware limits Legal checks against.
type DeviceLimits struct {
	SMMajor, SMMinor       int
	MaxThreadsPerBlock     int
	MaxSharedPerBlockOptin int // bytes (dynamic, after cuFuncSetAttribute)
	MaxSharedPerSM         int // bytes
	RegistersPerSM         int // 32-bit registers
	RegistersPerBlock      int
	MaxRegistersPerThread  int
	SMCount                int
}

// H100 returns the limits of an H100 SXM (sm_90, 132 SMs).
func H100() DeviceLimits {
	return DeviceLimits{
		SMMajor: 9, SMMinor: 0,
		MaxThreadsPerBlock:     1024,
		MaxSharedPerBlockOptin: 227 * 1024,
		MaxSharedPerSM:         228 * 1024,
		RegistersPerSM:         65536,
		RegistersPerBlock:      65536,
		MaxRegistersPerThread:  255,
		SMCount:                132,
	}
}

// A100 returns the limits of an A100 (sm_80, 108 SMs).
func A100() DeviceLimits {
	d := H100()
	d.SMMajor, d.SMMinor = 8, 0
	d.MaxSharedPerBlockOptin = 163 * 1024
	d.MaxSharedPerSM = 164 * 1024
	d.SMCount = 108
	return d
}

// Supported reports whether the generator's kernels can run on the device:
// their PTX targets sm_80 (sm_90 from compute capability 9.0 on), which
// the driver cannot load on an older device, so there no configuration is
// legal and every call is the vendor's.
func (d DeviceLimits) Supported() error {
	if d.SMMajor < 8 {
		return fmt.Errorf("ptx: compute capability %d.%d: the generated kernels need sm_80 or newer", d.SMMajor, d.SMMinor)
	}
	return nil
}

// Arch is the ptxas/PTX target name for the device, e.g. "sm_90" (a device
// that is not Supported gets none its driver can load).
func (d DeviceLimits) Arch() string {
	if d.SMMajor >= 9 {
		return "sm_90"
	}
	return "sm_80"
}
