package report

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// csvBaseHeader is the fixed part of the CSV header. Every distinct Alt name
// adds three columns after it: <name>_us, <name>_speedup, <name>_config.
var csvBaseHeader = []string{
	"suite", "op", "dtype", "m", "n", "k", "layout",
	"vendor_us", "ours_us", "speedup", "roofline_us", "roofline_pct",
	"vendor_tflops", "ours_tflops", "config",
}

// csvHeader is the full header for rows: the base columns, then the Alt
// columns in first-seen order of the Alt names.
func csvHeader(names []string) ([]string, error) {
	h := append([]string(nil), csvBaseHeader...)
	seen := map[string]bool{}
	for _, c := range h {
		seen[c] = true
	}
	for _, n := range names {
		if n == "" {
			return nil, errors.New("bench_compare: an Alt has an empty name")
		}
		for _, c := range []string{n + "_us", n + "_speedup", n + "_config"} {
			if seen[c] {
				return nil, fmt.Errorf("bench_compare: Alt name %q gives the column %q twice", n, c)
			}
			seen[c] = true
			h = append(h, c)
		}
	}
	return h, nil
}

// fmtUS formats a time (or any measured magnitude) with 6 significant digits.
func fmtUS(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

// fmtSpeedup formats a ratio with 4 decimals.
func fmtSpeedup(v float64) string { return strconv.FormatFloat(v, 'f', 4, 64) }

// fmtPct formats a percentage with 2 decimals.
func fmtPct(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// ratio is num/den, or NaN when either is not positive.
func ratio(num, den float64) float64 {
	if num > 0 && den > 0 {
		return num / den
	}
	return math.NaN()
}

// writeCSV writes rows with the header
//
//	suite,op,dtype,m,n,k,layout,vendor_us,ours_us,speedup,roofline_us,roofline_pct,vendor_tflops,ours_tflops,config
//
// followed by <name>_us,<name>_speedup,<name>_config for every distinct Alt
// name (first-seen order). Times have 6 significant digits, speed-ups 4
// decimals, roofline_pct 2 decimals, TFLOP/s 6 significant digits. The
// roofline_pct, *_tflops and <name>_speedup columns are derived from the
// others (ReadCSV ignores them). A row without a given Alt has empty cells
// in its columns; a derived Alt speed-up is empty when a time is not
// positive. Only the first Alt of a given name in a row is written. Rows
// with names (convolution layers) add a last column, name.
func writeCSV(w io.Writer, rows []Row) error {
	names := altNames(rows)
	header, err := csvHeader(names)
	if err != nil {
		return err
	}
	named := slices.ContainsFunc(rows, func(r Row) bool { return r.Name != "" })
	if named {
		header = append(header, "name")
	}
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	rec := make([]string, 0, len(header))
	for _, r := range rows {
		rec = append(rec[:0],
			r.Suite, r.Op, r.DType,
			strconv.Itoa(r.M), strconv.Itoa(r.N), strconv.Itoa(r.K),
			r.Layout,
			fmtUS(r.VendorUS), fmtUS(r.OursUS), fmtSpeedup(r.Speedup),
			fmtUS(r.RooflineUS), fmtPct(r.rooflinePercent(r.OursUS)),
			fmtUS(r.tflops(r.VendorUS)), fmtUS(r.tflops(r.OursUS)),
			r.Config,
		)
		for _, n := range names {
			a, ok := findAlt(r, n)
			if !ok {
				rec = append(rec, "", "", "")
				continue
			}
			sp := ""
			if x := ratio(r.VendorUS, a.US); !math.IsNaN(x) {
				sp = fmtSpeedup(x)
			}
			rec = append(rec, fmtUS(a.US), sp, a.Config)
		}
		if named {
			rec = append(rec, r.Name)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// ReadCSV parses the format of writeCSV. Lines starting with '#' and blank
// lines are ignored; columns are found by header name, so unknown columns
// are skipped and the derived columns need not be present. Every header
// column ending in "_us" that is not a base column names an Alt; a row has
// that Alt unless both its time and configuration cells are empty. Alts of
// a row come in header order. Flops is recomputed as 2·m·n·k; Bytes is not
// recorded in the format and is left 0. Empty numeric cells read as 0.
func ReadCSV(r io.Reader) ([]Row, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err == io.EOF {
		return nil, errors.New("bench_compare: CSV has no header")
	}
	if err != nil {
		return nil, err
	}
	col := map[string]int{}
	var alts []string
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("bench_compare: CSV column %q repeated", h)
		}
		col[h] = i
		if n, ok := strings.CutSuffix(h, "_us"); ok && n != "" && !slices.Contains(csvBaseHeader, h) {
			alts = append(alts, n)
		}
	}
	for _, c := range []string{"suite", "op", "dtype", "m", "n", "k", "layout", "vendor_us", "ours_us", "speedup", "roofline_us", "config"} {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("bench_compare: CSV lacks the column %q", c)
		}
	}
	var rows []Row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			return rows, nil
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		c := csvRecord{rec: rec, col: col, line: line}
		row := Row{
			Suite: c.str("suite"), Op: c.str("op"), DType: c.str("dtype"),
			M: c.int("m"), N: c.int("n"), K: c.int("k"), Layout: c.str("layout"),
			VendorUS: c.num("vendor_us"), OursUS: c.num("ours_us"), Speedup: c.num("speedup"),
			RooflineUS: c.num("roofline_us"), Config: c.str("config"), Name: c.str("name"),
		}
		row.Flops = 2 * float64(row.M) * float64(row.N) * float64(row.K)
		for _, n := range alts {
			if strings.TrimSpace(c.str(n+"_us")) != "" || c.str(n+"_config") != "" {
				row.Alt = append(row.Alt, Alt{Name: n, US: c.num(n + "_us"), Config: c.str(n + "_config")})
			}
		}
		if c.err != nil {
			return nil, c.err
		}
		rows = append(rows, row)
	}
}

// csvRecord reads the cells of one record by column name; the first cell
// that does not parse is its err.
type csvRecord struct {
	rec  []string
	col  map[string]int
	line int
	err  error
}

func (c *csvRecord) str(name string) string {
	if i, ok := c.col[name]; ok && i < len(c.rec) {
		return c.rec[i]
	}
	return ""
}

func (c *csvRecord) num(name string) float64 {
	s := strings.TrimSpace(c.str(name))
	if s == "" {
		return 0
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("bench_compare: CSV line %d: %s=%q is not a number", c.line, name, s)
	}
	return v
}

func (c *csvRecord) int(name string) int {
	s := strings.TrimSpace(c.str(name))
	v, err := strconv.Atoi(s)
	if err != nil && c.err == nil {
		c.err = fmt.Errorf("bench_compare: CSV line %d: %s=%q is not an integer", c.line, name, s)
	}
	return v
}
