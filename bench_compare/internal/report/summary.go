package report

import (
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strings"
)

// writeSummary writes the compact Markdown the project README shows: the
// geometric-mean speed-up per suite (rows) and data type (columns), the
// provenance line, links to the full table and one plot per data type.
// dir is the results folder relative to the README.
func writeSummary(w io.Writer, dir, suite string, env Env, rows []Row) error {
	var suites, dtypes []string
	cells := map[[2]string][]float64{}
	for _, r := range rows {
		if !slices.Contains(suites, r.Suite) {
			suites = append(suites, r.Suite)
		}
		if !slices.Contains(dtypes, r.DType) {
			dtypes = append(dtypes, r.DType)
		}
		k := [2]string{r.Suite, r.DType}
		cells[k] = append(cells[k], r.Speedup)
	}
	v := vendor(rows)
	fmt.Fprintf(w, "Speed-up of ISAAC over %s (geometric mean per suite; %s time / ISAAC time) on %s, "+
		"%s, %s %s, %s, commit `%s`:\n\n", v, v, env.Device, env.Driver, v, vendorVersion(rows, env), env.Date, short(env.Commit))
	fmt.Fprintf(w, "| suite | %s |\n|---|%s\n", strings.Join(dtypes, " | "), strings.Repeat("--:|", len(dtypes)))
	for _, s := range suites {
		fmt.Fprintf(w, "| %s |", s)
		for _, d := range dtypes {
			v := cells[[2]string{s, d}]
			if len(v) == 0 {
				fmt.Fprint(w, " – |")
				continue
			}
			fmt.Fprintf(w, " %.2f× |", geomean(v))
		}
		fmt.Fprintln(w)
	}
	geo, measured, wins := summaryStats(rows)
	fmt.Fprintf(w, "\nOverall geometric mean %.2f× over %d inputs; ISAAC ≥ 1.0× on %d. Full table with roofline "+
		"and configurations: [%s](%s).\n\n", geo, measured, wins, suite+".md", path.Join(dir, suite+".md"))
	for _, d := range dtypes {
		fmt.Fprintf(w, "![%s %s](%s)\n", suite, d, path.Join(dir, suite+"-"+d+".svg"))
	}
	return nil
}

func short(commit string) string {
	if len(commit) > 12 {
		return commit[:12]
	}
	return commit
}

// updateReadme replaces the text between the markers
// <!-- bench_compare:SUITE:begin --> and <!-- bench_compare:SUITE:end -->
// in the file at readme with the summary.
func updateReadme(readme, dir, suite string, env Env, rows []Row) error {
	b, err := os.ReadFile(readme)
	if err != nil {
		return err
	}
	begin := "<!-- bench_compare:" + suite + ":begin -->"
	end := "<!-- bench_compare:" + suite + ":end -->"
	text := string(b)
	i, j := strings.Index(text, begin), strings.Index(text, end)
	if i < 0 || j < i {
		return fmt.Errorf("%s has no %s … %s markers", readme, begin, end)
	}
	var s strings.Builder
	s.WriteString(begin + "\n")
	if err := writeSummary(&s, dir, suite, env, rows); err != nil {
		return err
	}
	s.WriteString(end)
	return os.WriteFile(readme, []byte(text[:i]+s.String()+text[j+len(end):]), 0o644)
}
