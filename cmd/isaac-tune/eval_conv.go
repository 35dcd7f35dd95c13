package main

import (
	"bufio"
	"errors"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/devsession"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
	"github.com/klauspost/compress/zstd"
)

// convChoosers are eval-conv's columns: the model's pick as the server
// runs it, the fastest of its five best-predicted, the heuristic's as the
// server runs it without a model, and the fastest of the candidates the
// dispatch's check times (the model's best on each route, the heuristic's).
var convChoosers = [4]string{"model", "model-top5", "heuristic", "checked"}

// convEvalRow is one held-out convolution: the best of the timed pool and
// what each chooser picked.
type convEvalRow struct {
	b             tune.ConvBatch // one layer
	pool          int
	v7US, findUS  float64
	bestUS        float64
	best          string
	pick          [len(convChoosers)]string
	us            [len(convChoosers)]float64
	predictServe  bool    // the model's dispatch decision (a predicted win by the margin)
	predictedRate float64 // the model's predicted speed-up over cuDNN
	// screen and final are every candidate's time by name: the
	// screening's median of 3, and the median of 15 of those timed
	// again (the pool's three fastest and the picks); paths, the drawn
	// candidates' paths by name (not the servers' plans).
	screen, final map[string]float64
	paths         map[string]convEvalPath
}

// errVendorRefused is a held-out convolution cuDNN refuses to run.
var errVendorRefused = errors.New("cuDNN refuses the convolution")

// convEvalTimed is one candidate: how it runs, what it is called, and
// the path and input-class alignments the models score it with.
type convEvalTimed struct {
	name string
	run  func() error
	path convEvalPath
}

// convEvalPath is a candidate's path (predictor.ConvPaths) and its input
// class's alignments of x and the filter, as the models' features take
// them.
type convEvalPath struct {
	path           string
	alignA, alignB int
}

func evalConvCmd(args []string) error {
	fs := flag.NewFlagSet("eval-conv", flag.ExitOnError)
	wpath := fs.String("weights", "", "convolution weights file (default: the embedded convolution weights of the device)")
	per := fs.Int("per", 4, "held-out convolutions per type, math and layout")
	pool := fs.Int("pool", 300, "legal configurations timed per convolution (over its paths; the ground truth's sample)")
	outDir := fs.String("out", "", "folder for eval-conv.csv and eval-conv.md")
	seed := fs.Uint64("seed", 9101, "random seed (different from the sampler's)")
	budget := fs.Duration("duration", 6*time.Minute, "stop drawing new convolutions after this long")
	inputs := fs.String("inputs", "", "evaluate the convolutions of this eval-conv.csv (e.g. another device's evaluation) instead of drawing them")
	fs.Parse(args)
	if *outDir == "" {
		return fmt.Errorf("eval-conv: -out is required")
	}
	runtime.LockOSThread() // the device's context is current on this thread
	o := sampleConvOptions{runOptions: runOptions{seed: *seed, warmup: 1000, warmupDraws: 3_000_000, repeats: 3,
		out: filepath.Join(os.TempDir(), fmt.Sprintf("eval-conv-%d.csv.zst", os.Getpid()))}}
	s, err := newConvSampleRun(o)
	if err != nil {
		return err
	}
	defer os.Remove(o.out)
	var w *predictor.Weights
	if *wpath != "" {
		w, err = weights.Load(*wpath)
	} else {
		w, err = weights.ConvFor(s.Env.DeviceKey)
	}
	if err != nil {
		return err
	}
	ch, err := serve.ConvChooserOf(w, s.Limits)
	if err != nil {
		return err
	}
	opts := s.Server.Options()
	opts.Policy, opts.ConvWeights = serve.Always, *wpath
	model := serve.NewOn(s.Kernels, opts)
	opts.ConvWeights = "none"
	heuristic := serve.NewOn(s.Kernels, opts)

	rng := rand.New(rand.NewPCG(*seed, 7))
	start := time.Now()
	var rows []convEvalRow
	if *inputs != "" {
		batches, err := readConvEvalInputs(*inputs)
		if err != nil {
			return err
		}
		bar := newProgress(os.Stderr, len(batches), *budget, "convolutions", false)
		done := 0
		for i, b := range batches {
			if time.Since(start) >= *budget {
				break
			}
			done = i + 1
			r, err := s.evalConv(b, ch, model, heuristic, *pool, rng)
			if errors.Is(err, errVendorRefused) {
				fmt.Fprintf(os.Stderr, "eval-conv: %s row %d: cuDNN refuses it on this device, left out\n", *inputs, i+2)
				continue
			}
			if err != nil {
				return err
			}
			rows = append(rows, r)
			l := b.Layers[0]
			bar.update(i+1, fmt.Sprintf("%s %s n%d c%d %dx%d k%d %dx%d", b.Type.Name, b.Layout, l.N, l.C, l.H, l.W, l.K, l.R, l.S), false)
		}
		bar.update(done, "done", true)
		if done < len(batches) {
			fmt.Fprintf(os.Stderr, "eval-conv: -duration %v reached after %d of %s's %d convolutions\n", *budget, done, *inputs, len(batches))
		}
	} else {
		if rows, err = s.drawConvEval(ch, model, heuristic, *per, *pool, *budget, rng); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	return writeConvEval(*outDir, rows, s, w, time.Since(start))
}

// drawConvEval draws per held-out convolutions of every type, math and
// layout from the sampler's distribution, in its test fold (tune.ConvFold
// 9, which no model was trained on), that cuDNN runs, and evaluates each,
// until budget has passed.
func (s *convSampleRun) drawConvEval(ch *predictor.ConvChooser, model, heuristic *serve.Server, per, pool int, budget time.Duration, rng *rand.Rand) ([]convEvalRow, error) {
	type group struct {
		t      request.ConvType
		math   int
		layout convcheck.Layout
	}
	var groups []group
	for _, t := range request.ConvTypes {
		maths := []int{request.CudnnFMAMath}
		if t.Data == request.CudnnFloat {
			maths = append(maths, request.CudnnTensorOpMath)
		}
		for _, m := range maths {
			for _, l := range []convcheck.Layout{convcheck.NCHW, convcheck.NHWC} {
				groups = append(groups, group{t, m, l})
			}
		}
	}
	start := time.Now()
	bar := newProgress(os.Stderr, len(groups)*per, budget, "convolutions", false)
	var rows []convEvalRow
	for i := 0; i < per && time.Since(start) < budget; i++ {
		for _, g := range groups {
			if time.Since(start) >= budget {
				break
			}
			var b tune.ConvBatch
			var r convEvalRow
		draw:
			for {
				b = s.dist.BatchOf(rng, g.t, g.math, g.layout, 1)
				l := b.Layers[0]
				in := predictor.ConvInput{Type: g.t.Name, TF32: g.t.Data == request.CudnnFloat && g.math != request.CudnnFMAMath,
					NHWC: g.layout == convcheck.NHWC, Flip: b.Flip, N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S, G: l.Groups,
					Pad: l.Pad, Stride: l.Stride, Dil: l.Dil}
				if tune.ConvFold(in) != 9 {
					continue
				}
				var err error
				switch r, err = s.evalConv(b, ch, model, heuristic, pool, rng); {
				case err == nil:
					break draw
				case !errors.Is(err, errVendorRefused):
					return nil, err
				}
			}
			rows = append(rows, r)
			l := b.Layers[0]
			bar.update(len(rows), fmt.Sprintf("%s %s n%d c%d %dx%d k%d %dx%d", g.t.Name, g.layout, l.N, l.C, l.H, l.W, l.K, l.R, l.S), false)
		}
	}
	bar.update(len(rows), "done", true)
	return rows, nil
}

// readConvEvalInputs reads the convolutions of an eval-conv.csv: type,
// math, layout, mode and the layer's sizes, in the file's order.
func readConvEvalInputs(file string) ([]tune.ConvBatch, error) {
	recs, err := readCSV(file)
	if err != nil {
		return nil, err
	}
	head := []string{"type", "math", "layout", "flip", "n", "c", "h", "w", "k", "r", "s", "g", "pad", "stride", "dil"}
	if len(recs) < 2 || len(recs[0]) < len(head) || !slices.Equal(recs[0][:len(head)], head) {
		return nil, fmt.Errorf("%s: not an eval-conv.csv", file)
	}
	layouts := map[string]convcheck.Layout{"nchw": convcheck.NCHW, "nhwc": convcheck.NHWC}
	var out []tune.ConvBatch
	for i, r := range recs[1:] {
		t := slices.IndexFunc(request.ConvTypes, func(t request.ConvType) bool { return t.Name == r[0] })
		layout, okL := layouts[r[2]]
		flip, errF := strconv.ParseBool(r[3])
		var v [12]int // math, then n … dil
		bad := t < 0 || !okL || errF != nil
		for j, col := range append([]int{1}, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14) {
			// every size at least 1 but the padding, which may be 0
			if v[j], err = strconv.Atoi(r[col]); err != nil || (j > 0 && v[j] < map[bool]int{true: 0, false: 1}[j == 9]) {
				bad = true
			}
		}
		if bad {
			return nil, fmt.Errorf("%s: row %d: %q", file, i+2, strings.Join(r[:len(head)], ","))
		}
		l := suites.Conv{N: v[1], C: v[2], H: v[3], W: v[4], K: v[5], R: v[6], S: v[7], Groups: v[8], Pad: v[9], Stride: v[10], Dil: v[11]}
		out = append(out, tune.ConvBatch{Type: request.ConvTypes[t], Math: v[0], Layout: layout, Flip: flip, Layers: []suites.Conv{l}})
	}
	return out, nil
}

// evalConv times, on one convolution, a pool of legal configurations of
// each path the server may take, cuDNN, and each chooser's pick.
func (s *convSampleRun) evalConv(b tune.ConvBatch, ch *predictor.ConvChooser, model, heuristic *serve.Server, pool int, rng *rand.Rand) (convEvalRow, error) {
	r := convEvalRow{b: b}
	tensors := s.arenas[b.Type.Data]
	var scalars [2]float64
	scalars[0] = 1
	req := b.Case(0).RequestAt(uintptr(tensors[0]), uintptr(tensors[1]), uintptr(tensors[2]), &scalars, s.Timer.Stream)
	shape, reason := req.Shape()
	if reason != request.Served {
		return r, fmt.Errorf("%+v: %v", b.Layers[0], reason)
	}
	var err error
	if r.v7US, r.findUS, err = s.vendor(req); err != nil {
		if s.Timer.Stream.Synchronize() == nil {
			return r, errVendorRefused // cuDNN's status, not a fault: draw another
		}
		return r, err
	}
	in, _ := predictor.ConvInputOf(shape)
	var cands []convEvalTimed
	var choice *predictor.ConvChoice
	if shape.G > 1 {
		t, err := s.Kernels.GroupedTarget(req, shape)
		if err != nil {
			return r, err
		}
		all := space.GroupedConfigs(space.GroupedClass(shape, t.Class.AlignA))
		direct := convEvalPath{predictor.ConvPaths[2], t.Class.AlignA, 0}
		for _, c := range all {
			cands = append(cands, convEvalTimed{c.String(), func() error { return s.Kernels.Grouped(req, shape, c) }, direct})
		}
		choice = ch.ChooseDirect(in, t.Class.AlignA, all)
		for _, rk := range choice.Top {
			cands = append(cands, convEvalTimed{rk.Direct.String(), func() error { return s.Kernels.Grouped(req, shape, rk.Direct) }, direct})
		}
	} else {
		type route struct {
			name   string
			target kernels.Target
			run    func(*request.Conv, request.ConvShape, ptx.GemmConfig) error
		}
		t, err := s.Kernels.ConvTarget(req, shape)
		if err != nil {
			return r, err
		}
		routes := []route{{predictor.ConvPaths[0], t, s.Kernels.Conv}}
		if kernels.Transposable(shape) {
			if ct, err := s.Kernels.ConvNHWCTarget(req, shape); err == nil {
				routes = append(routes, route{predictor.ConvPaths[1], ct, s.Kernels.ConvNHWC})
			}
		}
		var rs []predictor.ConvRoute
		for _, rt := range routes {
			rs = append(rs, predictor.ConvRoute{Path: rt.name, Class: rt.target.Class,
				Seeds: []ptx.GemmConfig{space.ConvDefault(rt.target.Class, shape, s.Limits)}})
		}
		choice = ch.Choose(in, rs)
		m, n, k := shape.Pixels(), shape.K, shape.ReductionCRS()
		suits := func(c ptx.GemmConfig) bool { return space.Suits(c, m, n, k) }
		for i, rt := range routes {
			seen := map[ptx.GemmConfig]bool{}
			var cfgs []ptx.GemmConfig
			want := pool / len(routes)
			samplers := []*space.Sampler{s.samplerFor(rt.target.Class, s.samplers, space.NewSampler)}
			if wg := s.samplerFor(rt.target.Class, s.wgmma, space.NewWarpgroupSampler); wg != nil {
				samplers = append(samplers, wg) // a quarter from the wgmma space, as the seed pools
			}
			for tries := 0; len(cfgs) < want && tries < 4*want; tries++ {
				sm := samplers[0]
				if len(samplers) > 1 && tries%4 == 3 {
					sm = samplers[1]
				}
				if c, ok := sm.Draw(rng, suits, 20000); ok && !seen[c] {
					seen[c] = true
					cfgs = append(cfgs, c)
				}
			}
			for _, rk := range choice.Top {
				if rk.Route == i {
					cfgs = append(cfgs, space.ConvStaged(rk.Config, rt.target.Class, shape, s.Limits))
				}
			}
			loaded := devsession.Load(s.Session, cfgs, func(c ptx.GemmConfig) error { _, err := s.Kernels.Kernel(rt.target, c); return err })
			prefix := map[string]string{predictor.ConvPaths[1]: "nhwc copies "}[rt.name]
			for _, c := range loaded {
				cands = append(cands, convEvalTimed{prefix + c.String(), func() error { return rt.run(req, shape, c) },
					convEvalPath{rt.name, rt.target.Class.AlignA, rt.target.Class.AlignB}})
			}
		}
	}
	if len(choice.Top) > 0 && !math.IsNaN(choice.VendorTFLOPs) {
		r.predictServe, r.predictedRate = choice.Serve, choice.OursTFLOPs/choice.VendorTFLOPs
	}
	// The choosers' picks as the servers run them (their plans name them).
	served := func(srv *serve.Server) (string, func() error) {
		plan, why := srv.ConvPlan(req)
		if why != request.Served {
			return plan, nil
		}
		return plan, func() error {
			if r, _ := srv.Conv(req); r != request.Served {
				return fmt.Errorf("not served: %v", r)
			}
			return nil
		}
	}
	times := map[string]float64{}
	for _, c := range cands {
		if _, done := times[c.name]; done {
			continue
		}
		us, err := s.Median(c.run, 3)
		if err != nil {
			if s.Timer.Stream.Synchronize() != nil {
				return r, fmt.Errorf("%s on %+v: %w", c.name, b.Layers[0], err)
			}
			continue // a launch the kernel's resources refuse: not a candidate
		}
		times[c.name] = us
	}
	r.pool = len(times)
	// The screening's minimum of hundreds of 3-run medians is biased low
	// (the winner's curse): the pool's three fastest and every pick are
	// timed again, 15 runs each, and S is computed from those times.
	type screened struct {
		name string
		us   float64
	}
	var order []screened
	for n, us := range times {
		order = append(order, screened{n, us})
	}
	sort.Slice(order, func(i, j int) bool { return order[i].us < order[j].us })
	runOf := map[string]func() error{}
	for _, c := range cands {
		runOf[c.name] = c.run
	}
	final := map[string]float64{}
	retime := func(name string, run func() error) (float64, error) {
		if us, ok := final[name]; ok {
			return us, nil
		}
		us, err := s.Median(run, 15)
		if err != nil {
			return math.Inf(1), nil // a pick that does not run
		}
		final[name] = us
		return us, nil
	}
	for _, o := range order[:min(3, len(order))] {
		if _, err := retime(o.name, runOf[o.name]); err != nil {
			return r, err
		}
	}
	var picks [len(convChoosers)]string
	var runs [len(convChoosers)]func() error
	picks[0], runs[0] = served(model)
	picks[2], runs[2] = served(heuristic)
	r.us[1] = math.Inf(1)
	for _, rk := range choice.Top[:min(5, len(choice.Top))] { // the fastest (re-timed) of the model's five
		name := routeName(s, req, shape, rk)
		if run, ok := runOf[name]; ok {
			if us, _ := retime(name, run); us < r.us[1] {
				r.us[1], picks[1] = us, name
			}
		}
	}
	for _, i := range []int{0, 2} {
		r.us[i] = math.Inf(1)
		if runs[i] != nil {
			r.us[i], _ = retime("served "+picks[i], runs[i])
		}
	}
	// The check's candidates: every choice the chooser keeps (its five
	// best-predicted, each route's best where those leave it out; as the
	// server stages them) and the heuristic's served pick.
	r.us[3], picks[3] = r.us[2], "served "+picks[2]
	if r.us[0] < r.us[3] {
		r.us[3], picks[3] = r.us[0], "served "+picks[0]
	}
	if r.us[1] < r.us[3] {
		r.us[3], picks[3] = r.us[1], picks[1]
	}
	routes := map[int]bool{}
	for _, rk := range choice.Top {
		if shape.G > 1 || routes[rk.Route] {
			continue
		}
		routes[rk.Route] = true
		name := routeName(s, req, shape, rk)
		if run, ok := runOf[name]; ok {
			if us, _ := retime(name, run); us < r.us[3] {
				r.us[3], picks[3] = us, name
			}
		}
	}
	r.pick = picks
	r.screen, r.final = times, final
	r.paths = map[string]convEvalPath{}
	for _, c := range cands {
		r.paths[c.name] = c.path
	}
	r.bestUS = math.Inf(1)
	for n, us := range final {
		if us < r.bestUS {
			r.bestUS, r.best = us, strings.TrimPrefix(n, "served ")
		}
	}
	return r, nil
}

// routeName is the name eval-conv times a ranked choice under: a direct
// configuration's, or an implicit GEMM's as the server stages it, on its
// route.
func routeName(s *convSampleRun, req *request.Conv, shape request.ConvShape, rk predictor.ConvRanked) string {
	if shape.G > 1 {
		return rk.Direct.String()
	}
	t, _ := s.Kernels.ConvTarget(req, shape)
	cls := t.Class
	if rk.Route == 1 {
		ct, _ := s.Kernels.ConvNHWCTarget(req, shape)
		cls = ct.Class
	}
	return map[int]string{1: "nhwc copies "}[rk.Route] + space.ConvStaged(rk.Config, cls, shape, s.Limits).String()
}

func writeConvEval(dir string, rows []convEvalRow, s *convSampleRun, w *predictor.Weights, took time.Duration) error {
	var csv strings.Builder
	csv.WriteString("type,math,layout,flip,n,c,h,w,k,r,s,g,pad,stride,dil,pool,cudnn_v7_us,cudnn_find_us,best_us,best_config,predicted_speedup,predicted_serve")
	for _, c := range convChoosers {
		fmt.Fprintf(&csv, ",%s_us,%s_s,%s_config", c, c, c)
	}
	csv.WriteString("\n")
	subopt := map[string][]float64{}
	perGroup := map[string][2][]float64{} // the model's and the heuristic's S per type and layout
	var groups []string
	for _, r := range rows {
		l := r.b.Layers[0]
		fmt.Fprintf(&csv, "%s,%d,%s,%v,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.3f,%.3f,%.3f,\"%s\",%.3f,%v", r.b.Type.Name, r.b.Math, r.b.Layout, r.b.Flip,
			l.N, l.C, l.H, l.W, l.K, l.R, l.S, l.Groups, l.Pad, l.Stride, l.Dil, r.pool, r.v7US, r.findUS, r.bestUS, r.best, r.predictedRate, r.predictServe)
		g := convGroup(r.b)
		if _, ok := perGroup[g]; !ok {
			groups = append(groups, g)
		}
		pg := perGroup[g]
		for i, c := range convChoosers {
			sv := (r.us[i] - r.bestUS) / r.bestUS
			subopt[c] = append(subopt[c], sv)
			switch i {
			case 0:
				pg[0] = append(pg[0], sv)
			case 2:
				pg[1] = append(pg[1], sv)
			}
			fmt.Fprintf(&csv, ",%.3f,%.4f,\"%s\"", r.us[i], sv, r.pick[i])
		}
		perGroup[g] = pg
		csv.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "eval-conv.csv"), []byte(csv.String()), 0o644); err != nil {
		return err
	}
	if err := writeConvCandidates(filepath.Join(dir, "eval-conv-candidates.csv.zst"), rows); err != nil {
		return err
	}
	var md strings.Builder
	e := s.Env
	fmt.Fprintf(&md, "Suboptimality S = (t_chosen − t_best) / t_best on %d held-out convolutions (drawn from `tune.DefaultConvDistribution` in the test fold, `tune.ConvFold` 9, which no model was trained on; every served type and math, NCHW and NHWC), "+
		"t_best the fastest of up to %d timed candidates per convolution: legal configurations drawn per path (the implicit GEMM on x as it lies, on NHWC copies where the server may take them; a quarter from the wgmma space), or every direct-kernel configuration of a grouped one, and the choosers' picks, screened with medians of 3, its three fastest and the picks timed again with medians of 15 (S uses those). "+
		"model: the server's run of the convolution model's choice (`ISAAC_POLICY=always` with the model: paths and configurations searched from the seed pools and the heuristic's, staged by the copy engine as the heuristic's are); "+
		"model-top5: the fastest of the model's five best-predicted; heuristic: the server without a model (`ISAAC_CONV_WEIGHTS=none`); "+
		"checked: the fastest of the candidates the dispatch's check times (the model's five best-predicted, its best on each other path, the heuristic's). %s, %s, cuDNN %s, %s, commit `%s`, %s.\n\n",
		len(rows), maxConvPool(rows), e.Device, e.Driver, e.CUDNN, time.Now().UTC().Format(time.RFC3339), commitOr(), took.Round(time.Second))
	writeSuboptTable(&md, convChoosers[:], subopt)
	fmt.Fprintf(&md, "\nPer type, math and layout:\n\n| type | layout | convolutions | model median S | model p90 S | heuristic median S | heuristic p90 S |\n|---|---|--:|--:|--:|--:|--:|\n")
	for _, g := range groups {
		pg := perGroup[g]
		fmt.Fprintf(&md, "| %s | %d | %.1f%% | %.1f%% | %.1f%% | %.1f%% |\n", g, len(pg[0]), 100*quantile(pg[0], 0.5), 100*quantile(pg[0], 0.9),
			100*quantile(pg[1], 0.5), 100*quantile(pg[1], 0.9))
	}
	fmt.Fprintf(&md, "\nWeights: %s (trained %s, data set sha256 %s…, %d samples, commit %s).\n", w.Device.Name, w.Trained, w.Dataset[:min(12, len(w.Dataset))], w.Samples, w.Commit)
	return os.WriteFile(filepath.Join(dir, "eval-conv.md"), []byte(md.String()), 0o644)
}

// writeConvCandidates writes every timed candidate of every held-out
// convolution to path, zstd-compressed CSV: the convolution (its row in
// eval-conv.csv and its descriptors), the candidate as eval-conv names it
// (a configuration, "nhwc copies " and one, a direct kernel's, or "served "
// and a server's plan), its path and input-class alignments (empty for a
// server's plan), its screening time (median of 3) and, for those timed
// again, its final time (median of 15; empty otherwise). A model trained
// later can be scored on them without a GPU (isaac-tune score-conv).
func writeConvCandidates(path string, rows []convEvalRow) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))
	if err != nil {
		f.Close()
		return err
	}
	w := bufio.NewWriter(enc)
	w.WriteString("row,type,math,layout,flip,n,c,h,w,k,r,s,g,pad,stride,dil,candidate,path,align_a,align_b,screen_us,final_us\n")
	for i, r := range rows {
		l := r.b.Layers[0]
		conv := fmt.Sprintf("%d,%s,%d,%s,%v,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d,%d", i, r.b.Type.Name, r.b.Math, r.b.Layout, r.b.Flip,
			l.N, l.C, l.H, l.W, l.K, l.R, l.S, l.Groups, l.Pad, l.Stride, l.Dil)
		names := make([]string, 0, len(r.screen)+len(r.final))
		for n := range r.screen {
			names = append(names, n)
		}
		for n := range r.final {
			if _, ok := r.screen[n]; !ok {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		for _, n := range names {
			screen, final := "", ""
			if us, ok := r.screen[n]; ok {
				screen = fmt.Sprintf("%.3f", us)
			}
			if us, ok := r.final[n]; ok {
				final = fmt.Sprintf("%.3f", us)
			}
			path := ",,"
			if p, ok := r.paths[n]; ok {
				path = fmt.Sprintf("%s,%d,%d", p.path, p.alignA, p.alignB)
			}
			fmt.Fprintf(w, "%s,\"%s\",%s,%s,%s\n", conv, n, path, screen, final)
		}
	}
	if err := w.Flush(); err != nil {
		enc.Close()
		f.Close()
		return err
	}
	if err := enc.Close(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// convGroup names a convolution's type, math and layout ("float tf32 | nchw").
func convGroup(b tune.ConvBatch) string {
	t := b.Type.Name
	if b.Type.Data == request.CudnnFloat {
		t += map[bool]string{true: " fma", false: " tf32"}[b.Math == request.CudnnFMAMath]
	}
	return t + " | " + b.Layout.String()
}

func maxConvPool(rows []convEvalRow) int {
	m := 0
	for _, r := range rows {
		m = max(m, r.pool)
	}
	return m
}
