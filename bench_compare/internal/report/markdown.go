package report

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// mdEscaper protects free text (names, versions) inside Markdown prose and
// table cells.
var mdEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", `\<`, ">", `\>`, "|", `\|`, "\n", " ", "\r", " ",
)

func mdText(s string) string { return mdEscaper.Replace(s) }

// mdCode renders s as a code span in a table cell: pipes are escaped (GFM
// splits cells on them even inside code), and the fence is longer than any
// backtick run in s.
func mdCode(s string) string {
	if s == "" {
		return "—"
	}
	s = strings.NewReplacer("|", `\|`, "\n", " ", "\r", " ").Replace(s)
	fence := "`"
	for strings.Contains(s, fence) {
		fence += "`"
	}
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}

// num formats a positive finite value with prec decimals and its unit, dash
// otherwise.
func num(v float64, prec int, unit, dash string) string {
	if !(v > 0) || math.IsInf(v, 0) {
		return dash
	}
	return strconv.FormatFloat(v, 'f', prec, 64) + unit
}

// mdSpeedup formats a speed-up as "1.23×", in bold when it is at least 1.
func mdSpeedup(v float64) string {
	s := num(v, 2, "×", "—")
	if v >= 1 && s != "—" {
		return "**" + s + "**"
	}
	return s
}

// orDash is s, or "—" when s is empty.
func orDash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "—"
	}
	return s
}

// cond is s when ok, "" otherwise.
func cond(ok bool, s string) string {
	if ok {
		return s
	}
	return ""
}

// nonEmpty is its arguments without the empty ones.
func nonEmpty(s ...string) []string {
	return slices.DeleteFunc(s, func(x string) bool { return x == "" })
}

// provenance is the one-paragraph description of where and how the rows
// were measured.
func provenance(env Env) string {
	var b strings.Builder
	fmt.Fprintf(&b, "Measured on **%s**", mdText(orDash(env.Device)))
	hw := nonEmpty(
		cond(env.SMs > 0, fmt.Sprintf("%d SMs", env.SMs)),
		cond(env.ComputeCap != "", "compute capability "+mdText(env.ComputeCap)),
		cond(env.SMClockMHz > 0, fmt.Sprintf("SM clock %d MHz", env.SMClockMHz)),
		cond(env.MemClockMHz > 0, fmt.Sprintf("memory clock %d MHz", env.MemClockMHz)))
	if len(hw) > 0 {
		fmt.Fprintf(&b, " (%s)", strings.Join(hw, ", "))
	}
	fmt.Fprintf(&b, ", driver %s, cuBLAS %s, cuDNN %s, on %s.",
		mdText(orDash(env.Driver)), mdText(orDash(env.CUBLAS)), mdText(orDash(env.CUDNN)), mdText(orDash(env.Date)))
	if env.Method != "" {
		fmt.Fprintf(&b, " Method: %s.", strings.TrimSuffix(mdText(env.Method), "."))
	}
	if env.BandwidthGBs > 0 {
		fmt.Fprintf(&b, " Roofline from %s GB/s", strconv.FormatFloat(env.BandwidthGBs, 'g', 6, 64))
		if len(env.PeakTFLOPs) > 0 {
			b.WriteString(" and the peak rates in the env file")
		}
		b.WriteString(".")
	}
	if env.Commit != "" {
		fmt.Fprintf(&b, " Sources at commit `%s`.", strings.ReplaceAll(env.Commit, "`", ""))
	}
	return b.String()
}

// summaryStats is the geometric mean of the speed-ups (NaN when none is
// positive), the number of rows with a positive speed-up, and the number
// at least 1×.
func summaryStats(rows []Row) (geo float64, measured, wins int) {
	sp := speedups(rows)
	for _, s := range sp {
		if s > 0 {
			measured++
		}
	}
	return geomean(sp), measured, countAtLeastOne(rows)
}

// writeMarkdown writes a heading, a provenance paragraph and a GitHub
// Markdown table of rows, then the geometric mean of the speed-ups and the
// number of rows where ISAAC is at least 1.0× the vendor.
func writeMarkdown(w io.Writer, title string, env Env, rows []Row) error {
	bw := bufio.NewWriter(w)
	if title != "" {
		fmt.Fprintf(bw, "# %s\n\n", mdText(title))
	}
	fmt.Fprintf(bw, "%s\n\n", provenance(env))

	names := altNames(rows)
	head := []string{"suite", "dtype", "m", "n", "k", "layout", vendor(rows) + " µs", "ISAAC µs",
		"speed-up", "ISAAC TFLOP/s", "roofline µs", "% of roofline (ISAAC)", "config"}
	align := []string{"---", "---", "--:", "--:", "--:", "---", "--:", "--:", "--:", "--:", "--:", "--:", "---"}
	for _, n := range names {
		head = append(head, mdText(n)+" µs", mdText(n)+" speed-up", mdText(n)+" config")
		align = append(align, "--:", "--:", "---")
	}
	named := slices.ContainsFunc(rows, func(r Row) bool { return r.Name != "" })
	if named { // a convolution's layer, after its suite
		head = slices.Insert(head, 1, "layer")
		align = slices.Insert(align, 1, "---")
	}
	fmt.Fprintf(bw, "| %s |\n", strings.Join(head, " | "))
	fmt.Fprintf(bw, "|%s|\n", strings.Join(align, "|"))
	for _, r := range rows {
		cells := []string{
			mdText(orDash(r.Suite)), mdText(orDash(r.DType)),
			strconv.Itoa(r.M), strconv.Itoa(r.N), strconv.Itoa(r.K), mdText(orDash(r.Layout)),
			num(r.VendorUS, 2, "", "—"), num(r.OursUS, 2, "", "—"), mdSpeedup(r.Speedup),
			num(r.tflops(r.OursUS), 2, "", "—"), num(r.RooflineUS, 2, "", "—"),
			num(r.rooflinePercent(r.OursUS), 1, "%", "—"), mdCode(r.Config),
		}
		for _, n := range names {
			a, ok := findAlt(r, n)
			if !ok {
				cells = append(cells, "—", "—", "—")
				continue
			}
			cells = append(cells, num(a.US, 2, "", "—"), mdSpeedup(ratio(r.VendorUS, a.US)), mdCode(a.Config))
		}
		if named {
			cells = slices.Insert(cells, 1, mdText(orDash(r.Name)))
		}
		fmt.Fprintf(bw, "| %s |\n", strings.Join(cells, " | "))
	}
	geo, measured, wins := summaryStats(rows)
	geoText := num(geo, 2, "×", "—")
	fmt.Fprintf(bw, "\nGeometric mean of the speed-ups: **%s** (%d rows measured); ISAAC ≥ 1.0× on %d of %d rows.\n",
		geoText, measured, wins, len(rows))
	return bw.Flush()
}
