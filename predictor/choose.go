package predictor

import "github.com/isaacgo/isaac/ptx"

// Scores are the configuration model's predictions (ln TFLOP/s, higher is
// faster) for every configuration on one input, evaluated as one batch.
func (m *Model) Scores(in Input, cfgs []ptx.GemmConfig) []float64 {
	if len(cfgs) == 0 {
		return nil
	}
	x := make([]float64, len(cfgs)*ConfigFeatures)
	for i, c := range cfgs {
		PutConfig(x[i*ConfigFeatures:(i+1)*ConfigFeatures], in, c)
	}
	return m.Nets.Predict(x, len(cfgs))
}

// InputScore is the vendor model's prediction (ln TFLOP/s) for an input.
func (m *Model) InputScore(in Input) float64 {
	x := make([]float64, InputFeatures)
	PutInput(x, in)
	return m.Nets.Predict(x, 1)[0]
}
