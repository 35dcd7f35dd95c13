package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// title heads the Markdown and the SVG of a suite's results.
func title(suite string, env Env, rows []Row) string {
	return fmt.Sprintf("ISAAC vs %s — %s suite on %s", vendor(rows), suite, env.Device)
}

// WriteFile creates the file at path and has write fill it.
func WriteFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// WriteSuite writes a suite's results into dir: <suite>.csv, .env, .md and
// .svg, and <suite>-<dtype>.svg for every data type when the rows hold
// several.
func WriteSuite(dir, suite string, env Env, rows []Row) error {
	base := filepath.Join(dir, suite)
	t := title(suite, env, rows)
	steps := []struct {
		ext   string
		write func(io.Writer) error
	}{
		{".csv", func(w io.Writer) error { return writeCSV(w, rows) }},
		{".env", func(w io.Writer) error { return WriteEnv(w, env) }},
		{".md", func(w io.Writer) error { return writeMarkdown(w, t, env, rows) }},
		{".svg", func(w io.Writer) error { return writeSVG(w, t, env, rows) }},
	}
	for _, s := range steps {
		if err := WriteFile(base+s.ext, s.write); err != nil {
			return err
		}
	}
	return writeDTypePlots(base, suite, env, rows)
}

// writeDTypePlots writes <base>-<dtype>.svg for every data type of the
// rows: one figure per precision, as in the paper's Figures 6–11.
func writeDTypePlots(base, suite string, env Env, rows []Row) error {
	var order []string
	by := map[string][]Row{}
	for _, r := range rows {
		if _, ok := by[r.DType]; !ok {
			order = append(order, r.DType)
		}
		by[r.DType] = append(by[r.DType], r)
	}
	if len(order) < 2 {
		return nil
	}
	for _, d := range order {
		t := fmt.Sprintf("ISAAC vs %s — %s suite, %s, on %s", vendor(rows), suite, d, env.Device)
		if err := WriteFile(base+"-"+d+".svg", func(w io.Writer) error { return writeSVG(w, t, env, by[d]) }); err != nil {
			return err
		}
	}
	return nil
}

// ReplotOptions say what Replot writes besides the Markdown, the SVGs and
// the table.
type ReplotOptions struct {
	Readme  string // a README whose bench_compare section of the suite is updated ("": none)
	Targets bool   // also <csv>-targets.md, the GEMM issue's targets met or missed
	Floors  string // with Targets: a floor CSV of the same inputs ("": none)
	// Column reports an extra column of the run (e.g. "model", "dispatch")
	// in place of ISAAC's first: the files are <csv>-<column>.md and .svg,
	// and the README section is the suite's, named <suite>-<column>.
	Column string
}

// asColumn is the rows with the extra column name as ISAAC's time and
// configuration, and no extra columns; an error when a row lacks it.
func asColumn(rows []Row, name string) ([]Row, error) {
	out := make([]Row, len(rows))
	for i, r := range rows {
		a, ok := findAlt(r, name)
		if !ok {
			return nil, fmt.Errorf("row %d (%s %s %dx%dx%d) has no column %q", i+1, r.Suite, r.DType, r.M, r.N, r.K, name)
		}
		r.OursUS, r.Speedup, r.Config, r.Alt = a.US, ratio(r.VendorUS, a.US), a.Config, nil
		out[i] = r
	}
	return out, nil
}

// Replot regenerates the Markdown and the SVGs of recorded results (the
// CSV at path; the .env next to it gives the provenance), and writes the
// table, after the targets with o.Targets, to stdout (and the linear
// suite's targets after it, for its rows).
func Replot(path string, o ReplotOptions, stdout io.Writer) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	rows, err := ReadCSV(f)
	f.Close()
	if err != nil {
		return err
	}
	base := strings.TrimSuffix(path, ".csv")
	if o.Column != "" {
		if rows, err = asColumn(rows, o.Column); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
	ef, err := os.Open(base + ".env")
	if err != nil {
		return err
	}
	env, err := readEnv(ef)
	ef.Close()
	if err != nil {
		return err
	}
	suite := filepath.Base(base)
	if o.Column != "" {
		suite += "-" + o.Column
		base += "-" + o.Column
	}
	t := title(suite, env, rows)
	if err := WriteFile(base+".md", func(w io.Writer) error { return writeMarkdown(w, t, env, rows) }); err != nil {
		return err
	}
	if err := WriteFile(base+".svg", func(w io.Writer) error { return writeSVG(w, t, env, rows) }); err != nil {
		return err
	}
	if err := writeDTypePlots(base, suite, env, rows); err != nil {
		return err
	}
	var floors floorTable
	if o.Floors != "" {
		ff, err := os.Open(o.Floors)
		if err != nil {
			return err
		}
		floors, err = readFloorCSV(ff)
		ff.Close()
		if err != nil {
			return err
		}
	}
	if o.Targets {
		err := WriteFile(base+"-targets.md", func(w io.Writer) error {
			fmt.Fprintf(w, "# %s: the GEMM issue's targets\n\nBest swept configuration per row; %s, %s, cuBLAS %s, %s, commit `%s`.\n\n",
				suite, env.Device, env.Driver, env.CUBLAS, env.Date, short(env.Commit))
			writeTargets(w, rows, floors)
			return nil
		})
		if err != nil {
			return err
		}
		writeTargets(stdout, rows, floors)
	}
	if o.Readme != "" {
		rel, err := filepath.Rel(filepath.Dir(o.Readme), filepath.Dir(path))
		if err != nil {
			return err
		}
		if err := updateReadme(o.Readme, filepath.ToSlash(rel), suite, env, rows); err != nil {
			return err
		}
	}
	WriteTable(stdout, rows)
	WriteLinearTargets(stdout, rows)
	return nil
}
