package main

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
	"github.com/isaacgo/isaac/space"
)

// convType is a served convolution configuration as bench_compare names it
// (the names of ../shared/reference's cuDNN figures), with the math type a
// caller sets and the peak that bounds it.
type convType struct {
	Name string
	request.ConvType
	Math int
	Peak string
}

// convTypes are the configurations the convolution suites run: FP32 with
// FMA math (true FP32) and with default math (TF32 allowed), FP16 data with
// FP32 compute and BF16, both with tensor-op math (what PyTorch sets).
var convTypes = []convType{
	{"s_fma", request.ConvTypes[0], request.CudnnFMAMath, "fp32"},
	{"s_tf32", request.ConvTypes[0], request.CudnnDefaultMath, "tf32-tensor"},
	{"h_pseudo", request.ConvTypes[2], request.CudnnTensorOpMath, "fp16-tensor"},
	{"bf16", request.ConvTypes[4], request.CudnnTensorOpMath, "fp16-tensor"},
}

// convInput is a suite's convolution in one type and layout (x, y and the
// filter's format).
type convInput struct {
	suites.Conv
	Type   convType
	Layout convcheck.Layout
}

// convInputsOf crosses a suite's layers with the types and both layouts.
func convInputsOf(layers []suites.Conv) []convInput {
	var out []convInput
	for _, t := range convTypes {
		for _, l := range []convcheck.Layout{convcheck.NCHW, convcheck.NHWC} {
			for _, c := range layers {
				out = append(out, convInput{c, t, l})
			}
		}
	}
	return out
}

// convCase is the input as a conformance case (alpha 1, beta 0).
func (in convInput) convCase() convcheck.Case {
	return convcheck.Case{Type: in.Type.ConvType, Math: in.Type.Math, N: in.N, C: in.C, H: in.H, W: in.W, K: in.K, R: in.R, S: in.S, Groups: in.Groups,
		PadH: in.Pad, PadW: in.Pad, StrH: in.Stride, StrW: in.Stride, DilH: in.Dil, DilW: in.Dil,
		X: in.Layout, Y: in.Layout, FilterNHWC: in.Layout == convcheck.NHWC, Alpha: 1, Seed: 1}
}

// convWork is a convolution's arithmetic (direct: 2·N·K·P·Q·C/G·R·S) and its
// minimum traffic (x and the filter read once, y written).
func convWork(in convInput) (flops, bytes float64) {
	es := float64(in.Type.Data.Size())
	p, q := float64(in.P()), float64(in.Q())
	flops = 2 * float64(in.N*in.K) * p * q * float64(in.C/in.Groups*in.R*in.S)
	bytes = es * (float64(in.N*in.C*in.H*in.W) + float64(in.K*in.C/in.Groups*in.R*in.S) + float64(in.N*in.K)*p*q)
	return flops, bytes
}

// convVariant is one way ISAAC runs a convolution, timed beside cuDNN.
type convVariant struct {
	name, config string
	run          func() error
}

// measureConv times one convolution: cuDNN through the legacy entry point
// with the algorithm cudnnGetConvolutionForwardAlgorithm_v7 picks and with
// the fastest of cudnnFindConvolutionForwardAlgorithmEx (each with its
// workspace), and ISAAC as the shim serves it under ISAAC_POLICY=always
// (the server's decision: its path and the heuristic's configuration),
// interleaved. The vendor's time is the faster cuDNN algorithm's (both
// algorithms' samples together where they are one: vendorTime); both are
// Alt columns, as are ISAAC's other paths (the implicit GEMM on x as it
// lies, and on NHWC copies, each with the heuristic's configuration) and,
// with sweep > 0, the best of the sweep (sweep configurations drawn for
// each path); a grouped convolution's row has every configuration of the
// direct kernel swept.
func (b *bench) measureConv(srv convServers, h cudnn.Handle, ws cuda.DevicePtr, wsBytes int, in convInput, sweep int, rng *rand.Rand) (report.Row, error) {
	c := in.convCase()
	var row report.Row
	buf, err := convcheck.Upload(c, convcheck.Fill(c))
	if err != nil {
		return row, err
	}
	defer buf.Free()
	req := buf.Request(b.stream)
	desc, err := h.Describe(req)
	if err != nil {
		return row, err
	}
	defer desc.Destroy()
	v7, err := desc.Heuristic()
	if err != nil {
		return row, err
	}
	find, err := desc.Fastest(uintptr(ws), wsBytes)
	if err != nil {
		return row, err
	}
	// An algorithm cuDNN ranks but then refuses to run (it happens for
	// some grouped NHWC half convolutions) gives way to the other one; a
	// row where both fail has no vendor time.
	vendorErr := ""
	if err := desc.Forward(v7, uintptr(ws)); err != nil {
		vendorErr = fmt.Sprintf("v7's algo %d: %v", v7.Algo, err)
		v7 = find
	}
	if err := desc.Forward(find, uintptr(ws)); err != nil {
		vendorErr += fmt.Sprintf("; find's algo %d: %v", find.Algo, err)
		find = v7
	}
	if err := b.stream.Synchronize(); err != nil {
		return row, err
	}
	runs := []func() error{
		func() error { return desc.Forward(v7, uintptr(ws)) },
		func() error { return desc.Forward(find, uintptr(ws)) },
	}
	if desc.Forward(v7, uintptr(ws)) != nil {
		return report.Row{Suite: in.Suite, Op: "conv", Name: in.Name, DType: in.Type.Name, Layout: in.Layout.String(),
			VendorUS: math.NaN(), OursUS: math.NaN(), Speedup: math.NaN(), Config: "cuDNN fails: " + vendorErr}, nil
	}
	shape, _ := req.Shape()
	plan, reason := srv.heuristic.ConvPlan(req)
	var variants []convVariant
	if reason == request.Served {
		variants = append(variants, convVariant{"served", plan, func() error {
			if r, _ := srv.heuristic.Conv(req); r != request.Served {
				return fmt.Errorf("not served: %v", r)
			}
			return nil
		}})
		paths, err := b.convPaths(req, sweep, rng)
		if err != nil {
			return row, err
		}
		variants = append(variants, paths...)
	}
	if srv.model != nil {
		// The caller's algorithm: the faster of the two as timed here
		// (FindEx ranks its algorithms on a warm cache).
		caller := v7
		if tv7, err := b.medianOf(runs[0], 5); err == nil {
			if tf, err := b.medianOf(runs[1], 5); err == nil && tf < tv7 {
				caller = find
			}
		}
		// The model's choice (where it has one), and the default dispatch:
		// every call as the shim makes it, where it forwards cuDNN with
		// the faster of its two algorithms (a caller that asks cuDNN for
		// its fastest, as PyTorch does with cudnn.benchmark): the check
		// then compares ours with the algorithm the row's speed-ups are
		// against.
		if mplan, r := srv.model.ConvPlan(req); r == request.Served {
			variants = append(variants, convVariant{"model", mplan, func() error {
				if r, _ := srv.model.Conv(req); r != request.Served {
					return fmt.Errorf("model: not served: %v", r)
				}
				return nil
			}})
		}
		// A settled answer to forward (Reason.Settled) is, in the shim,
		// remembered in C and later calls go to cuDNN without asking Go
		// (shim/conv_forwards.c): here likewise. That table's own cost is
		// what -overhead -lib measures.
		settled := false
		dispatch := func() error {
			if settled {
				return desc.Forward(caller, uintptr(ws))
			}
			r, tok := srv.dispatch.Conv(req)
			if r == request.Served {
				return nil
			}
			err := desc.Forward(caller, uintptr(ws))
			srv.dispatch.AfterForward(tok)
			settled = r.Settled()
			return err
		}
		if err := settleConv(srv.dispatch, req, b.stream, dispatch); err != nil {
			return row, err
		}
		variants = append(variants, convVariant{"dispatch", dispatchPlan(srv.dispatch, req), dispatch})
	}
	for _, v := range variants {
		runs = append(runs, v.run)
	}
	for i := 0; i < b.Warmup; i++ {
		for _, run := range runs {
			if err := run(); err != nil {
				return row, err
			}
		}
	}
	if err := b.stream.Synchronize(); err != nil {
		return row, err
	}
	var want []float64 // cuDNN's v7 algorithm's y, which each variant's must match
	for i, v := range variants {
		var err error
		if i == 0 {
			want, err = convOutput(buf, b.stream, runs[0])
		}
		if err == nil && !strings.HasPrefix(v.config, "cuDNN") {
			// (a dispatch that forwards runs cuDNN's fastest algorithm,
			// whose FFT or Winograd rounding differs from the v7 pick's
			// by more than ISAAC's kernels may)
			err = convAgree(buf, b.stream, want, runs[2+i], c)
		}
		if err != nil {
			return row, fmt.Errorf("%s [%s]: %w", v.name, v.config, err)
		}
	}
	times := make([][]float64, len(runs))
	for rep := 0; rep < b.Repeats; rep++ {
		for j := range runs {
			k := (j + rep) % len(runs)
			us, err := b.timeInterleaved(runs[k])
			if err != nil {
				return row, err
			}
			times[k] = append(times[k], us)
		}
	}
	flops, bytes := convWork(in)
	row = report.Row{
		Suite: in.Suite, Op: "conv", Name: in.Name, DType: in.Type.Name, Layout: in.Layout.String(),
		M: in.N * in.P() * in.Q(), N: in.K, K: in.C / in.Groups * in.R * in.S, Flops: flops, Bytes: bytes,
		VendorUS:   vendorTime(v7.Algo, find.Algo, times[0], times[1]),
		OursUS:     math.NaN(),
		RooflineUS: rooflineUS(flops, bytes, b.Env.PeakTFLOPs[in.Type.Peak], b.Env.BandwidthGBs),
		Alt: []report.Alt{
			{Name: "cudnn_v7", US: median(times[0]), Config: fmt.Sprintf("algo %d%s", v7.Algo, vendorNote(vendorErr))},
			{Name: "cudnn_find", US: median(times[1]), Config: fmt.Sprintf("algo %d", find.Algo)},
		},
		Config: plan,
	}
	for i, v := range variants {
		switch us := median(times[2+i]); v.name {
		case "served":
			row.OursUS = us
		case "sweep", "listed":
		default:
			row.Alt = append(row.Alt, report.Alt{Name: v.name, US: us, Config: v.config})
		}
	}
	if reason == request.Served && (sweep > 0 || len(b.convConfigs) > 0 || b.windowSweep > 0 && space.WindowServes(shape) || shape.G > 1) {
		// The best of ISAAC's kernels timed: the served configuration,
		// the paths', the sweep's (and -windowsweep's) and the model's.
		alt := report.Alt{Name: "sweep_best", US: row.OursUS, Config: plan}
		for i, v := range variants {
			if us := median(times[2+i]); v.name != "dispatch" && us < alt.US {
				alt.US, alt.Config = us, v.config
			}
		}
		row.Alt = append(row.Alt, alt)
	}
	row.Speedup = row.VendorUS / row.OursUS
	if b.variants != nil {
		for i, v := range variants {
			fmt.Fprintf(b.variants, "%s\t%s\t%s\t%s\t%s\t%s\t%.3f\n", in.Suite, in.Name, in.Type.Name, in.Layout, v.name, v.config, median(times[2+i]))
		}
	}
	return row, nil
}

// settleConv makes the dispatch's decision for req (compiling in line) and
// runs calls, one at a time, until the check of a decision to serve has
// its verdict, as the shim's first calls of a shape would: no timed call
// is one of the check's.
func settleConv(srv *serve.Server, req *request.Conv, stream cuda.Stream, run func() error) error {
	srv.ConvDecide(req)
	for i := 0; i < 256; i++ {
		if m := srv.ConvMeasured(req); !m.Checked || m.Settled {
			return nil
		}
		if err := run(); err != nil {
			return err
		}
		if err := stream.Synchronize(); err != nil {
			return err
		}
	}
	return fmt.Errorf("bench_compare: the check of the decision for %+v did not settle", req)
}

// dispatchPlan is what the default dispatch runs for req, with its check's
// times.
func dispatchPlan(srv *serve.Server, req *request.Conv) string {
	plan, r := srv.ConvPlan(req)
	m := srv.ConvMeasured(req)
	switch {
	case r == request.FwdMeasured:
		return fmt.Sprintf("cuDNN (measured: ours %.1f µs%s of candidates %.1f µs, cuDNN %.1f µs)", m.OursUS, retimed(m), m.CandidatesUS, m.VendorUS)
	case r != request.Served:
		return plan
	case m.Checked && m.Settled:
		return fmt.Sprintf("%s (checked: ours %.1f µs%s of candidates %.1f µs, cuDNN %.1f µs)", plan, m.OursUS, retimed(m), m.CandidatesUS, m.VendorUS)
	}
	return plan
}

// vendorNote is a row's note of a cuDNN algorithm that failed.
func vendorNote(err string) string {
	if err == "" {
		return ""
	}
	return " (" + strings.TrimPrefix(err, "; ") + ")"
}

// convPaths are ISAAC's ways of running convolution req beside the
// server's: the implicit GEMM on x as it lies and on NHWC copies (where x
// is not channel-contiguous) with the heuristic's configuration, a
// pointwise convolution's GEMM with the GEMM heuristic's, for a
// grouped convolution the direct kernel's heuristic configuration and
// every other; with sweep > 0, also sweep configurations drawn from each
// path's space, compiled in parallel first.
func (b *bench) convPaths(req *request.Conv, sweep int, rng *rand.Rand) ([]convVariant, error) {
	shape, _ := req.Shape()
	rt := b.Kernels
	var out []convVariant
	if shape.G > 1 {
		align := space.GroupedAlign(req.XPtr, req.YPtr, shape)
		cfg := space.GroupedDefault(shape, align)
		out = append(out, convVariant{"direct", cfg.String(), func() error { return rt.Grouped(req, shape, cfg) }})
		var all []ptx.GroupedConfig
		if sweep > 0 { // a hundred small kernels at most: all of them
			all = space.GroupedConfigs(space.GroupedClass(shape, align))
		}
		for _, g := range all {
			out = append(out, convVariant{"sweep", g.String(), func() error { return rt.Grouped(req, shape, g) }})
		}
		t, err := rt.GroupedTarget(req, shape)
		if err != nil {
			return nil, err
		}
		b.compileParallel(len(all), func(i int) error { _, err := rt.GroupedKernel(t, shape, all[i]); return err })
		return out, nil
	}
	type path struct {
		name   string
		target func(*request.Conv, request.ConvShape) (kernels.Target, error)
		run    func(*request.Conv, request.ConvShape, ptx.GemmConfig) error
	}
	paths := []path{{"implicit", rt.ConvTarget, rt.Conv}}
	if kernels.Transposable(shape) {
		paths = append(paths, path{"nhwc_copies", rt.ConvNHWCTarget, rt.ConvNHWC})
	}
	type compile struct {
		t   kernels.Target
		cfg ptx.GemmConfig
	}
	var compiles []compile
	for _, p := range paths {
		t, err := p.target(req, shape)
		if err != nil {
			return nil, err
		}
		def := space.ConvDefault(t.Class, shape, t.Dev.Limits)
		if !b.Server.Options().TMA {
			def.TMA, def.PS = 0, 0 // ISAAC_TMA=0, as the server runs it
		}
		cfgs := []ptx.GemmConfig{def}
		if sweep > 0 {
			samplers := []*space.Sampler{space.NewSampler(t.Class, t.Dev.Limits, 200, 400000, rng)}
			if w := space.NewWarpgroupSampler(t.Class, t.Dev.Limits, 200, 400000, rng); w != nil {
				samplers = append(samplers, w)
			}
			for i := 0; i < sweep; i++ {
				if cfg, ok := samplers[i%len(samplers)].Draw(rng, nil, 20000); ok {
					cfgs = append(cfgs, cfg)
				}
			}
		}
		drawn := len(cfgs)
		if p.name == "implicit" {
			cfgs = append(cfgs, listedConfigs(b.convConfigs, t.Class, t.Dev.Limits, shape)...)
		}
		for i, cfg := range cfgs {
			name := p.name
			switch {
			case i >= drawn:
				name = "listed"
			case i > 0:
				name = "sweep"
			}
			run := p.run
			prefix := map[string]string{"nhwc_copies": "nhwc copies "}[p.name]
			out = append(out, convVariant{name, prefix + cfg.String(), func() error { return run(req, shape, cfg) }})
			compiles = append(compiles, compile{t, cfg})
		}
	}
	// The kernels compiled at once, then timed; a kernel the JIT refuses
	// (registers) is dropped from the sweep.
	failed := b.compileParallel(len(compiles), func(i int) error { _, err := rt.Kernel(compiles[i].t, compiles[i].cfg); return err })
	var kept []convVariant
	for i, v := range out {
		if failed[i] && (v.name == "sweep" || v.name == "listed") {
			continue
		}
		kept = append(kept, v)
	}
	if space.WindowServes(shape) {
		// The window kernel: the heuristic's configuration, and with
		// sweep > 0 (or -windowsweep) as many drawn from its space, compiled
		// at once.
		t, err := rt.WindowTarget(req, shape)
		if err != nil {
			return nil, err
		}
		cfgs := []ptx.WindowConfig{space.WindowDefault(shape)}
		if n := max(sweep, b.windowSweep); n > 0 {
			all := space.WindowConfigs(space.WindowClass(shape, req.XPtr, req.WPtr))
			for _, i := range rng.Perm(len(all))[:min(n, len(all))] {
				cfgs = append(cfgs, all[i])
			}
		}
		failed := b.compileParallel(len(cfgs), func(i int) error { _, err := rt.WindowKernel(t, shape, cfgs[i]); return err })
		for i, cfg := range cfgs {
			name := "window"
			if i > 0 {
				name = "sweep"
			}
			if failed[i] {
				continue // one channel's window beyond the configuration's shared memory
			}
			kept = append(kept, convVariant{name, cfg.String(), func() error { return rt.Window(req, shape, cfg) }})
		}
	}
	if g, ok := req.PointwiseGemm(shape); ok {
		// A pointwise convolution as its GEMM, with the GEMM heuristic's
		// configuration (the server's third route).
		if cfg, err := b.Server.Heuristic(&g); err == nil {
			kept = append(kept, convVariant{"gemm", "gemm " + cfg.String(), func() error { return rt.Gemm(&g, cfg) }})
		}
	}
	return kept, nil
}

// compileParallel runs compile(0..n-1) on 16 threads, each with the
// bench's context current, and reports which failed.
func (b *bench) compileParallel(n int, compile func(i int) error) []bool {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 16)
	failed := make([]bool, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if b.Ctx.SetCurrent() != nil || compile(i) != nil {
				failed[i] = true
			}
		}()
	}
	wg.Wait()
	return failed
}

// convOutput is y after run, from y reset.
func convOutput(buf *convcheck.Buffers, stream cuda.Stream, run func() error) ([]float64, error) {
	if err := buf.ResetY(); err != nil {
		return nil, err
	}
	if err := run(); err != nil {
		return nil, err
	}
	return buf.ReadY(stream)
}

// convAgree checks, before timing, that ours computes what cuDNN's v7
// algorithm computed (want; normwise, within the data type's tolerance): a
// benchmark of a wrong result is worthless.
func convAgree(buf *convcheck.Buffers, stream cuda.Stream, want []float64, ours func() error, c convcheck.Case) error {
	got, err := convOutput(buf, stream, ours)
	if err != nil {
		return err
	}
	outs := [][]float64{want, got}
	var diff, norm float64
	for i := range outs[0] {
		d := outs[0][i] - outs[1][i]
		diff += d * d
		norm += outs[0][i] * outs[0][i]
	}
	// Normwise, as bench_compare's GEMMs: cuDNN's Winograd and FFT
	// algorithms round more than a direct reduction.
	tol := map[request.CudnnDataType]float64{request.CudnnDouble: 1e-9, request.CudnnFloat: 1e-3}[c.Type.Data]
	if tol == 0 {
		tol = 5e-2
	}
	if diff > tol*tol*max(norm, 1e-30) {
		return fmt.Errorf("ISAAC and cuDNN disagree: relative difference %.3g, tolerance %.3g", math.Sqrt(diff/max(norm, 1e-30)), tol)
	}
	return nil
}

// convServers are the servers whose choices a convolution row times: the
// heuristic (ISAAC_POLICY=always without a convolution model), and with
// -model the model's choice (always) and the default dispatch (auto).
type convServers struct {
	heuristic, model, dispatch *serve.Server
}

// measureConvs times a convolution suite's inputs (ISAAC as served under
// ISAAC_POLICY=always with the heuristic, its other paths, with sweep > 0
// a sweep, and with model the model's choice and the default dispatch).
func measureConvs(b *bench, inputs []convInput, sweep int, model bool, progress io.Writer) ([]report.Row, error) {
	h, err := cudnn.New()
	if err != nil {
		return nil, err
	}
	defer h.Destroy()
	const wsBytes = 1 << 30
	ws, err := cuda.Alloc(wsBytes)
	if err != nil {
		return nil, err
	}
	defer ws.Free()
	o := b.Server.Options()
	o.Policy, o.ConvWeights = serve.Always, "none"
	srv := convServers{heuristic: serve.NewOn(b.Kernels, o)}
	if model {
		o.ConvWeights = b.Server.Options().ConvWeights
		srv.model = serve.NewOn(b.Kernels, o)
		o.Policy, o.ConvAuto = serve.Auto, serve.On // the model's dispatch (ISAAC_CONV_AUTO=1)
		srv.dispatch = serve.NewOn(b.Kernels, o)
	}
	rng := rand.New(rand.NewPCG(1, 5))
	var rows []report.Row
	start := time.Now()
	for i, in := range inputs {
		if b.stopped(i, len(inputs), progress) {
			break
		}
		row, err := b.measureConv(srv, h, ws, wsBytes, in, sweep, rng)
		if err != nil {
			return nil, fmt.Errorf("%s %s %s: %w", in.Name, in.Type.Name, in.Layout, err)
		}
		rows = append(rows, row)
		done := i + 1
		eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(len(inputs)-done)).Round(time.Second)
		fmt.Fprintf(progress, "[%3d/%d] %-24s %-9s %s  cuDNN %9.1f µs  ISAAC %9.1f µs  %5.2f×  (ETA %v)\n",
			done, len(inputs), in.Name, in.Type.Name, in.Layout, row.VendorUS, row.OursUS, row.Speedup, eta)
	}
	return rows, nil
}

// convSuite is a convolution suite's inputs by name in the types named
// (comma-separated; empty: all), nil for a GEMM suite.
func convSuite(name, types string) ([]convInput, error) {
	var all []convInput
	switch name {
	case "table5":
		all = convInputsOf(suites.Table5())
	case "cnn":
		all = convInputsOf(suites.CNN())
	case "depthwise":
		all = convInputsOf(suites.Depthwise())
	default:
		return nil, nil
	}
	if types == "" {
		return all, nil
	}
	want := map[string]bool{}
	for _, t := range strings.Split(types, ",") {
		if !slices.ContainsFunc(convTypes, func(c convType) bool { return c.Name == strings.TrimSpace(t) }) {
			return nil, fmt.Errorf("unknown convolution type %q", t)
		}
		want[strings.TrimSpace(t)] = true
	}
	var out []convInput
	for _, in := range all {
		if want[in.Type.Name] {
			out = append(out, in)
		}
	}
	return out, nil
}

// medianOf is the median of n timed runs.
func (b *bench) medianOf(run func() error, n int) (float64, error) {
	var t []float64
	for i := 0; i < n; i++ {
		us, err := b.time(run)
		if err != nil {
			return 0, err
		}
		t = append(t, us)
	}
	return median(t), nil
}

// readConfigs reads -convconfigs' file: one implicit-GEMM configuration a
// line in ptx.ParseConfig's form; blank lines and text after # are skipped.
func readConfigs(path string) ([]ptx.GemmConfig, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []ptx.GemmConfig
	for i, line := range strings.Split(string(b), "\n") {
		line, _, _ = strings.Cut(line, "#")
		if line = strings.TrimSpace(line); line == "" {
			continue
		}
		c, err := ptx.ParseConfig(line)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, i+1, err)
		}
		out = append(out, c)
	}
	return out, nil
}

// listedConfigs are the configurations of list (-convconfigs) that are
// legal for class in and whose grid splits (KG) do not take the grid past
// three waves of the device's SMs.
func listedConfigs(list []ptx.GemmConfig, in ptx.InputClass, dev ptx.DeviceLimits, s request.ConvShape) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	for _, c := range list {
		tiles := (s.Pixels() + c.ML - 1) / c.ML * ((s.K + c.NL - 1) / c.NL)
		if ptx.Legal(c, in, dev) == nil && (c.KG == 1 || tiles*c.KG <= 3*dev.SMCount) {
			out = append(out, c)
		}
	}
	return out
}
