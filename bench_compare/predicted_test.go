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
	out := reportOf(t, csv.Bytes())
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

// A column that ran kernels of more than one math is also broken down by
// math, each line with its own rows; a column of one math is not.
func TestPredictedReportByMath(t *testing.T) {
	w, err := weights.For("h100")
	if err != nil {
		t.Skip("no shipped h100 weights:", err)
	}
	cm, _ := w.ConfigModel()
	configs := []string{
		"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=dfma",
		"ms=2,ns=2,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=2,math=mma_f64k8",
		"ms=2,ns=2,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=2,math=mma_f64k8",
	}
	var csv bytes.Buffer
	csv.WriteString("suite,op,dtype,m,n,k,layout,vendor_us,ours_us,speedup,roofline_us,config,model_us,model_config\n")
	for i, s := range [][3]int{{512, 512, 512}, {1024, 1024, 1024}, {2048, 2048, 2048}} {
		in, err := predictorInput(report.Row{Suite: "linpack", Op: "gemm", DType: "d", M: s[0], N: s[1], K: s[2], Layout: "NT"})
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := ptx.ParseConfig(configs[i])
		if err != nil {
			t.Fatal(err)
		}
		flops := 2 * float64(s[0]*s[1]) * float64(s[2])
		us := flops / (math.Exp(cm.Scores(in, []ptx.GemmConfig{cfg})[0]) * 1e6)
		// ours timed as predicted, the model column (the same configuration)
		// in half the time.
		fmt.Fprintf(&csv, "linpack,gemm,d,%d,%d,%d,NT,%g,%g,1,1,\"%s\",%g,\"%s\"\n", s[0], s[1], s[2], us, us, configs[i], us/2, configs[i])
	}
	out := reportOf(t, csv.Bytes())
	re := regexp.MustCompile(`(?m)^( +)(\S+)\s+(\d+) rows  median ([-+][\d.]+)`)
	type line struct {
		column, math string
		rows         string
		median       float64
	}
	var lines []line
	column := ""
	for _, m := range re.FindAllStringSubmatch(out.String(), -1) {
		med, _ := strconv.ParseFloat(m[4], 64)
		if len(m[1]) == 2 {
			column = m[2]
			lines = append(lines, line{column, "", m[3], med})
		} else {
			lines = append(lines, line{column, m[2], m[3], med})
		}
	}
	want := []line{
		{"ours", "", "3", 0}, {"ours", "dfma", "1", 0}, {"ours", "mma_f64k8", "2", 0},
		{"model", "", "3", math.Ln2}, {"model", "dfma", "1", math.Ln2}, {"model", "mma_f64k8", "2", math.Ln2},
	}
	if len(lines) < len(want) {
		t.Fatalf("%d lines, want %d (vendor model aside)\n%s", len(lines), len(want), out.String())
	}
	for i, w := range want {
		l := lines[i]
		if l.column != w.column || l.math != w.math || l.rows != w.rows || math.Abs(l.median-w.median) > 0.002 {
			t.Errorf("line %d: %+v, want %+v\n%s", i, l, w, out.String())
		}
	}
}

// reportOf is -predicted h100's report on a results CSV's text.
func reportOf(t *testing.T, csv []byte) *bytes.Buffer {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.csv")
	if err := os.WriteFile(path, csv, 0o644); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := predictedReport(path, "h100", &out); err != nil {
		t.Fatal(err)
	}
	return &out
}
