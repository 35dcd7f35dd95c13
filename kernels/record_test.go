package kernels

import (
	"encoding/binary"
	"errors"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
)

// recordOf is a recording of launches whose parameters pack writes for
// operands at x, w and y.
func recordOf(t *testing.T, x, w, y uint64, launches int, pack func(p *cuda.Params, x, w, y uint64)) *Recording {
	t.Helper()
	rec := &Recording{}
	p := new(cuda.Params)
	for i := 0; i < launches; i++ {
		p.Reset()
		pack(p, x, w, y)
		if err := put(rec, cuda.Function(0x1000+i), cuda.Dim3{uint32(i + 1), 2, 3}, cuda.Dim3{128, 1, 1}, cuda.Dim3{}, i == 1, 96, 0, p); err != nil {
			t.Fatal(err)
		}
	}
	return rec
}

// TestRepeat: two recordings of a call at moved addresses give a's
// launches with a patch for every word that moved with one operand (x, w,
// y and addresses derived from them), and nothing else patched; any other
// difference refuses.
func TestRepeat(t *testing.T) {
	shift := RepeatShift
	base := [3]uint64{0x7f0000000000, 0x7f0000100000, 0x7f0000200100}
	pack := func(p *cuda.Params, x, w, y uint64) {
		p.U64(x).U64(w).U64(y).I32(7).U16(0x3c00).U64(x + 4096).I32(-3).U64(0xdead0000).U64(y - 64)
	}
	a := recordOf(t, base[0], base[1], base[2], 2, pack)
	b := recordOf(t, base[0]+shift[0], base[1]+shift[1], base[2]+shift[2], 2, pack)
	ls, err := Repeat(a, b, base, shift)
	if err != nil {
		t.Fatal(err)
	}
	if len(ls) != 2 || !ls[1].Dependent || ls[0].Dependent || ls[1].Fn != 0x1001 || ls[0].SharedBytes != 96 {
		t.Fatalf("launches %+v", ls)
	}
	want := []cuda.Patch{{At: 0, Operand: 0}, {At: 8, Operand: 1}, {At: 16, Operand: 2}, {At: 32, Operand: 0, Add: 4096}, {At: 56, Operand: 2, Add: -64}}
	for _, l := range ls {
		if len(l.Patches) != len(want) {
			t.Fatalf("patches %+v, want %+v", l.Patches, want)
		}
		for i := range want {
			if l.Patches[i] != want[i] {
				t.Errorf("patch %d: %+v, want %+v", i, l.Patches[i], want[i])
			}
		}
		// Patched for a third call, the parameters are what packing them
		// for that call gives.
		third := [3]uint64{0x7e0000000000, 0x7e0000300000, 0x7e0000400100}
		got := append([]byte(nil), l.Params...)
		for _, p := range l.Patches {
			binary.LittleEndian.PutUint64(got[p.At:], third[p.Operand]+uint64(p.Add))
		}
		p := new(cuda.Params)
		pack(p, third[0], third[1], third[2])
		if wantBytes, _ := p.Packed(); string(got) != string(wantBytes) {
			t.Errorf("patched parameters\n%x\nwant\n%x", got, wantBytes)
		}
	}

	refuse := map[string]func(p *cuda.Params, x, w, y uint64){
		"a value that is not an address": func(p *cuda.Params, x, w, y uint64) { p.U64(x).I32(int32(x >> 8)) },
		"a difference of two addresses":  func(p *cuda.Params, x, w, y uint64) { p.U64(y - x) },
		"a sum of two addresses":         func(p *cuda.Params, x, w, y uint64) { p.U64(x + w) },
		"an address scaled":              func(p *cuda.Params, x, w, y uint64) { p.U64(x / 2) },
		"an address's high half":         func(p *cuda.Params, x, w, y uint64) { p.I32(1).U32(uint32(x >> 32)) },
		"an address in a short tail":     func(p *cuda.Params, x, w, y uint64) { p.U64(x).U16(uint16(x >> 8)) },
	}
	for name, f := range refuse {
		a := recordOf(t, base[0], base[1], base[2], 1, f)
		b := recordOf(t, base[0]+shift[0], base[1]+shift[1], base[2]+shift[2], 1, f)
		if _, err := Repeat(a, b, base, shift); !errors.Is(err, ErrNotRepeatable) {
			t.Errorf("%s: %v, want ErrNotRepeatable", name, err)
		}
	}
	one := recordOf(t, base[0], base[1], base[2], 1, pack)
	if _, err := Repeat(one, b, base, shift); !errors.Is(err, ErrNotRepeatable) {
		t.Errorf("launch counts differ: %v", err)
	}
	ws := recordOf(t, base[0]+shift[0], base[1]+shift[1], base[2]+shift[2], 2, pack)
	ws.StreamWorkspace = true
	if _, err := Repeat(a, ws, base, shift); !errors.Is(err, ErrNotRepeatable) {
		t.Errorf("workspaces differ: %v", err)
	}
	grid := recordOf(t, base[0]+shift[0], base[1]+shift[1], base[2]+shift[2], 2, pack)
	grid.Launches[0].Grid[0]++
	if _, err := Repeat(a, grid, base, shift); !errors.Is(err, ErrNotRepeatable) {
		t.Errorf("grids differ: %v", err)
	}
	if _, err := Repeat(&Recording{}, &Recording{}, base, shift); !errors.Is(err, ErrNotRepeatable) {
		t.Errorf("no launches: %v", err)
	}
}
