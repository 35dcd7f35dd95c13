package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/tune"
)

// scoreCmd is isaac-tune score: GEMM configuration models' suboptimality
// on the held-out fold of data sets (CPU only). For each input of fold 9
// (tune.HeldOut: inputs no model trained on these files saw) with enough
// measured configurations, the model's best-scored one is set against the
// fastest measured (tune.Suboptimality); the figures are a ranking's among
// the timed configurations, not the server's search over the whole space.
func scoreCmd(args []string) error { return score(os.Stdout, args) }

func score(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("score", flag.ExitOnError)
	data := fs.String("data", "weights/data/h200-cal-01.csv.zst,weights/data/h200-gemm-*.csv.zst", "GEMM data sets (isaac-tune sample files; globs, comma-separated)")
	models := fs.String("weights", "h200", "weights to score, comma-separated: shipped device keys or weights files")
	minConfigs := fs.Int("min", 8, "inputs with fewer measured configurations are left out")
	byType := fs.Bool("types", false, "also the figures per type, and on round inputs (m, n and k all multiples of 64) and the rest")
	fold := fs.String("fold", "9", "inputs scored: 9 (the held-out fold, which no model trained on these files saw) or all (for files none of the weights trained on)")
	fs.Parse(args)
	var take func(predictor.Input) bool
	switch *fold {
	case "9":
		take = func(in predictor.Input) bool { return tune.Fold(in) == 9 }
	case "all":
	default:
		return fmt.Errorf("score: -fold %q: want 9 or all", *fold)
	}
	files, err := globs(*data)
	if err != nil {
		return err
	}
	if len(files) == 0 {
		return fmt.Errorf("score: no data set matches %s", *data)
	}
	var samples []tune.Sample
	for _, f := range files {
		s, _, err := tune.ReadFile(f)
		if err != nil {
			return fmt.Errorf("score: %s: %w", f, err)
		}
		samples = append(samples, s...)
	}
	sets := []struct {
		name string
		in   []tune.InputTimes
	}{
		{"plain rows", tune.InputsOf(samples, take, func(c ptx.GemmConfig) bool { return !tune.Staged(c) }, *minConfigs)},
		{"all rows", tune.InputsOf(samples, take, nil, *minConfigs)},
	}
	scored := "held-out fold 9"
	if take == nil {
		scored = "every input"
	}
	fmt.Fprintf(out, "%d samples of %d files; %s: %d inputs with %d or more plain configurations, %d with twins too (tma, ps, pp, mr)\n",
		len(samples), len(files), scored, len(sets[0].in), *minConfigs, len(sets[1].in))
	for _, key := range strings.Split(*models, ",") {
		w, err := gemmWeightsFrom(key)
		if err != nil {
			return fmt.Errorf("score: -weights %s: %w", key, err)
		}
		m, ok := w.ConfigModel()
		if !ok {
			return fmt.Errorf("score: %s has no configuration model of a schema this build knows", key)
		}
		fmt.Fprintf(out, "%s (%s, %d samples, schema %s):\n", key, w.Device.Name, w.Samples, strings.SplitN(m.Schema, ":", 2)[0])
		for _, set := range sets {
			all, per := suboptimalities(set.in, func(t tune.InputTimes) []float64 { return m.Scores(t.In, t.Configs) })
			writeSubopt(out, "  "+set.name, all)
			if set.name == "all rows" {
				writeFastestBias(out, set.in, m.Scores)
			}
			if *byType && set.name == "all rows" {
				types := make([]string, 0, len(per))
				for t := range per {
					types = append(types, t)
				}
				slices.Sort(types)
				for _, t := range types {
					writeSubopt(out, "    "+t, per[t])
				}
				round, odd := splitRound(set.in)
				for _, part := range []struct {
					name string
					in   []tune.InputTimes
				}{{"round (m, n, k % 64 = 0)", round}, {"the rest", odd}} {
					if len(part.in) == 0 {
						continue
					}
					a, _ := suboptimalities(part.in, func(t tune.InputTimes) []float64 { return m.Scores(t.In, t.Configs) })
					writeSubopt(out, "    "+part.name, a)
					writeFastestBias(out, part.in, m.Scores)
				}
			}
		}
	}
	return nil
}

// splitRound parts inputs into those with m, n and k all multiples of 64
// (Table 4's, nn.Linear's and attention's kind) and the rest.
func splitRound(ins []tune.InputTimes) (round, rest []tune.InputTimes) {
	for _, t := range ins {
		if t.In.M%64 == 0 && t.In.N%64 == 0 && t.In.K%64 == 0 {
			round = append(round, t)
		} else {
			rest = append(rest, t)
		}
	}
	return round, rest
}

// suboptimalities are the suboptimality of score's pick on each input, and
// the same per type.
func suboptimalities(ins []tune.InputTimes, score func(tune.InputTimes) []float64) ([]float64, map[string][]float64) {
	var all []float64
	per := map[string][]float64{}
	for _, t := range ins {
		s := tune.Suboptimality(score(t), t.Rates)
		all = append(all, s)
		per[t.In.Type] = append(per[t.In.Type], s)
	}
	return all, per
}

func writeSubopt(w io.Writer, name string, s []float64) {
	var mean float64
	for _, v := range s {
		mean += v / float64(len(s))
	}
	fmt.Fprintf(w, "%-26s %4d inputs  median %5.1f %%  p90 %5.1f %%  mean %5.1f %%\n", name, len(s), 100*quantile(s, 0.5), 100*quantile(s, 0.9), 100*mean)
}

// writeFastestBias is the model's error on each input's fastest timed
// configuration, ln(predicted / measured time): the selection alone makes
// it positive (the fastest of many is among those the model underrates),
// so it is the in-distribution reference for the same figure on a suite's
// best configurations (bench_compare -replot sweep.csv -predicted).
func writeFastestBias(w io.Writer, ins []tune.InputTimes, score func(predictor.Input, []ptx.GemmConfig) []float64) {
	var e []float64
	for _, t := range ins {
		best := 0
		for i, r := range t.Rates {
			if r > t.Rates[best] {
				best = i
			}
		}
		e = append(e, t.Rates[best]-score(t.In, t.Configs[best:best+1])[0])
	}
	fmt.Fprintf(w, "    fastest timed: ln(predicted / measured time) median %+.3f  p10 %+.3f  p90 %+.3f\n",
		quantile(e, 0.5), quantile(e, 0.1), quantile(e, 0.9))
}
