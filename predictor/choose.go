package predictor

import (
	"sort"

	"github.com/isaacgo/isaac/ptx"
)

// Scores are the configuration model's predictions (ln TFLOP/s, higher is
// faster) for every configuration on one input, evaluated as one batch in
// the run-time form (Ensemble.Score).
func (m *Model) Scores(in Input, cfgs []ptx.GemmConfig) []float64 {
	if len(cfgs) == 0 {
		return nil
	}
	return m.Nets.Score(m.ConfigLayout().Rows(in, cfgs), len(cfgs))
}

// ConfigLayout is the layout of the configuration model's schema
// (ConfigLayoutOf): this build's, or an older one that weights recorded;
// this build's for a model of a schema it does not know (a loader refuses
// such weights first).
func (m *Model) ConfigLayout() *ConfigLayout {
	if l, ok := ConfigLayoutOf(m.Schema); ok {
		return l
	}
	return ConfigV3
}

// InputScore is the vendor model's prediction (ln TFLOP/s) for an input,
// with the features of the model's schema (VendorSchema, or the older
// InputSchema).
func (m *Model) InputScore(in Input) float64 {
	if m.Schema == VendorSchema {
		x := make([]float64, VendorFeatures)
		PutVendorInput(x, in)
		return m.Nets.Predict(x, 1)[0]
	}
	x := make([]float64, InputFeatures)
	PutInput(x, in)
	return m.Nets.Predict(x, 1)[0]
}

// Screen keeps the keep configurations that the ensemble's first member
// predicts fastest on an input, in their original order: a cheap first pass
// before the whole ensemble scores the survivors. With keep ≥ len(cfgs) or
// a single-member model it returns cfgs.
func (m *Model) Screen(in Input, cfgs []ptx.GemmConfig, keep int) []ptx.GemmConfig {
	if keep >= len(cfgs) || len(m.Nets) < 2 {
		return cfgs
	}
	l := m.ConfigLayout()
	out, _ := m.screenRows(cfgs, l.Rows(in, cfgs), l.Width, keep)
	return out
}

// screenRows is Screen on the configurations' feature rows x (width
// features each): the kept configurations and their rows.
func (m *Model) screenRows(cfgs []ptx.GemmConfig, x []float64, width, keep int) ([]ptx.GemmConfig, []float64) {
	s := m.Nets[:1].Score(x, len(cfgs))
	idx := make([]int, len(cfgs))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return s[idx[a]] > s[idx[b]] })
	idx = idx[:keep]
	sort.Ints(idx)
	out := make([]ptx.GemmConfig, keep)
	rows := make([]float64, keep*width)
	for i, j := range idx {
		out[i] = cfgs[j]
		copy(rows[i*width:(i+1)*width], x[j*width:(j+1)*width])
	}
	return out, rows
}
