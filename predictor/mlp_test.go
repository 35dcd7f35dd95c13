package predictor

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
)

// An ensemble's prediction is the members' mean, and it does not depend on
// how the batch is split among goroutines: one goroutine, or blocks of rows
// on every processor, give bit-identical results, each row equal to its
// prediction alone.
func TestEnsemblePredictSplit(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var e Ensemble
	for i := 0; i < 3; i++ {
		m := &MLP{Sizes: []int{5, 16, 8, 1}, YMean: 1, YStd: 2}
		for l := 0; l+1 < len(m.Sizes); l++ {
			w := make([]float64, m.Sizes[l]*m.Sizes[l+1])
			for j := range w {
				w[j] = rng.NormFloat64()
			}
			m.W = append(m.W, w)
			m.B = append(m.B, make([]float64, m.Sizes[l+1]))
		}
		m.Mean, m.Std = make([]float64, 5), []float64{1, 1, 1, 1, 1}
		e = append(e, m)
	}
	const n = 1000
	x := make([]float64, n*5)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	prev := runtime.GOMAXPROCS(1)
	serial := e.Predict(x, n)
	runtime.GOMAXPROCS(max(prev, 4))
	parallel := e.Predict(x, n)
	runtime.GOMAXPROCS(prev)
	if !slices.Equal(serial, parallel) {
		t.Fatal("the split changed the predictions")
	}
	for _, i := range []int{0, 63, 64, 500, n - 1} {
		one := e.Predict(x[i*5:(i+1)*5], 1)[0]
		mean := 0.0
		for _, m := range e {
			mean += m.Predict(x[i*5:(i+1)*5], 1)[0]
		}
		mean /= float64(len(e))
		if one != serial[i] || mean != one {
			t.Errorf("row %d: batch %v, alone %v, members' mean %v", i, serial[i], one, mean)
		}
	}
}
