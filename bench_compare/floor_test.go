package main

import (
	"strings"
	"testing"
)

func TestWriteFloorCSV(t *testing.T) {
	d, err := DTypeByName("h")
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Shape: Shape{Suite: "deepbench-f", M: 2560, N: 16, K: 2560, Layout: "NN"}, DType: d}
	_, bytes := Work(in, true)
	rows := []FloorRow{{In: in, Bytes: bytes, FloorUS: 6.5, EmptyUS: 1.75}, {In: in, Bytes: 0, FloorUS: 0, EmptyUS: 1}}
	var b strings.Builder
	if err := WriteFloorCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || lines[0] != "suite,dtype,m,n,k,layout,bytes,floor_us,floor_gbs,empty_us" {
		t.Fatalf("CSV:\n%s", b.String())
	}
	// 2·(2560·2560 + 2560·16) + 2·2560·16 bytes in 6.5 µs
	if want := "deepbench-f,h,2560,16,2560,NN,13271040,6.500,2041.7,1.750"; lines[1] != want {
		t.Errorf("row %q, want %q", lines[1], want)
	}
	if want := "deepbench-f,h,2560,16,2560,NN,0,0.000,0.0,1.000"; lines[2] != want {
		t.Errorf("empty row %q, want %q", lines[2], want)
	}
}
