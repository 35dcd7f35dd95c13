package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// tableCell keeps a cell on one line, free of the tab separator, and never
// empty (so that every column has a visible start).
func tableCell(s string) string {
	s = strings.Map(func(c rune) rune {
		if c == '\t' || c == '\n' || c == '\r' {
			return ' '
		}
		return c
	}, s)
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// WriteTable writes rows as an aligned plain-text table for a terminal
// (ASCII only; "-" marks a missing value), followed by the geometric mean of
// the speed-ups. The configuration is the last column, so that long
// configurations do not push the others.
func WriteTable(w io.Writer, rows []Row) {
	names := altNames(rows)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	head := []string{"suite", "dtype", "m", "n", "k", "layout", "vendor_us", "ours_us", "speedup", "roofline%"}
	for _, n := range names {
		head = append(head, tableCell(n)+"_us", tableCell(n)+"_speedup")
	}
	head = append(head, "config")
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, r := range rows {
		cells := []string{
			tableCell(r.Suite), tableCell(r.DType),
			strconv.Itoa(r.M), strconv.Itoa(r.N), strconv.Itoa(r.K), tableCell(r.Layout),
			num(r.VendorUS, 2, "", "-"), num(r.OursUS, 2, "", "-"), num(r.Speedup, 2, "x", "-"),
			num(r.rooflinePercent(r.OursUS), 1, "", "-"),
		}
		for _, n := range names {
			a, ok := findAlt(r, n)
			if !ok {
				cells = append(cells, "-", "-")
				continue
			}
			cells = append(cells, num(a.US, 2, "", "-"), num(ratio(r.VendorUS, a.US), 2, "x", "-"))
		}
		cells = append(cells, tableCell(r.Config))
		fmt.Fprintln(tw, strings.Join(cells, "\t"))
	}
	tw.Flush()
	geo, measured, wins := summaryStats(rows)
	geoText := num(geo, 2, "x", "-")
	fmt.Fprintf(w, "geomean speedup %s over %d measured rows; ours >= 1.0x on %d of %d rows\n",
		geoText, measured, wins, len(rows))
}
