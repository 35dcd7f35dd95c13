package report

import (
	"strings"
	"testing"
)

func TestWriteFloorCSV(t *testing.T) {
	// 2·(2560·2560 + 2560·16) + 2·2560·16 bytes: FP16 2560×16×2560, beta = 0
	const bytes = 13271040
	rows := []FloorRow{
		{Suite: "deepbench-f", DType: "h", M: 2560, N: 16, K: 2560, Layout: "NN", Bytes: bytes, FloorUS: 6.5, EmptyUS: 1.75},
		{Suite: "deepbench-f", DType: "h", M: 2560, N: 16, K: 2560, Layout: "NN", Bytes: 0, FloorUS: 0, EmptyUS: 1},
	}
	var b strings.Builder
	if err := WriteFloorCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || lines[0] != "suite,dtype,m,n,k,layout,bytes,floor_us,floor_gbs,empty_us" {
		t.Fatalf("CSV:\n%s", b.String())
	}
	// 13271040 bytes in 6.5 µs
	if want := "deepbench-f,h,2560,16,2560,NN,13271040,6.500,2041.7,1.750"; lines[1] != want {
		t.Errorf("row %q, want %q", lines[1], want)
	}
	if want := "deepbench-f,h,2560,16,2560,NN,0,0.000,0.0,1.000"; lines[2] != want {
		t.Errorf("empty row %q, want %q", lines[2], want)
	}
}

// A floor CSV reads back, and the targets report counts the rows whose
// target is beyond vendor / floor and lists every missed row beside its
// floor.
func TestTargetsAgainstFloor(t *testing.T) {
	in := func(n int) FloorRow {
		return FloorRow{Suite: "deepbench-f", DType: "h", M: 2560, N: n, K: 2560, Layout: "NN", Bytes: 1e7, FloorUS: 8, EmptyUS: 1.2}
	}
	var b strings.Builder
	if err := WriteFloorCSV(&b, []FloorRow{in(16), in(32)}); err != nil {
		t.Fatal(err)
	}
	floors, err := readFloorCSV(strings.NewReader(b.String()))
	if err != nil {
		t.Fatal(err)
	}
	rows := []Row{
		// 11 / 8 = 1.375 < 1.5: the target is beyond the floor
		{Suite: "deepbench-f", DType: "h", M: 2560, N: 16, K: 2560, Layout: "NN", VendorUS: 11, OursUS: 10, Speedup: 1.1, RooflineUS: 4},
		// 13 / 8 = 1.625: within reach, missed
		{Suite: "deepbench-f", DType: "h", M: 2560, N: 32, K: 2560, Layout: "NN", VendorUS: 13, OursUS: 10, Speedup: 1.3, RooflineUS: 4},
	}
	if f := floors.of(rows[0]); f != 8 {
		t.Fatalf("floor of row 0: %v", f)
	}
	var out strings.Builder
	writeTargets(&out, rows, floors)
	for _, want := range []string{
		"(≥ 1.5×: 0 of 2 rows; 1 beyond the floor)",
		"| DeepBench fwd/bwd N = 16–128 | h | 2560×16×2560 NN | 1.5× | 11.00 | 10.00 | 8.00 | 1.38× (beyond) | 1.25× |",
		"| DeepBench fwd/bwd N = 16–128 | h | 2560×32×2560 NN | 1.5× | 13.00 | 10.00 | 8.00 | 1.62× | 1.25× |",
		// roofline 4 µs / floor 8 µs = 50 % < 60 %, both rows
		"Memory-bound rows at ≥ 60% of the roofline: 0 of 2 (range 40.0–40.0%). 2 of the 2 are beyond the floor",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("missing %q in\n%s", want, out.String())
		}
	}
	if _, err := readFloorCSV(strings.NewReader("")); err == nil {
		t.Error("an empty floor CSV: no error")
	}
	if _, err := readFloorCSV(strings.NewReader("a,b\n1,2\n")); err == nil {
		t.Error("a CSV that is not a floor CSV: no error")
	}
}
