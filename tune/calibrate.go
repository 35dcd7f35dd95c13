package tune

import (
	"fmt"
	"math"

	"github.com/isaacgo/isaac/predictor"
)

// Grouped are one model's rows with, per row, its input's fold (Fold) and
// an index of its input (the rows of one input share it): what choosing a
// calibration by cross-validation over inputs needs.
type Grouped struct {
	Matrix
	Fold, Input []int
}

// ConfigGrouped are the rows of samples for a configuration model of
// layout l (ConfigMatrices' rows, every fold, in l's features): a model is
// calibrated in the schema it was trained on.
func ConfigGrouped(samples []Sample, l *predictor.ConfigLayout) Grouped {
	return groupRows(l.Width, func(row func(predictor.Input, int, []float64, float64)) {
		configRows(samples, l, func(in predictor.Input, x []float64, y float64) { row(in, Fold(in), x, y) })
	})
}

// VendorGrouped are the vendor model's rows of samples (VendorMatrices'
// rows, every fold).
func VendorGrouped(samples []Sample) Grouped {
	return groupRows(predictor.VendorFeatures, func(row func(predictor.Input, int, []float64, float64)) {
		vendorRows(samples, func(in predictor.Input, x []float64, y float64) { row(in, Fold(in), x, y) })
	})
}

// ConvConfigGrouped are the convolution configuration model's rows of
// samples (ConvConfigMatrices' rows, every fold), grouped by convolution:
// its paths and configurations are one choice.
func ConvConfigGrouped(samples []ConvSample) Grouped {
	return groupRows(predictor.ConvConfigFeatures, func(row func(predictor.ConvInput, int, []float64, float64)) {
		convConfigRows(samples, func(in predictor.ConvInput, x []float64, y float64) {
			in.Path, in.AlignA, in.AlignB = "", 0, 0
			row(in, ConvFold(in), x, y)
		})
	})
}

// ConvVendorGrouped are cuDNN's model's rows of samples
// (ConvVendorMatrices' rows, every fold).
func ConvVendorGrouped(samples []ConvSample) Grouped {
	return groupRows(predictor.ConvVendorFeatures, func(row func(predictor.ConvInput, int, []float64, float64)) {
		convVendorRows(samples, func(in predictor.ConvInput, x []float64, y float64) { row(in, ConvFold(in), x, y) })
	})
}

// groupRows collects the rows each calls row with, f features each, the
// rows of one key one input.
func groupRows[K comparable](f int, each func(row func(key K, fold int, x []float64, y float64))) Grouped {
	g := Grouped{Matrix: Matrix{F: f}}
	ids := map[K]int{}
	each(func(key K, fold int, x []float64, y float64) {
		id, ok := ids[key]
		if !ok {
			id = len(ids)
			ids[key] = id
		}
		g.add(x, y)
		g.Fold = append(g.Fold, fold)
		g.Input = append(g.Input, id)
	})
	return g
}

// Where are g's rows whose fold keep takes.
func (g Grouped) Where(keep func(fold int) bool) Grouped {
	out := Grouped{Matrix: Matrix{F: g.F}}
	for i := 0; i < g.N; i++ {
		if keep(g.Fold[i]) {
			out.add(g.X[i*g.F:(i+1)*g.F], g.Y[i])
			out.Fold = append(out.Fold, g.Fold[i])
			out.Input = append(out.Input, g.Input[i])
		}
	}
	return out
}

// RankLoss is how much slower, on average over the inputs with two or more
// rows, the row a predictor ranks first runs than the input's fastest row:
// exp(y_best − y_picked) − 1 with y the measured ln TFLOP/s (one input's
// rows share its flops, so rates order as times do). It is the
// suboptimality of choosing among the measured configurations by pred.
func RankLoss(pred, y []float64, input []int) float64 {
	type pick struct{ pred, picked, best float64 }
	picks := map[int]*pick{}
	count := map[int]int{}
	for i, in := range input {
		count[in]++
		p, ok := picks[in]
		if !ok {
			picks[in] = &pick{pred[i], y[i], y[i]}
			continue
		}
		if pred[i] > p.pred {
			p.pred, p.picked = pred[i], y[i]
		}
		p.best = math.Max(p.best, y[i])
	}
	var sum float64
	n := 0
	for in, p := range picks {
		if count[in] < 2 {
			continue
		}
		sum += math.Exp(p.best-p.picked) - 1
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Calibration is one way of fitting a model to a device's rows: Fit
// returns the calibrated networks (train's folds let a way that trains
// hold some of its rows out).
type Calibration struct {
	Name string
	Fit  func(train Grouped) (predictor.Ensemble, error)
}

// FineTune trains every network of start further on train (TrainEnsemble
// from o.Start = start, as train -start and train-conv -start do), its
// highest fold held out for the early stopping: the calibration that
// learns the most from a device's rows, and the one that needs the most
// of them.
func FineTune(start predictor.Ensemble, train Grouped, o TrainOptions) (predictor.Ensemble, error) {
	last := -1
	for _, f := range train.Fold {
		last = max(last, f)
	}
	fit := train.Where(func(f int) bool { return f != last })
	valid := train.Where(func(f int) bool { return f == last })
	if fit.N == 0 || valid.N == 0 {
		return nil, fmt.Errorf("tune: fine-tuning needs rows of two folds or more")
	}
	o.Start = start
	nets, _ := TrainEnsemble(fit.Matrix, valid.Matrix, o, len(start))
	return nets, nil
}

// Scored is a calibration's cross-validated error: the mean squared
// error over every held-out row and the mean RankLoss over the folds, each
// with its standard error over the folds (their spread over √folds).
type Scored struct {
	Name          string
	MSE, Rank     float64
	MSESE, RankSE float64
}

// CrossValidate scores each calibration on g by holding out each of g's
// folds in turn (fitting on the others), the held-out rows' squared errors
// pooled and their rank losses averaged over the folds.
func CrossValidate(g Grouped, cals []Calibration) ([]Scored, error) {
	folds := map[int]bool{}
	for _, f := range g.Fold {
		folds[f] = true
	}
	out := make([]Scored, len(cals))
	for i, c := range cals {
		var sq float64
		var rows int
		var foldMSE, foldRank []float64
		for f := range folds {
			train := g.Where(func(x int) bool { return x != f })
			held := g.Where(func(x int) bool { return x == f })
			if train.N == 0 {
				continue
			}
			nets, err := c.Fit(train)
			if err != nil {
				return nil, err
			}
			pred := nets.Predict(held.X, held.N)
			var fsq float64
			for j, p := range pred {
				fsq += (p - held.Y[j]) * (p - held.Y[j])
			}
			sq += fsq
			rows += held.N
			foldMSE = append(foldMSE, fsq/float64(held.N))
			if r := RankLoss(pred, held.Y, held.Input); !math.IsNaN(r) {
				foldRank = append(foldRank, r)
			}
		}
		rank, rankSE := meanSE(foldRank)
		_, mseSE := meanSE(foldMSE)
		out[i] = Scored{Name: c.Name, MSE: sq / float64(max(rows, 1)), Rank: rank, MSESE: mseSE, RankSE: rankSE}
	}
	return out, nil
}

// meanSE is the mean of v and its standard error (NaN, NaN for no values;
// a single value has no spread: 0).
func meanSE(v []float64) (mean, se float64) {
	if len(v) == 0 {
		return math.NaN(), math.NaN()
	}
	for _, x := range v {
		mean += x / float64(len(v))
	}
	if len(v) < 2 {
		return mean, 0
	}
	var ss float64
	for _, x := range v {
		ss += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(ss/float64(len(v)-1)) / math.Sqrt(float64(len(v)))
}
