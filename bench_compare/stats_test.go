package main

import (
	"math"
	"reflect"
	"testing"
)

func TestMedian(t *testing.T) {
	in := []float64{5, 1, 4, 2, 3}
	keep := append([]float64(nil), in...)
	if got := median(in); got != 3 {
		t.Errorf("median(5 1 4 2 3) = %v, want 3", got)
	}
	if !reflect.DeepEqual(in, keep) {
		t.Errorf("median modified its input: %v", in)
	}
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{7}, 7},
		{[]float64{4, 1}, 2.5},
		{[]float64{10, 2, 8, 4}, 6},
		{[]float64{1, 1, 1, 100}, 1},
		{[]float64{-3, 3, -1}, -1},
		{[]float64{12.5, 11.0, 13.25, 12.0, 40.0, 11.5}, 12.25},
	}
	for _, c := range cases {
		if got := median(c.xs); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	if !math.IsNaN(median(nil)) || !math.IsNaN(median([]float64{})) {
		t.Error("median of nothing is not NaN")
	}
}

// cuDNN's time: one algorithm's samples pooled (not the faster of two
// medians of the same thing), two algorithms' faster median.
func TestVendorTime(t *testing.T) {
	a, b := []float64{10, 11, 12, 13, 14}, []float64{9, 10, 11, 12, 30}
	if got := vendorTime(1, 1, a, b); got != 11.5 {
		t.Errorf("one algorithm: %g, want the pooled median 11.5", got)
	}
	if got := vendorTime(1, 6, a, b); got != 11 {
		t.Errorf("two algorithms: %g, want the faster median 11", got)
	}
	if a[0] != 10 || b[4] != 30 {
		t.Error("the samples were changed")
	}
}
