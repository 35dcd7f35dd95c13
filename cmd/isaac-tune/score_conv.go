package main

import (
	"encoding/csv"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/weights"
	"github.com/klauspost/compress/zstd"
)

// convCandidate is one timed candidate of eval-conv's candidates file: its
// name, its path and input-class alignments ("" for a server's plan, which
// no model scores) and its times (NaN where absent).
type convCandidate struct {
	name           string
	path           string
	alignA, alignB int
	screen, final  float64
}

// us is the candidate's time: the median of 15 where it was timed again,
// else the screening's median of 3.
func (c convCandidate) us() float64 {
	if !math.IsNaN(c.final) {
		return c.final
	}
	return c.screen
}

// convCandidates are one held-out convolution's candidates: its row in
// eval-conv.csv, the models' view of it (Path unset) and what was timed.
type convCandidates struct {
	row   int
	in    predictor.ConvInput
	cands []convCandidate
}

// readConvCandidates reads eval-conv's candidates file
// (writeConvCandidates), the convolutions in the order of their rows.
func readConvCandidates(path string) ([]convCandidates, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	dec, err := zstd.NewReader(f)
	if err != nil {
		return nil, err
	}
	defer dec.Close()
	r := csv.NewReader(dec)
	head, err := r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	for _, h := range []string{"row", "type", "math", "layout", "flip", "n", "c", "h", "w", "k", "r", "s", "g", "pad", "stride", "dil", "candidate", "path", "align_a", "align_b", "screen_us", "final_us"} {
		if _, ok := col[h]; !ok {
			return nil, fmt.Errorf("%s: no column %q", path, h)
		}
	}
	var out []convCandidates
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", path, line, err)
		}
		ints := map[string]int{}
		for _, h := range []string{"row", "math", "n", "c", "h", "w", "k", "r", "s", "g", "pad", "stride", "dil"} {
			if ints[h], err = strconv.Atoi(rec[col[h]]); err != nil {
				return nil, fmt.Errorf("%s:%d: %s: %w", path, line, h, err)
			}
		}
		c := convCandidate{name: rec[col["candidate"]], path: rec[col["path"]], screen: math.NaN(), final: math.NaN()}
		for _, v := range []struct {
			h   string
			dst *float64
		}{{"screen_us", &c.screen}, {"final_us", &c.final}} {
			if s := rec[col[v.h]]; s != "" {
				if *v.dst, err = strconv.ParseFloat(s, 64); err != nil {
					return nil, fmt.Errorf("%s:%d: %s: %w", path, line, v.h, err)
				}
			}
		}
		if c.path != "" {
			if c.alignA, err = strconv.Atoi(rec[col["align_a"]]); err == nil {
				c.alignB, err = strconv.Atoi(rec[col["align_b"]])
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: alignments: %w", path, line, err)
			}
		}
		if len(out) == 0 || out[len(out)-1].row != ints["row"] {
			t := rec[col["type"]]
			out = append(out, convCandidates{row: ints["row"], in: predictor.ConvInput{
				Type: t, TF32: t == "float" && ints["math"] != request.CudnnFMAMath,
				NHWC: rec[col["layout"]] == "nhwc", Flip: rec[col["flip"]] == "true",
				N: ints["n"], C: ints["c"], H: ints["h"], W: ints["w"], K: ints["k"], R: ints["r"], S: ints["s"], G: ints["g"],
				Pad: ints["pad"], Stride: ints["stride"], Dil: ints["dil"],
			}})
		}
		out[len(out)-1].cands = append(out[len(out)-1].cands, c)
	}
}

// convScored is one convolution's result: the model's best-scored
// candidate among those it scores, its time and the fastest candidate's.
type convScored struct {
	row            int
	in             predictor.ConvInput
	pick, best     string
	pickUS, bestUS float64
}

// S is the pick's suboptimality, (t_pick − t_best) / t_best.
func (s convScored) S() float64 { return (s.pickUS - s.bestUS) / s.bestUS }

// scoreConvCandidates has the convolution configuration model m rank each
// convolution's scored candidates (an implicit GEMM's as its cp.async twin,
// as the chooser scores it; a direct kernel's) and reports its pick beside
// the fastest of every candidate timed.
func scoreConvCandidates(m *predictor.Model, convs []convCandidates) ([]convScored, error) {
	out := make([]convScored, 0, len(convs))
	for _, cv := range convs {
		r := convScored{row: cv.row, in: cv.in, pickUS: math.NaN(), bestUS: math.Inf(1)}
		best := math.Inf(-1)
		for _, c := range cv.cands {
			if c.us() < r.bestUS {
				r.bestUS, r.best = c.us(), c.name
			}
			if c.path == "" {
				continue
			}
			in := cv.in
			in.Path, in.AlignA, in.AlignB = c.path, c.alignA, c.alignB
			var score float64
			if c.path == predictor.ConvPaths[2] {
				g, err := ptx.ParseGroupedConfig(c.name)
				if err != nil {
					return nil, fmt.Errorf("row %d: %w", cv.row, err)
				}
				x := make([]float64, predictor.ConvConfigFeatures)
				predictor.PutConvDirect(x, in, g)
				score = m.Nets.Score(x, 1)[0]
			} else {
				cfg, err := ptx.ParseConfig(strings.TrimPrefix(c.name, "nhwc copies "))
				if err != nil {
					return nil, fmt.Errorf("row %d: %w", cv.row, err)
				}
				cfg.TMA, cfg.PS = 0, 0
				if !predictor.ConvDescribes(cfg) {
					continue
				}
				score = m.ConvScores(in, []ptx.GemmConfig{cfg})[0]
			}
			if score > best {
				best, r.pick, r.pickUS = score, c.name, c.us()
			}
		}
		if !math.IsNaN(r.pickUS) {
			out = append(out, r)
		}
	}
	return out, nil
}

// scoreConvCmd is isaac-tune score-conv: a convolution model's
// suboptimality on eval-conv's candidates, without a GPU.
func scoreConvCmd(args []string) error {
	fs := flag.NewFlagSet("score-conv", flag.ExitOnError)
	cands := fs.String("candidates", "", "eval-conv's eval-conv-candidates.csv.zst")
	wpath := fs.String("weights", "", "convolution weights file (default: the embedded ones of -device)")
	device := fs.String("device", "h100", "the device whose embedded convolution weights score, without -weights")
	verbose := fs.Bool("v", false, "also print each convolution's pick and fastest candidate")
	fs.Parse(args)
	if *cands == "" {
		return fmt.Errorf("score-conv: -candidates is required")
	}
	convs, err := readConvCandidates(*cands)
	if err != nil {
		return err
	}
	var w *predictor.Weights
	if *wpath != "" {
		w, err = weights.Load(*wpath)
	} else {
		w, err = weights.ConvFor(*device)
	}
	if err != nil {
		return err
	}
	m, ok := w.Model("conv-config")
	if !ok || m.Schema != predictor.ConvConfigSchema {
		return fmt.Errorf("score-conv: no convolution configuration model in the weights")
	}
	scored, err := scoreConvCandidates(m, convs)
	if err != nil {
		return err
	}
	var s []float64
	zero := 0
	for _, r := range scored {
		if *verbose {
			fmt.Printf("row %d %s %s n%d c%d %dx%d k%d %dx%d g%d: S %.1f%%, pick %.1f µs %s, fastest %.1f µs %s\n",
				r.row, r.in.Type, map[bool]string{false: "nchw", true: "nhwc"}[r.in.NHWC], r.in.N, r.in.C, r.in.H, r.in.W, r.in.K, r.in.R, r.in.S, r.in.G,
				100*r.S(), r.pickUS, r.pick, r.bestUS, r.best)
		}
		s = append(s, r.S())
		if r.S() <= 0 {
			zero++
		}
	}
	sort.Float64s(s)
	fmt.Printf("%d convolutions scored of %d: the model's best-scored candidate, S median %.1f%%, p90 %.1f%%, S = 0 on %d\n",
		len(s), len(convs), 100*quantile(s, 0.5), 100*quantile(s, 0.9), zero)
	return nil
}
