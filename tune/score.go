package tune

import (
	"math"
	"slices"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
)

// InputTimes are the measured configurations of one input: the rates
// (LogTFLOPs) of the configurations timed on it.
type InputTimes struct {
	In      predictor.Input
	Configs []ptx.GemmConfig
	Rates   []float64 // ln TFLOP/s, as the models predict
}

// HeldOut groups the configuration samples of the held-out fold (Fold 9:
// inputs no model trained on data of these files saw) by input, in the
// order the inputs first appear, keeping the configurations keep accepts
// (nil: all); inputs with fewer than min kept configurations are left
// out, since a ranking among a few says little.
func HeldOut(samples []Sample, keep func(ptx.GemmConfig) bool, min int) []InputTimes {
	return InputsOf(samples, func(in predictor.Input) bool { return Fold(in) == 9 }, keep, min)
}

// InputsOf is HeldOut over the inputs that take accepts (nil: every input,
// for a data set no model being scored trained on).
func InputsOf(samples []Sample, take func(predictor.Input) bool, keep func(ptx.GemmConfig) bool, min int) []InputTimes {
	var out []InputTimes
	at := map[predictor.Input]int{}
	for _, s := range samples {
		if s.VendorOnly() || (keep != nil && !keep(s.Config)) {
			continue
		}
		in := SampleInput(s)
		if take != nil && !take(in) {
			continue
		}
		i, ok := at[in]
		if !ok {
			i = len(out)
			at[in] = i
			out = append(out, InputTimes{In: in})
		}
		out[i].Configs = append(out[i].Configs, s.Config)
		out[i].Rates = append(out[i].Rates, LogTFLOPs(s.M, s.N, s.K, s.US))
	}
	return slices.DeleteFunc(out, func(t InputTimes) bool { return len(t.Configs) < min })
}

// Suboptimality is how much slower than the fastest measured
// configuration the one a model scores best runs: exp(best − picked) − 1
// of the rates (0 where the model picks the fastest). Ties in the score go
// to the first.
func Suboptimality(scores, rates []float64) float64 {
	if len(scores) == 0 || len(scores) != len(rates) {
		return math.NaN()
	}
	pick, best := 0, rates[0]
	for i := range scores {
		if scores[i] > scores[pick] {
			pick = i
		}
		best = math.Max(best, rates[i])
	}
	return math.Exp(best-rates[pick]) - 1
}

// Staged reports whether a configuration is a twin that only a model of
// schema v3 tells from its plain form (predictor.ConfigV3: copy-engine
// staging, a persistent grid, pipelined fragments, a register cap).
func Staged(c ptx.GemmConfig) bool { return c.TMA != 0 || c.PS != 0 || c.PP != 0 || c.MR != 0 }
