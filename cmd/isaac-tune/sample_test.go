package main

import (
	"errors"
	"sync"
	"testing"
	"time"
)

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

// sample-conv's planner hands out the plans in the order they were made,
// with -overlap the next one made while the caller measures (on a thread
// setup prepared), none after a failed one; stop waits for the plan under
// way.
func TestConvPlanner(t *testing.T) {
	for _, overlap := range []bool{false, true} {
		var mu sync.Mutex
		made, setups := 0, 0
		release := make(chan struct{}, 10)
		plan := func() (*convPlan, error) {
			if overlap {
				<-release // a plan finishes only when the test lets it
			}
			mu.Lock()
			defer mu.Unlock()
			made++
			if made == 4 {
				return nil, errors.New("plan 4 fails")
			}
			return &convPlan{skipped: made}, nil
		}
		setup := func() error { mu.Lock(); setups++; mu.Unlock(); return nil }
		pl := newConvPlanner(plan, setup, overlap)
		count := func() int { mu.Lock(); defer mu.Unlock(); return made }
		for want := 1; want <= 3; want++ {
			if overlap {
				release <- struct{}{}
			}
			p, err := pl.next()
			if err != nil || p.skipped != want {
				t.Fatalf("overlap %v: plan %d: %+v, %v", overlap, want, p, err)
			}
			if overlap {
				// The next plan is under way, waiting for its release.
				time.Sleep(5 * time.Millisecond)
				if got := count(); got != want {
					t.Fatalf("overlap: %d plans made while plan %d is measured, want %d", got, want, want)
				}
			} else if got := count(); got != want {
				t.Fatalf("no overlap: %d plans made by plan %d", got, want)
			}
		}
		if overlap {
			release <- struct{}{}
		}
		if _, err := pl.next(); err == nil {
			t.Fatalf("overlap %v: plan 4 did not fail", overlap)
		}
		if _, err := pl.next(); overlap && err == nil {
			t.Fatal("overlap: a plan handed out after a failed one")
		}
		pl.stop()
		pl.stop()
		mu.Lock()
		if overlap && setups != 4 || !overlap && setups != 0 {
			t.Errorf("overlap %v: %d thread setups", overlap, setups)
		}
		mu.Unlock()
	}
}
