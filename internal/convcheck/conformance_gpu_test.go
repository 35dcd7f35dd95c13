package convcheck_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
	"github.com/isaacgo/isaac/space"
)

// casesPerType is ISAAC_GPU_CONV_CASES, the cases of each served type
// (default 600: 3,000 in all).
func casesPerType() int {
	if n, err := strconv.Atoi(os.Getenv("ISAAC_GPU_CONV_CASES")); err == nil && n > 0 {
		return n
	}
	return 600
}

// table is the convolution table: casesPerType random cases of each served
// type (seed 1).
func table() []convcheck.Case {
	rng := rand.New(rand.NewPCG(1, 23))
	var out []convcheck.Case
	for _, ct := range request.ConvTypes {
		for i := 0; i < casesPerType(); i++ {
			out = append(out, convcheck.RandomCase(rng, ct, 4_000_000))
		}
	}
	return out
}

// compileJob is a configuration to compile for the target a call finds.
type compileJob struct {
	cfg    ptx.GemmConfig
	target func() (kernels.Target, error)
}

// compileAll compiles the jobs' kernels on 16 threads with ctx current (a
// failure is left for the job's launch to report).
func compileAll(t *testing.T, ctx cuda.Context, rt *kernels.Runtime, jobs []compileJob) {
	gemmcheck.OnThreads(t, ctx, 16, len(jobs), nil, func(i int) {
		if tg, err := jobs[i].target(); err == nil {
			rt.Kernel(tg, jobs[i].cfg)
		}
	})
}

// convJob is a case and the configuration it runs with: an implicit
// GEMM's, or for a grouped case the direct kernel's.
type convJob struct {
	c       convcheck.Case
	cfg     *ptx.GemmConfig
	grouped *ptx.GroupedConfig
	drawn   bool // from the class's space (else the heuristic's)
}

// String names the job's configuration.
func (j convJob) String() string {
	if j.grouped != nil {
		return j.grouped.String()
	}
	return j.cfg.String()
}

// TestGPUConvKernels runs the convolution table through ISAAC's kernels:
// every case with the heuristic's configuration, every fourth one also with
// a configuration drawn from its class's space (grouped cases: the direct
// kernel, with the heuristic's configuration and one of the others), each
// result against the reference and its bound, and y outside its view
// untouched.
func TestGPUConvKernels(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	lim, err := rt.Limits()
	if err != nil {
		t.Fatal(err)
	}
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Destroy()
	// The jobs first (device buffers are 256-byte aligned: the classes of
	// buffers at 1 MiB are theirs), their kernels compiled on 16 threads.
	rng := rand.New(rand.NewPCG(2, 23)) // the configurations' draws
	samplers := map[ptx.InputClass]*space.Sampler{}
	cases := table()
	jobs := make([][]convJob, len(cases))
	type compile struct {
		cls ptx.InputClass
		cfg ptx.GemmConfig
	}
	type sample struct { // a call of the class, for its target
		req   *request.Conv
		shape request.ConvShape
	}
	compiles := map[compile]sample{}
	var scalars [2]float64
	for i, c := range cases {
		req := c.RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
		shape, reason := req.Shape()
		if reason != request.Served {
			t.Fatalf("%v: shape %v", c, reason)
		}
		if shape.G > 1 {
			cfg := space.GroupedDefault(shape, space.GroupedAlign(req.XPtr, req.YPtr, shape))
			jobs[i] = []convJob{{c: c, grouped: &cfg}}
			if i%4 == 1 {
				all := space.GroupedConfigs(space.GroupedClass(shape, space.GroupedAlign(req.XPtr, req.YPtr, shape)))
				d := all[rng.IntN(len(all))]
				jobs[i] = append(jobs[i], convJob{c: c, grouped: &d, drawn: true})
			}
			continue
		}
		cls := space.ConvClass(shape, req.XPtr, req.WPtr)
		cfg := space.ConvDefault(cls, shape, lim)
		jobs[i] = []convJob{{c: c, cfg: &cfg}}
		compiles[compile{cls, cfg}] = sample{req, shape}
		if i%4 == 1 {
			sm, ok := samplers[cls]
			if !ok {
				// The wgmma space where the class has one, else the class's.
				if sm = space.NewWarpgroupSampler(cls, lim, 200, 400000, rng); sm == nil || rng.IntN(2) == 0 {
					sm = space.NewSampler(cls, lim, 200, 400000, rng)
				}
				samplers[cls] = sm
			}
			if d, ok := sm.Draw(rng, nil, 20000); ok {
				jobs[i] = append(jobs[i], convJob{c: c, cfg: &d, drawn: true})
				compiles[compile{cls, d}] = sample{req, shape}
			}
		}
	}
	var todo []compileJob
	for c, s := range compiles {
		todo = append(todo, compileJob{c.cfg, func() (kernels.Target, error) { return rt.ConvTarget(s.req, s.shape) }})
	}
	compileAll(t, ctx, rt, todo)
	t.Logf("%d cases, %d kernels compiled", len(cases), len(compiles))
	type stats struct {
		cases, drawn, grouped, vectors, refused, failed, errors int
		worst                                                   float64
		worstCase                                               string
	}
	per := map[string]*stats{}
	failures := 0
	for i, c := range cases {
		st := per[c.Type.Name]
		if st == nil {
			st = &stats{}
			per[c.Type.Name] = st
		}
		if i%500 == 499 {
			t.Logf("%d/%d cases", i+1, len(cases))
		}
		d, b, req, shape := onGPU(t, c, stream)
		for _, j := range jobs[i] {
			cfg := j
			if j.drawn {
				st.drawn++
			}
			if j.grouped != nil {
				st.grouped++
				if space.GroupedClass(shape, space.GroupedAlign(req.XPtr, req.YPtr, shape)).Vec > 1 {
					st.vectors++ // depthwise, its channels in vectors
				}
			}
			st.cases++
			if err := b.ResetY(); err != nil {
				t.Fatal(err)
			}
			var err error
			if j.grouped != nil {
				err = rt.Grouped(b.Request(stream), shape, *j.grouped)
			} else {
				err = rt.Conv(b.Request(stream), shape, *j.cfg)
			}
			var got []float64
			if err == nil {
				got, err = b.ReadY(stream)
			}
			if err != nil && j.drawn && errors.Is(err, kernels.ErrUnsupported) {
				st.refused++ // a drawn configuration the JIT's registers do not allow: not served
				continue
			}
			if err != nil {
				st.errors++
				if failures++; failures <= 30 {
					t.Errorf("%v [%s]: %v", c, cfg, err)
				}
				if strings.Contains(err.Error(), "CUDA_ERROR_ILLEGAL") || strings.Contains(err.Error(), "LAUNCH_FAILED") {
					t.Fatalf("the context is lost")
				}
				continue
			}
			r := d.Check(c, got)
			if r.Bad > 0 {
				st.failed++
				if failures++; failures <= 30 {
					t.Errorf("%v [%s]: %d bad elements: %s", c, cfg, r.Bad, r.FirstBad)
				}
			}
			if r.MaxRelBound >= st.worst {
				st.worst, st.worstCase = r.MaxRelBound, fmt.Sprintf("%v [%s]", c, cfg)
			}
		}
		b.Free()
	}
	var names []string
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	var rep strings.Builder
	fmt.Fprintf(&rep, "kernels: the convolution table (%d cases per type)\n%-12s %6s %6s %8s %8s %8s %7s %7s %14s\n", casesPerType(), "type", "runs", "drawn", "grouped", "vectors", "refused", "failed", "errors", "worst err/bd")
	for _, n := range names {
		s := per[n]
		fmt.Fprintf(&rep, "%-12s %6d %6d %8d %8d %8d %7d %7d %14.3g\n", n, s.cases, s.drawn, s.grouped, s.vectors, s.refused, s.failed, s.errors, s.worst)
	}
	for _, n := range names {
		fmt.Fprintf(&rep, "worst case %s: %s\n", n, per[n].worstCase)
	}
	t.Log("\n" + rep.String())
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "conv-kernels.txt"), []byte(rep.String()), 0o644)
	}
}

// TestGPUConvServe runs the convolution table through the server under
// ISAAC_POLICY=always without a convolution model (the heuristic's
// configuration, decided once per shape): every call served, every result
// within the bound; and under auto without a model every call forwarded
// (no_weights). TestGPUConvServeModel runs the model's choices.
func TestGPUConvServe(t *testing.T) {
	rt, stream := gpuRuntime(t)
	o := serve.Defaults()
	o.Policy, o.ConvWeights = serve.Always, "none"
	srv := serve.NewOn(rt, o)
	o.Policy, o.ConvAuto = serve.Auto, serve.On
	auto := serve.NewOn(rt, o)
	runs, failed, worst := 0, 0, 0.0
	for i, c := range table() {
		if i%3 != 0 {
			continue // a third of the table: the kernels' test runs all of it
		}
		d := convcheck.NewData(c)
		b, err := convcheck.Upload(c, d)
		if err != nil {
			t.Fatal(err)
		}
		if r, _ := auto.Conv(b.Request(stream)); r != request.FwdNoWeights {
			t.Fatalf("%v: %v under auto, want no_weights", c, r)
		}
		for rep := 0; rep < 2; rep++ { // the decision, then the kept one
			if err := b.ResetY(); err != nil {
				t.Fatal(err)
			}
			if r, _ := srv.Conv(b.Request(stream)); r != request.Served {
				t.Fatalf("%v: %v under always", c, r)
			}
			got, err := b.ReadY(stream)
			if err != nil {
				t.Fatalf("%v: %v", c, err)
			}
			runs++
			r := d.Check(c, got)
			worst = max(worst, r.MaxRelBound)
			if r.Bad > 0 {
				if failed++; failed <= 20 {
					t.Errorf("%v: %d bad elements: %s", c, r.Bad, r.FirstBad)
				}
			}
		}
		b.Free()
	}
	rep := fmt.Sprintf("serve: %d calls served under always, %d outside the bound; worst err/bound %.3g\n", runs, failed, worst)
	t.Log(rep)
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-serve.txt"), []byte(rep), 0o644)
	}
}

// TestGPUConvNHWC runs the table's cases whose x is not channel-contiguous,
// and the float ones with TF32 allowed whatever their layout (the copies
// round; a packed channel-contiguous x takes a copy of rows),
// through the kernels on NHWC copies of x and the filter
// (kernels.LaunchConvNHWC), with the heuristic's configuration for the
// copies' class: every result within the bound, y outside its view
// untouched.
func TestGPUConvNHWC(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	lim, err := rt.Limits()
	if err != nil {
		t.Fatal(err)
	}
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Destroy()
	// The copies' kernels first, on 16 threads.
	var scalars [2]float64
	var todo []compileJob
	seen := map[string]bool{}
	for _, c := range table() {
		req := c.RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
		shape, _ := req.Shape()
		if !kernels.Transposable(shape) {
			continue
		}
		tg, err := rt.ConvNHWCTarget(req, shape)
		if err != nil {
			t.Fatal(err)
		}
		cfg := space.ConvDefault(tg.Class, shape, lim)
		if key := ptx.KernelName(cfg, tg.Class); !seen[key] {
			seen[key] = true
			todo = append(todo, compileJob{cfg, func() (kernels.Target, error) { return rt.ConvNHWCTarget(req, shape) }})
		}
	}
	compileAll(t, ctx, rt, todo)
	var tl tally
	words := 0
	for _, c := range table() {
		d, b, req, shape := onGPU(t, c, stream)
		if !kernels.Transposable(shape) {
			b.Free()
			continue // channel-contiguous already and not rounded to TF32, or beyond the transposes' grids
		}
		if kernels.CopiedInWords(shape, req.XPtr) {
			words++
		}
		tg, err := rt.ConvNHWCTarget(req, shape)
		if err != nil {
			t.Fatal(err)
		}
		cfg := space.ConvDefault(tg.Class, shape, tg.Dev.Limits)
		tl.check(t, c, d, b, stream, cfg.String(), func() error { return rt.ConvNHWC(req, shape, cfg) })
		b.Free()
	}
	runs, failed, worst := tl.runs, tl.failed, tl.worst
	rep := fmt.Sprintf("nhwc: %d cases on NHWC copies (%d of x copied by words), %d outside the bound; worst err/bound %.3g\n", runs, words, failed, worst)
	t.Log(rep)
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-nhwc.txt"), []byte(rep), 0o644)
	}
}

// TestGPUConvTMA runs convolutions whose channels fill whole 128-byte
// lines (16-bit types and float with TF32 allowed, C a multiple of 64) through the heuristic's wgmma
// kernels staged by the copy engine's im2col mode: x in NHWC directly,
// and x in NCHW through NHWC copies (kernels.LaunchConvNHWC); every
// result against the reference and its bound, y outside its view
// untouched. Random filters, padding, strides, dilations, both modes, y
// in either layout, alpha and beta (beta = 0 over NaN).
func TestGPUConvTMA(t *testing.T) {
	rt, lim, stream := sm90aRuntime(t, "the im2col copies' kernels")
	rng := rand.New(rand.NewPCG(7, 29))
	// pseudo_half, bfloat16, and float with TF32 allowed (wgmma_tf32)
	types := []request.ConvType{request.ConvTypes[2], request.ConvTypes[4], request.ConvTypes[0]}
	var tl tally
	tma, twins := 0, 0
	for i := 0; i < casesPerType()/3; i++ {
		var c convcheck.Case
		for {
			c = convcheck.RandomCase(rng, types[i%3], 8_000_000)
			if c.Type.Data == request.CudnnFloat {
				c.Math = request.CudnnTensorOpMath
			}
			c.Groups, c.C = 0, 64*(1+rng.IntN(3))
			c.X = []convcheck.Layout{convcheck.NHWC, convcheck.NHWC, convcheck.NCHW}[rng.IntN(3)]
			c.FilterNHWC = c.X == convcheck.NHWC
			if c.Work() <= 8_000_000 && c.N*c.P()*c.Q() >= 128 {
				break
			}
		}
		d, b, req, shape := onGPU(t, c, stream)
		target, run := rt.ConvTarget, rt.Conv
		if c.X != convcheck.NHWC && kernels.Transposable(shape) { // else x is channel-contiguous already (H = W = 1)
			target, run = rt.ConvNHWCTarget, rt.ConvNHWC
		}
		tg, err := target(req, shape)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		cfg := space.ConvDefault(tg.Class, shape, lim)
		if cfg.TMA != 0 {
			tma++ // else the heuristic chose a kernel without wgmma (a narrow output)
		}
		tl.check(t, c, d, b, stream, cfg.String(), func() error { return run(req, shape, cfg) })
		if cfg.TMA != 0 { // its twin with the other copy loop (with or without a producer warp)
			twin := cfg
			twin.TMA = 3 - cfg.TMA
			if ptx.Legal(twin, tg.Class, lim) == nil {
				twins++
				b2, err := convcheck.Upload(c, d) // y as drawn again (beta reads it)
				if err != nil {
					t.Fatal(err)
				}
				req2 := b2.Request(stream)
				tl.check(t, c, d, b2, stream, twin.String(), func() error { return run(req2, shape, twin) })
				b2.Free()
			}
		}
		b.Free()
	}
	runs, failed, worst := tl.runs, tl.failed, tl.worst
	rep := fmt.Sprintf("tma: %d runs, %d cases through the im2col copies and %d twins with the other copy loop, %d outside the bound; worst err/bound %.3g\n", runs, tma, twins, failed, worst)
	t.Log(rep)
	if tma < (runs-twins)*9/10 {
		t.Errorf("only %d of %d cases through the im2col copies", tma, runs-twins)
	}
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-tma.txt"), []byte(rep), 0o644)
	}
}

// TestGPUConvDepthwise runs depthwise convolutions in NHWC (x and y
// channel-contiguous, one filter per channel) of every served type through
// the direct kernel, most with channels in vectors (the class's Vec: K a
// multiple of 2 or 4, else one channel a thread), some with y sliced out
// of a wider tensor (one channel a thread), each whose filter fits the
// registers also through 2 or 4 output rows a thread: every result against
// the reference and its bound, y outside its view untouched.
func TestGPUConvDepthwise(t *testing.T) {
	rt, stream := gpuRuntime(t)
	rng := rand.New(rand.NewPCG(11, 31))
	var tl tally
	vectors, rowTwins := map[int]int{}, 0
	for i := 0; i < casesPerType()/2; i++ {
		typ := request.ConvTypes[i%len(request.ConvTypes)]
		var c convcheck.Case
		for {
			c = convcheck.RandomCase(rng, typ, 4_000_000)
			c.C = []int{4, 8, 12, 16, 32, 64, 6, 10}[rng.IntN(8)] * (1 + rng.IntN(4))
			c.K, c.Groups = c.C, c.C
			c.X, c.Y = convcheck.NHWC, convcheck.NHWC
			if rng.IntN(5) == 0 {
				c.Y = convcheck.Sliced // not channel-contiguous: one channel a thread
			}
			c.FilterNHWC = rng.IntN(2) == 0
			if c.Work() <= 4_000_000 {
				break
			}
		}
		d, b, req, shape := onGPU(t, c, stream)
		cls := space.GroupedClass(shape, space.GroupedAlign(req.XPtr, req.YPtr, shape))
		cfg := space.GroupedDefault(shape, space.GroupedAlign(req.XPtr, req.YPtr, shape))
		vectors[cls.Vec]++
		tl.check(t, c, d, b, stream, cfg.String(), func() error { return rt.Grouped(req, shape, cfg) })
		// and its twin through a configuration of 2 or 4 rows a thread, where the class has them
		var multi []ptx.GroupedConfig
		for _, g := range space.GroupedConfigs(cls) {
			if g.Rows > 1 && g.Vec == cls.Vec {
				multi = append(multi, g)
			}
		}
		if len(multi) > 0 {
			g := multi[rng.IntN(len(multi))]
			if err := b.ResetY(); err != nil {
				t.Fatal(err)
			}
			tl.check(t, c, d, b, stream, g.String(), func() error { return rt.Grouped(req, shape, g) })
			rowTwins++
		}
		b.Free()
	}
	rep := fmt.Sprintf("depthwise: %d runs in NHWC (%d of them twins through 2 or 4 rows a thread), by channels a thread %v, %d outside the bound; worst err/bound %.3g\n", tl.runs, rowTwins, vectors, tl.failed, tl.worst)
	t.Log(rep)
	if cases := tl.runs - rowTwins; vectors[8]+vectors[4]+vectors[2] < cases/2 || rowTwins < cases/4 {
		t.Errorf("only %d of %d cases with channels in vectors, %d twins through rows", vectors[8]+vectors[4]+vectors[2], cases, rowTwins)
	}
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-depthwise.txt"), []byte(rep), 0o644)
	}
}

// gpuRuntime is a GPU test's kernel runtime and stream, on a thread with
// the test's context current (the stream destroyed when the test ends).
func gpuRuntime(t *testing.T) (*kernels.Runtime, cuda.Stream) {
	t.Helper()
	gemmcheck.GPUThread(t)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Destroy() })
	return rt, stream
}

// onGPU is case c's data and its buffers on the GPU, its call on stream and
// the call's shape (a case the table draws is one cuDNN serves).
func onGPU(t *testing.T, c convcheck.Case, stream cuda.Stream) (*convcheck.Data, *convcheck.Buffers, *request.Conv, request.ConvShape) {
	t.Helper()
	d := convcheck.NewData(c)
	b, err := convcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	req := b.Request(stream)
	shape, reason := req.Shape()
	if reason != request.Served {
		t.Fatalf("%v: %v", c, reason)
	}
	return d, b, req, shape
}

// tally counts a test's runs against the reference.
type tally struct {
	runs, failed int
	worst        float64
}

// check runs case c's convolution (run, labelled cfg) on b, reads y back
// and checks it against d: a launch or copy error ends the test, elements
// outside the bound are reported (the first 20 cases).
func (tl *tally) check(t *testing.T, c convcheck.Case, d *convcheck.Data, b *convcheck.Buffers, stream cuda.Stream, cfg string, run func() error) {
	t.Helper()
	if err := run(); err != nil {
		t.Fatalf("%v [%s]: %v", c, cfg, err)
	}
	got, err := b.ReadY(stream)
	if err != nil {
		t.Fatalf("%v [%s]: %v", c, cfg, err)
	}
	tl.runs++
	r := d.Check(c, got)
	tl.worst = max(tl.worst, r.MaxRelBound)
	if r.Bad > 0 {
		if tl.failed++; tl.failed <= 20 {
			t.Errorf("%v [%s]: %d bad elements: %s", c, cfg, r.Bad, r.FirstBad)
		}
	}
}

// TestGPUConvPersistent runs convolutions with more output tiles than the
// device holds blocks through persistent kernels (ps=1: each block walks
// several tiles, the producer warp copying the next tile's taps while the
// warpgroups write the last one) and through their twins with a block per
// tile: both against the reference and its bound, and the two results
// identical bit for bit (the same tiles computed in the same order). FP16,
// BF16 and FP32 with TF32, x in NHWC and in NCHW (through NHWC copies),
// the heuristic's block shapes with the copy engine and a producer warp.
func TestGPUConvPersistent(t *testing.T) {
	rt, lim, stream := sm90aRuntime(t, "persistent kernels")
	layers := []convcheck.Case{ // Table 5's conv5 at batch 8 and a 3×3 of 128 channels, padded, strided
		{N: 8, C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, StrH: 1, StrW: 1, DilH: 1, DilW: 1},
		{N: 4, C: 128, H: 30, W: 30, K: 256, R: 3, S: 3, PadH: 1, PadW: 1, StrH: 2, StrW: 1, DilH: 1, DilW: 1, Flip: true},
	}
	types := []request.ConvType{request.ConvTypes[2], request.ConvTypes[4], request.ConvTypes[0]}
	var tl tally
	pairs, differ := 0, 0
	for li, l := range layers {
		for ti, ty := range types {
			for _, layout := range []convcheck.Layout{convcheck.NHWC, convcheck.NCHW} {
				c := l
				c.Type, c.Math, c.X, c.Y, c.FilterNHWC = ty, request.CudnnTensorOpMath, layout, layout, layout == convcheck.NHWC
				c.Alpha, c.Beta, c.Seed = 1, 0.5, uint64(100*li+10*ti+int(layout))
				d, b, req, shape := onGPU(t, c, stream)
				target, run := rt.ConvTarget, rt.Conv
				if kernels.Transposable(shape) {
					target, run = rt.ConvNHWCTarget, rt.ConvNHWC
				}
				tg, err := target(req, shape)
				if err != nil {
					t.Fatalf("%v: %v", c, err)
				}
				for _, blk := range [][3]int{{1, 64, 64}, {2, 128, 128}} { // ms, ml, nl
					cfg := space.ConvDefault(tg.Class, shape, lim)
					if !cfg.Math.IsWGMMA() {
						t.Fatalf("%v: the heuristic's %s is not a wgmma kernel", c, cfg)
					}
					cfg.MS, cfg.ML, cfg.NL, cfg.NS, cfg.KG, cfg.TMA = blk[0], blk[1], blk[2], blk[2]/8, 1, 2
					pers := cfg
					pers.PS = 1
					if ptx.Legal(cfg, tg.Class, lim) != nil || ptx.Legal(pers, tg.Class, lim) != nil {
						t.Logf("%v: %s or its persistent twin not legal", c, cfg)
						continue
					}
					var outs [2][]float64
					for i, k := range []ptx.GemmConfig{cfg, pers} {
						if err := b.ResetY(); err != nil {
							t.Fatal(err)
						}
						tl.check(t, c, d, b, stream, k.String(), func() error { return run(req, shape, k) })
						if outs[i], err = b.ReadY(stream); err != nil {
							t.Fatal(err)
						}
					}
					pairs++
					if !slices.Equal(outs[0], outs[1]) {
						differ++
						t.Errorf("%v [%s]: the persistent kernel's result differs from its twin's", c, pers)
					}
				}
				b.Free()
			}
		}
	}
	rep := fmt.Sprintf("persistent: %d pairs of a persistent kernel and its twin, %d runs, %d outside the bound, %d pairs differing; worst err/bound %.3g\n",
		pairs, tl.runs, tl.failed, differ, tl.worst)
	t.Log(rep)
	if pairs < 16 {
		t.Errorf("only %d pairs", pairs)
	}
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-persistent.txt"), []byte(rep), 0o644)
	}
}

// sm90aRuntime is a runtime, its device's limits and a stream (destroyed
// when the test ends) for a test of kernels that only sm_90a runs (what),
// on the test's GPU thread; it skips the test on any other device.
func sm90aRuntime(t *testing.T, what string) (*kernels.Runtime, ptx.DeviceLimits, cuda.Stream) {
	t.Helper()
	gemmcheck.GPUThread(t)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	lim, err := rt.Limits()
	if err != nil {
		t.Fatal(err)
	}
	if lim.SMMajor != 9 || lim.SMMinor != 0 {
		t.Skipf("%s are sm_90a's; this is sm_%d%d", what, lim.SMMajor, lim.SMMinor)
	}
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Destroy() })
	return rt, lim, stream
}

// TestGPUConvServeModel runs a sample of the table (ISAAC_GPU_CONV_MODEL_EVERY:
// every 12th case by default) through servers with the shipped convolution
// model. Under always every call is served with the model's choice of path
// and configuration, within the bound. Under auto each call is served
// (within the bound) or forwarded for a reason of the model's (predicted
// slower, measuring, measured slower, compiling, searching, not
// described); a forwarded call is computed by cuDNN with the algorithm
// cudnnGetConvolutionForwardAlgorithm_v7 picks, and a measuring call's
// token is closed after it, as the shim does. The report counts each
// reason.
func TestGPUConvServeModel(t *testing.T) {
	rt, stream := gpuRuntime(t)
	h, err := cudnn.New()
	if err != nil {
		t.Skipf("no cuDNN: %v", err)
	}
	defer h.Destroy()
	every := 12
	if v, err := strconv.Atoi(os.Getenv("ISAAC_GPU_CONV_MODEL_EVERY")); err == nil && v > 0 {
		every = v
	}
	o := serve.Defaults()
	o.Policy = serve.Always
	always := serve.NewOn(rt, o)
	o.Policy, o.ConvAuto = serve.Auto, serve.On
	auto := serve.NewOn(rt, o)
	const wsBytes = 256 << 20
	ws, err := cuda.Alloc(wsBytes)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Free()
	allowed := map[request.Reason]bool{request.Served: true, request.FwdPredicted: true, request.FwdMeasuring: true,
		request.FwdMeasured: true, request.FwdCompiling: true, request.FwdSearching: true, request.FwdUnsupported: true}
	reasons := map[request.Reason]int{}
	runs, failed, worst, vendorRefused, notServed := 0, 0, 0.0, 0, 0
	check := func(c convcheck.Case, d *convcheck.Data, b *convcheck.Buffers, what string) {
		got, err := b.ReadY(stream)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		runs++
		r := d.Check(c, got)
		worst = max(worst, r.MaxRelBound)
		if r.Bad > 0 {
			if failed++; failed <= 20 {
				t.Errorf("%v (%s): %d bad elements: %s", c, what, r.Bad, r.FirstBad)
			}
		}
	}
	for i, c := range table() {
		if i%every != 0 {
			continue
		}
		d := convcheck.NewData(c)
		b, err := convcheck.Upload(c, d)
		if err != nil {
			t.Fatal(err)
		}
		req := b.Request(stream)
		plan, r := always.ConvPlan(req)
		if err := b.ResetY(); err != nil {
			t.Fatal(err)
		}
		if r == request.Served {
			r, _ = always.Conv(req)
		}
		if r != request.Served {
			if notServed++; notServed <= 20 {
				t.Errorf("%v: %v under always (%s)", c, r, plan)
			}
		} else {
			check(c, d, b, "always: "+plan)
		}
		desc, err := h.Describe(req)
		if err != nil {
			t.Fatal(err)
		}
		algo, err := desc.Heuristic()
		if err != nil || algo.WorkspaceBytes > wsBytes {
			vendorRefused++ // the vendor's own failure: nothing to compare under auto
			desc.Destroy()
			b.Free()
			continue
		}
		for rep := 0; rep < 8; rep++ { // the decision, its check, the kept one
			if err := b.ResetY(); err != nil {
				t.Fatal(err)
			}
			r, tok := auto.Conv(req)
			reasons[r]++
			if !allowed[r] {
				t.Fatalf("%v: %v under auto", c, r)
			}
			if r != request.Served {
				err := desc.Forward(algo, uintptr(ws))
				auto.AfterForward(tok)
				if err != nil {
					vendorRefused++
					continue
				}
			}
			plan, _ := auto.ConvPlan(req)
			check(c, d, b, "auto: "+r.String()+" "+plan)
		}
		desc.Destroy()
		b.Free()
	}
	var rep strings.Builder
	fmt.Fprintf(&rep, "serve with the model: %d results (always: one a case; auto: eight a case), %d outside the bound; worst err/bound %.3g; not served under always %d; cuDNN refused %d forwarded calls\nauto's answers:", runs, failed, worst, notServed, vendorRefused)
	var names []string
	for r, n := range reasons {
		names = append(names, fmt.Sprintf(" %s %d", r, n))
	}
	sort.Strings(names)
	rep.WriteString(strings.Join(names, ",") + "\n")
	t.Log(rep.String())
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-serve-model.txt"), []byte(rep.String()), 0o644)
	}
}

// TestGPUConvGeneratedOnce: the transposes kernel of the NHWC copies and a
// direct grouped kernel are generated on their first call only; later
// calls find them by what their code depends on (generating their PTX
// costs more host time than the launches it serves), and still compute
// the right result.
func TestGPUConvGeneratedOnce(t *testing.T) {
	rt, stream := gpuRuntime(t)
	half := request.ConvTypes[2]
	copies := convcheck.Case{Type: half, Math: request.CudnnTensorOpMath, N: 2, C: 64, H: 14, W: 14, K: 64, R: 3, S: 3,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1}
	depthwise := copies
	depthwise.Groups, depthwise.X, depthwise.Y, depthwise.FilterNHWC = 64, convcheck.NHWC, convcheck.NHWC, true
	var tl tally
	for _, c := range []convcheck.Case{copies, depthwise} {
		d, b, req, shape := onGPU(t, c, stream)
		var run func() error
		if c.Groups > 1 {
			cfg := space.GroupedDefault(shape, space.GroupedAlign(req.XPtr, req.YPtr, shape))
			run = func() error { return rt.Grouped(req, shape, cfg) }
		} else {
			tg, err := rt.ConvNHWCTarget(req, shape)
			if err != nil {
				t.Fatal(err)
			}
			cfg := space.ConvDefault(tg.Class, shape, tg.Dev.Limits)
			run = func() error { return rt.ConvNHWC(req, shape, cfg) }
		}
		if err := run(); err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		first := rt.Stats().Generated
		if err := b.ResetY(); err != nil {
			t.Fatal(err)
		}
		tl.check(t, c, d, b, stream, "again", run)
		if again := rt.Stats().Generated; again != first {
			t.Errorf("%v: %d kernels generated by the second call", c, again-first)
		}
		b.Free()
	}
	if tl.failed > 0 {
		t.Errorf("%d results outside the bound", tl.failed)
	}
}

// TestGPUConvWindow runs ungrouped 16-bit convolutions (PSEUDO_HALF and
// BFLOAT16) of every layout, padding, stride, dilation and mode through the
// window kernel: the heuristic's configuration and two configurations drawn
// from the sweep's (one Shifted, one not), every result against the reference and its bound, y
// outside its view untouched. A third of the cases have few channels and
// wide filters (the layers the kernel is for), a quarter many channels, so
// that the reduction runs in several chunks, a quarter large images of few
// channels, whose tiles outnumber the blocks the device holds (several
// tiles a block, the filter staged once).
func TestGPUConvWindow(t *testing.T) {
	rt, stream := gpuRuntime(t)
	rng := rand.New(rand.NewPCG(17, 41))
	var tl tally
	types := []request.ConvType{}
	for _, ct := range request.ConvTypes {
		if space.WindowServes(request.ConvShape{Type: ct, G: 1}) {
			types = append(types, ct)
		}
	}
	if len(types) != 2 {
		t.Fatalf("the window kernel serves %v", types)
	}
	chunked, shiftedRuns, vectors := 0, 0, map[[2]int]int{}
	for i := 0; i < casesPerType(); i++ {
		var c convcheck.Case
		for {
			c = convcheck.RandomCase(rng, types[i%2], 4_000_000)
			c.Groups = 1
			work := 4_000_000
			switch i % 4 {
			case 0: // few channels, a wide filter
				c.C, c.S = 1+rng.IntN(4), 1+rng.IntN(20)
			case 1: // many channels: several chunks
				c.C = 100 + rng.IntN(400)
			case 3: // large images of few channels: several tiles a block
				c.N, c.H, c.W, c.C, c.K = 1+rng.IntN(8), 64+rng.IntN(160), 64+rng.IntN(160), 1+rng.IntN(3), 1+rng.IntN(16)
				work = 40_000_000
			}
			if c.H+2*c.PadH >= (c.R-1)*c.DilH+1 && c.W+2*c.PadW >= (c.S-1)*c.DilW+1 && c.Work() <= work {
				break
			}
		}
		d, b, req, shape := onGPU(t, c, stream)
		cls := space.WindowClass(shape, req.XPtr, req.WPtr)
		vectors[[2]int{cls.XVec, cls.WVec}]++
		cfgs := []ptx.WindowConfig{space.WindowDefault(shape)}
		var plain, shifted []ptx.WindowConfig
		for _, cfg := range space.WindowConfigs(cls) {
			if cfg.Shifted {
				shifted = append(shifted, cfg)
			} else {
				plain = append(plain, cfg)
			}
		}
		cfgs = append(cfgs, plain[rng.IntN(len(plain))], shifted[rng.IntN(len(shifted))])
		for j, cfg := range cfgs {
			g, err := ptx.WindowGeometryOf(cfg, cls, kernels.WindowProblem(shape))
			if err != nil {
				continue // one channel's window beyond the configuration's shared memory
			}
			if g.CC < shape.C {
				chunked++
			}
			if cfg.Shifted {
				shiftedRuns++
			}
			if j > 0 {
				if err := b.ResetY(); err != nil {
					t.Fatal(err)
				}
			}
			tl.check(t, c, d, b, stream, cfg.String(), func() error { return rt.Window(req, shape, cfg) })
		}
		b.Free()
	}
	rep := fmt.Sprintf("window: %d runs (%d of them Shifted, %d in several chunks of channels; cases by vectors of x and the filter %v), %d outside the bound; worst err/bound %.3g\n", tl.runs, shiftedRuns, chunked, vectors, tl.failed, tl.worst)
	t.Log(rep)
	if shiftedRuns < tl.runs/3 {
		t.Errorf("only %d of %d runs Shifted", shiftedRuns, tl.runs)
	}
	if chunked < tl.runs/10 {
		t.Errorf("only %d of %d runs in several chunks", chunked, tl.runs)
	}
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-window.txt"), []byte(rep), 0o644)
	}
}

// TestGPUConvPointwise runs random pointwise convolutions (1×1 filters,
// stride 1, no padding, one group; every served type, layout and filter
// format, alpha and beta, beta = 0 over NaN) as their GEMMs
// (request.Conv.PointwiseGemm: a GEMM kernel with the GEMM heuristic's
// configuration, batched over the images where they are not one matrix),
// as the server's GEMM route launches them, and through the server's
// heuristic (the GEMM route where it prefers it, else the convolution
// kernels): every result within the bound, y outside its view untouched.
func TestGPUConvPointwise(t *testing.T) {
	rt, stream := gpuRuntime(t)
	o := serve.Defaults()
	o.Policy, o.ConvWeights = serve.Always, "none"
	srv := serve.NewOn(rt, o)
	rng := rand.New(rand.NewPCG(7, 29))
	per := max(casesPerType()/10, 4)
	var all tally
	routes := map[string]int{}
	// Each run from y's initial contents (beta ≠ 0 reads them).
	fresh := func(b *convcheck.Buffers, run func() error) func() error {
		return func() error {
			if err := b.ResetY(); err != nil {
				return err
			}
			return run()
		}
	}
	for _, ct := range request.ConvTypes {
		for i := 0; i < per; i++ {
			c := convcheck.RandomPointwise(rng, ct, 4_000_000)
			d, b, req, shape := onGPU(t, c, stream)
			if g, ok := req.PointwiseGemm(shape); ok {
				cfg, err := srv.Heuristic(&g)
				if err != nil {
					t.Fatalf("%v as %v: %v", c, &g, err)
				}
				routes[fmt.Sprintf("as its gemm %s%s, batched=%v", g.TransA, g.TransB, g.Batch > 1)]++
				all.check(t, c, d, b, stream, "gemm "+cfg.String(), fresh(b, func() error { return rt.Gemm(&g, cfg) }))
			} else {
				routes["no gemm"]++
			}
			plan, r := srv.ConvPlan(req)
			if r != request.Served {
				t.Fatalf("%v: %v", c, r)
			}
			if _, ok := req.PointwiseGemm(shape); strings.HasPrefix(plan, "gemm ") {
				if !ok {
					t.Errorf("%v: served as %q without a GEMM", c, plan)
				}
				routes["served by the gemm route"]++
			}
			all.check(t, c, d, b, stream, plan, fresh(b, func() error {
				if r, _ := srv.Conv(req); r != request.Served {
					return fmt.Errorf("not served: %v", r)
				}
				return nil
			}))
			b.Free()
		}
	}
	keys := make([]string, 0, len(routes))
	for k := range routes {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	rep := fmt.Sprintf("pointwise: %d runs, %d outside the bound; worst err/bound %.3g\n", all.runs, all.failed, all.worst)
	for _, k := range keys {
		rep += fmt.Sprintf("  %-40s %d\n", k, routes[k])
	}
	t.Log(rep)
	if routes["served by the gemm route"] == 0 {
		t.Error("the server ran no case by its GEMM route")
	}
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-pointwise.txt"), []byte(rep), 0o644)
	}
}
