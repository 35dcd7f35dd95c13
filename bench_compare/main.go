// Command bench_compare measures ISAAC against cuBLAS side by side, in one
// process on a GPU machine: every input runs through the vendor and through
// ISAAC's engine on the same buffers, interleaved, L2 flushed before each
// timed call, timed with CUDA events, median of repeats; each row also gets
// the device's roofline time. Results go to the terminal and, as CSV (with a
// sibling .env provenance file), Markdown and SVG, to
// bench_compare/results/<device>/<suite>.*.
//
//	go run ./bench_compare -suite table4            # the ISAAC paper's Table 4 GEMMs
//	go run ./bench_compare -suite csv -shapes my.csv
//	go run ./bench_compare -config ms=4,ns=4,...    # also "always ours with configuration X"
//	go run ./bench_compare -cases bench_compare/ab_cases_pp.txt   # configurations side by side, per input
//	go run ./bench_compare -overhead -lib build/libisaac.so
//	go run ./bench_compare -replot bench_compare/results/h100/table4.csv -readme README.md   # no GPU
//
// Without a GPU it says so and exits cleanly.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/isaacgo/isaac/ptx"
)

func main() {
	suites := flag.String("suite", "table4", "suites to run, comma-separated: table4, table5, csv (empty: none, e.g. with -overhead)")
	shapes := flag.String("shapes", "", "CSV of inputs for -suite csv (columns m,n,k[,layout][,dtype][,suite])")
	dtypes := flag.String("dtypes", "s,d,h,hgemmex-f32acc,bf16gemmex-f32acc", "data types, comma-separated")
	repeats := flag.Int("repeats", 15, "timed repeats per input and engine (median reported)")
	warmup := flag.Int("warmup", 3, "untimed runs per input and engine first")
	config := flag.String("config", "", "also run ISAAC with this configuration (column \"config\")")
	out := flag.String("out", "", "results folder (default bench_compare/results/<device>)")
	limit := flag.Int("limit", 0, "measure only the first N inputs of each suite (smoke runs)")
	seed := flag.String("seed", "", "with -sweep: result CSVs (comma-separated) whose configurations for the same inputs are screened too")
	sweep := flag.Int("sweep", 0, "sweep: per input, also try this many random legal configurations and report the best (suite files get the prefix sweep-)")
	overhead := flag.Bool("overhead", false, "measure host time per call and first-call latency (C harness, needs -lib and CUDA headers)")
	lib := flag.String("lib", "build/libisaac.so", "libisaac.so for -overhead")
	cudaHome := flag.String("cuda", "/usr/local/cuda", "CUDA installation for -overhead")
	replot := flag.String("replot", "", "regenerate Markdown, SVG and the terminal table from a results CSV (no GPU)")
	readme := flag.String("readme", "", "with -replot: update this README's bench_compare section")
	targets := flag.Bool("targets", false, "with -replot: also write <csv>-targets.md, the GEMM issue's targets met or missed")
	floorCSV := flag.String("floors", "", "with -replot -targets: a floor CSV (-floor) of the same inputs, to set each missed target against what reading the input takes")
	floor := flag.Bool("floor", false, "instead of GEMMs, measure each input's floor: the timer's reading for a kernel that only reads the input's bytes, and for an empty region (floor-<suite>.csv)")
	cases := flag.String("cases", "", "instead of suites, measure the (input, configuration) pairs of this file (lines \"m n k layout dtype config\", ab.sh's format): per input cuBLAS and its configurations interleaved on the same buffers; writes <out>/cases.txt")
	model := flag.Bool("model", false, "also run the shipped model's choice per input (column \"model\") and the shim's default dispatch (column \"dispatch\": the model's choice where it predicts a win, cuBLAS elsewhere)")
	flag.Parse()
	if *replot != "" {
		if err := replotCSV(*replot, *readme, *targets, *floorCSV); err != nil {
			fmt.Fprintln(os.Stderr, "bench_compare:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*suites, *shapes, *dtypes, *repeats, *warmup, *config, *out, *limit, *sweep, *seed, *overhead, *lib, *cudaHome, *model, *floor, *cases); err != nil {
		fmt.Fprintln(os.Stderr, "bench_compare:", err)
		os.Exit(1)
	}
}

func run(suites, shapesPath, dtypeList string, repeats, warmup int, config, out string, limit, sweep int, seedPaths string,
	overhead bool, lib, cudaHome string, model, floor bool, cases string) error {
	var dts []DType
	for _, name := range strings.Split(dtypeList, ",") {
		d, err := DTypeByName(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		dts = append(dts, d)
	}
	engines := []Engine{{Name: "ours"}}
	if config != "" {
		c, err := ptx.ParseConfig(config)
		if err != nil {
			return err
		}
		engines = append(engines, Engine{Name: "config", Config: &c})
	}
	runtime.LockOSThread()
	b, err := NewBench(repeats, warmup)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench_compare: no GPU (%v): nothing measured\n", err)
		return nil
	}
	if out == "" {
		out = filepath.Join("bench_compare", "results", b.Env.DeviceKey)
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	b.Env.Commit = gitCommit()
	if cases != "" {
		return runCases(b, cases, out, os.Stderr)
	}
	if model {
		e, err := modelEngine(b)
		if err != nil {
			return err
		}
		engines = append(engines, e, dispatchEngine(b))
	}
	fmt.Fprintf(os.Stderr, "%s (%d SMs, %d MHz), %s, cuBLAS %s, cuDNN %s\n", b.Env.Device, b.Env.SMs,
		b.Env.SMClockMHz, b.Env.Driver, b.Env.CUBLAS, b.Env.CUDNN)
	for _, suite := range strings.Split(suites, ",") {
		var inputs []Input
		switch suite = strings.TrimSpace(suite); suite {
		case "": // -suite "": no suite (-overhead alone)
			continue
		case "table4":
			inputs = Inputs(Table4(), dts)
		case "table5":
			fmt.Fprintf(os.Stderr, "table5: %d convolutions skipped: the shim serves no convolution yet (cuDNN takes them)\n", len(Table5))
			continue
		case "csv":
			f, err := os.Open(shapesPath)
			if err != nil {
				return fmt.Errorf("-suite csv needs -shapes: %w", err)
			}
			inputs, err = ReadShapes(f, dts)
			f.Close()
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown suite %q", suite)
		}
		if limit > 0 && len(inputs) > limit {
			inputs = inputs[:limit]
		}
		if floor {
			if err := floorAll(b, inputs, out, suite, os.Stderr); err != nil {
				return err
			}
			continue
		}
		var rows []Row
		if sweep > 0 {
			seeds, err := LoadSeeds(seedPaths)
			if err != nil {
				return err
			}
			s := &Sweeper{Candidates: sweep, Screen: 3, Finalists: 3, Rounds: 3, Seed: 1, Seeds: seeds}
			rows, err = sweepAll(b, s, inputs, os.Stderr)
			suite = "sweep-" + suite
		} else {
			rows, err = measureAll(b, inputs, engines, os.Stderr)
		}
		if err != nil {
			return err
		}
		if err := writeResults(out, suite, b.Env, rows); err != nil {
			return err
		}
	}
	if overhead {
		bin, err := buildHarness(cudaHome, lib)
		if err != nil {
			return err
		}
		rows, first, err := MeasureOverhead(bin, os.Stderr)
		if err != nil {
			return err
		}
		if err := writeFile(filepath.Join(out, "overhead.csv"), func(w io.Writer) error { return WriteOverheadCSV(w, rows, first) }); err != nil {
			return err
		}
		if err := writeFile(filepath.Join(out, "overhead.env"), func(w io.Writer) error { return WriteEnv(w, b.Env) }); err != nil {
			return err
		}
	}
	return nil
}

// measureAll measures every input, with a progress line (rate and ETA).
func measureAll(b *Bench, inputs []Input, engines []Engine, progress io.Writer) ([]Row, error) {
	var rows []Row
	start := time.Now()
	for i, in := range inputs {
		row, err := b.Measure(in, engines)
		if err != nil {
			return nil, fmt.Errorf("%s %s %dx%dx%d %s: %w", in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, err)
		}
		rows = append(rows, row)
		done := i + 1
		eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(len(inputs)-done)).Round(time.Second)
		fmt.Fprintf(progress, "[%3d/%d] %-12s %-18s %5dx%-5dx%-5d %s  cuBLAS %9.1f µs  ISAAC %9.1f µs  %5.2f×  (ETA %v)\n",
			done, len(inputs), in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, row.VendorUS, row.OursUS, row.Speedup, eta)
	}
	return rows, nil
}

// floorAll measures every input's floor and writes floor-<suite>.csv and .env.
func floorAll(b *Bench, inputs []Input, out, suite string, progress io.Writer) error {
	var rows []FloorRow
	for i, in := range inputs {
		r, err := b.Floor(in)
		if err != nil {
			return fmt.Errorf("%s %s %dx%dx%d %s: %w", in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, err)
		}
		rows = append(rows, r)
		fmt.Fprintf(progress, "[%3d/%d] %-12s %-18s %5dx%-5dx%-5d %s  %8.2f MB  floor %7.2f µs (%6.0f GB/s)  empty %5.2f µs\n",
			i+1, len(inputs), in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, r.Bytes/1e6, r.FloorUS, r.GBs(), r.EmptyUS)
	}
	base := filepath.Join(out, "floor-"+suite)
	if err := writeFile(base+".csv", func(w io.Writer) error { return WriteFloorCSV(w, rows) }); err != nil {
		return err
	}
	return writeFile(base+".env", func(w io.Writer) error { return WriteEnv(w, b.Env) })
}

func writeFile(path string, write func(io.Writer) error) error {
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

// writeResults writes <suite>.csv, .env, .md and .svg, and the table to stdout.
func writeResults(dir, suite string, env Env, rows []Row) error {
	base := filepath.Join(dir, suite)
	title := fmt.Sprintf("ISAAC vs cuBLAS — %s suite on %s", suite, env.Device)
	steps := []struct {
		ext   string
		write func(io.Writer) error
	}{
		{".csv", func(w io.Writer) error { return WriteCSV(w, rows) }},
		{".env", func(w io.Writer) error { return WriteEnv(w, env) }},
		{".md", func(w io.Writer) error { return WriteMarkdown(w, title, env, rows) }},
		{".svg", func(w io.Writer) error { return WriteSVG(w, title, env, rows) }},
	}
	for _, s := range steps {
		if err := writeFile(base+s.ext, s.write); err != nil {
			return err
		}
	}
	if err := writeDTypePlots(base, suite, env, rows); err != nil {
		return err
	}
	WriteTable(os.Stdout, rows)
	fmt.Fprintf(os.Stderr, "wrote %s.{csv,env,md,svg} and one SVG per data type\n", base)
	return nil
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
		title := fmt.Sprintf("ISAAC vs cuBLAS — %s suite, %s, on %s", suite, d, env.Device)
		if err := writeFile(base+"-"+d+".svg", func(w io.Writer) error { return WriteSVG(w, title, env, by[d]) }); err != nil {
			return err
		}
	}
	return nil
}

// replotCSV regenerates the Markdown, the SVG and the table from recorded
// results (the .env next to the CSV gives the provenance).
func replotCSV(path, readme string, targets bool, floorPath string) error {
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
	ef, err := os.Open(base + ".env")
	if err != nil {
		return err
	}
	env, err := ReadEnv(ef)
	ef.Close()
	if err != nil {
		return err
	}
	suite := filepath.Base(base)
	title := fmt.Sprintf("ISAAC vs cuBLAS — %s suite on %s", suite, env.Device)
	if err := writeFile(base+".md", func(w io.Writer) error { return WriteMarkdown(w, title, env, rows) }); err != nil {
		return err
	}
	if err := writeFile(base+".svg", func(w io.Writer) error { return WriteSVG(w, title, env, rows) }); err != nil {
		return err
	}
	if err := writeDTypePlots(base, suite, env, rows); err != nil {
		return err
	}
	var floors Floors
	if floorPath != "" {
		ff, err := os.Open(floorPath)
		if err != nil {
			return err
		}
		floors, err = ReadFloorCSV(ff)
		ff.Close()
		if err != nil {
			return err
		}
	}
	if targets {
		err := writeFile(base+"-targets.md", func(w io.Writer) error {
			fmt.Fprintf(w, "# %s: the GEMM issue's targets\n\nBest swept configuration per row; %s, %s, cuBLAS %s, %s, commit `%s`.\n\n",
				suite, env.Device, env.Driver, env.CUBLAS, env.Date, short(env.Commit))
			WriteTargets(w, rows, floors)
			return nil
		})
		if err != nil {
			return err
		}
		WriteTargets(os.Stdout, rows, floors)
	}
	if readme != "" {
		rel, err := filepath.Rel(filepath.Dir(readme), filepath.Dir(path))
		if err != nil {
			return err
		}
		if err := UpdateReadme(readme, filepath.ToSlash(rel), suite, env, rows); err != nil {
			return err
		}
	}
	WriteTable(os.Stdout, rows)
	return nil
}

// buildCommit is the commit the binary was built from (build.sh sets it).
var buildCommit string

// gitCommit is the source commit: $ISAAC_COMMIT, else the one the binary was
// built from, else the checkout's HEAD when the program runs in one.
func gitCommit() string {
	if c := os.Getenv("ISAAC_COMMIT"); c != "" {
		return c
	}
	if buildCommit != "" && buildCommit != "unknown" {
		return buildCommit
	}
	if b, err := os.ReadFile(".git/HEAD"); err == nil {
		ref := strings.TrimSpace(strings.TrimPrefix(string(b), "ref: "))
		if c, err := os.ReadFile(filepath.Join(".git", ref)); err == nil {
			return strings.TrimSpace(string(c))
		}
		return ref
	}
	return "unknown"
}
