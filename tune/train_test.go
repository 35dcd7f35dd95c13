package tune

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
)

// loss is the mean squared error of net on standardized rows x, y.
func loss(net *predictor.MLP, x, y []float64, n int) float64 {
	acts := net.Forward(x, n)
	out := acts[len(acts)-1]
	var s float64
	for i := range y {
		s += (out[i] - y[i]) * (out[i] - y[i])
	}
	return s / float64(n)
}

// Backpropagation's gradients match finite differences of the loss: one
// Adam step with a tiny rate moves each weight against its gradient's sign.
func TestGradientsMatchFiniteDifferences(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	net := predictor.NewMLP([]int{5, 7, 6, 1})
	for l := range net.W {
		for i := range net.W[l] {
			net.W[l][i] = rng.NormFloat64() / 2
		}
		for i := range net.B[l] {
			net.B[l][i] = rng.NormFloat64() / 5
		}
	}
	const n = 9
	x := make([]float64, n*5)
	y := make([]float64, n)
	for i := range x {
		x[i] = rng.NormFloat64()
	}
	for i := range y {
		y[i] = rng.NormFloat64()
	}
	// Numerical gradients.
	num := map[[3]int]float64{}
	const h = 1e-6
	for l := range net.W {
		for i := range net.W[l] {
			w := net.W[l][i]
			net.W[l][i] = w + h
			up := loss(net, x, y, n)
			net.W[l][i] = w - h
			down := loss(net, x, y, n)
			net.W[l][i] = w
			num[[3]int{l, 0, i}] = (up - down) / (2 * h)
		}
	}
	// Analytic gradients: with Adam's first step the update is
	// -lr·g/(|g|+eps) per parameter, so the step's sign is the gradient's.
	before := make([][]float64, len(net.W))
	for l := range net.W {
		before[l] = append([]float64(nil), net.W[l]...)
	}
	a := newAdam(net, 1e-9)
	a.eps = 1e-30
	step(net, a, x, y, n)
	checked := 0
	for l := range net.W {
		for i := range net.W[l] {
			g := num[[3]int{l, 0, i}]
			moved := net.W[l][i] - before[l][i]
			if math.Abs(g) < 1e-5 {
				continue
			}
			checked++
			if math.Signbit(moved) == math.Signbit(-g) {
				continue
			}
			t.Errorf("layer %d weight %d: numerical gradient %g, step %g", l, i, g, moved)
		}
	}
	if checked < 40 {
		t.Fatalf("only %d weights had a usable gradient", checked)
	}
}

// Training learns a function with the shape of a roofline (a minimum of
// two log-linear terms) far better than predicting the mean.
func TestTrainLearnsRoofline(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	gen := func(n int) Matrix {
		m := Matrix{F: 3}
		for i := 0; i < n; i++ {
			a, b, c := rng.Float64()*10, rng.Float64()*10, rng.Float64()*10
			m.add([]float64{a, b, c}, math.Min(a+0.5*b, 8+0.2*c))
		}
		return m
	}
	train, valid, test := gen(4000), gen(500), gen(500)
	net, rep := Train(train, valid, TrainOptions{Hidden: []int{32, 32}, Epochs: 60, Patience: 8, Batch: 64, LR: 3e-3, Seed: 1})
	var mean, variance float64
	for _, y := range test.Y {
		mean += y / float64(test.N)
	}
	for _, y := range test.Y {
		variance += (y - mean) * (y - mean) / float64(test.N)
	}
	got := MSE(net, test)
	t.Logf("test MSE %.4f (variance %.3f), best epoch %d of %d", got, variance, rep.BestEpoch, rep.Epochs)
	if !(got < variance/50) {
		t.Errorf("test MSE %.4f, variance of the target %.4f", got, variance)
	}
	if rep.BestEpoch == 0 || rep.ValidMSE > 2*got+0.05 {
		t.Errorf("report %+v", rep)
	}
}

func TestFoldsByInput(t *testing.T) {
	in := predictor.Input{Type: "sgemm", M: 100, N: 3, K: 7, AlignA: 4, AlignB: 4, AlignC: 4}
	f := Fold(in)
	counts := make([]int, 10)
	for m := 1; m <= 2000; m++ {
		in.M = m
		counts[Fold(in)]++
	}
	for i, c := range counts {
		if c < 120 || c > 280 {
			t.Errorf("fold %d has %d of 2000 inputs", i, c)
		}
	}
	in.M = 100
	if Fold(in) != f {
		t.Error("Fold is not a function of the input")
	}
}

// The configuration model's matrices leave out the vendor-only rows and
// keep every configuration's, its twins' too (pipelined fragments, a
// register cap, tensor-copy staging: the schema, v3, tells them apart),
// each twin's row its own.
func TestConfigMatricesKeepTwins(t *testing.T) {
	parse := func(s string) ptx.GemmConfig {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	plain := parse("ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8")
	pp, mr := plain, plain
	pp.PP, mr.PP, mr.MR = 1, 1, 128
	var samples []Sample
	for m := 64; m < 64+200; m++ {
		base := Sample{Type: "dgemm", TransA: 'N', TransB: 'T', M: m, N: 64, K: 64, AlignA: 2, AlignB: 2, AlignC: 2, US: 10, VendorUS: 12}
		for _, c := range []ptx.GemmConfig{plain, pp, mr, {}} {
			s := base
			s.Config = c
			samples = append(samples, s)
		}
	}
	train, valid, test := ConfigMatrices(samples)
	if n := train.N + valid.N + test.N; n != 600 {
		t.Fatalf("%d configuration rows, want the 600 of the plain configuration and its twins", n)
	}
	row := func(i int) string { return fmt.Sprint(train.X[i*train.F : (i+1)*train.F]) }
	if row(0) == row(1) || row(1) == row(2) || row(0) == row(2) {
		t.Error("a twin's row is its plain configuration's")
	}
}

// Training from another model's networks (TrainOptions.Start): on a few
// hundred rows of a related target (the roofline scaled and shifted, as a
// second device's rates are the first's, nearly), the network fine-tuned
// from one trained on plenty of the first target predicts better than one
// trained from scratch on the same rows; the starting network is left as
// it was, and one that only gets worse (a step size that diverges) is
// returned as it started (epoch 0).
func TestTrainFromStart(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	gen := func(n int, scale, shift float64) Matrix {
		m := Matrix{F: 3}
		for i := 0; i < n; i++ {
			a, b, c := rng.Float64()*10, rng.Float64()*10, rng.Float64()*10
			m.add([]float64{a, b, c}, scale*math.Min(a+0.5*b, 8+0.2*c)+shift)
		}
		return m
	}
	o := TrainOptions{Hidden: []int{32, 32}, Epochs: 60, Patience: 8, Batch: 64, LR: 3e-3, Seed: 1}
	src, _ := Train(gen(4000, 1, 0), gen(500, 1, 0), o)
	before := cloneMLP(src)
	train, valid, test := gen(300, 1.3, 0.5), gen(100, 1.3, 0.5), gen(1000, 1.3, 0.5)
	scratch, _ := Train(train, valid, o)
	ft := o
	ft.Start = predictor.Ensemble{src}
	tuned, rep := Train(train, valid, ft)
	s, f := MSE(scratch, test), MSE(tuned, test)
	t.Logf("300 rows of the new target: from scratch test MSE %.4f, fine-tuned %.4f (best epoch %d)", s, f, rep.BestEpoch)
	if !(f < s) {
		t.Errorf("fine-tuned %.4f, from scratch %.4f", f, s)
	}
	for l := range src.W {
		for i := range src.W[l] {
			if src.W[l][i] != before.W[l][i] {
				t.Fatal("the starting network changed")
			}
		}
	}
	bad := ft
	bad.LR, bad.Epochs, bad.Patience = 1e3, 3, 3
	same, rep := Train(train, valid, bad)
	if rep.BestEpoch != 0 || MSE(same, test) != MSE(src, test) {
		t.Errorf("a diverging fine-tune kept epoch %d (test MSE %.4f, the start's %.4f)", rep.BestEpoch, MSE(same, test), MSE(src, test))
	}
}
