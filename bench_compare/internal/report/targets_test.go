package report

import (
	"strings"
	"testing"
)

func TestWriteTargets(t *testing.T) {
	rows := []Row{
		{Suite: "ica", DType: "s", M: 32, N: 32, K: 60000, Speedup: 2.5, OursUS: 10, RooflineUS: 7},
		{Suite: "ica", DType: "s", M: 64, N: 64, K: 60000, Speedup: 1.5, OursUS: 10, RooflineUS: 5},
		{Suite: "ica", DType: "h", M: 256, N: 256, K: 60000, Speedup: 1.2, OursUS: 10, RooflineUS: 9},
		{Suite: "linpack", DType: "bf16gemmex-f32acc", M: 8192, N: 8192, K: 8192, Speedup: 0.61, OursUS: 10, RooflineUS: 5},
	}
	var b strings.Builder
	writeTargets(&b, rows, nil)
	out := b.String()
	for _, want := range []string{
		"| ICA 32², 64² × 60000 | 1.50–2.50× (≥ 2×: 1 of 2 rows) | – | – |",
		"| ICA 256² × 60000 | – | – | 1.20–1.20× (≥ 1×: met) |",
		"| LINPACK 4096, 8192 | – | – | 0.61–0.61× (≥ 0.6×: met) |",
		"Memory-bound rows at ≥ 60% of the roofline: 1 of 2 (range 50.0–70.0%).",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
