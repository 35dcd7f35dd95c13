package main

import (
	"testing"
	"time"
)

// A run asked for a number of samples writes exactly that many, however
// many its last batch measured; without a target every row is written.
func TestSampleLoopRows(t *testing.T) {
	batch := func(_, room int) (int, string, error) { return len(upTo(make([]int, 36), room)), "", nil }
	done, _, err := sampleLoop(runOptions{rows: 2000, duration: time.Minute}, 1900, batch)
	if err != nil || done != 100 {
		t.Errorf("a file holding 1900 of 2000 samples: %d written (%v), want 100", done, err)
	}
	done, _, err = sampleLoop(runOptions{duration: time.Millisecond}, 0, func(n, room int) (int, string, error) {
		if room >= 0 {
			t.Errorf("room %d without a target", room)
		}
		time.Sleep(time.Millisecond)
		return 36, "", nil
	})
	if err != nil || done%36 != 0 || done == 0 {
		t.Errorf("without a target: %d written (%v)", done, err)
	}
}
