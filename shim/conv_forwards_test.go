package shim

import (
	"sync"
	"testing"

	"github.com/isaacgo/isaac/request"
)

// TestConvForwardsRemembered: a call remembered with a settled reason is
// found again whatever its stream and data addresses of the same
// alignment, and not once its handle, a descriptor or an alignment
// differs; reasons that are not settled are not remembered.
func TestConvForwardsRemembered(t *testing.T) {
	forgetConvs()
	t.Cleanup(forgetConvs)
	r := newConvRecord(0x1000, 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, [4]int{8, 64, 28, 28})
	defer r.free()
	if _, ok := r.find(); ok {
		t.Fatal("found before it was remembered")
	}
	for _, transient := range []request.Reason{request.Served, request.FwdSearching, request.FwdCompiling,
		request.FwdMeasuring, request.FwdCapturing, request.FwdNoDriver, request.FwdError, request.FwdHandle} {
		r.remember(transient)
		if got, ok := r.find(); ok {
			t.Fatalf("%v remembered (found %v)", transient, got)
		}
	}
	r.remember(request.FwdMeasured)
	if got, ok := r.find(); !ok || got != request.FwdMeasured {
		t.Fatalf("found %v %v, want measured", got, ok)
	}
	same := []func(){
		func() { r.stream = 0x55 },                           // another stream
		func() { r.x += 0x100; r.w += 0x200; r.y += 0x1000 }, // other addresses, aligned alike
		func() { r.remember(request.FwdPredicted) },          // remembered again: the first reason stays
	}
	for i, f := range same {
		f()
		if got, ok := r.find(); !ok || got != request.FwdMeasured {
			t.Fatalf("change %d: found %v %v, want measured", i, got, ok)
		}
	}
	differ := []struct {
		name         string
		change, undo func()
	}{
		{"handle", func() { r.handle = 0x2000 }, func() { r.handle = 0x1000 }},
		{"x's alignment", func() { r.x += 2 }, func() { r.x -= 2 }},
		{"w's alignment", func() { r.w += 16 }, func() { r.w -= 16 }},
		{"y NULL", func() { r.y = 0 }, func() { r.y = 0x7f0000201000 }},
		{"a dimension", func() { r.setDim(1, 65) }, func() { r.setDim(1, 64) }},
	}
	for _, d := range differ {
		d.change()
		if got, ok := r.find(); ok {
			t.Errorf("%s differs: found %v", d.name, got)
		}
		d.undo()
		if _, ok := r.find(); !ok {
			t.Fatalf("%s restored: not found", d.name)
		}
	}
}

// TestConvForwardsFull: the table takes three quarters of its slots, then
// remembers nothing more (those calls ask Go); every call remembered is
// still found with its own reason.
func TestConvForwardsFull(t *testing.T) {
	forgetConvs()
	t.Cleanup(forgetConvs)
	var found, lost int
	for i := range 1500 {
		r := newConvRecord(uintptr(0x1000+i*0x10), 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, [4]int{1, 1 + i, 7, 7})
		reason := request.FwdPredicted
		if i%2 == 1 {
			reason = request.FwdMeasured
		}
		r.remember(reason)
		got, ok := r.find()
		switch {
		case ok && got == reason:
			found++
		case ok:
			t.Fatalf("call %d: found %v, want %v", i, got, reason)
		default:
			lost++
		}
		r.free()
	}
	if found != 768 || lost != 1500-768 {
		t.Errorf("found %d, not remembered %d: want 768 of 1024 slots", found, lost)
	}
}

// TestConvForwardsConcurrent: goroutines remembering and finding their
// own calls at once each find every one of theirs (go test -race checks
// the Go side; the C side publishes each slot with release/acquire).
func TestConvForwardsConcurrent(t *testing.T) {
	forgetConvs()
	t.Cleanup(forgetConvs)
	var wg sync.WaitGroup
	errs := make(chan string, 8*60)
	for g := range 8 {
		wg.Go(func() {
			for i := range 60 {
				r := newConvRecord(uintptr(0x10000+g*0x1000+i*0x10), 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, [4]int{g, i, 9, 9})
				r.remember(request.FwdUnsupported)
				if got, ok := r.find(); !ok || got != request.FwdUnsupported {
					errs <- "lost a call"
				}
				r.free()
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatal(e)
	}
}
