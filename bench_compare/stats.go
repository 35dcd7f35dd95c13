package main

import (
	"math"
	"sort"
)

// median is the middle value of xs (the mean of the two middle values for an
// even count), NaN for an empty slice. xs is not modified.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// vendorTime is cuDNN's time for a row from the samples of its two
// algorithms (the v7 getter's pick and FindEx's fastest): the median of
// them all where both are the same algorithm (the faster of two medians of
// one algorithm's samples is biased low by their spread), else the faster
// of the two medians.
func vendorTime(v7Algo, findAlgo int, v7, find []float64) float64 {
	if v7Algo == findAlgo {
		return median(append(append([]float64(nil), v7...), find...))
	}
	return min(median(v7), median(find))
}
