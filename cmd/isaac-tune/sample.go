package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/devsession"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// sampleOptions are sample's flags.
type sampleOptions struct {
	runOptions
	shapes, configs int
	guided          int     // per input, this many of the shipped model's best-predicted configurations too
	guideFrom       string  // the shipped weights that guide (a device key; "": the device's own)
	pow2            float64 // share of dimensions rounded to a multiple of a power of two 32…1024
	warpgroup       int     // per input, this many wgmma configurations too (classes that allow them)
	grid            int     // per input, this many configurations of space.Grid too (those in the model's spaces)
	pipelined       int     // per input, the pipelined twins (pp=1) of this many of its drawn configurations too
	staged          int     // per input, the twins (space.StagedTwins: tma, ps; space.PipelinedTwins: pp) of this many of its drawn configurations too
	capped          bool    // the register-capped twin (mr) of each pipelined configuration that loses a block to its plain twin
	types           string  // comma-separated served types to draw (empty: all)
	misaligned      float64 // share of batches with a random alignment below the widest
}

func sampleCmd(args []string) error {
	var o sampleOptions
	fs := flag.NewFlagSet("sample", flag.ExitOnError)
	o.runOptions.bind(fs, "cuBLAS")
	fs.IntVar(&o.shapes, "shapes", 8, "inputs per batch (one input class)")
	fs.IntVar(&o.configs, "configs", 24, "configurations drawn per input (each is also timed on the batch's other inputs it suits)")
	fs.Float64Var(&o.pow2, "pow2", 0, "share of dimensions rounded to a multiple of 2^j, j uniform in 5..10 (cuBLAS is much faster on such shapes)")
	fs.IntVar(&o.guided, "guided", 0, "per input, also measure this many of the embedded model's best-predicted configurations "+
		"(model-guided sampling: data where the model's ranking matters)")
	fs.StringVar(&o.guideFrom, "guide-from", "", "with -guided, the shipped weights that guide (a device key, e.g. h100 on a GPU without its own: "+
		"calibration data where the calibrated model's ranking matters; default: the device's own)")
	fs.IntVar(&o.warpgroup, "warpgroup", 0, "per input, also this many configurations from the class's wgmma sp (sm_90a; 16-bit classes with 16-byte alignment)")
	fs.IntVar(&o.grid, "grid", 0, "per input, also this many configurations drawn from the sweep's grids (space.Grid: tile families at several split counts) "+
		"that lie in the model's spaces")
	fs.IntVar(&o.pipelined, "pp", 0, "per input, also the pipelined twins (pp=1) of this many of its drawn mma.sync and SIMT configurations "+
		"(data for the configuration schema v3, which tells them apart)")
	fs.IntVar(&o.staged, "staged", 0, "per input, also the twins of this many of its drawn configurations that have any (space.StagedTwins: "+
		"a wgmma one staged by the copy engine, tma=1 and tma=2, and persistent, ps=1; space.PipelinedTwins: an mma.sync or SIMT one pipelined, pp=1)")
	fs.BoolVar(&o.capped, "mr", false, "also the register-capped twin (mr=N, space.RegisterCap) of each pipelined configuration "+
		"that its registers cost a block per SM against its plain twin")
	fs.StringVar(&o.types, "types", "", "served types to draw, comma-separated (default: all)")
	fs.Float64Var(&o.misaligned, "misaligned", 0.3, "share of batches whose leading dimensions get a random alignment below the widest")
	if err := o.parse(fs, args, "sample"); err != nil {
		return err
	}
	s, err := newSampleRun(o)
	if err != nil {
		return err
	}
	return s.run()
}

// sampleRun is one sampling process: the device, the vendor handle, the
// operand arenas, one sampler per input class and the output file.
type sampleRun struct {
	*devsession.Session
	samplerSet
	opt    sampleOptions
	arenas map[request.DataType][2]cuda.DevicePtr
	c      cuda.DevicePtr
	dist   tune.Distribution
	rng    *rand.Rand
	have   int              // samples in the file when the run started
	guide  *predictor.Model // the embedded configuration model, with -guided
	tally  sampleTally      // what the run measured and did not keep
}

func newSampleRun(o sampleOptions) (*sampleRun, error) {
	sess, err := devsession.New(devsession.Options{Flush: devbench.FlushWrite})
	if err != nil {
		return nil, err
	}
	s := &sampleRun{Session: sess, opt: o, dist: tune.DefaultDistribution()}
	s.dist.Pow2Share = o.pow2
	s.dist.MisalignedShare = o.misaligned
	if o.types != "" {
		for _, name := range strings.Split(o.types, ",") {
			i := slices.IndexFunc(gemmcheck.Types, func(t gemmcheck.Type) bool { return t.Name == name })
			if i < 0 {
				return nil, fmt.Errorf("sample: unknown type %q", name)
			}
			s.dist.Types = append(s.dist.Types, gemmcheck.Types[i])
		}
	}
	existing, _, err := tune.ReadFile(o.out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", o.out, err)
	}
	s.have = len(existing)
	s.rng = rand.New(rand.NewPCG(o.seed+uint64(s.have), 0x15AAC))
	s.samplerSet = newSamplerSet(s.Limits, o.runOptions, s.rng)
	// One arena per operand and element type, filled once: every input's
	// A and B are views of them (beta = 0: C is only written).
	arena := s.dist.MaxBytes + 16<<20
	s.arenas = map[request.DataType][2]cuda.DevicePtr{}
	for _, t := range []request.DataType{request.R32F, request.R64F, request.R16F, request.R16BF} {
		var pair [2]cuda.DevicePtr
		for i := range pair {
			if pair[i], err = cuda.Alloc(arena); err != nil {
				return nil, err
			}
			if err := devbench.Fill(pair[i], arena, t, uint64(i+1)); err != nil {
				return nil, err
			}
		}
		s.arenas[t] = pair
	}
	if s.c, err = cuda.Alloc(arena); err != nil {
		return nil, err
	}
	if o.guided > 0 {
		key := o.guideFrom
		if key == "" {
			key = s.Env.DeviceKey
		}
		w, err := weights.For(key)
		if err != nil {
			return nil, fmt.Errorf("-guided: %w", err)
		}
		m, ok := w.ConfigModel()
		if !ok {
			return nil, fmt.Errorf("-guided: the embedded weights have no configuration model of a schema this build knows")
		}
		s.guide = m
	}
	return s, nil
}

func (s *sampleRun) provenance() []string {
	e := s.Env
	return []string{
		fmt.Sprintf("run: isaac-tune sample, %s, commit %s, seed %d, starting at sample %d", time.Now().UTC().Format(time.RFC3339), commitOr(), s.opt.seed, s.have),
		provenanceDevice(e),
		"device_key: " + e.DeviceKey,
		"driver: " + e.Driver,
		"cublas: " + e.CUBLAS,
		fmt.Sprintf("method: per input, cuBLAS then each configuration on the same buffers (alpha=1, beta=0, one stream); "+
			"%s; CUDA events; one untimed warm-up, then the median of %d "+
			"timed repeats (the first alone when it took over 10 ms); cuBLAS: median of 5 the same way", s.Timer.Flush, s.opt.repeats),
		fmt.Sprintf("sampler: categorical per parameter, Dirichlet prior alpha=%d, estimated from %d legal uniform draws per input class; "+
			"%d configurations drawn per input (legal and suiting it: space.Suits), each also timed on the batch's other inputs it suits; %d inputs per batch",
			space.Alpha, s.opt.warmup, s.opt.configs, s.opt.shapes),
		fmt.Sprintf("guided: %d of the embedded model's best-predicted configurations per input too (0: none); vendor-only: %v", s.opt.guided, s.opt.vendorOnly),
		fmt.Sprintf("warpgroup: %d configurations per input from the class's wgmma sp too, where it has one (0: none); types: %s; misaligned batches: %.0f%%",
			s.opt.warpgroup, typesOr(s.opt.types), 100*s.dist.MisalignedShare),
		fmt.Sprintf("grid: %d configurations per input drawn without replacement from space.Grid's that lie in the class's spaces (0: none)", s.opt.grid),
		fmt.Sprintf("pp: the pipelined twins (pp=1) of up to %d of each input's drawn configurations too (0: none)", s.opt.pipelined),
		fmt.Sprintf("staged: the twins (space.StagedTwins: tma=1, tma=2, ps=1; space.PipelinedTwins: pp=1) of up to %d of each input's drawn configurations that have any, latest first (0: none); "+
			"mr: %v (the register-capped twin of each pipelined configuration that loses a block per SM to its plain twin, space.RegisterCap)", s.opt.staged, s.opt.capped),
		fmt.Sprintf("inputs: m, n, k log-uniform in 1..%d (%.0f%% of k up to %d), %.0f%% near the Table 4 suites (each dimension x exp(U(-0.35,0.35)), exact suite shapes excluded), "+
			"%.0f%% of dimensions >= 16 rounded down to a multiple of 8, then %.0f%% of all to the nearest multiple of 2^j (j uniform in 5..10); "+
			"the served types (see types:), four layouts, leading dimensions fully aligned except in the misaligned share; "+
			"2mnk at most 8e10 (fp32/fp64), 3e11 (tf32), 6e11 (16-bit); operands at most %d bytes",
			s.dist.MaxDim, 100*s.dist.DeepShare, s.dist.MaxDeepK, 100*s.dist.SuiteShare, 100*s.dist.RoundShare, 100*s.dist.Pow2Share, s.dist.MaxBytes),
	}
}

func typesOr(t string) string {
	if t == "" {
		return "all seven served types"
	}
	return t
}

func (s *sampleRun) run() error {
	w, err := tune.Append(s.opt.out, s.provenance())
	if err != nil {
		return err
	}
	defer w.Close()
	done, took, err := sampleLoop(s.opt.runOptions, s.have, func(_, room int) (int, string, error) {
		b := s.dist.Batch(s.rng, s.opt.shapes)
		batchFn := s.batch
		if s.opt.vendorOnly {
			batchFn = s.vendorBatch
		}
		rows, err := batchFn(b)
		rows = upTo(rows, room)
		if werr := w.Write(rows); werr != nil && err == nil {
			err = werr
		}
		return len(rows), fmt.Sprintf("%s %s%s align %d", b.Type.Name, b.TransA, b.TransB, b.Align), err
	})
	if err != nil {
		return err
	}
	report := append(s.acceptance(), s.tally.lines("cuBLAS", "inputs")...)
	fmt.Fprintf(os.Stderr, "%d samples in %s; file now holds %d\n", done, took.Round(time.Second), s.have+done)
	fmt.Fprint(os.Stderr, strings.Join(report, "\n")+"\n")
	// The run's acceptance figures go into the file as '#' lines.
	return w.Comment(report)
}

// acceptance sums the samplers' acceptance counts per type.
func (s *sampleRun) acceptance() []string {
	type acc struct{ cat, uni space.Acceptance }
	per := map[string]*acc{}
	var total acc
	for in, sm := range s.samplers {
		k := fmt.Sprintf("%s%s%s compute %s", in.AType, in.BType, in.CType, in.Compute)
		if in.AllowTF32 {
			k += " tf32"
		}
		a := per[k]
		if a == nil {
			a = &acc{}
			per[k] = a
		}
		for _, p := range []struct{ dst, src *space.Acceptance }{{&a.cat, &sm.Categorical}, {&a.uni, &sm.Uniform}, {&total.cat, &sm.Categorical}, {&total.uni, &sm.Uniform}} {
			p.dst.Draws += p.src.Draws
			p.dst.Accepted += p.src.Accepted
		}
	}
	var keys []string
	for k := range per {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := []string{fmt.Sprintf("acceptance: %d input classes; legal draws categorical %.2f%% (%d of %d), uniform %.2f%% (%d of %d)",
		len(s.samplers), 100*total.cat.Rate(), total.cat.Accepted, total.cat.Draws, 100*total.uni.Rate(), total.uni.Accepted, total.uni.Draws)}
	for _, k := range keys {
		a := per[k]
		out = append(out, fmt.Sprintf("acceptance %s: categorical %.2f%% of %d, uniform %.2f%% of %d", k, 100*a.cat.Rate(), a.cat.Draws, 100*a.uni.Rate(), a.uni.Draws))
	}
	return out
}

// batch measures one batch: cuBLAS per input, then every compiled
// configuration of the batch on every input it suits. It returns the
// samples measured so far even when it fails.
func (s *sampleRun) batch(b tune.Batch) ([]tune.Sample, error) {
	type input struct {
		g   *request.Gemm
		cls ptx.InputClass
		m   [3]int
	}
	pair := s.arenas[b.Type.AB]
	var ins []input
	drawn := map[ptx.InputClass][]ptx.GemmConfig{}
	seen := map[ptx.InputClass]map[ptx.GemmConfig]bool{}
	add := func(cls ptx.InputClass, cfg ptx.GemmConfig) {
		if !seen[cls][cfg] {
			seen[cls][cfg] = true
			drawn[cls] = append(drawn[cls], cfg)
		}
	}
	for i := range b.Shapes {
		c := b.Case(i)
		g := c.RequestAt(uintptr(pair[0]), uintptr(pair[1]), uintptr(s.c), 0, uintptr(s.Timer.Stream))
		cls, err := space.Class(g)
		if err != nil {
			return nil, err
		}
		ins = append(ins, input{g, cls, b.Shapes[i]})
		sm := s.samplerFor(cls, s.samplers, space.NewSampler)
		if seen[cls] == nil {
			seen[cls] = map[ptx.GemmConfig]bool{}
		}
		m, n, k := b.Shapes[i][0], b.Shapes[i][1], b.Shapes[i][2]
		for j := 0; j < s.opt.configs; j++ {
			cfg, ok := sm.Draw(s.rng, func(c ptx.GemmConfig) bool { return space.Suits(c, m, n, k) }, 20000)
			if !ok {
				break
			}
			add(cls, cfg)
		}
		if ws := s.samplerFor(cls, s.wgmma, space.NewWarpgroupSampler); ws != nil && s.opt.warpgroup > 0 {
			for j := 0; j < s.opt.warpgroup; j++ {
				cfg, ok := ws.Draw(s.rng, func(c ptx.GemmConfig) bool { return space.Suits(c, m, n, k) }, 20000)
				if !ok {
					break
				}
				add(cls, cfg)
			}
		}
		for _, cfg := range s.gridConfigs(cls, m, n, k) {
			add(cls, cfg)
		}
		// the pp=1 twins of the last drawn first: the current input's
		recent := slices.Clone(drawn[cls])
		slices.Reverse(recent)
		for _, cfg := range space.PipelinedTwins(recent, s.opt.pipelined, func(c ptx.GemmConfig) bool {
			return ptx.Legal(c, cls, s.Limits) == nil && space.Suits(c, m, n, k)
		}) {
			add(cls, cfg)
		}
		if s.guide != nil {
			for _, cfg := range s.guidedConfigs(b, i, cls, sm) {
				add(cls, cfg)
			}
		}
		// the staged and pipelined twins of the last added first: the
		// guided ones, then the current input's draws
		recent = slices.Clone(drawn[cls])
		slices.Reverse(recent)
		with := 0
		for _, c := range recent {
			if with == s.opt.staged {
				break
			}
			twins := append(space.StagedTwins(c, cls, s.Limits), space.PipelinedTwins([]ptx.GemmConfig{c}, 1, func(t ptx.GemmConfig) bool {
				return ptx.Legal(t, cls, s.Limits) == nil
			})...)
			twins = slices.DeleteFunc(twins, func(t ptx.GemmConfig) bool { return !space.Suits(t, m, n, k) })
			if len(twins) > 0 {
				with++
			}
			for _, t := range twins {
				add(cls, t)
			}
		}
	}
	// Compile every class's configurations in parallel (the JIT is the cost).
	loaded := map[ptx.InputClass][]ptx.GemmConfig{}
	compile := func(g *request.Gemm, cfgs []ptx.GemmConfig) []ptx.GemmConfig {
		ok := s.Compile(g, cfgs)
		for _, c := range cfgs {
			if !slices.Contains(ok, c) {
				s.tally.failedLoad(c.Math.String())
			}
		}
		return ok
	}
	for _, in := range ins {
		if _, done := loaded[in.cls]; done {
			continue
		}
		ok := compile(in.g, drawn[in.cls])
		if s.opt.capped {
			ok = append(ok, compile(in.g, s.cappedTwins(in.g, in.cls, ok, seen[in.cls]))...)
		}
		loaded[in.cls] = ok
	}
	var rows []tune.Sample
	for _, in := range ins {
		g := in.g
		vendor, err := s.Median(func() error { return s.Vendor.Gemm(g) }, 5)
		if err != nil {
			return rows, fmt.Errorf("cuBLAS on %v: %w", in.m, err)
		}
		start := len(rows)
		for _, cfg := range loaded[in.cls] {
			if !space.Suits(cfg, in.m[0], in.m[1], in.m[2]) {
				continue
			}
			c := cfg
			us, err := s.Median(func() error { return s.Kernels.Gemm(g, c) }, s.opt.repeats)
			if err != nil {
				// A launch the kernel's resources refuse leaves the context
				// usable: skip the configuration. A fault does not: stop.
				if errors.Is(err, kernels.ErrUnsupported) || s.Timer.Stream.Synchronize() == nil && s.Vendor.Gemm(g) == nil && s.Timer.Stream.Synchronize() == nil {
					s.tally.failedRun(cfg.Math.String())
					continue
				}
				return rows, fmt.Errorf("%v on %v: %w", cfg, in.m, err)
			}
			rows = append(rows, tune.Sample{
				Type: b.Type.Name, TransA: opByte(b.TransA), TransB: opByte(b.TransB),
				M: in.m[0], N: in.m[1], K: in.m[2],
				AlignA: in.cls.AlignA, AlignB: in.cls.AlignB, AlignC: in.cls.AlignC,
				Config: cfg, US: us, VendorUS: vendor,
			})
		}
		// cuBLAS again after the input's configurations: a device that
		// stalled or changed its clocks meanwhile timed some of them on
		// another machine, so the input's rows are dropped.
		after, err := s.Median(func() error { return s.Vendor.Gemm(g) }, 5)
		if err != nil {
			return rows, fmt.Errorf("cuBLAS on %v: %w", in.m, err)
		}
		if !settled(vendor, after) {
			fmt.Fprintf(os.Stderr, "sample: %v: cuBLAS took %.1f µs before its configurations and %.1f µs after: its %d rows dropped\n",
				in.m, vendor, after, len(rows)-start)
			s.tally.dropped(len(rows) - start)
			rows = rows[:start]
		}
	}
	return rows, nil
}

// driftLimit is the largest ratio between cuBLAS's times on an input before
// and after its configurations that the sampler keeps the input's rows at.
const driftLimit = 1.5

// settled reports whether cuBLAS's times on an input before and after its
// configurations (medians) agree within driftLimit.
func settled(before, after float64) bool {
	r := after / before
	return r <= driftLimit && r >= 1/driftLimit
}

// cappedTwins are the register-capped twins (mr) of the pipelined
// configurations among loaded that fit fewer blocks per SM than their
// plain twins (space.RegisterCap, from both kernels' registers), as the
// sweep tries them, that are legal for cls and not in seen.
func (s *sampleRun) cappedTwins(g *request.Gemm, cls ptx.InputClass, loaded []ptx.GemmConfig, seen map[ptx.GemmConfig]bool) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	registers := func(c ptx.GemmConfig) (int, error) { return s.Kernels.Registers(g, c) }
	for _, t := range loaded {
		if c, ok := space.CappedTwin(t, cls, s.Limits, registers); ok && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	return out
}

// vendorBatch times cuBLAS alone on each input of the batch.
func (s *sampleRun) vendorBatch(b tune.Batch) ([]tune.Sample, error) {
	pair := s.arenas[b.Type.AB]
	var rows []tune.Sample
	for i := range b.Shapes {
		c := b.Case(i)
		g := c.RequestAt(uintptr(pair[0]), uintptr(pair[1]), uintptr(s.c), 0, uintptr(s.Timer.Stream))
		cls, err := space.Class(g)
		if err != nil {
			return rows, err
		}
		us, err := s.Median(func() error { return s.Vendor.Gemm(g) }, 5)
		if err != nil {
			return rows, fmt.Errorf("cuBLAS on %v: %w", b.Shapes[i], err)
		}
		rows = append(rows, tune.Sample{Type: b.Type.Name, TransA: opByte(b.TransA), TransB: opByte(b.TransB),
			M: b.Shapes[i][0], N: b.Shapes[i][1], K: b.Shapes[i][2],
			AlignA: cls.AlignA, AlignB: cls.AlignB, AlignC: cls.AlignC, VendorUS: us})
	}
	return rows, nil
}

// gridConfigs are -grid configurations for an m×n×k input of class cls,
// drawn without replacement from space.Grid's that lie in the class's spaces
// (space.For, space.ForWarpgroup): the tile families and split counts the
// sweep searches, which the categorical draws rarely hit exactly, measured so
// that the model learns them.
func (s *sampleRun) gridConfigs(cls ptx.InputClass, m, n, k int) []ptx.GemmConfig {
	if s.opt.grid <= 0 {
		return nil
	}
	return space.GridDraw(space.Grid(cls, s.Limits, m, n, k), cls, s.opt.grid, s.rng)
}

// guidedConfigs are the model's best-predicted configurations for input i
// of the batch: it ranks 500 categorical draws and the heuristic's
// candidates and searches their neighbourhoods (predictor.Search).
func (s *sampleRun) guidedConfigs(b tune.Batch, i int, cls ptx.InputClass, sm *space.Sampler) []ptx.GemmConfig {
	m, n, k := b.Shapes[i][0], b.Shapes[i][1], b.Shapes[i][2]
	suits := func(c ptx.GemmConfig) bool { return space.Suits(c, m, n, k) }
	var seeds []ptx.GemmConfig
	for j := 0; j < 500; j++ {
		if c, ok := sm.Draw(s.rng, suits, 20000); ok {
			seeds = append(seeds, c)
		}
	}
	if ws := s.samplerFor(cls, s.wgmma, space.NewWarpgroupSampler); ws != nil {
		for j := 0; j < 125; j++ { // the wgmma kernels too, a quarter as many
			if c, ok := ws.Draw(s.rng, suits, 20000); ok {
				seeds = append(seeds, c)
			}
		}
	}
	for _, c := range space.HeuristicCandidates(cls, m, n, k, s.Limits) {
		if suits(c) {
			seeds = append(seeds, c)
		}
	}
	in := predictor.Input{Type: b.Type.Name, TransA: b.TransA.Transposed(), TransB: b.TransB.Transposed(), M: m, N: n, K: k,
		AlignA: cls.AlignA, AlignB: cls.AlignB, AlignC: cls.AlignC}
	var out []ptx.GemmConfig
	for _, r := range s.guide.Search(in, cls, s.Limits, seeds, 3, 8) {
		if len(out) == s.opt.guided {
			break
		}
		out = append(out, r.Config)
	}
	return out
}

func opByte(o request.Op) byte {
	if o.Transposed() {
		return 'T'
	}
	return 'N'
}
