package main

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

func TestProgressLine(t *testing.T) {
	p := &progress{total: 1000, unit: "samples"}
	l := p.line(250, 10*time.Second, "batch 3")
	for _, want := range []string{"25%", "250 samples", "25.0 samples/s", "ETA 30s", "batch 3", "[=======  "} {
		if !strings.Contains(l, want) {
			t.Errorf("%q lacks %q", l, want)
		}
	}
	// A time budget that runs out first sets the ETA.
	p = &progress{limit: time.Minute, unit: "samples"}
	if l := p.line(10, 45*time.Second, ""); !strings.Contains(l, "75%") || !strings.Contains(l, "ETA 15s") {
		t.Errorf("time-limited: %q", l)
	}
}

func TestDeviceOf(t *testing.T) {
	c := []string{
		"run: isaac-tune sample, …",
		"device: NVIDIA H100 80GB HBM3 (compute 9.0, 132 SMs, SM clock 1980 MHz, memory clock 2619 MHz, 5120-bit bus, L2 52428800 bytes)",
		"device_key: h100",
	}
	d, err := deviceOf(c)
	if err != nil || d.Name != "NVIDIA H100 80GB HBM3" || d.Key != "h100" || d.SMs != 132 || d.ComputeCap != "9.0" {
		t.Fatalf("%+v %v", d, err)
	}
	mixed := append(c, "device: NVIDIA A100-SXM4-40GB (compute 8.0, 108 SMs, …)")
	if _, err := deviceOf(mixed); err == nil {
		t.Error("data sets of two devices accepted")
	}
	if _, err := deviceOf(nil); err == nil {
		t.Error("no provenance accepted")
	}
}

func TestParseArch(t *testing.T) {
	a, err := parseArch("64, 128,64")
	if err != nil || len(a) != 3 || a[1] != 128 || archString(a) != "64, 128, 64" {
		t.Errorf("%v %v", a, err)
	}
	for _, bad := range []string{"", "64,,3", "0", "x"} {
		if _, err := parseArch(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if len(table2) != 7 {
		t.Errorf("Table 2 has %d architectures", len(table2))
	}
}

// isaac-tune score ranks the held-out inputs' timed configurations of a
// data set with each model: a shipped model's picks are within a few times
// the best (not random), and a model cannot beat the fastest measured.
func TestScore(t *testing.T) {
	var out strings.Builder
	if err := score(&out, []string{"-data", "../../weights/data/h200-gemm-03.csv.zst", "-weights", "h200,h100", "-min", "8", "-types"}); err != nil {
		t.Fatal(err)
	}
	text := out.String()
	t.Log("\n" + text)
	var inputs int
	var median, p90, mean float64
	lines := 0
	for _, line := range strings.Split(text, "\n") {
		if !strings.HasPrefix(line, "  plain rows") && !strings.HasPrefix(line, "  all rows") {
			continue
		}
		lines++
		f := strings.Fields(strings.TrimPrefix(strings.TrimPrefix(line, "  plain rows"), "  all rows"))
		if _, err := fmt.Sscanf(strings.Join(f, " "), "%d inputs median %f %% p90 %f %% mean %f %%", &inputs, &median, &p90, &mean); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if inputs < 5 || median < 0 || median > p90 || p90 > 100 || mean < 0 {
			t.Errorf("%q: implausible", line)
		}
	}
	if lines != 4 {
		t.Errorf("%d figure lines for two models, want 4", lines)
	}
	// Each model's error on the fastest timed configurations: a few tens of
	// per cent at most, ordered.
	biases := 0
	for _, line := range strings.Split(text, "\n") {
		rest, ok := strings.CutPrefix(line, "    fastest timed: ln(predicted / measured time) ")
		if !ok {
			continue
		}
		biases++
		var med, p10, p90 float64
		if _, err := fmt.Sscanf(rest, "median %f p10 %f p90 %f", &med, &p10, &p90); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if p10 > med || med > p90 || math.Abs(med) > 0.7 {
			t.Errorf("%q: implausible", line)
		}
	}
	if biases < 2 {
		t.Errorf("%d fastest-timed lines for two models, want 2 or more", biases)
	}
}

// TestScoreAllInputs scores every input of a file (-fold all) and parts
// them into round shapes and the rest, which together are all of them.
func TestScoreAllInputs(t *testing.T) {
	counts := func(args ...string) (header string, all, round, rest int) {
		var out strings.Builder
		if err := score(&out, append([]string{"-data", "../../weights/data/h200-gemm-09.csv.zst", "-weights", "h200", "-types"}, args...)); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(out.String(), "\n")
		header = lines[0]
		for _, line := range lines {
			var n int
			for prefix, into := range map[string]*int{"  all rows": &all, "    round (m, n, k % 64 = 0)": &round, "    the rest": &rest} {
				if rest, ok := strings.CutPrefix(line, prefix); ok {
					if _, err := fmt.Sscanf(rest, "%d inputs", &n); err != nil {
						t.Fatalf("%q: %v", line, err)
					}
					*into = n
				}
			}
		}
		return header, all, round, rest
	}
	header, all, round, rest := counts("-fold", "all")
	t.Log(header)
	if !strings.Contains(header, "every input") {
		t.Errorf("header %q does not say every input is scored", header)
	}
	if round == 0 || rest == 0 || round+rest != all {
		t.Errorf("-fold all: %d round and %d other inputs of %d", round, rest, all)
	}
	_, fold9, _, _ := counts()
	if fold9 == 0 || fold9*4 > all {
		t.Errorf("fold 9 holds %d of the file's %d inputs, want about a tenth", fold9, all)
	}
	var out strings.Builder
	if err := score(&out, []string{"-data", "../../weights/data/h200-gemm-09.csv.zst", "-fold", "3"}); err == nil {
		t.Error("-fold 3 accepted")
	}
}
