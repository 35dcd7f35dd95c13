package tune

import (
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"

	"github.com/isaacgo/isaac/predictor"
)

// Matrix is n rows of features (row-major) and their targets.
type Matrix struct {
	X    []float64
	Y    []float64
	N, F int
}

// foldOf is the set an input's rows go to: folds 8 and 9 (of ten, by
// Fold) validate and test, the others train.
func foldOf(in predictor.Input, train, valid, test *Matrix) *Matrix {
	switch Fold(in) {
	case 8:
		return valid
	case 9:
		return test
	}
	return train
}

func (m *Matrix) add(x []float64, y float64) {
	m.X = append(m.X, x...)
	m.Y = append(m.Y, y)
	m.N++
}

// SampleInput is the model's view of a sample's input.
func SampleInput(s Sample) predictor.Input {
	return predictor.Input{Type: s.Type, TransA: s.TransA == 'T', TransB: s.TransB == 'T', M: s.M, N: s.N, K: s.K,
		AlignA: s.AlignA, AlignB: s.AlignB, AlignC: s.AlignC}
}

// LogTFLOPs is the model's target: the natural log of the rate 2mnk/time in
// TFLOP/s.
func LogTFLOPs(m, n, k int, us float64) float64 {
	return math.Log(2 * float64(m) * float64(n) * float64(k) / us / 1e6)
}

// Fold assigns an input to one of 10 folds by a hash of the input alone, so
// that all configurations of one input land in the same fold: a held-out
// fold is made of inputs the model never saw.
func Fold(in predictor.Input) int {
	h := fnv.New32a()
	fmt.Fprintf(h, "%s|%v|%v|%d|%d|%d|%d|%d|%d", in.Type, in.TransA, in.TransB, in.M, in.N, in.K, in.AlignA, in.AlignB, in.AlignC)
	return int(h.Sum32() % 10)
}

// ConfigMatrices are the configuration model's training (folds 0–7),
// validation (fold 8: early stopping) and test (fold 9: reported MSE) sets.
func ConfigMatrices(samples []Sample) (train, valid, test Matrix) {
	return ConfigLayoutMatrices(samples, predictor.ConfigV3)
}

// ConfigLayoutMatrices are ConfigMatrices in the features of layout l: a
// model of an older schema is scored on them.
func ConfigLayoutMatrices(samples []Sample, l *predictor.ConfigLayout) (train, valid, test Matrix) {
	train.F, valid.F, test.F = l.Width, l.Width, l.Width
	configRows(samples, l, func(in predictor.Input, x []float64, y float64) { foldOf(in, &train, &valid, &test).add(x, y) })
	return
}

// configRows calls row with the features of layout l and the target of
// each sample that has a configuration l describes.
func configRows(samples []Sample, l *predictor.ConfigLayout, row func(in predictor.Input, x []float64, y float64)) {
	x := make([]float64, l.Width)
	for _, s := range samples {
		if s.VendorOnly() || !l.Describes(s.Config) {
			continue // no configuration, or one the schema cannot tell from its plain twin
		}
		in := SampleInput(s)
		l.Put(x, in, s.Config)
		row(in, x, LogTFLOPs(s.M, s.N, s.K, s.US))
	}
}

// VendorMatrices are the vendor model's sets: one row per distinct input
// (the vendor was timed once per input). Inputs whose cuBLAS time is over
// 10 ms are left out: no sampled input does that much work (2mnk ≤ 6e11 at
// hundreds of TFLOP/s), so such a time is a first call's module loading,
// which the first data sets' method did not exclude.
func VendorMatrices(samples []Sample) (train, valid, test Matrix) {
	train.F, valid.F, test.F = predictor.VendorFeatures, predictor.VendorFeatures, predictor.VendorFeatures
	vendorRows(samples, func(in predictor.Input, x []float64, y float64) { foldOf(in, &train, &valid, &test).add(x, y) })
	return
}

// vendorRows calls row with the vendor model's features and target of
// each distinct input (VendorMatrices' rows).
func vendorRows(samples []Sample, row func(in predictor.Input, x []float64, y float64)) {
	seen := map[predictor.Input]bool{}
	x := make([]float64, predictor.VendorFeatures)
	for _, s := range samples {
		in := SampleInput(s)
		if seen[in] || s.VendorUS > 10_000 {
			continue
		}
		seen[in] = true
		predictor.PutVendorInput(x, in)
		row(in, x, LogTFLOPs(s.M, s.N, s.K, s.VendorUS))
	}
}

// TrainOptions are the training's hyper-parameters.
type TrainOptions struct {
	Hidden   []int
	Epochs   int     // at most
	Patience int     // epochs without a better validation MSE before stopping
	Batch    int     // minibatch rows
	LR       float64 // Adam step size
	Seed     uint64
	MaxTime  time.Duration // stop after this long (0: no limit)
	Log      io.Writer     // one line per epoch (nil: quiet)
	// Start, when set, is the networks training starts from (fine-tuning
	// another device's model): Train from Start[0], an ensemble's member
	// i from Start[i mod len(Start)], each keeping its layer sizes, its
	// standardization and its weights (Hidden is not used).
	Start predictor.Ensemble
}

// TrainReport is how a training went.
type TrainReport struct {
	Epochs    int
	BestEpoch int
	TrainMSE  float64 // at the best epoch, in the target's units
	ValidMSE  float64
	Elapsed   time.Duration
}

// Train fits an MLP (ReLU hidden layers of o.Hidden widths, MSE loss,
// Adam) on train, standardizing features and target with train's
// statistics (or from o.Start's network, as it is), and keeps the weights
// of the epoch with the lowest MSE on valid (early stopping; the starting
// network counts as epoch 0).
func Train(train, valid Matrix, o TrainOptions) (*predictor.MLP, TrainReport) {
	start := time.Now()
	rng := rand.New(rand.NewPCG(o.Seed, 11))
	var net *predictor.MLP
	if len(o.Start) > 0 {
		net = cloneMLP(o.Start[0])
	} else {
		sizes := append(append([]int{train.F}, o.Hidden...), 1)
		net = predictor.NewMLP(sizes)
		standardize(net, train)
		for l := range net.W { // He initialization
			s := math.Sqrt(2 / float64(sizes[l]))
			for i := range net.W[l] {
				net.W[l][i] = s * rng.NormFloat64()
			}
		}
	}
	xt := make([]float64, len(train.X))
	net.Normalize(xt, train.X)
	yt := make([]float64, train.N)
	for i, y := range train.Y {
		yt[i] = (y - net.YMean) / net.YStd
	}
	adam := newAdam(net, o.LR)
	best := cloneMLP(net)
	rep := TrainReport{ValidMSE: math.Inf(1)}
	if len(o.Start) > 0 {
		rep.ValidMSE, rep.TrainMSE = MSE(net, valid), MSE(net, train) // epoch 0
	}
	perm := make([]int, train.N)
	for i := range perm {
		perm[i] = i
	}
	bx := make([]float64, o.Batch*train.F)
	by := make([]float64, o.Batch)
	for epoch := 1; epoch <= o.Epochs; epoch++ {
		rng.Shuffle(len(perm), func(i, j int) { perm[i], perm[j] = perm[j], perm[i] })
		for at := 0; at < train.N; at += o.Batch {
			n := min(o.Batch, train.N-at)
			for r := 0; r < n; r++ {
				p := perm[at+r]
				copy(bx[r*train.F:(r+1)*train.F], xt[p*train.F:(p+1)*train.F])
				by[r] = yt[p]
			}
			step(net, adam, bx[:n*train.F], by[:n], n)
		}
		tr, va := MSE(net, train), MSE(net, valid)
		if o.Log != nil {
			fmt.Fprintf(o.Log, "  epoch %3d  train %.4f  valid %.4f  %s\n", epoch, tr, va, time.Since(start).Round(time.Second))
		}
		rep.Epochs = epoch
		if va < rep.ValidMSE {
			rep.ValidMSE, rep.TrainMSE, rep.BestEpoch = va, tr, epoch
			best = cloneMLP(net)
		} else if epoch-rep.BestEpoch >= o.Patience {
			break
		}
		if o.MaxTime > 0 && time.Since(start) > o.MaxTime {
			break
		}
	}
	rep.Elapsed = time.Since(start)
	return best, rep
}

// Predictor is an MLP or an ensemble of them.
type Predictor interface {
	Predict(raw []float64, n int) []float64
}

// MSE is the network's mean squared error on m, in the target's units.
func MSE(net Predictor, m Matrix) float64 {
	if m.N == 0 {
		return math.NaN()
	}
	const chunk = 4096
	var sum float64
	for at := 0; at < m.N; at += chunk {
		n := min(chunk, m.N-at)
		pred := net.Predict(m.X[at*m.F:(at+n)*m.F], n)
		for i, p := range pred {
			d := p - m.Y[at+i]
			sum += d * d
		}
	}
	return sum / float64(m.N)
}

func standardize(net *predictor.MLP, m Matrix) {
	f := m.F
	for j := 0; j < f; j++ {
		var s, s2 float64
		for i := 0; i < m.N; i++ {
			v := m.X[i*f+j]
			s += v
			s2 += v * v
		}
		mean := s / float64(m.N)
		sd := math.Sqrt(math.Max(s2/float64(m.N)-mean*mean, 0))
		if sd < 1e-9 {
			sd = 1
		}
		net.Mean[j], net.Std[j] = mean, sd
	}
	var s, s2 float64
	for _, y := range m.Y {
		s += y
		s2 += y * y
	}
	net.YMean = s / float64(m.N)
	net.YStd = math.Sqrt(math.Max(s2/float64(m.N)-net.YMean*net.YMean, 1e-12))
}

func cloneMLP(m *predictor.MLP) *predictor.MLP {
	c := predictor.NewMLP(m.Sizes)
	for l := range m.W {
		copy(c.W[l], m.W[l])
		copy(c.B[l], m.B[l])
	}
	copy(c.Mean, m.Mean)
	copy(c.Std, m.Std)
	c.YMean, c.YStd = m.YMean, m.YStd
	return c
}

// adam holds Adam's moment estimates for every parameter array.
type adam struct {
	lr, b1, b2, eps float64
	t               int
	m, v            [][]float64
}

func newAdam(net *predictor.MLP, lr float64) *adam {
	a := &adam{lr: lr, b1: 0.9, b2: 0.999, eps: 1e-8}
	for l := range net.W {
		a.m = append(a.m, make([]float64, len(net.W[l])), make([]float64, len(net.B[l])))
		a.v = append(a.v, make([]float64, len(net.W[l])), make([]float64, len(net.B[l])))
	}
	return a
}

func (a *adam) update(i int, p, g []float64) {
	m, v := a.m[i], a.v[i]
	c1 := 1 - math.Pow(a.b1, float64(a.t))
	c2 := 1 - math.Pow(a.b2, float64(a.t))
	for j := range p {
		m[j] = a.b1*m[j] + (1-a.b1)*g[j]
		v[j] = a.b2*v[j] + (1-a.b2)*g[j]*g[j]
		p[j] -= a.lr * (m[j] / c1) / (math.Sqrt(v[j]/c2) + a.eps)
	}
}

// step is one minibatch of backpropagation and one Adam update.
func step(net *predictor.MLP, a *adam, x, y []float64, n int) {
	acts := net.Forward(x, n)
	out := acts[len(acts)-1]
	d := make([]float64, n)
	for i := range d {
		d[i] = 2 * (out[i] - y[i]) / float64(n)
	}
	a.t++
	for l := len(net.W) - 1; l >= 0; l-- {
		rows, cols := net.Sizes[l], net.Sizes[l+1]
		gw := make([]float64, rows*cols)
		blas64.Gemm(blas.Trans, blas.NoTrans, 1,
			blas64.General{Rows: n, Cols: rows, Stride: rows, Data: acts[l]},
			blas64.General{Rows: n, Cols: cols, Stride: cols, Data: d},
			0, blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: gw})
		gb := make([]float64, cols)
		for i := 0; i < n; i++ {
			for j := 0; j < cols; j++ {
				gb[j] += d[i*cols+j]
			}
		}
		var prev []float64
		if l > 0 {
			prev = make([]float64, n*rows)
			blas64.Gemm(blas.NoTrans, blas.Trans, 1,
				blas64.General{Rows: n, Cols: cols, Stride: cols, Data: d},
				blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: net.W[l]},
				0, blas64.General{Rows: n, Cols: rows, Stride: rows, Data: prev})
			for i, v := range acts[l] {
				if v <= 0 {
					prev[i] = 0
				}
			}
		}
		a.update(2*l, net.W[l], gw)
		a.update(2*l+1, net.B[l], gb)
		d = prev
	}
}

// TrainEnsemble trains members networks as Train does, with seeds o.Seed,
// o.Seed+1, …, concurrently (each member's result does not depend on the
// others), and returns them with their reports.
func TrainEnsemble(train, valid Matrix, o TrainOptions, members int) (predictor.Ensemble, []TrainReport) {
	nets := make(predictor.Ensemble, members)
	reps := make([]TrainReport, members)
	var wg sync.WaitGroup
	sem := make(chan struct{}, max(1, runtime.GOMAXPROCS(0)))
	for i := 0; i < members; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			oi := o
			oi.Seed = o.Seed + uint64(i)
			if len(o.Start) > 0 {
				oi.Start = predictor.Ensemble{o.Start[i%len(o.Start)]}
			}
			if i > 0 {
				oi.Log = nil
			}
			nets[i], reps[i] = Train(train, valid, oi)
		}()
	}
	wg.Wait()
	return nets, reps
}
