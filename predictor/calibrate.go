package predictor

import (
	"fmt"

	"gonum.org/v1/gonum/mat"
)

// Calibrate returns a copy of m whose output layer is refit to
// measurements from another device: n rows of raw features with their
// measured targets y (m's units: ln TFLOP/s). The hidden layers, the
// feature normalization and the target scale stay m's — what its training
// device taught about the configurations — and the output layer, which
// weighs those hidden features, is refit by ridge regression of the
// standardized targets on the last hidden layer's activations, pulled
// towards m's own output weights with strength lambda per row (so that a
// few hundred measurements move the weighting, not past what they show).
// Calibrating on m's own predictions returns m's predictions.
func (m *MLP) Calibrate(raw, y []float64, n int, lambda float64) (*MLP, error) {
	f := m.Sizes[0]
	switch {
	case n <= 0 || len(raw) != n*f || len(y) != n:
		return nil, fmt.Errorf("predictor: calibrate on %d rows of %d features and %d targets", n, len(raw)/max(f, 1), len(y))
	case !(lambda > 0):
		return nil, fmt.Errorf("predictor: calibrate with ridge strength %g (want > 0)", lambda)
	}
	x := make([]float64, len(raw))
	m.Normalize(x, raw)
	acts := m.Forward(x, n)
	last := len(m.W) - 1
	h := m.Sizes[last] // the output layer's inputs, and a bias
	hidden := acts[last]
	// θ = [w; b] minimizes |Aθ − t|² + λn|θ − θ₀|², A = [hidden 1], t the
	// standardized targets: (AᵀA + λnI)θ = Aᵀt + λnθ₀.
	a := mat.NewDense(n, h+1, nil)
	t := mat.NewVecDense(n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < h; j++ {
			a.Set(i, j, hidden[i*h+j])
		}
		a.Set(i, h, 1)
		t.SetVec(i, (y[i]-m.YMean)/m.YStd)
	}
	theta0 := mat.NewVecDense(h+1, append(append([]float64(nil), m.W[last]...), m.B[last][0]))
	reg := lambda * float64(n)
	var gram mat.SymDense
	gram.SymOuterK(1, a.T())
	for j := 0; j <= h; j++ {
		gram.SetSym(j, j, gram.At(j, j)+reg)
	}
	var rhs mat.VecDense
	rhs.MulVec(a.T(), t)
	rhs.AddScaledVec(&rhs, reg, theta0)
	var chol mat.Cholesky
	if !chol.Factorize(&gram) {
		return nil, fmt.Errorf("predictor: calibration's normal equations are not positive definite")
	}
	var theta mat.VecDense
	if err := chol.SolveVecTo(&theta, &rhs); err != nil {
		return nil, fmt.Errorf("predictor: calibration: %v", err)
	}
	c := &MLP{Sizes: append([]int(nil), m.Sizes...), Mean: m.Mean, Std: m.Std, YMean: m.YMean, YStd: m.YStd}
	for l := range m.W {
		c.W = append(c.W, append([]float64(nil), m.W[l]...))
		c.B = append(c.B, append([]float64(nil), m.B[l]...))
	}
	for j := 0; j < h; j++ {
		c.W[last][j] = theta.AtVec(j)
	}
	c.B[last][0] = theta.AtVec(h)
	return c, nil
}

// Calibrate calibrates every member of e (MLP.Calibrate).
func (e Ensemble) Calibrate(raw, y []float64, n int, lambda float64) (Ensemble, error) {
	out := make(Ensemble, len(e))
	for i, m := range e {
		c, err := m.Calibrate(raw, y, n, lambda)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

// Affine returns a copy of e whose predictions are a·p + b where e predicts
// p (ln TFLOP/s): each member's target scale moved, nothing else. With
// a > 0 it ranks any set of rows as e does — a device that runs every
// kernel at a common factor of another's speed, and faster or slower
// memory felt alike by all — so it corrects the level that the choice
// between ISAAC and the vendor reads without touching which configuration
// ranks first.
func (e Ensemble) Affine(a, b float64) Ensemble {
	out := make(Ensemble, len(e))
	for i, m := range e {
		c := &MLP{Sizes: m.Sizes, W: m.W, B: m.B, Mean: m.Mean, Std: m.Std, YMean: a*m.YMean + b, YStd: a * m.YStd}
		out[i] = c
	}
	return out
}

// FitAffine is the a > 0 and b of y ≈ a·p + b by least squares, pulled
// towards the identity (a = 1, b = 0) with strength lambda per row; a is
// kept at least 0.05 so that the fit never reverses or flattens a ranking.
func FitAffine(p, y []float64, lambda float64) (a, b float64, err error) {
	n := len(p)
	if n == 0 || len(y) != n || lambda < 0 {
		return 0, 0, fmt.Errorf("predictor: affine fit on %d predictions and %d targets, ridge %g", n, len(y), lambda)
	}
	var sp, sy, spp, spy float64
	for i := range p {
		sp, sy, spp, spy = sp+p[i], sy+y[i], spp+p[i]*p[i], spy+p[i]*y[i]
	}
	reg := lambda * float64(n)
	// (AᵀA + reg·I)[a b]ᵀ = Aᵀy + reg·[1 0]ᵀ, A = [p 1].
	g := mat.NewSymDense(2, []float64{spp + reg, sp, sp, float64(n) + reg})
	rhs := mat.NewVecDense(2, []float64{spy + reg, sy})
	var chol mat.Cholesky
	if !chol.Factorize(g) {
		return 0, 0, fmt.Errorf("predictor: affine fit: singular normal equations")
	}
	var ab mat.VecDense
	if err := chol.SolveVecTo(&ab, rhs); err != nil {
		return 0, 0, fmt.Errorf("predictor: affine fit: %v", err)
	}
	a, b = ab.AtVec(0), ab.AtVec(1)
	if a < 0.05 { // refit b alone at the floor
		a = 0.05
		b = (sy - a*sp) / (float64(n) + reg)
	}
	return a, b, nil
}
