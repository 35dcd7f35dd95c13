package main

import (
	"encoding/csv"
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

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

// evalRow is one held-out input: the best of the timed pool and what each
// chooser picked (evalChoosers' order).
type evalRow struct {
	in               predictor.Input
	vendorUS, bestUS float64
	best             ptx.GemmConfig
	pool             int
	choice           []ptx.GemmConfig
	us               []float64
}

// evalModel is one weights file's configuration model under evaluation.
type evalModel struct {
	label string // "model", or the file's name when several are compared
	w     *predictor.Weights
	m     *predictor.Model
}

// evalChoosers names the choosers of an evaluation of models: per model,
// its best-predicted configuration and the fastest of its top five; then
// the heuristic and the sample's most occupying configuration.
func evalChoosers(models []evalModel) []string {
	var names []string
	for _, m := range models {
		names = append(names, m.label, m.label+"-top5")
	}
	return append(names, "heuristic", "max-occupancy")
}

// evalWeights loads the weights files of eval's -weights (a comma-separated
// list; none: the device's own), each labelled by its file name when there
// are several.
func evalWeights(list, deviceKey string) ([]evalModel, error) {
	paths := strings.Split(list, ",")
	if list == "" {
		paths = []string{""}
	}
	var out []evalModel
	for _, p := range paths {
		var w *predictor.Weights
		var err error
		if p == "" {
			w, err = weights.For(deviceKey)
		} else {
			w, err = weights.Load(p)
		}
		if err != nil {
			return nil, err
		}
		m, ok := w.ConfigModel()
		if !ok {
			return nil, fmt.Errorf("eval: %s: no configuration model of a feature schema this build knows", p)
		}
		label := "model"
		if len(paths) > 1 {
			label = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(p), ".zst"), ".isw")
		}
		out = append(out, evalModel{label: label, w: w, m: m})
	}
	return out, nil
}

// topK is how many of the model's best-predicted configurations the
// "model-top5" chooser times (the runtime keeps as many).
const topK = 5

func evalCmd(args []string) error {
	fs := flag.NewFlagSet("eval", flag.ExitOnError)
	wpath := fs.String("weights", "", "weights files, comma-separated, compared on the same inputs and timings (default: the embedded weights of the device)")
	data := fs.String("data", "weights/data/h100-gemm-*.csv.zst", "training data sets (globs, comma-separated): their inputs are never evaluated")
	per := fs.Int("per", 2, "inputs per type and layout")
	pool := fs.Int("pool", 300, "legal configurations timed per input (the ground truth's sample)")
	modelPool := fs.Int("model-pool", 3000, "legal configurations the model ranks per input (the timed pool among them)")
	outDir := fs.String("out", "", "folder for eval.csv and eval.md")
	seed := fs.Uint64("seed", 9001, "random seed (different from the sampler's)")
	inputs := fs.String("inputs", "", "evaluate the inputs of this eval.csv (e.g. another device's evaluation) instead of drawing them")
	fs.Parse(args)
	if *outDir == "" {
		return fmt.Errorf("eval: -out is required")
	}
	runtime.LockOSThread()
	trained := map[predictor.Input]bool{}
	var hashes []string
	for _, glob := range strings.Split(*data, ",") {
		samples, _, h, err := loadData(glob, "", "", "")
		if err != nil {
			return err
		}
		hashes = append(hashes, h[:min(12, len(h))])
		for _, s := range samples {
			in := tune.SampleInput(s)
			in.AlignA, in.AlignB, in.AlignC = 0, 0, 0
			trained[in] = true
		}
	}
	hash := strings.Join(hashes, "…, ")
	s, err := newSampleRun(sampleOptions{runOptions: runOptions{seed: *seed, warmup: 1000, warmupDraws: 3_000_000, repeats: 3}})
	if err != nil {
		return err
	}
	models, err := evalWeights(*wpath, s.Env.DeviceKey)
	if err != nil {
		return err
	}
	batches, err := evalInputs(*inputs, s, trained, *per, *seed)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*outDir, 0o755); err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(*seed, 5))
	var rows []evalRow
	start := time.Now()
	bar := newProgress(os.Stderr, len(batches), 0, "inputs", false)
	for _, b := range batches {
		r, err := s.evalInput(b, models, *pool, *modelPool, rng)
		if err != nil {
			return err
		}
		rows = append(rows, r)
		// Written after every input: a run cut short keeps what it measured.
		if err := writeEval(*outDir, rows, s, models, hash, time.Since(start)); err != nil {
			return err
		}
		bar.update(len(rows), fmt.Sprintf("%s %s%s %v", b.Type.Name, opString(b.TransA), opString(b.TransB), b.Shapes[0]), false)
	}
	bar.update(len(rows), "done", true)
	return nil
}

// evalInputs are the held-out inputs evaluated: those of an earlier
// evaluation's eval.csv (another device's, to compare on the same inputs),
// else per inputs of every type and layout drawn from the sampler's
// distribution, none of them in the training data.
func evalInputs(file string, s *sampleRun, trained map[predictor.Input]bool, per int, seed uint64) ([]tune.Batch, error) {
	if file != "" {
		return readEvalInputs(file)
	}
	rng := rand.New(rand.NewPCG(seed, 5))
	ops := []request.Op{request.OpN, request.OpT}
	var out []tune.Batch
	for _, t := range gemmcheck.Types {
		for _, ta := range ops {
			for _, tb := range ops {
				for i := 0; i < per; i++ {
					for {
						b := s.dist.BatchOf(rng, t, ta, tb, 1)
						sh := b.Shapes[0]
						key := predictor.Input{Type: t.Name, TransA: ta.Transposed(), TransB: tb.Transposed(), M: sh[0], N: sh[1], K: sh[2]}
						if !trained[key] {
							out = append(out, b)
							break
						}
					}
				}
			}
		}
	}
	return out, nil
}

// readEvalInputs reads the inputs of an eval.csv: type, layout, m, n, k
// and the alignment of A's leading dimension in elements.
func readEvalInputs(file string) ([]tune.Batch, error) {
	recs, err := readCSV(file)
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 || len(recs[0]) < 7 || recs[0][0] != "type" || recs[0][6] != "align_a" {
		return nil, fmt.Errorf("%s: not an eval.csv", file)
	}
	op := map[string]request.Op{"N": request.OpN, "T": request.OpT}
	var out []tune.Batch
	for i, r := range recs[1:] {
		t := slices.IndexFunc(gemmcheck.Types, func(t gemmcheck.Type) bool { return t.Name == r[0] })
		ta, okA := op[r[1]]
		tb, okB := op[r[2]]
		var dims [4]int
		for j := range dims {
			if dims[j], err = strconv.Atoi(r[3+j]); err != nil || dims[j] < 1 {
				return nil, fmt.Errorf("%s: row %d: %q", file, i+2, r[3+j])
			}
		}
		if t < 0 || !okA || !okB {
			return nil, fmt.Errorf("%s: row %d: type %q, layout %s%s", file, i+2, r[0], r[1], r[2])
		}
		out = append(out, tune.Batch{Type: gemmcheck.Types[t], TransA: ta, TransB: tb, Align: dims[3], Shapes: [][3]int{{dims[0], dims[1], dims[2]}}})
	}
	return out, nil
}

// readCSV reads every record of the CSV file at file.
func readCSV(file string) ([][]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return recs, nil
}

func opString(o request.Op) string { return string(opByte(o)) }

// evalInput times a pool of legal configurations on one input and the
// choosers' picks (evalChoosers' order).
func (s *sampleRun) evalInput(b tune.Batch, models []evalModel, pool, modelPool int, rng *rand.Rand) (evalRow, error) {
	pair := s.arenas[b.Type.AB]
	c := b.Case(0)
	g := c.RequestAt(uintptr(pair[0]), uintptr(pair[1]), uintptr(s.c), 0, uintptr(s.Timer.Stream))
	cls, err := space.Class(g)
	if err != nil {
		return evalRow{}, err
	}
	m, n, k := b.Shapes[0][0], b.Shapes[0][1], b.Shapes[0][2]
	in := predictor.Input{Type: b.Type.Name, TransA: b.TransA.Transposed(), TransB: b.TransB.Transposed(), M: m, N: n, K: k,
		AlignA: cls.AlignA, AlignB: cls.AlignB, AlignC: cls.AlignC}
	sm := s.samplerFor(cls, s.samplers, space.NewSampler)
	seen := map[ptx.GemmConfig]bool{}
	var ranked []ptx.GemmConfig
	for tries := 0; len(ranked) < modelPool && tries < 4*modelPool; tries++ {
		cfg, ok := sm.Draw(rng, func(c ptx.GemmConfig) bool { return space.Suits(c, m, n, k) }, 20000)
		if !ok {
			break
		}
		if !seen[cfg] {
			seen[cfg] = true
			ranked = append(ranked, cfg)
		}
	}
	if len(ranked) == 0 {
		return evalRow{}, fmt.Errorf("no legal configuration suits %v", b.Shapes[0])
	}
	// Each model ranks the random sample and the heuristic's candidates,
	// then searches their neighbourhoods (predictor.Search).
	suited := space.Suited(space.HeuristicCandidates(cls, m, n, k, s.Limits), m, n, k)
	seeds := append(append([]ptx.GemmConfig{}, ranked...), suited...)
	nm := len(models)
	r := evalRow{in: in, choice: make([]ptx.GemmConfig, 2*nm+2), us: make([]float64, 2*nm+2)}
	tops := make([][]ptx.GemmConfig, nm)
	for i, mod := range models {
		order := mod.m.Search(in, cls, s.Limits, seeds, 4, 8)
		r.choice[2*i] = order[0].Config
		for _, o := range order[:min(topK, len(order))] {
			tops[i] = append(tops[i], o.Config)
		}
	}
	r.choice[2*nm] = space.Default(cls, m, n, k, s.Limits)
	timed := ranked[:min(pool, len(ranked))]
	occ := -1
	for _, cfg := range timed {
		if o := ptx.Occupancy(cfg, cls, s.Limits); o > occ {
			occ, r.choice[2*nm+1] = o, cfg
		}
	}
	all := append(append([]ptx.GemmConfig{}, timed...), r.choice...)
	for _, top := range tops {
		all = append(all, top...)
	}
	loaded := s.Compile(g, all)
	r.vendorUS, err = s.Median(func() error { return s.Vendor.Gemm(g) }, 5)
	if err != nil {
		return r, err
	}
	times := map[ptx.GemmConfig]float64{}
	r.bestUS = math.Inf(1)
	for _, cfg := range loaded {
		if _, done := times[cfg]; done {
			continue
		}
		cc := cfg
		us, err := s.Median(func() error { return s.Kernels.Gemm(g, cc) }, 3)
		if err != nil {
			continue // a launch the resources refuse: not a candidate
		}
		times[cfg] = us
		if us < r.bestUS {
			r.bestUS, r.best = us, cfg
		}
	}
	r.pool = len(times)
	for i, top := range tops {
		pick := top[0]
		for _, c := range top[1:] {
			if t, ok := times[c]; ok && (times[pick] == 0 || t < times[pick]) {
				pick = c
			}
		}
		r.choice[2*i+1] = pick
	}
	// The screening's minimum of hundreds of 3-run medians is biased low
	// (the winner's curse, largest for 4 µs kernels): the pool's three
	// fastest and every chooser's pick are timed again, 15 runs each, and
	// S is computed from those times.
	type screen struct {
		c  ptx.GemmConfig
		us float64
	}
	var screened []screen
	for c, us := range times {
		screened = append(screened, screen{c, us})
	}
	sort.Slice(screened, func(i, j int) bool { return screened[i].us < screened[j].us })
	final := map[ptx.GemmConfig]float64{}
	finalists := append([]ptx.GemmConfig{}, r.choice...)
	for _, sc := range screened[:min(3, len(screened))] {
		finalists = append(finalists, sc.c)
	}
	for _, c := range finalists {
		c := c
		if _, done := final[c]; done {
			continue
		}
		if _, ok := times[c]; !ok {
			continue
		}
		us, err := s.Median(func() error { return s.Kernels.Gemm(g, c) }, 15)
		if err != nil {
			return r, err
		}
		final[c] = us
	}
	r.bestUS = math.Inf(1)
	for c, us := range final {
		if us < r.bestUS {
			r.bestUS, r.best = us, c
		}
	}
	for i, cfg := range r.choice {
		us, ok := final[cfg]
		if !ok {
			us = math.Inf(1) // the chooser picked a kernel that does not load or run
		}
		r.us[i] = us
	}
	return r, nil
}

func quantile(v []float64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	return s[int(math.Min(float64(len(s)-1), math.Floor(q*float64(len(s)))))]
}

func writeEval(dir string, rows []evalRow, s *sampleRun, models []evalModel, hash string, took time.Duration) error {
	choosers := evalChoosers(models)
	var csv strings.Builder
	csv.WriteString("type,ta,tb,m,n,k,align_a,align_b,align_c,pool,vendor_us,best_us,best_config")
	for _, c := range choosers {
		fmt.Fprintf(&csv, ",%s_us,%s_s,%s_config", c, c, c)
	}
	csv.WriteString("\n")
	subopt := map[string][]float64{}
	perType := map[string][]float64{}
	for _, r := range rows {
		b := map[bool]string{false: "N", true: "T"}
		fmt.Fprintf(&csv, "%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%.3f,%.3f,\"%s\"", r.in.Type, b[r.in.TransA], b[r.in.TransB], r.in.M, r.in.N, r.in.K,
			r.in.AlignA, r.in.AlignB, r.in.AlignC, r.pool, r.vendorUS, r.bestUS, r.best)
		for i, c := range choosers {
			sv := (r.us[i] - r.bestUS) / r.bestUS
			subopt[c] = append(subopt[c], sv)
			if i%2 == 0 && i < 2*len(models) {
				perType[r.in.Type+"\x00"+c] = append(perType[r.in.Type+"\x00"+c], sv)
			}
			fmt.Fprintf(&csv, ",%.3f,%.4f,\"%s\"", r.us[i], sv, r.choice[i])
		}
		csv.WriteString("\n")
	}
	if err := os.WriteFile(filepath.Join(dir, "eval.csv"), []byte(csv.String()), 0o644); err != nil {
		return err
	}
	var md strings.Builder
	e := s.Env
	commit := commitOr()
	fmt.Fprintf(&md, "Suboptimality S = (t_chosen − t_best) / t_best on %d held-out inputs (none in the training data; every type, four layouts), "+
		"t_best the fastest of up to %d legal configurations per input (a categorical sample, and the choosers' picks) screened with medians of 3, its three fastest and the picks timed again with medians of 15 (S uses those). "+
		"model: the model's best-predicted configuration after ranking 3,000 sampled configurations and the heuristic's candidates and searching their neighbourhoods (with several weights files, each file's name); "+
		"model-top5: the fastest measured of the model's five best-predicted; heuristic: space.Default; max-occupancy: the sample's configuration with the most resident warps. %s, %s, cuBLAS %s, %s, commit `%s`, %s.\n\n",
		len(rows), maxPool(rows), e.Device, e.Driver, e.CUBLAS, time.Now().UTC().Format(time.RFC3339), commit, took.Round(time.Second))
	writeSuboptTable(&md, choosers, subopt)
	fmt.Fprintf(&md, "\nEach model's S per type:\n\n| type | model | inputs | median S | p90 S |\n|---|---|--:|--:|--:|\n")
	var types []string
	for t := range perType {
		types = append(types, t)
	}
	sort.Strings(types)
	for _, t := range types {
		typ, label, _ := strings.Cut(t, "\x00")
		fmt.Fprintf(&md, "| %s | %s | %d | %.1f%% | %.1f%% |\n", typ, label, len(perType[t]), 100*quantile(perType[t], 0.5), 100*quantile(perType[t], 0.9))
	}
	md.WriteString("\n")
	for _, m := range models {
		w := m.w
		fmt.Fprintf(&md, "Weights %s: measured on %s (trained %s, data set sha256 %s…, %d samples)%s.\n", m.label, w.Device.Name, w.Trained,
			w.Dataset[:min(12, len(w.Dataset))], w.Samples, commentOf(w))
	}
	fmt.Fprintf(&md, "\nTraining data sets' hashes %s… (their inputs are never evaluated).\n", hash)
	return os.WriteFile(filepath.Join(dir, "eval.md"), []byte(md.String()), 0o644)
}

// commentOf is the weights' comment (how they were made), parenthesised.
func commentOf(w *predictor.Weights) string {
	if w.Comment == "" {
		return ""
	}
	return " (" + w.Comment + ")"
}

func maxPool(rows []evalRow) int {
	m := 0
	for _, r := range rows {
		m = max(m, r.pool)
	}
	return m
}

// writeSuboptTable writes the choosers' suboptimality table: median, p90,
// mean (each S capped at 100) and how often S is 0.
func writeSuboptTable(md *strings.Builder, names []string, subopt map[string][]float64) {
	fmt.Fprintf(md, "| chooser | median S | p90 S | mean S | S = 0 (picked the best) |\n|---|--:|--:|--:|--:|\n")
	for _, c := range names {
		v := subopt[c]
		zero, mean := 0, 0.0
		for _, x := range v {
			if x <= 0 {
				zero++
			}
			mean += math.Min(x, 100) / float64(len(v))
		}
		fmt.Fprintf(md, "| %s | %.1f%% | %.1f%% | %.1f%% | %d of %d |\n", c, 100*quantile(v, 0.5), 100*quantile(v, 0.9), 100*mean, zero, len(v))
	}
}
