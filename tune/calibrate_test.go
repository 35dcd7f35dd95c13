package tune

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/predictor"
)

// RankLoss is, averaged over the inputs with two or more rows, how much
// slower than the input's fastest row the row ranked first runs; inputs
// of one row are not counted.
func TestRankLoss(t *testing.T) {
	y := []float64{math.Log(10), math.Log(8), math.Log(5), math.Log(4), math.Log(7)}
	input := []int{0, 0, 1, 1, 2}
	// Input 0: the prediction ranks the rate-8 row first (10 is the best):
	// 25 % slower. Input 1: the best (5) ranked first. Input 2: one row.
	pred := []float64{1, 2, 3, 0, 9}
	if got := RankLoss(pred, y, input); math.Abs(got-0.125) > 1e-12 {
		t.Errorf("RankLoss = %v, want 0.125", got)
	}
	if got := RankLoss(pred[4:], y[4:], input[4:]); !math.IsNaN(got) {
		t.Errorf("one row: %v, want NaN", got)
	}
}

// CrossValidate holds each fold out in turn: a calibration that ignores
// its training rows scores the squared error of all the rows pooled, and
// its rank loss is that of its ranking; folds split by input.
func TestCrossValidate(t *testing.T) {
	g := Grouped{Matrix: Matrix{F: 2}}
	for i := 0; i < 40; i++ {
		in := i / 4 // ten inputs of four rows
		x := float64(i%4) + 0.1*float64(in)
		y := x + 0.5
		if i%4 == 3 {
			y = x - 1 // predicted fastest, measured slower than the input's third row
		}
		g.add([]float64{x, 0}, y)
		g.Fold = append(g.Fold, in%5)
		g.Input = append(g.Input, in)
	}
	var fits int
	// A one-member ensemble computing x + 0.5, whatever it is fit on.
	mlp := predictor.NewMLP([]int{2, 1})
	mlp.W[0][0], mlp.B[0][0] = 1, 0.5
	cal := Calibration{Name: "x+0.5", Fit: func(train Grouped) (predictor.Ensemble, error) {
		fits++
		if train.N != 32 {
			t.Errorf("trained on %d rows, want 32 (four folds of eight)", train.N)
		}
		return predictor.Ensemble{mlp}, nil
	}}
	sc, err := CrossValidate(g, []Calibration{cal})
	if err != nil {
		t.Fatal(err)
	}
	if fits != 5 {
		t.Errorf("%d fits, want one per fold (5)", fits)
	}
	pred := predictor.Ensemble{mlp}.Predict(g.X, g.N)
	var sq float64
	for i, p := range pred {
		sq += (p - g.Y[i]) * (p - g.Y[i])
	}
	if want := sq / float64(g.N); math.Abs(sc[0].MSE-want) > 1e-9 {
		t.Errorf("MSE %v, want %v", sc[0].MSE, want)
	}
	if want := RankLoss(pred, g.Y, g.Input); math.Abs(sc[0].Rank-want) > 1e-9 || sc[0].RankSE > 1e-9 {
		t.Errorf("rank loss %v ± %v, want %v ± 0 (every input alike)", sc[0].Rank, sc[0].RankSE, want)
	}
}

// FineTune: every network of the start trained on, its highest fold held
// out for the early stopping (a diverging step keeps the start, which
// predicts that fold as it did), the start left as it was; one fold alone
// is refused.
func TestFineTune(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	g := Grouped{Matrix: Matrix{F: 2}}
	for in := 0; in < 60; in++ {
		for r := 0; r < 5; r++ {
			a, b := rng.Float64()*4, rng.Float64()*4
			g.add([]float64{a, b}, 1.3*(a+b)+0.5)
			g.Fold = append(g.Fold, in%4)
			g.Input = append(g.Input, in)
		}
	}
	start := predictor.Ensemble{predictor.NewMLP([]int{2, 1}), predictor.NewMLP([]int{2, 1})}
	for _, n := range start {
		n.W[0][0], n.W[0][1] = 1, 1 // x0 + x1: the old device's rates
	}
	valid := g.Where(func(f int) bool { return f == 3 })
	o := TrainOptions{Epochs: 40, Patience: 40, Batch: 32, LR: 1e-2, Seed: 1}
	nets, err := FineTune(start, g, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(nets) != len(start) || MSE(nets, valid.Matrix) >= MSE(start, valid.Matrix) {
		t.Errorf("%d networks, held-out fold's MSE %.4f fine-tuned, %.4f at the start", len(nets), MSE(nets, valid.Matrix), MSE(start, valid.Matrix))
	}
	if start[0].W[0][0] != 1 || start[1].W[0][1] != 1 {
		t.Error("the starting networks changed")
	}
	bad := o
	bad.LR, bad.Epochs = 1e4, 3
	same, err := FineTune(start, g, bad)
	if err != nil || MSE(same, valid.Matrix) != MSE(start, valid.Matrix) {
		t.Errorf("a diverging fine-tune: %v, held-out MSE %.4f, the start's %.4f", err, MSE(same, valid.Matrix), MSE(start, valid.Matrix))
	}
	if _, err := FineTune(start, g.Where(func(f int) bool { return f == 0 }), o); err == nil {
		t.Error("fine-tuned on one fold")
	}
}
