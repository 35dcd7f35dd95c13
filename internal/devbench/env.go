package devbench

import (
	"fmt"
	"os"
	"regexp"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/weights"
)

// Env is the provenance of a run, written next to every result file.
type Env struct {
	Date         string // RFC 3339, UTC
	Device       string // e.g. "NVIDIA H100 80GB HBM3"
	DeviceKey    string // results folder name, e.g. "h100"
	ComputeCap   string // "9.0"
	SMs          int
	SMClockMHz   int // maximum SM clock
	MemClockMHz  int
	BusWidthBits int
	L2Bytes      int
	Driver       string // e.g. "CUDA 13.0 driver API (13000)"
	CUBLAS       string // cublasGetVersion
	CUDNN        string // cudnnGetVersion, or "not loaded"
	BandwidthGBs float64
	PeakTFLOPs   map[string]float64 // per math class: fp32, fp64, fp16-tensor, tf32-tensor, fp64-tensor
	Method       string             // how times were measured
	Commit       string             // git commit of the sources, when known
}

// DeviceEnv records the device, its clocks and peaks, the driver and cuDNN
// versions (cuBLAS is the caller's: it holds the handle) and the date.
func DeviceEnv(dev cuda.Device) (Env, error) {
	var e Env
	var err error
	attr := func(a cuda.DeviceAttribute) int {
		if err != nil {
			return 0
		}
		var v int
		v, err = dev.Attribute(a)
		return v
	}
	major, minor := attr(cuda.AttrComputeCapabilityMajor), attr(cuda.AttrComputeCapabilityMinor)
	e.SMs = attr(cuda.AttrMultiprocessorCount)
	e.SMClockMHz = attr(cuda.AttrClockRateKHz) / 1000
	e.MemClockMHz = attr(cuda.AttrMemoryClockRateKHz) / 1000
	e.BusWidthBits = attr(cuda.AttrGlobalMemoryBusWidth)
	e.L2Bytes = attr(cuda.AttrL2CacheSize)
	if err != nil {
		return e, err
	}
	if e.Device, err = dev.Name(); err != nil {
		return e, err
	}
	e.DeviceKey = DeviceKey(e.Device)
	e.ComputeCap = fmt.Sprintf("%d.%d", major, minor)
	drv, _ := cuda.DriverVersion()
	e.Driver = fmt.Sprintf("CUDA %d.%d driver API (%d)", drv/1000, drv%1000/10, drv)
	if out, err := os.ReadFile("/proc/driver/nvidia/version"); err == nil {
		if v := driverVersionRE.FindString(string(out)); v != "" {
			e.Driver += ", kernel module " + v
		}
	}
	e.CUDNN = "not loaded"
	if v, err := cudnn.Version(); err == nil {
		e.CUDNN = fmt.Sprintf("%d.%d.%d (%d)", v/10000, v/100%100, v%100, v)
	}
	e.PeakTFLOPs, e.BandwidthGBs = Peaks(major, minor, e.SMs, e.SMClockMHz, e.MemClockMHz, e.BusWidthBits)
	e.Date = time.Now().UTC().Format(time.RFC3339)
	return e, nil
}

// driverVersionRE finds the kernel module's version ("580.159.04") in
// /proc/driver/nvidia/version.
var driverVersionRE = regexp.MustCompile(`\b\d{3}\.\d+(\.\d+)?\b`)

// DeviceKey names a results folder after the device: "h100", "h200", …
// (the key of the device's shipped weights).
func DeviceKey(name string) string { return weights.DeviceKey(name) }

// flopsPerClockPerSM are the per-SM dense rates of the math units by
// compute capability (NVIDIA's architecture whitepapers: A100 and H100).
var flopsPerClockPerSM = map[int]map[string]float64{
	80: {"fp32": 128, "fp64": 64, "fp64-tensor": 128, "fp16-tensor": 2048, "tf32-tensor": 1024},
	90: {"fp32": 256, "fp64": 128, "fp64-tensor": 256, "fp16-tensor": 4096, "tf32-tensor": 2048},
}

// Peaks derives peak rates from the device's own attributes: SMs × maximum
// SM clock × per-SM rate, and bandwidth = memory clock × bus width × 2 (DDR).
// Architectures without a table entry use the closest older one.
func Peaks(ccMajor, ccMinor, sms, clockMHz, memClockMHz, busBits int) (map[string]float64, float64) {
	cc := ccMajor*10 + ccMinor
	key := 80
	if cc >= 90 {
		key = 90
	}
	peaks := map[string]float64{}
	for name, f := range flopsPerClockPerSM[key] {
		peaks[name] = float64(sms) * float64(clockMHz) * 1e6 * f / 1e12
	}
	bw := float64(memClockMHz) * 1e6 * float64(busBits) * 2 / 8 / 1e9
	return peaks, bw
}
