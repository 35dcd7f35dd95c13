package shim

import (
	"encoding/binary"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
)

// repeatLaunches are two recorded launches: a plain one whose parameters
// hold x, w and y (w with an offset), an int and a scalar, and a
// programmatic dependent in clusters with y alone.
func repeatLaunches() []cuda.LaunchRecord {
	p := new(cuda.Params)
	p.Ptr(0).Ptr(0).Ptr(0).I32(-7).U16(0x3c00).Ptr(0x51)
	b1, o1 := p.Packed()
	p.Reset()
	p.I32(3).Ptr(0).I32(9)
	b2, o2 := p.Packed()
	return []cuda.LaunchRecord{
		{Fn: 0xf1, Grid: cuda.Dim3{7, 2, 1}, Block: cuda.Dim3{128, 1, 1}, SharedBytes: 4096, Params: b1, Offsets: o1,
			Patches: []cuda.Patch{{At: 0, Operand: 0}, {At: 8, Operand: 1, Add: 256}, {At: 16, Operand: 2}}},
		{Fn: 0xf2, Grid: cuda.Dim3{3, 1, 1}, Block: cuda.Dim3{256, 1, 1}, Cluster: cuda.Dim3{1, 1, 2}, Dependent: true,
			Params: b2, Offsets: o2, Patches: []cuda.Patch{{At: 8, Operand: 2, Add: -512}}},
	}
}

// TestConvRepeats: a call whose launches are kept is served from C with
// its own addresses patched in, every other byte, the grids, blocks,
// clusters and shared memory as recorded, on its own stream; a call that
// differs in its handle, a descriptor, an alignment, a scalar, the stream
// or the current context is not; neither is a call on a stream being
// captured where the launches use the stream's workspace, nor one whose
// launch fails (Go serves those).
func TestConvRepeats(t *testing.T) {
	m := emptyRepeats()
	t.Cleanup(func() { emptyRepeats() })
	fakeDriverReset(0, false, 1)
	r := newConvRecord(0x1000, 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, [4]int{8, 64, 28, 28})
	defer r.free()
	r.stream = 0x77
	r.scalars(1, 0)
	if r.repeated() {
		t.Fatal("served before anything was kept")
	}
	ls := repeatLaunches()
	if !r.rememberRepeat(1, false, m, ls) {
		t.Fatal("not kept")
	}
	if r.rememberRepeat(1, false, m, ls) {
		t.Error("kept twice")
	}
	// Another call like it: other addresses, aligned alike.
	r.x, r.w, r.y = 0x7e0000000100, 0x7e0000300000, 0x7e0000400000
	if !r.repeated() {
		t.Fatal("not served from the table")
	}
	got := fakeLaunches()
	if len(got) != 2 {
		t.Fatalf("%d launches, want 2", len(got))
	}
	for i, l := range got {
		want := ls[i]
		if l.fn != uintptr(want.Fn) || l.grid != want.Grid || l.block != want.Block || l.cluster != want.Cluster ||
			l.dependent != want.Dependent || l.ex != (want.Dependent || want.Cluster != cuda.Dim3{}) ||
			l.sharedBytes != want.SharedBytes || l.stream != 0x77 {
			t.Errorf("launch %d: %+v, want %+v on stream 0x77", i, l, want)
		}
		b := append([]byte(nil), want.Params...)
		ops := [3]uint64{uint64(r.x), uint64(r.w), uint64(r.y)}
		for _, p := range want.Patches {
			binary.LittleEndian.PutUint64(b[p.At:], ops[p.Operand]+uint64(p.Add))
		}
		if string(l.params[:len(b)]) != string(b) {
			t.Errorf("launch %d's parameters\n%x\nwant\n%x", i, l.params[:len(b)], b)
		}
		if len(l.offsets) != len(want.Offsets) {
			t.Errorf("launch %d: %d parameters, want %d", i, len(l.offsets), len(want.Offsets))
		}
	}

	differ := []struct {
		name         string
		change, undo func()
	}{
		{"handle", func() { r.handle = 0x2000 }, func() { r.handle = 0x1000 }},
		{"x's alignment", func() { r.x += 16 }, func() { r.x -= 16 }},
		{"y NULL", func() { r.y = 0 }, func() { r.y = 0x7e0000400000 }},
		{"a dimension", func() { r.setDim(2, 29) }, func() { r.setDim(2, 28) }},
		{"the stream", func() { r.stream = 0x78 }, func() { r.stream = 0x77 }},
		{"beta", func() { r.scalars(1, 1) }, func() { r.scalars(1, 0) }},
		{"the context", func() { fakeDriverReset(0, false, 2) }, func() { fakeDriverReset(0, false, 1) }},
		{"no context", func() { fakeDriverReset(0, false, 0) }, func() { fakeDriverReset(0, false, 1) }},
		{"a failing launch", func() { fakeDriverReset(700, false, 1) }, func() { fakeDriverReset(0, false, 1) }},
	}
	for _, d := range differ {
		fakeDriverReset(0, false, 1)
		d.change()
		if r.repeated() {
			t.Errorf("%s differs: served", d.name)
		}
		d.undo()
		if !r.repeated() {
			t.Errorf("after %s: not served", d.name)
		}
	}

	// Launches that use the stream's workspace: not on a stream being
	// captured, and gone once a workspace moves.
	r.stream = 0x90
	if !r.rememberRepeat(1, true, m, ls) {
		t.Fatal("workspace launches not kept")
	}
	fakeDriverReset(0, true, 1)
	if r.repeated() {
		t.Error("served from the stream's workspace while it is captured")
	}
	r.stream = 0x77
	if !r.repeated() {
		t.Error("launches without workspace not served while captured")
	}
	fakeDriverReset(0, false, 1)
	ForgetConvRepeats(m + 3)
	if r.repeated() {
		t.Error("served after the table was emptied")
	}
	if r.rememberRepeat(1, false, m+2, ls) {
		t.Error("kept launches recorded before a workspace moved")
	}
	if !r.rememberRepeat(1, false, m+3, ls) || !r.repeated() {
		t.Error("launches recorded after the move not kept")
	}
}

// TestConvRepeatLimits: launches beyond the table's limits are not kept,
// and the table takes no more than three quarters of its slots.
func TestConvRepeatLimits(t *testing.T) {
	m := emptyRepeats()
	t.Cleanup(func() { emptyRepeats() })
	fakeDriverReset(0, false, 1)
	r := newConvRecord(0x1000, 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, [4]int{8, 64, 28, 28})
	defer r.free()
	r.scalars(1, 0)
	bad := map[string]func(l []cuda.LaunchRecord) []cuda.LaunchRecord{
		"no launches":   func(l []cuda.LaunchRecord) []cuda.LaunchRecord { return nil },
		"five launches": func(l []cuda.LaunchRecord) []cuda.LaunchRecord { return append(l, l[0], l[1], l[0]) },
		"a patch past the end": func(l []cuda.LaunchRecord) []cuda.LaunchRecord {
			l[1].Patches = []cuda.Patch{{At: len(l[1].Params) - 4, Operand: 2}}
			return l
		},
		"a fourth operand": func(l []cuda.LaunchRecord) []cuda.LaunchRecord {
			l[0].Patches[0].Operand = 3
			return l
		},
		"too many parameters": func(l []cuda.LaunchRecord) []cuda.LaunchRecord {
			l[0].Offsets = make([]int32, 97)
			return l
		},
		"no kernel": func(l []cuda.LaunchRecord) []cuda.LaunchRecord {
			l[0].Fn = 0
			return l
		},
	}
	for name, f := range bad {
		if r.rememberRepeat(1, false, m, f(repeatLaunches())) {
			t.Errorf("%s: kept", name)
		}
	}
	kept := 0
	for i := 0; i < 300; i++ {
		r.setDim(0, 1+i)
		if r.rememberRepeat(1, false, m, repeatLaunches()) {
			kept++
		}
	}
	if kept != 192 || ConvRepeatsRoom() {
		t.Errorf("kept %d of 300 keys (room left %v), want 192 and none", kept, ConvRepeatsRoom())
	}
}

// TestConvRepeatThreads: calls served from the table on many threads while
// another keeps launches and empties it meet no torn entry: every call is
// served with its own addresses, or left to Go.
func TestConvRepeatThreads(t *testing.T) {
	m := emptyRepeats()
	t.Cleanup(func() { emptyRepeats() })
	fakeDriverReset(0, false, 1)
	const threads = 4
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for i := 0; i < threads; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			r := newConvRecord(0x1000, 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, [4]int{8, 64, 28, 28})
			defer r.free()
			r.scalars(1, 0)
			for {
				select {
				case <-stop:
					return
				default:
				}
				r.repeated()
			}
		}(i)
	}
	r := newConvRecord(0x1000, 0x7f0000000000, 0x7f0000100000, 0x7f0000200000, [4]int{8, 64, 28, 28})
	defer r.free()
	r.scalars(1, 0)
	for i := m + 1; i <= m+200; i++ {
		r.rememberRepeat(1, false, i-1, repeatLaunches())
		ForgetConvRepeats(i)
	}
	close(stop)
	wg.Wait()
}
