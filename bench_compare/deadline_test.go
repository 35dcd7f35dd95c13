package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/devsession"
)

// -deadline: once it has passed no input is begun, and the suite's env
// says where it stopped, for that suite alone; without one nothing stops.
func TestDeadline(t *testing.T) {
	b := &bench{Session: &devsession.Session{}}
	b.Env.Method = "median of 5"
	var progress bytes.Buffer
	if b.stopped(0, 10, &progress) || progress.Len() != 0 {
		t.Fatal("stopped without a deadline")
	}
	b.deadline = time.Now().Add(time.Hour)
	if b.stopped(3, 10, &progress) {
		t.Fatal("stopped an hour before the deadline")
	}
	b.deadline = time.Now().Add(-time.Millisecond)
	if !b.stopped(3, 10, &progress) || !strings.Contains(progress.String(), "after 3 of 10 inputs") {
		t.Fatalf("past the deadline: not stopped, or progress %q", progress.String())
	}
	if env := b.suiteEnv(); env.Method != "median of 5; stopped at -deadline after 3 of 10 inputs" {
		t.Errorf("the stopped suite's method %q", env.Method)
	}
	if env := b.suiteEnv(); env.Method != "median of 5" {
		t.Errorf("the next suite's method %q: the note carried over", env.Method)
	}
}
