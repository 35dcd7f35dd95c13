package main

import "math"

// work is the arithmetic and the minimum memory traffic of a GEMM: every
// operand read once, C written (and read first when beta ≠ 0); a batch's
// is its GEMMs', but for the bias (one element per row of C, the same for
// every matrix), read once.
func work(in input, betaZero bool) (flops, bytes float64) {
	m, n, k := float64(in.M), float64(in.N), float64(in.K)
	ab := float64(in.DType.AB.Size())
	c := float64(in.DType.C.Size())
	flops = 2 * m * n * k
	bytes = ab*(m*k+k*n) + c*m*n
	if !betaZero {
		bytes += c * m * n
	}
	batch := float64(max(in.Batch, 1)) // a strided batch of such GEMMs
	flops, bytes = batch*flops, batch*bytes
	if in.Bias {
		bytes += c * m
	}
	return flops, bytes
}

// rooflineUS is the physical lower bound on the time, in microseconds:
// max(flops / peak flops, bytes / peak bandwidth).
func rooflineUS(flops, bytes, peakTFLOPs, bandwidthGBs float64) float64 {
	if peakTFLOPs <= 0 || bandwidthGBs <= 0 {
		return math.NaN()
	}
	return math.Max(flops/(peakTFLOPs*1e6), bytes/(bandwidthGBs*1e3))
}
