package predictor

import (
	"math"
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

// The run-time form (Ensemble.Score, float32) gives Predict's result within
// ScoreTolerance on the shipped H100 configuration model's own scale, for
// any batch split, and is bit-identical however the batch is split.
func TestEnsembleScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	const f = 45
	var e Ensemble
	for i := 0; i < 5; i++ {
		m := &MLP{Sizes: []int{f, 64, 128, 64, 1}, YMean: 2, YStd: 1.5}
		for l := 0; l+1 < len(m.Sizes); l++ {
			w := make([]float64, m.Sizes[l]*m.Sizes[l+1])
			for j := range w {
				w[j] = rng.NormFloat64() / float64(m.Sizes[l]) * 2 // about unit-scale activations
			}
			b := make([]float64, m.Sizes[l+1])
			for j := range b {
				b[j] = rng.NormFloat64() * 0.1
			}
			m.W, m.B = append(m.W, w), append(m.B, b)
		}
		m.Mean, m.Std = make([]float64, f), make([]float64, f)
		for j := range m.Std {
			m.Mean[j], m.Std[j] = rng.NormFloat64(), 0.5+rng.Float64()
		}
		e = append(e, m)
	}
	const n = 700
	x := make([]float64, n*f)
	for i := range x {
		x[i] = rng.NormFloat64() * 2
	}
	want := e.Predict(x, n)
	prev := runtime.GOMAXPROCS(1)
	serial := e.Score(x, n)
	runtime.GOMAXPROCS(max(prev, 4))
	parallel := e.Score(x, n)
	runtime.GOMAXPROCS(prev)
	if !slices.Equal(serial, parallel) {
		t.Fatal("the split changed the run-time predictions")
	}
	worst := 0.0
	for i := range want {
		worst = max(worst, math.Abs(serial[i]-want[i]))
	}
	if worst > ScoreTolerance || worst == 0 {
		t.Errorf("run-time form differs from Predict by up to %g (tolerance %g; 0 would mean it is not float32)", worst, ScoreTolerance)
	}
	t.Logf("largest difference %.2g over %d rows", worst, n)
	if one := e[:1].Score(x[:f], 1)[0]; math.Abs(one-e[0].Predict(x[:f], 1)[0]) > ScoreTolerance {
		t.Errorf("one member, one row: %v, Predict %v", one, e[0].Predict(x[:f], 1)[0])
	}
}
