package report

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSummaryAndReadme(t *testing.T) {
	rows := []Row{
		{Suite: "linpack", DType: "s", Speedup: 0.5}, {Suite: "linpack", DType: "s", Speedup: 2},
		{Suite: "ica", DType: "s", Speedup: 4}, {Suite: "linpack", DType: "h", Speedup: 1.5},
	}
	env := Env{Device: "GPU", Driver: "drv", CUBLAS: "13", Date: "today", Commit: "0123456789abcdef"}
	var b strings.Builder
	if err := writeSummary(&b, "results/h100", "table4", env, rows); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| suite | s | h |", "| linpack | 1.00× | 1.50× |", "| ica | 4.00× | – |",
		"commit `0123456789ab`", "ISAAC ≥ 1.0× on 3", "(results/h100/table4.md)",
		"![table4 h](results/h100/table4-h.svg)",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("summary lacks %q:\n%s", want, out)
		}
	}
	if g := math.Pow(0.5*2*4*1.5, 0.25); !strings.Contains(out, fmt.Sprintf("Overall geometric mean %.2f×", g)) {
		t.Errorf("overall geomean %.2f missing:\n%s", g, out)
	}
	readme := filepath.Join(t.TempDir(), "README.md")
	os.WriteFile(readme, []byte("intro\n<!-- bench_compare:table4:begin -->\nold\n<!-- bench_compare:table4:end -->\nafter\n"), 0o644)
	if err := updateReadme(readme, "r", "table4", env, rows); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(readme)
	if strings.Contains(string(got), "old") || !strings.HasPrefix(string(got), "intro\n") ||
		!strings.HasSuffix(string(got), "<!-- bench_compare:table4:end -->\nafter\n") || !strings.Contains(string(got), "| linpack |") {
		t.Errorf("README after update:\n%s", got)
	}
	if err := updateReadme(readme, "r", "table5", env, rows); err == nil {
		t.Error("missing markers accepted")
	}
}
