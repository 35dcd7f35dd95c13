package report

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// target is one performance target of the GEMM issue: rows of a suite
// (optionally restricted by shape) of a data-type group must reach a
// speed-up over the vendor.
type target struct {
	Case  string             // as the issue names it
	Suite []string           // suites the rows come from
	Shape func(r Row) bool   // nil: every row of the suites
	Min   map[string]float64 // data-type group ("FP32", "FP64", "FP16/BF16") → minimum speed-up
}

// dtypeGroup maps a row's data type to the column.
func dtypeGroup(d string) string {
	switch d {
	case "s", "sgemm-tf32":
		return "FP32"
	case "d":
		return "FP64"
	}
	return "FP16/BF16"
}

var targetGroups = []string{"FP32", "FP64", "FP16/BF16"}

// gemmTargets are the targets of the GEMM performance issue (Table 4 suite,
// best swept configuration).
var gemmTargets = []target{
	{"DeepBench fwd/bwd N = 16–128", []string{"deepbench-f", "deepbench-b"}, nil,
		map[string]float64{"FP32": 1.5, "FP64": 1.2, "FP16/BF16": 1.5}},
	{"ICA 32², 64² × 60000", []string{"ica"}, func(r Row) bool { return r.M <= 64 },
		map[string]float64{"FP32": 2, "FP64": 1.5, "FP16/BF16": 1.5}},
	{"ICA 256² × 60000", []string{"ica"}, func(r Row) bool { return r.M == 256 },
		map[string]float64{"FP32": 1.1, "FP64": 1.0, "FP16/BF16": 1.0}},
	{"LAPACK K = 32", []string{"lapack"}, nil,
		map[string]float64{"FP32": 1.3, "FP64": 1.1, "FP16/BF16": 1.3}},
	{"LINPACK 512–2048", []string{"linpack"}, func(r Row) bool { return r.M <= 2048 },
		map[string]float64{"FP32": 1.0, "FP64": 0.9, "FP16/BF16": 0.8}},
	{"LINPACK 4096, 8192", []string{"linpack"}, func(r Row) bool { return r.M >= 4096 },
		map[string]float64{"FP32": 0.95, "FP64": 0.9, "FP16/BF16": 0.6}},
}

// memoryBound reports whether a row is one of the memory-bound rows
// (DeepBench, ICA 32²/64², LAPACK), which must reach 60% of the roofline.
func memoryBound(r Row) bool {
	switch r.Suite {
	case "deepbench-f", "deepbench-b", "lapack":
		return true
	case "ica":
		return r.M <= 64
	}
	return false
}

// writeTargets writes, per target and data-type group, the range of the
// rows' speed-ups and how many rows meet the target, then the memory-bound
// rows' share of the roofline. With floors (bench_compare -floor), a cell
// also counts the rows whose target asks for more than vendor / floor:
// a time below what reading the input's bytes takes under the same timer,
// which no kernel reaches; and a table of every row that misses its
// target sets its time beside its floor.
func writeTargets(w io.Writer, rows []Row, floors floorTable) {
	fmt.Fprintf(w, "| case | %s |\n|---|%s\n", strings.Join(targetGroups, " | "), strings.Repeat("---|", len(targetGroups)))
	for _, t := range gemmTargets {
		fmt.Fprintf(w, "| %s |", t.Case)
		for _, grp := range targetGroups {
			sp := speedups(t.rowsOf(rows, grp))
			if len(sp) == 0 {
				fmt.Fprint(w, " – |")
				continue
			}
			lo, hi, met := sp[0], sp[0], 0
			for _, v := range sp {
				lo, hi = min(lo, v), max(hi, v)
				if v >= t.Min[grp] {
					met++
				}
			}
			verdict := "met"
			if met < len(sp) {
				verdict = fmt.Sprintf("%d of %d rows", met, len(sp))
				if beyond := t.beyondFloor(rows, grp, floors); beyond > 0 {
					verdict += fmt.Sprintf("; %d beyond the floor", beyond)
				}
			}
			fmt.Fprintf(w, " %.2f–%.2f× (≥ %.2g×: %s) |", lo, hi, t.Min[grp], verdict)
		}
		fmt.Fprintln(w)
	}
	var n, ok int
	lo, hi := 100.0, 0.0
	for _, r := range rows {
		if !memoryBound(r) || r.OursUS <= 0 {
			continue
		}
		pct := 100 * r.RooflineUS / r.OursUS
		n++
		if pct >= 60 {
			ok++
		}
		lo, hi = min(lo, pct), max(hi, pct)
	}
	if n > 0 {
		fmt.Fprintf(w, "\nMemory-bound rows at ≥ 60%% of the roofline: %d of %d (range %.1f–%.1f%%).", ok, n, lo, hi)
		if len(floors) > 0 {
			// A row whose floor is above roofline / 0.6 cannot reach 60 %
			// with a kernel that only reads its bytes.
			beyond := 0
			for _, r := range rows {
				if f := floors.of(r); memoryBound(r) && r.OursUS > 0 && f > 0 && r.RooflineUS/f < 0.6 {
					beyond++
				}
			}
			fmt.Fprintf(w, " %d of the %d are beyond the floor: a plain read of their bytes takes longer than roofline / 0.6.", beyond, n)
		}
		fmt.Fprintln(w)
	}
	if len(floors) > 0 {
		writeMissesAgainstFloor(w, rows, floors)
	}
}

// rowsOf are the target's rows of data-type group grp.
func (t target) rowsOf(rows []Row, grp string) []Row {
	var out []Row
	for _, r := range rows {
		if slices.Contains(t.Suite, r.Suite) && dtypeGroup(r.DType) == grp && (t.Shape == nil || t.Shape(r)) && r.Speedup > 0 {
			out = append(out, r)
		}
	}
	return out
}

// beyondFloor counts the rows of group grp whose target speed-up exceeds
// vendor / floor.
func (t target) beyondFloor(rows []Row, grp string, floors floorTable) int {
	n := 0
	for _, r := range t.rowsOf(rows, grp) {
		if f := floors.of(r); f > 0 && r.VendorUS/f < t.Min[grp] {
			n++
		}
	}
	return n
}

// writeMissesAgainstFloor lists the rows below their target with their
// floor: the most any kernel could show (vendor / floor) and where ours
// stands (ours / floor).
func writeMissesAgainstFloor(w io.Writer, rows []Row, floors floorTable) {
	fmt.Fprint(w, "\nRows below their target, against their floor (a kernel that only reads the input's bytes, same timer):\n\n")
	fmt.Fprint(w, "| case | dtype | m×n×k | target | cuBLAS µs | ours µs | floor µs | cuBLAS / floor | ours / floor |\n|---|---|---|--:|--:|--:|--:|--:|--:|\n")
	for _, t := range gemmTargets {
		for _, grp := range targetGroups {
			for _, r := range t.rowsOf(rows, grp) {
				f := floors.of(r)
				if r.Speedup >= t.Min[grp] || f <= 0 {
					continue
				}
				mark := ""
				if r.VendorUS/f < t.Min[grp] {
					mark = " (beyond)"
				}
				fmt.Fprintf(w, "| %s | %s | %d×%d×%d %s | %.2g× | %.2f | %.2f | %.2f | %.2f×%s | %.2f× |\n",
					t.Case, r.DType, r.M, r.N, r.K, r.Layout, t.Min[grp], r.VendorUS, r.OursUS, f, r.VendorUS/f, mark, r.OursUS/f)
			}
		}
	}
}
