package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/devsession"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// engine is one column of ours: the server's own choice without a model
// (Config nil: ISAAC_CONFIG or the heuristic's) or a forced configuration.
type engine struct {
	Name   string
	Config *ptx.GemmConfig
	// Choose, when set, picks the configuration per input (the model's
	// choice); it replaces Config.
	Choose func(g *request.Gemm) (ptx.GemmConfig, error)
	// Run, when set, is the whole call instead of the configuration's
	// kernel (the shim's dispatch: ours or the vendor's), and Describe says
	// what it ran.
	Run      func(g *request.Gemm) error
	Describe func(g *request.Gemm) string
}

// bench measures inputs on device 0, in its primary context, on the
// timer's stream (a devsession.Session). The caller keeps the goroutine
// locked to its OS thread.
type bench struct {
	*devsession.Session
	Repeats int
	Warmup  int
	stream  cuda.Stream
	// variants, when set, gets each convolution variant's median time
	// (-variants).
	variants io.Writer
	// windowSweep is Options.WindowSweep.
	windowSweep int
	// convConfigs are Options.ConvConfigs' configurations.
	convConfigs []ptx.GemmConfig
	// lt and ltWorkspace are the vendor of cublasLtMatmul requests
	// (vendor.go), made on the first.
	lt          *cublas.Lt
	ltWorkspace cuda.DevicePtr
	// selfFirst: each interleaved timed run follows an untimed run of
	// the same engine (-order self).
	selfFirst bool
	// arrays are the pointer arrays of the batched inputs that the
	// cublas-arrays column ran (vendor.go), by their matrices.
	arrays map[arraysKey][3]cuda.DevicePtr
	// deadline is Options.Deadline's instant (zero: none); cut says where
	// the suite being measured stopped at it ("": it did not).
	deadline time.Time
	cut      string
}

// stopped reports whether the deadline has passed before input done of
// total is begun, and then says so on progress and records where the suite
// stopped for its env (suiteEnv).
func (b *bench) stopped(done, total int, progress io.Writer) bool {
	if b.deadline.IsZero() || time.Now().Before(b.deadline) {
		return false
	}
	b.cut = fmt.Sprintf("stopped at -deadline after %d of %d inputs", done, total)
	fmt.Fprintf(progress, "bench_compare: %s: the rows measured are written\n", b.cut)
	return true
}

// suiteEnv is the environment record of the suite just measured: where it
// stopped at the deadline, if it did, follows its method. It clears that
// note for the next suite.
func (b *bench) suiteEnv() report.Env {
	env := b.Env
	if b.cut != "" {
		env.Method += "; " + b.cut
		b.cut = ""
	}
	return env
}

// newBench sets up the session: the device, the vendor handle, the L2 flush
// buffer and the environment record.
func newBench(repeats, warmup int, selfFirst bool) (*bench, error) {
	s, err := devsession.New(devsession.Options{Blocking: true, Flush: devbench.FlushRead})
	if err != nil {
		return nil, err
	}
	b := &bench{Session: s, Repeats: repeats, Warmup: warmup, stream: s.Timer.Stream, selfFirst: selfFirst}
	order := "each timed run right after an untimed run of the same engine"
	if !selfFirst {
		order = "each timed run after the engine before it in the rotation"
	}
	b.Env.Method = "one process, same buffers; vendor and ISAAC interleaved (alternating which goes first; " + order + "); " +
		b.Timer.Describe() + "; CUDA events around the call; " +
		"median of the repeats; alpha=1, beta=0; peaks from device attributes (SMs x max SM clock x " +
		"per-SM rate; memory clock x bus width x 2)"
	return b, nil
}

// inputSetup is an input's device buffers and its request on them.
type inputSetup struct {
	g     *request.Gemm
	bufs  [4]cuda.DevicePtr // A, B, C, and the bias of an input with one
	cSize int
}

func (s *inputSetup) free() {
	for _, p := range s.bufs {
		if p != 0 {
			p.Free()
		}
	}
}

// caseOf is an input's GEMM as gemmcheck describes it: its type, layout
// and sizes, minimal leading dimensions, alpha 1 and beta 0.
func caseOf(in input) gemmcheck.Case {
	ta, tb := in.Ops()
	return gemmcheck.Case{
		Type:   in.DType.GemmType,
		TransA: ta, TransB: tb, M: in.M, N: in.N, K: in.K, Alpha: 1, Beta: 0,
	}
}

// setup allocates and fills an input's operands (never zeros) and builds
// its request on the bench's stream.
func (b *bench) setup(in input) (*inputSetup, error) {
	c := caseOf(in)
	s := &inputSetup{}
	batch := max(in.Batch, 1) // a strided batch: the matrices one after another
	sizes := [4]int{batch * c.ElemsA() * in.DType.AB.Size(), batch * c.ElemsB() * in.DType.AB.Size(), batch * c.ElemsC() * in.DType.C.Size()}
	if in.Bias {
		sizes[3] = in.M * in.DType.C.Size()
	}
	for i, n := range sizes {
		if n == 0 {
			continue // no bias
		}
		p, err := cuda.Alloc(max(n, 256))
		if err != nil {
			s.free()
			return nil, err
		}
		s.bufs[i] = p
		t := in.DType.AB
		if i >= 2 {
			t = in.DType.C // C, and the bias of C's type
		}
		if err := devbench.Fill(p, n, t, uint64(i+1)); err != nil {
			s.free()
			return nil, err
		}
	}
	s.cSize = sizes[2]
	s.g = requestOf(in, uintptr(s.bufs[0]), uintptr(s.bufs[1]), uintptr(s.bufs[2]), uintptr(s.bufs[3]), uintptr(b.stream))
	return s, nil
}

// requestOf is an input's request on buffers a, b and c (and bias) on
// stream: caseOf's GEMM, strided-batched (matrices packed one after
// another) where in.Batch > 1, and for an input with a bias the
// cublasLtMatmul call that PyTorch's nn.Linear makes: entry
// request.EntryLtMatmul, the BIAS epilogue, D = C in place, the compute
// type naming TF32 where the type allows it (cuBLASLt has no math mode).
func requestOf(in input, a, b, c, bias, stream uintptr) *request.Gemm {
	cs := caseOf(in)
	var g *request.Gemm
	if in.Batch > 1 {
		bc := gemmcheck.BatchCase{Case: cs, Batch: in.Batch, StrideA: cs.ElemsA(), StrideB: cs.ElemsB(), StrideC: cs.ElemsC()}
		g = bc.RequestAt(a, b, c, 0, stream)
	} else {
		g = cs.RequestAt(a, b, c, 0, stream)
	}
	if in.Bias {
		g.Entry = request.EntryLtMatmul
		g.Batch = max(g.Batch, 1)
		g.Bias = bias
		if g.MathMode.AllowsTF32() && g.Compute == request.Compute32F {
			g.Compute = request.Compute32FFastTF32
		}
		g.MathMode = request.MathDefault
	}
	return g
}

// measure times one input through the vendor and every engine.
func (b *bench) measure(in input, engines []engine) (report.Row, error) {
	s, err := b.setup(in)
	if err != nil {
		return report.Row{}, err
	}
	defer s.free()
	return b.measureSetup(in, s, engines)
}

// measureSetup times the vendor and the engines on prepared buffers: warm-up,
// the agreement check, then interleaved timed repeats.
func (b *bench) measureSetup(in input, s *inputSetup, engines []engine) (report.Row, error) {
	g := s.g
	engines = append([]engine(nil), engines...)
	for i, e := range engines {
		choose := e.Choose
		if choose == nil && e.Config == nil && e.Run == nil {
			choose = b.Server.Heuristic // the server's own choice: ISAAC_CONFIG or the heuristic's
		}
		if choose != nil {
			c, err := choose(g)
			if err != nil {
				return report.Row{}, err
			}
			engines[i].Config = &c
		}
	}
	runs := []func() error{func() error { return b.vendorGemm(g) }}
	for _, e := range engines {
		if e.Run != nil {
			runs = append(runs, func() error { return e.Run(g) })
			continue
		}
		runs = append(runs, func() error { return b.Kernels.Gemm(g, *e.Config) })
	}
	for i := 0; i < b.Warmup; i++ {
		for _, run := range runs {
			if err := run(); err != nil {
				return report.Row{}, err
			}
		}
	}
	if err := b.stream.Synchronize(); err != nil {
		return report.Row{}, err
	}
	if err := b.agree(g, runs, in, s.cSize); err != nil {
		return report.Row{}, err
	}
	times := make([][]float64, len(runs))
	for rep := 0; rep < b.Repeats; rep++ {
		for j := range runs {
			k := (j + rep) % len(runs) // rotate who goes first
			us, err := b.timeInterleaved(runs[k])
			if err != nil {
				return report.Row{}, err
			}
			times[k] = append(times[k], us)
		}
	}
	flops, bytes := work(in, true)
	row := report.Row{
		Suite: in.Suite, Op: "gemm", Name: in.Name, DType: in.DType.Name, M: in.M, N: in.N, K: in.K, Layout: in.Layout,
		VendorUS: median(times[0]), OursUS: median(times[1]), Flops: flops, Bytes: bytes,
		RooflineUS: rooflineUS(flops, bytes, b.Env.PeakTFLOPs[in.DType.Peak], b.Env.BandwidthGBs),
	}
	row.Speedup = row.VendorUS / row.OursUS
	if cfg, err := engineConfig(g, engines[0]); err == nil {
		row.Config = cfg
	}
	for j, e := range engines[1:] {
		cfg, _ := engineConfig(g, e)
		row.Alt = append(row.Alt, report.Alt{Name: e.Name, US: median(times[j+2]), Config: cfg})
	}
	return row, nil
}

func engineConfig(g *request.Gemm, e engine) (string, error) {
	if e.Describe != nil {
		return e.Describe(g), nil
	}
	if e.Config != nil {
		return e.Config.String(), nil
	}
	return "", fmt.Errorf("bench_compare: engine %s has no configuration", e.Name)
}

// time runs one call between two events, after flushing L2, and returns
// the elapsed microseconds.
func (b *bench) time(run func() error) (float64, error) { return b.Timer.Time(run) }

// timeInterleaved is time for a run among other engines' runs: with
// selfFirst, an untimed run of the same engine first. A call timed right
// after another engine's kernel, L2 flushed between them, runs slower
// than after its own (gputest/results/h100/conv/call92: cuDNN after
// ISAAC's kernel against cuDNN after cuDNN), so without it an engine that
// follows its own kind in the rotation is favoured.
func (b *bench) timeInterleaved(run func() error) (float64, error) {
	if b.selfFirst {
		if err := run(); err != nil {
			return 0, err
		}
	}
	return b.time(run)
}

// agree checks, before timing, that every engine computes what the vendor
// computes (normwise, within the data type's tolerance): a benchmark of a
// wrong result is worthless. Results too large to copy back are skipped.
func (b *bench) agree(g *request.Gemm, runs []func() error, in input, cBytes int) error {
	if cBytes > 256<<20 {
		return nil
	}
	var ref []float64
	for i, run := range runs {
		if err := cuda.DevicePtr(g.C).MemsetD8Async(0, cBytes, b.stream); err != nil {
			return err
		}
		if err := run(); err != nil {
			return err
		}
		if err := b.stream.Synchronize(); err != nil {
			return err
		}
		raw := make([]byte, cBytes)
		if err := cuda.DevicePtr(g.C).CopyToHost(raw); err != nil {
			return err
		}
		got := gemmcheck.Decode(in.DType.C, raw)
		if i == 0 {
			ref = got
			continue
		}
		var diff, norm float64
		for j := range got {
			diff = math.Max(diff, math.Abs(got[j]-ref[j]))
			norm = math.Max(norm, math.Abs(ref[j]))
			if math.IsNaN(got[j]) {
				diff = math.Inf(1)
			}
		}
		if tol := tolerance(in); diff > tol*math.Max(norm, 1) {
			return fmt.Errorf("ISAAC and the vendor disagree on %v %s: max |diff| %.3g, |C| %.3g", in.Shape, in.DType.Name, diff, norm)
		}
	}
	return nil
}

// tolerance is the largest normwise difference (relative to max|C|) the
// agreement check accepts: loose enough for the accumulation-order
// differences of deep reductions (f16 accumulation in cublasHgemm above
// all), tight enough that a wrong kernel (errors of order |C|) fails.
func tolerance(in input) float64 {
	switch in.DType.Name {
	case "d":
		return 1e-9
	case "s":
		return 1e-3
	case "h":
		return 0.25
	}
	return 5e-2
}
