package main

import (
	"errors"
	"slices"
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

// A sampling run's report of what it did not keep: configurations that
// failed to load and to run by math, in name order, totalled, or "none";
// refused inputs only where there were any; an input dropped for its
// vendor's drift with its rows, not as failed configurations; a plan's
// tally added to the run's.
func TestSampleTally(t *testing.T) {
	var none sampleTally
	want := []string{
		"configurations that failed to load: none",
		"configurations whose launch failed: none",
		"inputs dropped because cuBLAS's time on them moved while their configurations ran: 0, with 0 rows",
	}
	if got := none.lines("cuBLAS", "inputs"); !slices.Equal(got, want) {
		t.Errorf("nothing left out:\n%q\nwant\n%q", got, want)
	}
	var run, plan sampleTally
	for _, m := range []string{"wgmma_f16", "ffma", "mma_f16", "wgmma_f16", "mma_f16", "wgmma_f16"} {
		plan.failedLoad(m)
	}
	plan.refused = 2
	run.failedRun("direct")
	run.failedLoad("ffma")
	run.dropped(289)
	run.dropped(11)
	run.add(plan)
	want = []string{
		"configurations that failed to load: 7 (ffma 2, mma_f16 2, wgmma_f16 3)",
		"configurations whose launch failed: 1 (direct 1)",
		"convolutions refused (by cuDNN, or no kernel target takes them): 2",
		"convolutions dropped because cuDNN's time on them moved while their configurations ran: 2, with 300 rows",
	}
	if got := run.lines("cuDNN", "convolutions"); !slices.Equal(got, want) {
		t.Errorf("got\n%q\nwant\n%q", got, want)
	}
	if plan.load["ffma"] != 1 || plan.droppedRows != 0 {
		t.Errorf("adding a plan's tally changed it: %+v", plan)
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
			return &convPlan{tally: sampleTally{refused: made}}, nil
		}
		setup := func() error { mu.Lock(); setups++; mu.Unlock(); return nil }
		pl := newConvPlanner(plan, setup, overlap)
		count := func() int { mu.Lock(); defer mu.Unlock(); return made }
		for want := 1; want <= 3; want++ {
			if overlap {
				release <- struct{}{}
			}
			p, err := pl.next()
			if err != nil || p.tally.refused != want {
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
