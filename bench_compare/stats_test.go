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
