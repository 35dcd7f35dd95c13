package main

import (
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/weights"
)

// predictedReport is -replot CSV -predicted WEIGHTS (no GPU): how a
// weights file's models predict the times a results CSV measured. For
// every GEMM row and every column that ran one of our configurations (the
// first column's, -config's, the model's, the dispatch's where it served),
// the configuration model's predicted time of that configuration on the
// row's input against the measured median, as ln(predicted / measured):
// positive where the model thinks the kernel slower than it ran. The same
// for the vendor model against the vendor's time. A sweep's CSV (the best
// of each row's timed configurations) shows the model's error on the
// configurations that win the row; a -model run's, its error on its own
// picks. Under each column the same figure per kernel math (ffma, mma_f16,
// wgmma_bf16, …), where the column ran more than one. Batched rows (the
// attention suite) are left out: the CSV does not record their batch count.
func predictedReport(path, from string, out io.Writer) error {
	w, err := weights.For(from)
	if err != nil {
		var ferr error
		if w, ferr = weights.Load(from); ferr != nil {
			return fmt.Errorf("-predicted %s: %w", from, err)
		}
	}
	cm, ok := w.ConfigModel()
	if !ok {
		return fmt.Errorf("-predicted %s: no configuration model of a schema this build knows", from)
	}
	vm, _ := w.Model("vendor")
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	rows, err := report.ReadCSV(f)
	f.Close()
	if err != nil {
		return err
	}
	errs := map[string][]float64{}              // column → ln(predicted / measured)
	byMath := map[string]map[string][]float64{} // column → kernel math → the same
	var columns []string
	add := func(col string, e float64) {
		if _, ok := errs[col]; !ok {
			columns = append(columns, col)
		}
		errs[col] = append(errs[col], e)
	}
	addMath := func(col string, m ptx.Math, e float64) {
		if byMath[col] == nil {
			byMath[col] = map[string][]float64{}
		}
		byMath[col][m.String()] = append(byMath[col][m.String()], e)
	}
	for _, r := range rows {
		if r.Op != "gemm" || r.Suite == "attention" {
			continue
		}
		in, err := predictorInput(r)
		if err != nil {
			return fmt.Errorf("%s: %s %dx%dx%d %s: %w", path, r.DType, r.M, r.N, r.K, r.Layout, err)
		}
		runs := append([]report.Alt{{Name: "ours", US: r.OursUS, Config: r.Config}}, r.Alt...)
		for _, a := range runs {
			text, _, _ := strings.Cut(a.Config, " (") // a served dispatch's "(checked: …)"
			c, err := ptx.ParseConfig(text)
			if err != nil || a.US <= 0 || !cm.ConfigLayout().Describes(c) {
				continue // the vendor's (a forwarded dispatch), or what the model cannot score
			}
			e := predictedLog(r.Flops, cm.Scores(in, []ptx.GemmConfig{c})[0], a.US)
			add(a.Name, e)
			addMath(a.Name, c.Math, e)
		}
		if vm != nil && r.VendorUS > 0 {
			add("vendor model", predictedLog(r.Flops, vm.InputScore(in), r.VendorUS))
		}
	}
	fmt.Fprintf(out, "%s: the %s weights' predictions (%s, %d samples) against the measured times, ln(predicted / measured)\n",
		path, w.Device.Key, w.Device.Name, w.Samples)
	for _, col := range columns {
		writePredicted(out, "  ", col, errs[col])
		if maths := byMath[col]; len(maths) > 1 {
			names := make([]string, 0, len(maths))
			for m := range maths {
				names = append(names, m)
			}
			slices.Sort(names)
			for _, m := range names {
				writePredicted(out, "      ", m, maths[m])
			}
		}
	}
	return nil
}

// writePredicted is one line of the report: the errors' count, median,
// p10 and p90.
func writePredicted(out io.Writer, indent, name string, errs []float64) {
	e := slices.Clone(errs)
	slices.Sort(e)
	med := e[len(e)/2]
	fmt.Fprintf(out, "%s%-14s %4d rows  median %+.3f  p10 %+.3f  p90 %+.3f  (median: predicted %.0f %% %s)\n", indent, name, len(e),
		med, e[len(e)/10], e[9*len(e)/10], 100*math.Abs(math.Expm1(med)), map[bool]string{true: "slower", false: "faster"}[med > 0])
}

// predictedLog is ln(predicted / measured time) of a prediction score (ln
// TFLOP/s) of flops against a measured time in microseconds.
func predictedLog(flops, score, us float64) float64 {
	return math.Log(flops / (math.Exp(score) * 1e6) / us)
}

// predictorInput is a results row's input as the models see it, its class
// (alignments) as bench_compare's own buffers give it.
func predictorInput(r report.Row) (predictor.Input, error) {
	dt, err := dtypeByName(r.DType)
	if err != nil {
		return predictor.Input{}, err
	}
	in := input{suites.Shape{Suite: r.Suite, M: r.M, N: r.N, K: r.K, Layout: r.Layout, Bias: r.Suite == "linear"}, dt}
	const base = 1 << 20 // buffers as cuda.Alloc returns them: aligned far beyond any vector
	g := requestOf(in, base, 2*base, 3*base, 4*base, 0)
	cls, err := space.Class(g)
	if err != nil {
		return predictor.Input{}, err
	}
	pin, ok := predictor.InputOf(g, cls)
	if !ok {
		return predictor.Input{}, fmt.Errorf("the models do not cover it")
	}
	return pin, nil
}
