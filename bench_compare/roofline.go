package main

import "math"

// Work is the arithmetic and the minimum memory traffic of a GEMM: every
// operand read once, C written (and read first when beta ≠ 0).
func Work(in Input, betaZero bool) (flops, bytes float64) {
	m, n, k := float64(in.M), float64(in.N), float64(in.K)
	ab := float64(in.DType.AB.Size())
	c := float64(in.DType.C.Size())
	flops = 2 * m * n * k
	bytes = ab*(m*k+k*n) + c*m*n
	if !betaZero {
		bytes += c * m * n
	}
	return flops, bytes
}

// RooflineUS is the physical lower bound on the time, in microseconds:
// max(flops / peak flops, bytes / peak bandwidth).
func RooflineUS(flops, bytes, peakTFLOPs, bandwidthGBs float64) float64 {
	if peakTFLOPs <= 0 || bandwidthGBs <= 0 {
		return math.NaN()
	}
	return math.Max(flops/(peakTFLOPs*1e6), bytes/(bandwidthGBs*1e3))
}

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
