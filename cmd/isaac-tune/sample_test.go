package main

import "testing"

// The sampler keeps an input's rows where cuBLAS's times before and after
// its configurations agree within driftLimit, and drops them where the
// device stalled or changed clocks between (file 10's stalled input:
// kernels of 5-10 µs timed at 60-360 µs).
func TestSettled(t *testing.T) {
	for _, c := range []struct {
		before, after float64
		want          bool
	}{
		{10, 10, true},
		{10, 14.9, true},
		{10, 6.7, true},
		{10, 15.1, false},
		{10, 6.6, false},
		{7, 300, false},
		{300, 7, false},
	} {
		if got := settled(c.before, c.after); got != c.want {
			t.Errorf("settled(%g, %g) = %v, want %v", c.before, c.after, got, c.want)
		}
	}
}

// sample-conv's report of the configurations that failed to load: by math,
// in name order, or "none".
func TestRefusedByMath(t *testing.T) {
	if got := refusedByMath(nil); got != "none" {
		t.Errorf("none refused: %q", got)
	}
	if got, want := refusedByMath(map[string]int{"mma_f16": 3, "ffma": 1, "wgmma_f16": 12}), "ffma 1, mma_f16 3, wgmma_f16 12"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
