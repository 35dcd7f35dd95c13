package main

import (
	"math"
	"sort"
)

// Median is the middle value of xs (the mean of the two middle values for an
// even count), NaN for an empty slice. xs is not modified.
func Median(xs []float64) float64 {
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

// Geomean is the geometric mean of the positive values of xs; zero, negative
// and NaN values are ignored (a speed-up of 0 marks a failed measurement).
// It is NaN when no value is positive.
func Geomean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}

// speedups lists the speed-up of every row.
func speedups(rows []Row) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = r.Speedup
	}
	return out
}

// countAtLeastOne counts the rows where ISAAC is at least as fast as the vendor.
func countAtLeastOne(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Speedup >= 1 {
			n++
		}
	}
	return n
}

// altNames lists the distinct Alt names of rows in first-seen order.
func altNames(rows []Row) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rows {
		for _, a := range r.Alt {
			if !seen[a.Name] {
				seen[a.Name] = true
				names = append(names, a.Name)
			}
		}
	}
	return names
}

// findAlt is the row's first Alt called name.
func findAlt(r Row, name string) (Alt, bool) {
	for _, a := range r.Alt {
		if a.Name == name {
			return a, true
		}
	}
	return Alt{}, false
}
