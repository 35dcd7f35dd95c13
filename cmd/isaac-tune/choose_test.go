package main

import (
	"bytes"
	"strings"
	"testing"
)

// isaac-tune choose prints the plan of one GEMM under the shipped weights:
// the input and weights, the vendor model's time, the verdict, -top ranked
// configurations, and where the call is checked, the check's three
// kernels; a bad type, shape or layout is an error.
func TestChooseCmd(t *testing.T) {
	var out bytes.Buffer
	if err := planGemm(&out, []string{"-weights", "h200", "-type", "gemmex_f16_f32", "-shape", "2560,16,2560", "-layout", "TN", "-top", "5"}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 4+5+1+3 {
		t.Fatalf("%d lines, want 13:\n%s", len(lines), out.String())
	}
	for i, want := range []string{"gemmex_f16_f32 TN 2560x16x2560,", "vendor model: ", "predicted ", "rank  predicted µs"} {
		if !strings.HasPrefix(lines[i], want) {
			t.Errorf("line %d %q, want it to begin %q", i, lines[i], want)
		}
	}
	if !strings.HasSuffix(lines[2], "checked on its first calls") || lines[9] != "the check times, as the class runs them:" {
		t.Errorf("verdict %q, then %q", lines[2], lines[9])
	}
	if first, checked := strings.Fields(lines[4]), strings.TrimSpace(lines[10]); first[0] != "1" || first[len(first)-1] != checked {
		t.Errorf("rank 1 %q, the check's first %q: want the same configuration", lines[4], checked)
	}
	for _, bad := range [][]string{{"-type", "int8"}, {"-shape", "4,4"}, {"-shape", "0,4,4"}, {"-layout", "NX"}, {"-weights", "no-such-device"}} {
		args := append([]string{"-shape", "64,64,64"}, bad...)
		if err := planGemm(&bytes.Buffer{}, args); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
