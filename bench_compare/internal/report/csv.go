package report

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
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
// positive. Only the first Alt of a given name in a row is written.
func writeCSV(w io.Writer, rows []Row) error {
	names := altNames(rows)
	header, err := csvHeader(names)
	if err != nil {
		return err
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
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// csvAltCols locates one Alt's columns in a header (-1 when absent).
type csvAltCols struct {
	name                string
	us, speedup, config int
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
	for i, h := range header {
		h = strings.TrimSpace(h)
		if _, dup := col[h]; dup {
			return nil, fmt.Errorf("bench_compare: CSV column %q repeated", h)
		}
		col[h] = i
	}
	required := []string{"suite", "op", "dtype", "m", "n", "k", "layout",
		"vendor_us", "ours_us", "speedup", "roofline_us", "config"}
	for _, c := range required {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("bench_compare: CSV lacks the column %q", c)
		}
	}
	base := map[string]bool{}
	for _, c := range csvBaseHeader {
		base[c] = true
	}
	idx := func(name string) int {
		if i, ok := col[name]; ok {
			return i
		}
		return -1
	}
	var alts []csvAltCols
	for _, h := range header {
		h = strings.TrimSpace(h)
		if base[h] || !strings.HasSuffix(h, "_us") {
			continue
		}
		n := strings.TrimSuffix(h, "_us")
		if n == "" {
			continue
		}
		alts = append(alts, csvAltCols{name: n, us: col[h], speedup: idx(n + "_speedup"), config: idx(n + "_config")})
	}

	var rows []Row
	for {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := cr.FieldPos(0)
		cell := func(i int) string {
			if i < 0 || i >= len(rec) {
				return ""
			}
			return rec[i]
		}
		var perr error
		num := func(name string, i int) float64 {
			s := strings.TrimSpace(cell(i))
			if s == "" {
				return 0
			}
			v, err := strconv.ParseFloat(s, 64)
			if err != nil && perr == nil {
				perr = fmt.Errorf("bench_compare: CSV line %d: %s=%q is not a number", line, name, s)
			}
			return v
		}
		integer := func(name string) int {
			s := strings.TrimSpace(cell(col[name]))
			v, err := strconv.Atoi(s)
			if err != nil && perr == nil {
				perr = fmt.Errorf("bench_compare: CSV line %d: %s=%q is not an integer", line, name, s)
			}
			return v
		}
		row := Row{
			Suite:      cell(col["suite"]),
			Op:         cell(col["op"]),
			DType:      cell(col["dtype"]),
			M:          integer("m"),
			N:          integer("n"),
			K:          integer("k"),
			Layout:     cell(col["layout"]),
			VendorUS:   num("vendor_us", col["vendor_us"]),
			OursUS:     num("ours_us", col["ours_us"]),
			Speedup:    num("speedup", col["speedup"]),
			RooflineUS: num("roofline_us", col["roofline_us"]),
			Config:     cell(col["config"]),
		}
		row.Flops = 2 * float64(row.M) * float64(row.N) * float64(row.K)
		for _, a := range alts {
			us, cfg := strings.TrimSpace(cell(a.us)), cell(a.config)
			if us == "" && cfg == "" {
				continue
			}
			row.Alt = append(row.Alt, Alt{Name: a.name, US: num(a.name+"_us", a.us), Config: cfg})
		}
		if perr != nil {
			return nil, perr
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// envValue renders a value so that readEnv gives it back exactly: quoted
// (Go syntax) when it has surrounding spaces, control characters or a
// leading quote, as is otherwise.
func envValue(s string) string {
	needQuote := s != strings.TrimSpace(s) || strings.HasPrefix(s, `"`)
	for _, c := range s {
		if c < 0x20 || c == 0x7f {
			needQuote = true
		}
	}
	if needQuote {
		return strconv.Quote(s)
	}
	return s
}

// envPeakPrefix prefixes the keys of Env.PeakTFLOPs.
const envPeakPrefix = "peak_tflops."

// envFloat formats a float so that it parses back to the same value.
func envFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// WriteEnv writes e as "key: value" lines in a fixed order; the peak rates
// come as "peak_tflops.<class>: <value>" lines sorted by class.
func WriteEnv(w io.Writer, e Env) error {
	classes := make([]string, 0, len(e.PeakTFLOPs))
	for c := range e.PeakTFLOPs {
		if c == "" || strings.ContainsAny(c, ": \t\r\n") {
			return fmt.Errorf("bench_compare: peak TFLOP/s class %q is not a usable key", c)
		}
		classes = append(classes, c)
	}
	sort.Strings(classes)
	type kv struct{ k, v string }
	lines := []kv{
		{"date", envValue(e.Date)},
		{"device", envValue(e.Device)},
		{"device_key", envValue(e.DeviceKey)},
		{"compute_cap", envValue(e.ComputeCap)},
		{"sms", strconv.Itoa(e.SMs)},
		{"sm_clock_mhz", strconv.Itoa(e.SMClockMHz)},
		{"mem_clock_mhz", strconv.Itoa(e.MemClockMHz)},
		{"bus_width_bits", strconv.Itoa(e.BusWidthBits)},
		{"l2_bytes", strconv.Itoa(e.L2Bytes)},
		{"driver", envValue(e.Driver)},
		{"cublas", envValue(e.CUBLAS)},
		{"cudnn", envValue(e.CUDNN)},
		{"bandwidth_gbs", envFloat(e.BandwidthGBs)},
	}
	for _, c := range classes {
		lines = append(lines, kv{envPeakPrefix + c, envFloat(e.PeakTFLOPs[c])})
	}
	lines = append(lines, kv{"method", envValue(e.Method)}, kv{"commit", envValue(e.Commit)})
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		if l.v == "" {
			fmt.Fprintf(bw, "%s:\n", l.k)
		} else {
			fmt.Fprintf(bw, "%s: %s\n", l.k, l.v)
		}
	}
	return bw.Flush()
}

// readEnv parses the format of WriteEnv. Blank lines and lines starting with
// '#' are ignored, and so are unknown keys; a repeated key keeps its last value.
func readEnv(r io.Reader) (Env, error) {
	var e Env
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		key, val, ok := strings.Cut(text, ":")
		if !ok {
			return Env{}, fmt.Errorf("bench_compare: env line %d: %q is not \"key: value\"", line, text)
		}
		key, val = strings.TrimSpace(key), strings.TrimSpace(val)
		if strings.HasPrefix(val, `"`) {
			u, err := strconv.Unquote(val)
			if err != nil {
				return Env{}, fmt.Errorf("bench_compare: env line %d: bad quoted value %s", line, val)
			}
			val = u
		}
		var err error
		atoi := func(p *int) {
			if val == "" {
				*p = 0
				return
			}
			*p, err = strconv.Atoi(val)
		}
		atof := func(p *float64) {
			if val == "" {
				*p = 0
				return
			}
			*p, err = strconv.ParseFloat(val, 64)
		}
		switch key {
		case "date":
			e.Date = val
		case "device":
			e.Device = val
		case "device_key":
			e.DeviceKey = val
		case "compute_cap":
			e.ComputeCap = val
		case "sms":
			atoi(&e.SMs)
		case "sm_clock_mhz":
			atoi(&e.SMClockMHz)
		case "mem_clock_mhz":
			atoi(&e.MemClockMHz)
		case "bus_width_bits":
			atoi(&e.BusWidthBits)
		case "l2_bytes":
			atoi(&e.L2Bytes)
		case "driver":
			e.Driver = val
		case "cublas":
			e.CUBLAS = val
		case "cudnn":
			e.CUDNN = val
		case "bandwidth_gbs":
			atof(&e.BandwidthGBs)
		case "method":
			e.Method = val
		case "commit":
			e.Commit = val
		default:
			if c, ok := strings.CutPrefix(key, envPeakPrefix); ok && c != "" {
				var v float64
				atof(&v)
				if e.PeakTFLOPs == nil {
					e.PeakTFLOPs = map[string]float64{}
				}
				e.PeakTFLOPs[c] = v
			}
		}
		if err != nil {
			return Env{}, fmt.Errorf("bench_compare: env line %d: %s=%q is not a number", line, key, val)
		}
	}
	if err := sc.Err(); err != nil {
		return Env{}, err
	}
	return e, nil
}
