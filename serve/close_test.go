package serve

import (
	"testing"
	"time"

	"github.com/isaacgo/isaac/kernels"
)

// TestServerClose: Close waits for the background work under way (at most
// its wait), and no background work starts after it.
func TestServerClose(t *testing.T) {
	s := NewOn(kernels.New(""), Options{})
	release, ran := make(chan struct{}), make(chan struct{})
	if !s.background(func() { close(ran); <-release }) {
		t.Fatal("background refused before Close")
	}
	<-ran
	start := time.Now()
	if s.Close(50 * time.Millisecond) {
		t.Fatal("Close reported the work under way finished")
	}
	if d := time.Since(start); d < 50*time.Millisecond || d > 2*time.Second {
		t.Fatalf("Close returned after %v, want its 50ms wait", d)
	}
	if s.background(func() { t.Error("background work ran after Close") }) {
		t.Fatal("background accepted work after Close")
	}
	close(release)
	if !s.Close(time.Second) {
		t.Fatal("Close did not finish once the work ended")
	}
}
