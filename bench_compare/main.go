// Command bench_compare measures ISAAC against cuBLAS side by side, in one
// process on a GPU machine: every input runs through the vendor and through
// ISAAC's engine on the same buffers, interleaved, L2 flushed before each
// timed call, timed with CUDA events, median of repeats; each row also gets
// the device's roofline time. Results go to the terminal and, as CSV (with a
// sibling .env provenance file), Markdown and SVG, to
// results/<device>/<suite>.*.
//
//	go run ./bench_compare -suite table4            # the ISAAC paper's Table 4 GEMMs
//	go run ./bench_compare -suite linear -model     # nn.Linear with a bias against cublasLtMatmul
//	go run ./bench_compare -suite csv -shapes my.csv
//	go run ./bench_compare -config ms=4,ns=4,...    # also "always ours with configuration X"
//	go run ./bench_compare -cases bench_compare/cases/ab_cases_pp.txt   # configurations side by side, per input
//	go run ./bench_compare -overhead -lib build/libisaac.so
//	go run ./bench_compare -replot results/h100/table4.csv -readme README.md   # no GPU
//
// Without a GPU it says so and exits cleanly. This package measures (the
// bench, the sweep, the floors, the cases, the host overhead); the result
// files and the tables are package report's (internal/report). The case
// files of -cases and -shapes runs are in cases/, the scripts that drive
// runs on the GPU machine in scripts/.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/ptx"
)

// Options are the command's flags, every one read into a field in one
// place (Options.bind).
type Options struct {
	Suites    string // -suite: suites to run, comma-separated ("": none)
	Shapes    string // -shapes: CSV of inputs for the csv suite
	DTypes    string // -dtypes: data types, comma-separated
	Repeats   int    // -repeats: timed repeats per input and engine
	Warmup    int    // -warmup: untimed runs per input and engine first
	Config    string // -config: also run ISAAC with this configuration
	Out       string // -out: results folder ("": results/<device>)
	Limit     int    // -limit: measure only the first Limit inputs of each suite (0: all)
	Inputs    string // -inputs: measure only a convolution suite's inputs whose name matches
	Sweep     int    // -sweep: random configurations tried per input (0: no sweep)
	ConvTypes string // -convtypes: the convolution suites' types (empty: all)
	Seed      string // -seed: with Sweep, result CSVs whose configurations are screened too
	Model     bool   // -model: also the model's choice and the default dispatch
	Floor     bool   // -floor: each input's floor instead of GEMMs
	Cases     string // -cases: this file's (input, configuration) pairs instead of suites
	Variants  string // -variants: a file for every convolution variant's median time
	Order     string // -order: what precedes each timed run (self, rotate)
	// Deadline (-deadline): no input of a suite is begun once this long
	// has passed since the start; the rows measured by then are written,
	// their env saying where the suite stopped (0: no limit). For runs
	// under a wall-clock limit, whose files a kill would lose.
	Deadline time.Duration
	// WindowSweep (-windowsweep) is the window kernel's configurations
	// tried per convolution beside its heuristic's, whatever -sweep says.
	WindowSweep int
	// ConvConfigs (-convconfigs) is a file of implicit-GEMM configurations
	// (one a line, ptx.ParseConfig's form) timed on every convolution's
	// paths where they are legal, beside the sweep's.
	ConvConfigs string
	// VendorArrays (-vendor-arrays): also cuBLAS's batched GEMM of arrays
	// of pointers on each batched input (column "cublas-arrays").
	VendorArrays bool

	Overhead bool   // -overhead: host time per call and first-call latency
	Lib      string // -lib: libisaac.so for Overhead
	CUDAHome string // -cuda: CUDA installation for Overhead

	// Replot (-replot), when set, is a results CSV to regenerate the
	// reports of, without a GPU, instead of measuring; -readme, -targets
	// and -floors fill ReplotOptions.
	Replot string
	report.ReplotOptions
	// Predicted (-predicted), with Replot: the weights (a device key or a
	// file) whose predictions to set against the CSV's times instead of
	// regenerating its reports.
	Predicted string
}

// bind defines the command's flags on fs, each with its default, into o.
func (o *Options) bind(fs *flag.FlagSet) {
	fs.StringVar(&o.Suites, "suite", "table4", "suites to run, comma-separated: table4, attention (batched GEMM), linear (nn.Linear with a bias, against cublasLtMatmul), csv (GEMM), table5, cnn, depthwise (convolutions: every -dtypes-independent type and layout) (empty: none, e.g. with -overhead)")
	fs.StringVar(&o.Shapes, "shapes", "", "CSV of inputs for -suite csv (columns m,n,k[,layout][,dtype][,suite])")
	fs.StringVar(&o.DTypes, "dtypes", "s,d,h,hgemmex-f32acc,bf16gemmex-f32acc", "data types, comma-separated")
	fs.IntVar(&o.Repeats, "repeats", 15, "timed repeats per input and engine (median reported)")
	fs.IntVar(&o.Warmup, "warmup", 3, "untimed runs per input and engine first")
	fs.StringVar(&o.Config, "config", "", "also run ISAAC with this configuration (column \"config\")")
	fs.StringVar(&o.Out, "out", "", "results folder (default results/<device>)")
	fs.IntVar(&o.Limit, "limit", 0, "measure only the first N inputs of each suite (smoke runs)")
	fs.StringVar(&o.Inputs, "inputs", "", "measure only a convolution suite's inputs whose name matches this regular expression (profiles)")
	fs.StringVar(&o.Seed, "seed", "", "with -sweep: result CSVs (comma-separated) whose configurations for the same inputs are screened too")
	fs.StringVar(&o.ConvTypes, "convtypes", "", "the convolution suites' types, comma-separated: s_fma, s_tf32, h_pseudo, bf16 (default all)")
	fs.IntVar(&o.Sweep, "sweep", 0, "sweep: per input, also try this many random legal configurations and report the best (suite files get the prefix sweep-)")
	fs.BoolVar(&o.Overhead, "overhead", false, "measure host time per call and first-call latency (C harness, needs -lib and CUDA headers)")
	fs.StringVar(&o.Lib, "lib", "build/libisaac.so", "libisaac.so for -overhead")
	fs.StringVar(&o.CUDAHome, "cuda", "/usr/local/cuda", "CUDA installation for -overhead")
	fs.StringVar(&o.Replot, "replot", "", "regenerate Markdown, SVG and the terminal table from a results CSV (no GPU)")
	fs.StringVar(&o.Readme, "readme", "", "with -replot: update this README's bench_compare section")
	fs.BoolVar(&o.Targets, "targets", false, "with -replot: also write <csv>-targets.md, the GEMM issue's targets met or missed")
	fs.StringVar(&o.Column, "column", "", "with -replot: report this extra column of the run (model, dispatch) in place of ISAAC's first: <csv>-<column>.md and .svg, README section <suite>-<column>")
	fs.StringVar(&o.Predicted, "predicted", "", "with -replot: instead of reports, set these weights' predictions (a device key such as h200, or a weights file) against the CSV's measured times: ln(predicted / measured) per column that ran our configurations, and the vendor model's")
	fs.StringVar(&o.Floors, "floors", "", "with -replot -targets: a floor CSV (-floor) of the same inputs, to set each missed target against what reading the input takes")
	fs.BoolVar(&o.Floor, "floor", false, "instead of GEMMs, measure each input's floor: the timer's reading for a kernel that only reads the input's bytes, and for an empty region (floor-<suite>.csv)")
	fs.StringVar(&o.Cases, "cases", "", "instead of suites, measure the (input, configuration) pairs of this file (lines \"m n k layout dtype config\", ab.sh's format): per input cuBLAS and its configurations interleaved on the same buffers; writes <out>/cases.txt")
	fs.DurationVar(&o.Deadline, "deadline", 0, "begin no more inputs once this long has passed since the start, and write the rows measured by then (their env says where each suite stopped; 0: no limit)")
	fs.StringVar(&o.Order, "order", "self", "what precedes each interleaved timed run: self (an untimed run of the same engine, so that none is timed right after another engine's kernel, which slows it) or rotate (the engine before it in the rotation: the method before 2026-11-28)")
	fs.IntVar(&o.WindowSweep, "windowsweep", 0, "with a convolution suite: also try this many of the window kernel's configurations per input (besides -sweep's)")
	fs.StringVar(&o.ConvConfigs, "convconfigs", "", "with a convolution suite: also time these implicit-GEMM configurations (a file, one a line; # starts a comment) on each row's paths where legal (variant \"listed\")")
	fs.StringVar(&o.Variants, "variants", "", "with a convolution suite: also write every ISAAC variant's median time per input (suite, name, type, layout, variant, configuration, µs) to this file")
	fs.BoolVar(&o.VendorArrays, "vendor-arrays", false, "also run each batched input through cuBLAS's batched GEMM of arrays of pointers, cublasGemmBatchedEx, on the same matrices (column \"cublas-arrays\"; unbatched inputs: the vendor's call): what serving that entry point would be measured against")
	fs.BoolVar(&o.Model, "model", false, "also run the shipped model's choice per input (column \"model\") and the shim's default dispatch (column \"dispatch\": the model's choice where it predicts a win, the vendor elsewhere); for convolutions the shipped convolution model's")
}

func main() {
	var o Options
	o.bind(flag.CommandLine)
	flag.Parse()
	var err error
	if o.Replot != "" && o.Predicted != "" {
		err = predictedReport(o.Replot, o.Predicted, os.Stdout)
	} else if o.Replot != "" {
		err = report.Replot(o.Replot, o.ReplotOptions, os.Stdout)
	} else {
		err = run(o)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench_compare:", err)
		os.Exit(1)
	}
}

// run measures what o asks for. Without a GPU it says so on stderr and
// returns nil.
func run(o Options) error {
	var dts []dtype
	for _, name := range strings.Split(o.DTypes, ",") {
		d, err := dtypeByName(strings.TrimSpace(name))
		if err != nil {
			return err
		}
		dts = append(dts, d)
	}
	engines := []engine{{Name: "ours"}}
	if o.Config != "" {
		c, err := ptx.ParseConfig(o.Config)
		if err != nil {
			return err
		}
		engines = append(engines, engine{Name: "config", Config: &c})
	}
	runtime.LockOSThread()
	if o.Order == "" {
		o.Order = "self"
	}
	if o.Order != "self" && o.Order != "rotate" {
		return fmt.Errorf("bench_compare: -order %q (want self or rotate)", o.Order)
	}
	b, err := newBench(o.Repeats, o.Warmup, o.Order == "self")
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench_compare: no GPU (%v): nothing measured\n", err)
		return nil
	}
	out := o.Out
	if out == "" {
		out = filepath.Join("results", b.Env.DeviceKey)
	}
	b.windowSweep = o.WindowSweep
	if o.Deadline > 0 {
		b.deadline = time.Now().Add(o.Deadline)
	}
	if o.ConvConfigs != "" {
		cfgs, err := readConfigs(o.ConvConfigs)
		if err != nil {
			return err
		}
		b.convConfigs = cfgs
	}
	if o.Variants != "" {
		f, err := os.Create(o.Variants)
		if err != nil {
			return err
		}
		defer f.Close()
		b.variants = f
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	b.Env.Commit = gitCommit()
	if o.Cases != "" {
		return runCases(b, o.Cases, out, os.Stderr)
	}
	if o.Model {
		e, err := modelEngine(b)
		if err != nil {
			return err
		}
		engines = append(engines, e, dispatchEngine(b))
	}
	if o.VendorArrays {
		engines = append(engines, arraysEngine(b))
	}
	fmt.Fprintf(os.Stderr, "%s (%d SMs, %d MHz), %s, cuBLAS %s, cuDNN %s\n", b.Env.Device, b.Env.SMs,
		b.Env.SMClockMHz, b.Env.Driver, b.Env.CUBLAS, b.Env.CUDNN)
	for _, suite := range strings.Split(o.Suites, ",") {
		var inputs []input
		switch suite = strings.TrimSpace(suite); suite {
		case "": // -suite "": no suite (-overhead alone)
			continue
		case "table4":
			inputs = inputsOf(suites.Table4(), dts)
		case "attention":
			inputs = inputsOf(suites.Attention(), dts)
		case report.LinearSuite:
			inputs = inputsOf(suites.Linear(), dts)
		case "table5", "cnn", "depthwise":
			convs, err := convSuite(suite, o.ConvTypes)
			if err != nil {
				return err
			}
			if o.Inputs != "" {
				re, err := regexp.Compile(o.Inputs)
				if err != nil {
					return fmt.Errorf("-inputs: %w", err)
				}
				convs = slices.DeleteFunc(convs, func(c convInput) bool { return !re.MatchString(c.Name) })
			}
			if o.Limit > 0 && len(convs) > o.Limit {
				convs = convs[:o.Limit]
			}
			rows, err := measureConvs(b, convs, o.Sweep, o.Model, os.Stderr)
			if err != nil {
				return err
			}
			if err := writeResults(out, suite, b.suiteEnv(), rows); err != nil {
				return err
			}
			continue
		case "csv":
			f, err := os.Open(o.Shapes)
			if err != nil {
				return fmt.Errorf("-suite csv needs -shapes: %w", err)
			}
			inputs, err = readShapes(f, dts)
			f.Close()
			if err != nil {
				return err
			}
		default:
			return fmt.Errorf("unknown suite %q", suite)
		}
		if o.Limit > 0 && len(inputs) > o.Limit {
			inputs = inputs[:o.Limit]
		}
		if err := runSuite(b, o, out, suite, inputs, engines); err != nil {
			return err
		}
	}
	if o.Overhead {
		return runOverhead(b, o, out)
	}
	return nil
}

// runSuite measures a suite's inputs as o asks (floors, a sweep, or the
// engines side by side) and writes the results into out.
func runSuite(b *bench, o Options, out, suite string, inputs []input, engines []engine) error {
	if o.Floor {
		return floorAll(b, inputs, out, suite, os.Stderr)
	}
	var rows []report.Row
	if o.Sweep > 0 {
		seeds, err := loadSeeds(o.Seed)
		if err != nil {
			return err
		}
		s := &sweeper{Candidates: o.Sweep, Screen: 3, Finalists: 3, Rounds: 3, Seed: 1, Seeds: seeds}
		if rows, err = sweepAll(b, s, inputs, os.Stderr); err != nil {
			return err
		}
		suite = "sweep-" + suite
	} else {
		var err error
		if rows, err = measureAll(b, inputs, engines, os.Stderr); err != nil {
			return err
		}
	}
	env := b.suiteEnv()
	if slices.ContainsFunc(inputs, func(in input) bool { return in.Bias }) {
		env.Method += "; inputs with a bias: the vendor is cublasLtMatmul (BIAS epilogue, in place; the first " +
			"algorithm of cublasLtMatmulAlgoGetHeuristic with a 32 MiB workspace, descriptors and algorithm made " +
			"before timing), ISAAC the same call (request.EntryLtMatmul)"
	}
	return writeResults(out, suite, env, rows)
}

// runOverhead builds the host-overhead harness against o.Lib and writes
// overhead.csv and overhead.env into out.
func runOverhead(b *bench, o Options, out string) error {
	bin, err := buildHarness(o.CUDAHome, o.Lib)
	if err != nil {
		return err
	}
	convBin, err := buildConvHarness(o.CUDAHome, o.Lib)
	if err != nil {
		fmt.Fprintf(os.Stderr, "bench_compare: no convolution overhead: %v\n", err)
		convBin = ""
	}
	rows, first, err := measureOverhead(bin, convBin, os.Stderr)
	if err != nil {
		return err
	}
	if err := report.WriteFile(filepath.Join(out, "overhead.csv"), func(w io.Writer) error { return writeOverheadCSV(w, rows, first) }); err != nil {
		return err
	}
	return report.WriteFile(filepath.Join(out, "overhead.env"), func(w io.Writer) error { return report.WriteEnv(w, b.Env) })
}

// measureAll measures every input, with a progress line (rate and ETA;
// the input's name where it has one, else its suite).
func measureAll(b *bench, inputs []input, engines []engine, progress io.Writer) ([]report.Row, error) {
	var rows []report.Row
	start := time.Now()
	for i, in := range inputs {
		if b.stopped(i, len(inputs), progress) {
			break
		}
		row, err := b.measure(in, engines)
		if err != nil {
			return nil, fmt.Errorf("%s %s %dx%dx%d %s: %w", in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, err)
		}
		rows = append(rows, row)
		done := i + 1
		eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(len(inputs)-done)).Round(time.Second)
		label, vendor := in.Suite, "cuBLAS"
		if in.Name != "" {
			label = in.Name
		}
		if in.Bias {
			vendor = "cuBLASLt"
		}
		fmt.Fprintf(progress, "[%3d/%d] %-22s %-18s %5dx%-5dx%-5d %s  %-8s %9.1f µs  ISAAC %9.1f µs  %5.2f×  (ETA %v)\n",
			done, len(inputs), label, in.DType.Name, in.M, in.N, in.K, in.Layout, vendor, row.VendorUS, row.OursUS, row.Speedup, eta)
	}
	return rows, nil
}

// floorAll measures every input's floor and writes floor-<suite>.csv and .env.
func floorAll(b *bench, inputs []input, out, suite string, progress io.Writer) error {
	var rows []report.FloorRow
	for i, in := range inputs {
		r, err := b.floor(in)
		if err != nil {
			return fmt.Errorf("%s %s %dx%dx%d %s: %w", in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, err)
		}
		rows = append(rows, r)
		fmt.Fprintf(progress, "[%3d/%d] %-12s %-18s %5dx%-5dx%-5d %s  %8.2f MB  floor %7.2f µs (%6.0f GB/s)  empty %5.2f µs\n",
			i+1, len(inputs), in.Suite, in.DType.Name, in.M, in.N, in.K, in.Layout, r.Bytes/1e6, r.FloorUS, r.GBs(), r.EmptyUS)
	}
	base := filepath.Join(out, "floor-"+suite)
	if err := report.WriteFile(base+".csv", func(w io.Writer) error { return report.WriteFloorCSV(w, rows) }); err != nil {
		return err
	}
	return report.WriteFile(base+".env", func(w io.Writer) error { return report.WriteEnv(w, b.Env) })
}

// writeResults writes <suite>.csv, .env, .md and .svg (and one SVG per data
// type) into dir, and the table to stdout (the linear suite's targets
// after it).
func writeResults(dir, suite string, env report.Env, rows []report.Row) error {
	if err := report.WriteSuite(dir, suite, env, rows); err != nil {
		return err
	}
	report.WriteTable(os.Stdout, rows)
	report.WriteLinearTargets(os.Stdout, rows)
	fmt.Fprintf(os.Stderr, "wrote %s.{csv,env,md,svg} and one SVG per data type\n", filepath.Join(dir, suite))
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
