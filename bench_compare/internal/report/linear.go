package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
)

// LinearSuite is the suite of nn.Linear layers with a bias, timed against
// cublasLtMatmul (internal/suites.Linear).
const LinearSuite = "linear"

// The linear suite's targets over cuBLASLt: a geomean speed-up of at least
// linearGeomean over every row, of at least linearSmallGeomean over the
// rows of at most linearSmallTokens tokens (decoding: n, the GEMM's
// columns), and no row below linearMin.
const (
	linearGeomean      = 1.1
	linearSmallGeomean = 1.3
	linearSmallTokens  = 16
	linearMin          = 0.97
)

// WriteLinearTargets writes, when rows hold the linear suite's, a table of
// its targets: per column of the run (ISAAC's first, then each extra one,
// e.g. the model's choice and the dispatch) and per data type (then all
// together), the geomean speed-up over every row, over the rows of at most
// 16 tokens, and the slowest row, each beside its target and whether it is
// met. The targets are reported, never enforced. ASCII only, as
// WriteTable.
func WriteLinearTargets(w io.Writer, rows []Row) {
	var lin []Row
	for _, r := range rows {
		if r.Suite == LinearSuite {
			lin = append(lin, r)
		}
	}
	if len(lin) == 0 {
		return
	}
	var dtypes []string
	seen := map[string]bool{}
	for _, r := range lin {
		if !seen[r.DType] {
			seen[r.DType] = true
			dtypes = append(dtypes, r.DType)
		}
	}
	if len(dtypes) > 1 {
		dtypes = append(dtypes, "all")
	}
	columns := append([]string{"ours"}, altNames(lin)...)
	fmt.Fprintf(w, "linear suite targets (speed-up over cuBLASLt; reported, not enforced): geomean >= %.2fx, "+
		"geomean >= %.2fx on rows of <= %d tokens, no row < %.2fx\n", linearGeomean, linearSmallGeomean, linearSmallTokens, linearMin)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "column\tdtype\trows\tgeomean\t>= %.2fx\trows <= %d tokens\tgeomean\t>= %.2fx\tmin\t>= %.2fx\tslowest row\n",
		linearGeomean, linearSmallTokens, linearSmallGeomean, linearMin)
	for _, col := range columns {
		for _, d := range dtypes {
			var all, small []float64
			lo, slowest := math.Inf(1), ""
			for _, r := range lin {
				if d != "all" && r.DType != d {
					continue
				}
				sp := columnSpeedup(r, col)
				if math.IsNaN(sp) {
					sp = 0 // a failed measurement: the slowest row, left out of the geomeans
				}
				all = append(all, sp)
				if r.N <= linearSmallTokens {
					small = append(small, sp)
				}
				if sp < lo {
					lo, slowest = sp, rowLabel(r)
				}
			}
			geo, geoSmall := geomean(all), geomean(small)
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", tableCell(col), tableCell(d), len(all),
				num(geo, 2, "x", "-"), met(geo, linearGeomean, len(all)),
				len(small), num(geoSmall, 2, "x", "-"), met(geoSmall, linearSmallGeomean, len(small)),
				num(lo, 2, "x", "-"), met(lo, linearMin, len(all)), tableCell(slowest))
		}
	}
	tw.Flush()
}

// columnSpeedup is the row's speed-up of column col: "ours" (ISAAC's
// first column), or an extra column's (NaN where the row lacks it).
func columnSpeedup(r Row, col string) float64 {
	if col == "ours" {
		return r.Speedup
	}
	a, ok := findAlt(r, col)
	if !ok {
		return math.NaN()
	}
	return ratio(r.VendorUS, a.US)
}

// met says whether v reaches target: "ok", "MISSED", or "-" where no row
// or no measurement gives v.
func met(v, target float64, rows int) string {
	switch {
	case rows == 0 || math.IsNaN(v):
		return "-"
	case v >= target:
		return "ok"
	}
	return "MISSED"
}

// rowLabel names a row in one cell: its data type and its input's name
// (or m×n×k).
func rowLabel(r Row) string {
	name := r.Name
	if strings.TrimSpace(name) == "" {
		name = fmt.Sprintf("%dx%dx%d", r.M, r.N, r.K)
	}
	return r.DType + " " + name
}
