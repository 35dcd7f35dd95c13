package main

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/weights"
)

// The report's figures are the models' own predictions set against the
// CSV's times: a row timed exactly as predicted reads +0.000, one timed
// twice as fast as predicted ln 2; forwarded dispatches and unparsable
// configurations are left out.
func TestPredictedReport(t *testing.T) {
	w, err := weights.For("h100")
	if err != nil {
		t.Skip("no shipped h100 weights:", err)
	}
	cm, _ := w.ConfigModel()
	vm, _ := w.Model("vendor")
	const cfgText = "ms=4,ns=8,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma"
	cfg, err := ptx.ParseConfig(cfgText)
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	csv.WriteString("suite,op,dtype,m,n,k,layout,vendor_us,ours_us,speedup,roofline_us,config,model_us,model_config,dispatch_us,dispatch_config\n")
	for _, s := range [][3]int{{1024, 1024, 1024}, {2560, 64, 2560}, {777, 333, 1500}} {
		row := struct{ m, n, k int }{s[0], s[1], s[2]}
		r, err := predictorInput(report.Row{Suite: "deepbench-f", Op: "gemm", DType: "s", M: row.m, N: row.n, K: row.k, Layout: "NN"})
		if err != nil {
			t.Fatal(err)
		}
		flops := 2 * float64(row.m*row.n) * float64(row.k)
		us := flops / (math.Exp(cm.Scores(r, []ptx.GemmConfig{cfg})[0]) * 1e6)
		vus := flops / (math.Exp(vm.InputScore(r)) * 1e6)
		fmt.Fprintf(&csv, "deepbench-f,gemm,s,%d,%d,%d,NN,%g,%g,1,1,\"%s\",%g,\"%s\",%g,\"cuBLAS (measured: ours 1 µs, cuBLAS 1 µs)\"\n",
			row.m, row.n, row.k, vus, us, cfgText, us/2, cfgText, vus)
	}
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, csv.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := predictedReport(path, "h100", &out); err != nil {
		t.Fatal(err)
	}
	want := map[string]float64{"ours": 0, "model": math.Ln2, "vendor model": 0}
	re := regexp.MustCompile(`(?m)^  (\S+(?: model)?)\s+(\d+) rows  median ([-+][\d.]+)`)
	got := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
		med, _ := strconv.ParseFloat(m[3], 64)
		wv, ok := want[m[1]]
		if !ok {
			t.Errorf("column %q reported (a forwarded dispatch has no configuration):\n%s", m[1], out.String())
			continue
		}
		if m[2] != "3" || math.Abs(med-wv) > 0.002 {
			t.Errorf("%s: %s rows, median %v; want 3 rows, %.3f\n%s", m[1], m[2], med, wv, out.String())
		}
		got[m[1]] = true
	}
	if len(got) != len(want) {
		t.Errorf("columns %v reported; want %v\n%s", got, want, out.String())
	}
}
