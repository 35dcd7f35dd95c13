package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/devsession"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/tune"
)

// sampleConvOptions are sample-conv's flags.
type sampleConvOptions struct {
	runOptions
	layers, configs   int
	warpgroup, direct int
	mma               int // per convolution and path, configurations from the class's mma.sync space too
	staged, lines     bool
	overlap           bool            // the next batch drawn and compiled while one is timed
	paths             map[string]bool // the paths timed (tune.PathImplicit, …)
	grouped           float64         // the share of grouped convolutions drawn (negative: the distribution's own)
}

func sampleConvCmd(args []string) error {
	var o sampleConvOptions
	fs := flag.NewFlagSet("sample-conv", flag.ExitOnError)
	o.runOptions.bind(fs, "cuDNN")
	fs.IntVar(&o.layers, "layers", 6, "convolutions per batch (one type, math, layout and mode)")
	fs.IntVar(&o.configs, "configs", 16, "configurations drawn per convolution and path (each also timed on the batch's other convolutions of its class it suits)")
	fs.IntVar(&o.warpgroup, "warpgroup", 8, "per convolution and path, also this many configurations from the class's wgmma space (where it has one)")
	fs.IntVar(&o.mma, "mma", 0, "per convolution and path, also this many configurations from the class's mma.sync space (space.ForMMA, where it has one: the tensor cores' mma.sync kernels, which the whole space's draws seldom are)")
	fs.IntVar(&o.direct, "direct", 12, "per grouped convolution, this many of the direct kernel's configurations (drawn without replacement)")
	fs.BoolVar(&o.staged, "staged", true, "also each drawn configuration staged by the copy engine as the server runs it (space.ConvStaged: tma, ps), where the class's channels allow")
	fs.BoolVar(&o.lines, "lines", false, "draw only what the copy engine stages (tune.LinesConvDistribution: wgmma types, channels of whole 128-byte lines) and only wgmma configurations with a staged twin (with -staged, data for the staged kernels)")
	fs.BoolVar(&o.overlap, "overlap", false, "draw and compile the next batch's configurations while a batch is timed (on all cores but one), each timed call queued behind a hold kernel so that the host's load cannot stretch it")
	paths := fs.String("paths", strings.Join(convSamplePaths, ","), "the paths timed, of "+strings.Join(convSamplePaths, ", ")+" (convolutions no listed path takes are not drawn)")
	fs.Float64Var(&o.grouped, "grouped", -1, "the share of grouped convolutions drawn, depthwise two thirds of them (negative: the distribution's own)")
	if err := o.parse(fs, args, "sample-conv"); err != nil {
		return err
	}
	o.paths = map[string]bool{}
	for _, p := range strings.Split(*paths, ",") {
		if !slices.Contains(convSamplePaths, p) {
			return fmt.Errorf("sample-conv: no path %q (want some of %s)", p, strings.Join(convSamplePaths, ", "))
		}
		o.paths[p] = true
	}
	s, err := newConvSampleRun(o)
	if err != nil {
		return err
	}
	return s.run()
}

// convSamplePaths are the paths sample-conv times.
var convSamplePaths = []string{tune.PathImplicit, tune.PathNHWCCopies, tune.PathDirect}

// convSampleRun is one convolution sampling process: the device, cuDNN's
// handle and workspace, one arena per tensor and element type (every
// convolution's x, filter and y are views of them), the samplers and the
// output file.
type convSampleRun struct {
	*devsession.Session
	samplerSet
	opt     sampleConvOptions
	dist    tune.ConvDistribution
	dnn     cudnn.Handle
	ws      cuda.DevicePtr
	wsBytes int
	arenas  map[request.CudnnDataType][3]cuda.DevicePtr
	rng     *rand.Rand
	have    int
	spent   convPhases  // where the run's time went
	tally   sampleTally // what the run measured and did not keep (each plan's added as it is measured)
}

// convPhases are the wall-clock times a sampling run spent in each of its
// phases, for the report that says what bounds its rate. With -overlap,
// drawing and compiling run beside cuDNN and timing, so the four add up
// to more than the run.
type convPhases struct {
	cudnn, drawing, compiling, timing time.Duration
}

// add adds the time since start to *phase (a pointer receiver: with
// -overlap the plan's phases and the measuring's are added from two
// threads, each to its own fields).
func (*convPhases) add(phase *time.Duration, start time.Time) { *phase += time.Since(start) }

func (p convPhases) String() string {
	r := func(d time.Duration) time.Duration { return d.Round(100 * time.Millisecond) }
	return fmt.Sprintf("time: cuDNN %s (its algorithms found and timed, and timed again after the configurations), drawing configurations %s, compiling them %s, timing them %s",
		r(p.cudnn), r(p.drawing), r(p.compiling), r(p.timing))
}

// convArenaTypes are the element types of the served convolutions, as the
// arenas' fill encodes them.
var convArenaTypes = map[request.CudnnDataType]request.DataType{
	request.CudnnFloat: request.R32F, request.CudnnDouble: request.R64F, request.CudnnHalf: request.R16F, request.CudnnBFloat16: request.R16BF,
}

func newConvSampleRun(o sampleConvOptions) (*convSampleRun, error) {
	sess, err := devsession.New(devsession.Options{Flush: devbench.FlushWrite, Blocking: o.overlap})
	if err != nil {
		return nil, err
	}
	s := &convSampleRun{Session: sess, opt: o, dist: tune.DefaultConvDistribution(), wsBytes: 1 << 30}
	if o.lines {
		s.dist = tune.LinesConvDistribution()
	}
	if o.grouped >= 0 {
		s.dist.DepthwiseShare, s.dist.GroupedShare = o.grouped*2/3, o.grouped/3
	}
	existing, _, err := tune.ReadConvFile(o.out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.out, err)
	}
	s.have = len(existing)
	s.rng = rand.New(rand.NewPCG(o.seed+uint64(s.have), 0xC0117))
	s.samplerSet = newSamplerSet(s.Limits, o.runOptions, s.rng)
	if s.dnn, err = cudnn.New(); err != nil {
		return nil, err
	}
	if s.ws, err = cuda.Alloc(s.wsBytes); err != nil {
		return nil, err
	}
	arena := s.dist.MaxBytes + 16<<20
	s.arenas = map[request.CudnnDataType][3]cuda.DevicePtr{}
	for ct, t := range convArenaTypes {
		var tensors [3]cuda.DevicePtr // x, the filter, y (beta = 0: y is only written)
		for i := range tensors {
			if tensors[i], err = cuda.Alloc(arena); err != nil {
				return nil, err
			}
			if i < 2 {
				if err := devbench.Fill(tensors[i], arena, t, uint64(i+1)); err != nil {
					return nil, err
				}
			}
		}
		s.arenas[ct] = tensors
	}
	return s, nil
}

// pathsTimed lists the paths the run times, in convSamplePaths' order.
func (s *convSampleRun) pathsTimed() string {
	var out []string
	for _, p := range convSamplePaths {
		if s.opt.paths[p] {
			out = append(out, p)
		}
	}
	return strings.Join(out, ", ")
}

// takes reports whether a path the run times takes a convolution of shape
// sh (the others are not timed, cuDNN included).
func (s *convSampleRun) takes(sh request.ConvShape) bool {
	if sh.G > 1 {
		return s.opt.paths[tune.PathDirect]
	}
	return s.opt.paths[tune.PathImplicit] || s.opt.paths[tune.PathNHWCCopies] && kernels.Transposable(sh)
}

func (s *convSampleRun) provenance() []string {
	e := s.Env
	return []string{
		fmt.Sprintf("run: isaac-tune sample-conv, %s, commit %s, seed %d, starting at sample %d", time.Now().UTC().Format(time.RFC3339), commitOr(), s.opt.seed, s.have),
		provenanceDevice(e),
		"device_key: " + e.DeviceKey,
		"driver: " + e.Driver,
		"cudnn: " + e.CUDNN,
		fmt.Sprintf("method: per convolution, cuDNN (cudnnGetConvolutionForwardAlgorithm_v7's pick and cudnnFindConvolutionForwardAlgorithmEx's fastest, "+
			"each with its workspace, median of 5) then each configuration on the same buffers (alpha=1, beta=0, one stream); %s; CUDA events; "+
			"one untimed run, then the median of %d timed repeats (the first alone when it took over 10 ms); %s; the next batch drawn and compiled meanwhile: %v", s.Timer.Describe(), s.opt.repeats, tune.ConvLaunchOnly, s.opt.overlap),
		fmt.Sprintf("sampler: categorical per parameter, Dirichlet prior alpha=%d, estimated from %d legal uniform draws per input class; per convolution "+
			"and path (the implicit GEMM on x as it lies; on NHWC copies where the server may take them), %d configurations drawn (legal and suiting "+
			"the implicit GEMM's NPQ x K x CRS: space.Suits), %d from the class's wgmma space and %d from its mma.sync space, each also timed on the batch's other convolutions "+
			"of its class it suits; staged twins (space.ConvStaged): %v; only wgmma configurations with a staged twin: %v; grouped ones: %d of the direct kernel's configurations; %d convolutions per batch; vendor-only: %v; paths timed: %s",
			space.Alpha, s.opt.warmup, s.opt.configs, s.opt.warpgroup, s.opt.mma, s.opt.staged, s.opt.lines, s.opt.direct, s.opt.layers, s.opt.vendorOnly, s.pathsTimed()),
		fmt.Sprintf("inputs: tune.%s: batch 1..%d, images 1..%d, channels 1..%d (%.0f%% rounded to a multiple of 16), "+
			"filters 1x1, 3x3, 5x5, 7x7, 1xk, kx1, strides, dilations and padding as its code says, %.0f%% depthwise, %.0f%% grouped (up to 8 channels "+
			"a group), %.0f%% near the suites' layers (never one), %.0f%% CUDNN_CONVOLUTION; every served type and math, NCHW or NHWC; "+
			"direct FLOPs at most 8e10 (fp32, fp64), 3e11 (tf32), 6e11 (16-bit); tensors at most %d bytes",
			map[bool]string{false: "DefaultConvDistribution", true: "LinesConvDistribution (wgmma types and maths, ungrouped, channels rounded up to whole 128-byte lines)"}[s.dist.Lines],
			s.dist.MaxBatch, s.dist.MaxSpatial, s.dist.MaxChannels, 100*s.dist.RoundShare, 100*s.dist.DepthwiseShare, 100*s.dist.GroupedShare,
			100*s.dist.SuiteShare, 100*s.dist.FlipShare, s.dist.MaxBytes),
	}
}

func (s *convSampleRun) run() error {
	w, err := tune.AppendConv(s.opt.out, s.provenance())
	if err != nil {
		return err
	}
	defer w.Close()
	plans := s.planner()
	defer plans.stop()
	done, took, err := sampleLoop(s.opt.runOptions, s.have, func(_, room int) (int, string, error) {
		p, err := plans.next()
		if err != nil {
			return 0, "plan", err
		}
		rows, err := s.measure(p)
		rows = upTo(rows, room)
		if werr := w.WriteConv(rows); werr != nil && err == nil {
			err = werr
		}
		return len(rows), p.label(), err
	})
	plans.stop() // the plan under way writes the samplers' counts read below
	if err != nil {
		return err
	}
	var cat, uni space.Acceptance
	for _, sm := range s.samplers {
		cat.Draws, cat.Accepted = cat.Draws+sm.Categorical.Draws, cat.Accepted+sm.Categorical.Accepted
		uni.Draws, uni.Accepted = uni.Draws+sm.Uniform.Draws, uni.Accepted+sm.Uniform.Accepted
	}
	report := append([]string{fmt.Sprintf("acceptance: %d input classes; legal draws categorical %.2f%% (%d of %d), uniform %.2f%% (%d of %d)",
		len(s.samplers), 100*cat.Rate(), cat.Accepted, cat.Draws, 100*uni.Rate(), uni.Accepted, uni.Draws), s.spent.String()},
		s.tally.lines("cuDNN", "convolutions")...)
	fmt.Fprintf(os.Stderr, "%d samples in %s; file now holds %d\n%s\n",
		done, took.Round(time.Second), s.have+done, strings.Join(report, "\n"))
	return w.Comment(report)
}

// convPlanner hands out the run's batch plans in order. With overlap the
// plan of the batch after the one handed out is made meanwhile, on a
// thread of its own that setup prepares (the session's context made
// current there): drawing and compiling on the host while the batch is
// timed on the GPU. Without, each plan is made when asked for.
type convPlanner struct {
	plan    func() (*convPlan, error)
	setup   func() error
	overlap bool
	ahead   chan plannedBatch // the plan under way (overlap)
}

// plannedBatch is a plan or why it failed.
type plannedBatch struct {
	p   *convPlan
	err error
}

// planner is the run's planner of s.plan, overlapped as -overlap says.
func (s *convSampleRun) planner() *convPlanner {
	return newConvPlanner(s.plan, s.Ctx.SetCurrent, s.opt.overlap)
}

func newConvPlanner(plan func() (*convPlan, error), setup func() error, overlap bool) *convPlanner {
	pl := &convPlanner{plan: plan, setup: setup, overlap: overlap}
	if overlap {
		pl.ahead = pl.start()
	}
	return pl
}

// start makes the next plan on a new locked thread.
func (pl *convPlanner) start() chan plannedBatch {
	c := make(chan plannedBatch, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		if err := pl.setup(); err != nil {
			c <- plannedBatch{err: err}
			return
		}
		p, err := pl.plan()
		c <- plannedBatch{p, err}
	}()
	return c
}

// next is the next batch's plan; with overlap, the one after it is
// started first (none after a failed plan).
func (pl *convPlanner) next() (*convPlan, error) {
	if !pl.overlap {
		return pl.plan()
	}
	if pl.ahead == nil {
		return nil, errors.New("sample-conv: no plan under way (an earlier one failed)")
	}
	r := <-pl.ahead
	pl.ahead = nil
	if r.err == nil {
		pl.ahead = pl.start()
	}
	return r.p, r.err
}

// stop waits for the plan under way, if any (it uses the session and
// writes the run's counts); a later stop returns at once.
func (pl *convPlanner) stop() {
	if pl.ahead != nil {
		<-pl.ahead
		pl.ahead = nil
	}
}

// convInput is one convolution of a batch: its request, shape and cuDNN's
// times.
type convInput struct {
	req          *request.Conv
	shape        request.ConvShape
	v7US, bestUS float64
	best         cudnn.Algo // the fastest algorithm (timed again after the convolution's configurations)
}

// convPath is a way ISAAC runs the batch's convolutions of one class: its
// configurations, each run by run.
type convPath struct {
	name   string
	target kernels.Target
	cfgs   []ptx.GemmConfig
	run    func(*request.Conv, request.ConvShape, ptx.GemmConfig) error
	ins    []int // the batch's convolutions of the class
}

// convPlan is one batch made ready on the host: its convolutions'
// requests and shapes (ins, in the order of b.Layers; cuDNN's times are
// measure's), the direct kernel's configurations of each grouped one, and
// each path's classes with their configurations drawn and compiled (those
// that failed to load left out). Its scalars are the requests' alpha and
// beta, kept with the plan so that plans of two batches may be under way
// at once.
type convPlan struct {
	b       tune.ConvBatch
	ins     []convInput
	direct  map[int][]ptx.GroupedConfig
	paths   map[string]map[ptx.InputClass]*convPath
	scalars [2]float64
	tally   sampleTally // what making the plan left out (no kernel target, a kernel that failed to load)
}

// label names the plan's batch in the progress line.
func (p *convPlan) label() string {
	return fmt.Sprintf("%s math %d %s", p.b.Type.Name, p.b.Math, p.b.Layout)
}

// plan draws a batch and prepares it: requests, the configurations of
// every path and class each convolution takes, and their kernels compiled
// (devsession.Load, on all cores but one). It runs on a thread with the
// session's context current, and is the only user of the run's random
// numbers: with -overlap the next batch's plan runs while this one's is
// measured.
func (s *convSampleRun) plan() (*convPlan, error) {
	b := s.dist.Batch(s.rng, s.opt.layers)
	p := &convPlan{b: b, direct: map[int][]ptx.GroupedConfig{}, paths: map[string]map[ptx.InputClass]*convPath{}}
	p.scalars[0] = 1
	tensors := s.arenas[b.Type.Data]
	var kept []suites.Conv
	for i := range b.Layers {
		req := b.Case(i).RequestAt(uintptr(tensors[0]), uintptr(tensors[1]), uintptr(tensors[2]), &p.scalars, s.Timer.Stream)
		shape, reason := req.Shape()
		if reason != request.Served {
			return nil, fmt.Errorf("%+v: %v", b.Layers[i], reason)
		}
		if !s.opt.vendorOnly && !s.takes(shape) {
			continue
		}
		p.ins = append(p.ins, convInput{req: req, shape: shape})
		kept = append(kept, b.Layers[i])
	}
	p.b.Layers = kept
	if s.opt.vendorOnly {
		return p, nil
	}
	drawStart := time.Now()
	// The grouped convolutions: the direct kernel's configurations.
	var direct []func() error
	for i, in := range p.ins {
		if in.shape.G == 1 || !s.opt.paths[tune.PathDirect] {
			continue
		}
		align := space.GroupedAlign(in.req.XPtr, in.req.YPtr, in.shape)
		all := space.GroupedConfigs(space.GroupedClass(in.shape, align))
		t, terr := s.Kernels.GroupedTarget(in.req, in.shape)
		for _, j := range s.rng.Perm(len(all))[:min(s.opt.direct, len(all))] {
			cfg := all[j]
			p.direct[i] = append(p.direct[i], cfg)
			if terr == nil {
				direct = append(direct, func() error { _, err := s.Kernels.GroupedKernel(t, in.shape, cfg); return err })
			}
		}
	}
	// The implicit GEMMs: each path's classes, configurations drawn per
	// convolution and timed on the class's others they suit.
	for _, path := range []struct {
		name   string
		target func(*request.Conv, request.ConvShape) (kernels.Target, error)
		run    func(*request.Conv, request.ConvShape, ptx.GemmConfig) error
		takes  func(request.ConvShape) bool
	}{
		{tune.PathImplicit, s.Kernels.ConvTarget, s.Kernels.Conv, func(request.ConvShape) bool { return true }},
		{tune.PathNHWCCopies, s.Kernels.ConvNHWCTarget, s.Kernels.ConvNHWC, kernels.Transposable},
	} {
		p.paths[path.name] = map[ptx.InputClass]*convPath{}
		if !s.opt.paths[path.name] {
			continue
		}
		for i, in := range p.ins {
			if in.shape.G > 1 || !path.takes(in.shape) {
				continue
			}
			t, err := path.target(in.req, in.shape)
			if err != nil {
				p.tally.refused++
				continue
			}
			cp := p.paths[path.name][t.Class]
			if cp == nil {
				cp = &convPath{name: path.name, target: t, run: path.run}
				p.paths[path.name][t.Class] = cp
			}
			cp.ins = append(cp.ins, i)
			m, n, k := in.shape.Pixels(), in.shape.K, in.shape.ReductionCRS()
			suits := func(c ptx.GemmConfig) bool { return space.Suits(c, m, n, k) }
			seen := map[ptx.GemmConfig]bool{}
			for _, c := range cp.cfgs {
				seen[c] = true
			}
			draw := func(sm *space.Sampler, count int) {
				for j := 0; sm != nil && j < count; j++ {
					if c, ok := sm.Draw(s.rng, suits, 20000); ok && !seen[c] {
						seen[c] = true
						cp.cfgs = append(cp.cfgs, c)
					}
				}
			}
			drawn := len(cp.cfgs)
			draw(s.samplerFor(t.Class, s.samplers, space.NewSampler), s.opt.configs)
			if s.opt.lines {
				// wgmma configurations the copy engine stages on this
				// convolution, each timed beside its staged twin
				plain := suits
				suits = func(c ptx.GemmConfig) bool {
					return plain(c) && space.ConvStaged(c, t.Class, in.shape, s.Limits) != c
				}
			}
			draw(s.samplerFor(t.Class, s.wgmma, space.NewWarpgroupSampler), s.opt.warpgroup)
			if s.opt.mma > 0 {
				draw(s.samplerFor(t.Class, s.mma, space.NewMMASampler), s.opt.mma)
			}
			if s.opt.staged {
				// Each drawn configuration as the server would run it on
				// this convolution: staged by the copy engine, persistent
				// where the heuristic's rule makes it (the model learns the
				// tma and persistent features from these rows).
				for _, c := range cp.cfgs[drawn:] {
					if st := space.ConvStaged(c, t.Class, in.shape, s.Limits); st != c && !seen[st] && ptx.Legal(st, t.Class, s.Limits) == nil {
						seen[st] = true
						cp.cfgs = append(cp.cfgs, st)
					}
				}
			}
		}
	}
	s.spent.add(&s.spent.drawing, drawStart)
	t0 := time.Now()
	// The direct kernels compiled ahead (a failure shows again when the
	// configuration is timed); then each class's, those that fail to load
	// left out.
	devsession.Load(s.Session, direct, func(load func() error) error { return load() })
	for _, name := range []string{tune.PathImplicit, tune.PathNHWCCopies} {
		for _, cp := range p.paths[name] {
			loaded := devsession.Load(s.Session, cp.cfgs, func(c ptx.GemmConfig) error { _, err := s.Kernels.Kernel(cp.target, c); return err })
			for _, c := range cp.cfgs {
				if !slices.Contains(loaded, c) {
					p.tally.failedLoad(c.Math.String())
				}
			}
			cp.cfgs = loaded
		}
	}
	s.spent.add(&s.spent.compiling, t0)
	return p, nil
}

// measure times a plan's batch: cuDNN per convolution (one it refuses is
// dropped), then each configuration on every convolution of its class it
// suits, then cuDNN again. It returns the samples measured so far even
// when it fails.
func (s *convSampleRun) measure(p *convPlan) ([]tune.ConvSample, error) {
	b, ins := p.b, p.ins
	s.tally.add(p.tally)
	timedBy := make([]bool, len(ins)) // cuDNN ran the convolution
	for i := range ins {
		t0 := time.Now()
		v7, best, algo, err := s.vendorAlgo(ins[i].req)
		s.spent.add(&s.spent.cudnn, t0)
		if err != nil {
			// cuDNN refusing both of its algorithms (a status, as for some
			// wide grouped half convolutions) leaves the context usable:
			// the convolution is dropped. A fault does not: stop.
			if s.Timer.Stream.Synchronize() == nil {
				s.tally.refused++
				continue
			}
			return nil, fmt.Errorf("cuDNN on %+v: %w", b.Layers[i], err)
		}
		ins[i].v7US, ins[i].bestUS, ins[i].best = v7, best, algo
		timedBy[i] = true
	}
	var rows []tune.ConvSample
	row := func(i int, path string, alignA, alignB int, cfg string, us float64) tune.ConvSample {
		l, in := b.Layers[i], ins[i]
		return tune.ConvSample{Type: b.Type.Name, Math: b.Math, Layout: b.Layout.String(), Flip: b.Flip,
			N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S, G: l.Groups, Pad: l.Pad, Stride: l.Stride, Dil: l.Dil,
			Path: path, AlignA: alignA, AlignB: alignB, Config: cfg, US: us, VendorV7US: in.v7US, VendorBestUS: in.bestUS}
	}
	if s.opt.vendorOnly {
		for i := range ins {
			if timedBy[i] {
				rows = append(rows, row(i, "", 0, 0, "", 0))
			}
		}
		return rows, nil
	}
	rowIn := []int{} // the convolution of each row
	// The grouped convolutions: the direct kernel's configurations.
	for i, in := range ins {
		if !timedBy[i] {
			continue
		}
		align := space.GroupedAlign(in.req.XPtr, in.req.YPtr, in.shape)
		for _, cfg := range p.direct[i] {
			t0 := time.Now()
			us, err := s.Median(func() error { return s.Kernels.Grouped(in.req, in.shape, cfg) }, s.opt.repeats)
			s.spent.add(&s.spent.timing, t0)
			if err != nil {
				if errors.Is(err, kernels.ErrUnsupported) {
					s.tally.failedRun("direct")
					continue
				}
				return rows, fmt.Errorf("%v on %+v: %w", cfg, b.Layers[i], err)
			}
			rows = append(rows, row(i, tune.PathDirect, align, 0, cfg.String(), us))
			rowIn = append(rowIn, i)
		}
	}
	for _, name := range []string{tune.PathImplicit, tune.PathNHWCCopies} {
		for _, cp := range p.paths[name] {
			for _, i := range cp.ins {
				in := ins[i]
				if !timedBy[i] {
					continue
				}
				for _, cfg := range cp.cfgs {
					if !space.Suits(cfg, in.shape.Pixels(), in.shape.K, in.shape.ReductionCRS()) {
						continue
					}
					t0 := time.Now()
					us, err := s.Median(func() error { return cp.run(in.req, in.shape, cfg) }, s.opt.repeats)
					s.spent.add(&s.spent.timing, t0)
					if err != nil {
						// A launch the kernel's resources refuse leaves the
						// context usable: skip it. A fault does not: stop.
						if errors.Is(err, kernels.ErrUnsupported) || s.Timer.Stream.Synchronize() == nil {
							s.tally.failedRun(cfg.Math.String())
							continue
						}
						return rows, fmt.Errorf("%s %v on %+v: %w", name, cfg, b.Layers[i], err)
					}
					rows = append(rows, row(i, name, cp.target.Class.AlignA, cp.target.Class.AlignB, cfg.String(), us))
					rowIn = append(rowIn, i)
				}
			}
		}
	}
	// cuDNN's fastest algorithm again on each convolution: a device that
	// stalled or changed its clocks meanwhile timed some of its
	// configurations on another machine, so its rows are dropped.
	drop := map[int]bool{}
	for i, in := range ins {
		if !slices.Contains(rowIn, i) {
			continue
		}
		t0 := time.Now()
		after, err := s.timeAlgo(in.req, in.best)
		s.spent.add(&s.spent.cudnn, t0)
		if err != nil {
			return rows, fmt.Errorf("cuDNN again on %+v: %w", b.Layers[i], err)
		}
		if !settled(in.bestUS, after) {
			fmt.Fprintf(os.Stderr, "sample-conv: %+v: cuDNN took %.1f µs before its configurations and %.1f µs after: its rows dropped\n",
				b.Layers[i], in.bestUS, after)
			drop[i] = true
		}
	}
	timed := rows[:0]
	dropped := map[int]int{} // rows of each dropped convolution
	for r, i := range rowIn {
		if drop[i] {
			dropped[i]++
			continue
		}
		timed = append(timed, rows[r])
	}
	for _, n := range dropped {
		s.tally.dropped(n)
	}
	return timed, nil
}

// vendor is cuDNN's median time on req with the algorithm
// cudnnGetConvolutionForwardAlgorithm_v7 picks and with the fastest of
// cudnnFindConvolutionForwardAlgorithmEx, each with its workspace; an
// algorithm cuDNN ranks but refuses to run gives way to the other.
func (s *convSampleRun) vendor(req *request.Conv) (v7US, bestUS float64, err error) {
	v7US, bestUS, _, err = s.vendorAlgo(req)
	return v7US, bestUS, err
}

// timeAlgo is cuDNN's median time on req with algorithm a and its
// workspace.
func (s *convSampleRun) timeAlgo(req *request.Conv, a cudnn.Algo) (float64, error) {
	desc, err := s.dnn.Describe(req)
	if err != nil {
		return 0, err
	}
	defer desc.Destroy()
	return s.Median(func() error { return desc.Forward(a, uintptr(s.ws)) }, 5)
}

// vendorAlgo is vendor with the fastest algorithm it timed.
func (s *convSampleRun) vendorAlgo(req *request.Conv) (v7US, bestUS float64, fastest cudnn.Algo, err error) {
	desc, err := s.dnn.Describe(req)
	if err != nil {
		return 0, 0, fastest, err
	}
	defer desc.Destroy()
	v7, err1 := desc.Heuristic()
	if err1 == nil && v7.WorkspaceBytes > s.wsBytes {
		// v7's pick would write past the workspace (a caller with less
		// memory gets cuDNN's fastest of what fits instead).
		err1 = fmt.Errorf("cudnnGetConvolutionForwardAlgorithm_v7: algorithm %d needs %d bytes of workspace", v7.Algo, v7.WorkspaceBytes)
	}
	best, err2 := desc.Fastest(uintptr(s.ws), s.wsBytes)
	switch {
	case err1 != nil && err2 != nil:
		return 0, 0, fastest, fmt.Errorf("%v; %v", err1, err2)
	case err1 != nil:
		v7 = best
	case err2 != nil:
		best = v7
	}
	run := func(a cudnn.Algo) func() error { return func() error { return desc.Forward(a, uintptr(s.ws)) } }
	if desc.Forward(v7, uintptr(s.ws)) != nil {
		v7 = best
	}
	if desc.Forward(best, uintptr(s.ws)) != nil {
		best = v7
	}
	if v7US, err = s.Median(run(v7), 5); err != nil {
		return 0, 0, fastest, err
	}
	if bestUS, err = s.Median(run(best), 5); err != nil {
		return 0, 0, fastest, err
	}
	return v7US, bestUS, best, nil
}
