package main

import (
	"fmt"
	"io"
	"strings"
)

// Target is one performance target of the GEMM issue: rows of a suite
// (optionally restricted by shape) of a data-type group must reach a
// speed-up over the vendor.
type Target struct {
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

// GemmTargets are the targets of the GEMM performance issue (Table 4 suite,
// best swept configuration).
var GemmTargets = []Target{
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

// WriteTargets writes, per target and data-type group, the range of the
// rows' speed-ups and how many rows meet the target, then the memory-bound
// rows' share of the roofline.
func WriteTargets(w io.Writer, rows []Row) {
	fmt.Fprintf(w, "| case | %s |\n|---|%s\n", strings.Join(targetGroups, " | "), strings.Repeat("---|", len(targetGroups)))
	for _, t := range GemmTargets {
		fmt.Fprintf(w, "| %s |", t.Case)
		for _, grp := range targetGroups {
			var sp []float64
			for _, r := range rows {
				if contains(t.Suite, r.Suite) && dtypeGroup(r.DType) == grp && (t.Shape == nil || t.Shape(r)) && r.Speedup > 0 {
					sp = append(sp, r.Speedup)
				}
			}
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
		fmt.Fprintf(w, "\nMemory-bound rows at ≥ 60%% of the roofline: %d of %d (range %.1f–%.1f%%).\n", ok, n, lo, hi)
	}
}
