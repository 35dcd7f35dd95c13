package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"
)

// The linear suite's targets: per column and data type, the geomean over
// every row and over the rows of at most 16 tokens, and the slowest row,
// each marked met or missed; other suites' rows write nothing.
func TestWriteLinearTargets(t *testing.T) {
	row := func(dtype, name string, n int, vendor, ours, model float64) Row {
		return Row{Suite: LinearSuite, Op: "gemm", Name: name, DType: dtype, M: 4096, N: n, K: 4096, Layout: "TN",
			VendorUS: vendor, OursUS: ours, Speedup: vendor / ours, Alt: []Alt{{Name: "model", US: model}}}
	}
	rows := []Row{
		row("h", "llama-4096x4096-t1", 1, 20, 10, 20),   // 2x; model 1x
		row("h", "llama-4096x4096-t8", 8, 20, 12.5, 40), // 1.6x; model 0.5x
		row("h", "llama-4096x4096-t512", 512, 100, 80, 100),
		row("s", "llama-4096x4096-t1", 1, 30, 40, 30), // 0.75x: the slowest
	}
	var buf bytes.Buffer
	WriteLinearTargets(&buf, rows)
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	if len(lines) != 2+2*3 {
		t.Fatalf("%d lines, want a title, a header and 2 columns × (2 types + all):\n%s", len(lines), buf.String())
	}
	if !strings.Contains(lines[0], ">= 1.10x") || !strings.Contains(lines[0], ">= 1.30x") || !strings.Contains(lines[0], "< 0.97x") {
		t.Errorf("title %q", lines[0])
	}
	want := map[int][]string{
		// ours, h: geomean (2·1.6·1.25)^(1/3) = 1.59, small (2·1.6)^(1/2) = 1.79, min 1.25.
		2: {"ours", "h", "3", "1.59x", "ok", "1.79x", "ok", "1.25x", "ok", "h", "llama-4096x4096-t512"},
		// ours, all: the FP32 row is the slowest.
		4: {"ours", "all", "4", "MISSED", "0.75x", "MISSED", "s", "llama-4096x4096-t1"},
		// model, h: 1, 0.5, 1.
		5: {"model", "h", "3", "0.79x", "MISSED", "0.71x", "MISSED", "0.50x", "MISSED", "h", "llama-4096x4096-t8"},
	}
	for i, fields := range want {
		got := strings.Fields(lines[i])
		for _, f := range fields {
			if !slices.Contains(got, f) {
				t.Errorf("line %d %q lacks %q", i, lines[i], f)
			}
		}
	}
	buf.Reset()
	rows[0].Suite = "linpack"
	WriteLinearTargets(&buf, rows[:1])
	if buf.Len() != 0 {
		t.Errorf("wrote for another suite:\n%s", buf.String())
	}
	if vendor(rows[1:]) != "cuBLASLt" || vendor(rows[:1]) != "cuBLAS" {
		t.Error("the linear suite's vendor is not cuBLASLt")
	}
}
