package predictor

import (
	"fmt"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
)

// MLP is a multi-layer perceptron with ReLU hidden layers and one linear
// output, on standardized features: the prediction for x is
// YMean + YStd·net((x − Mean) / Std).
type MLP struct {
	Sizes []int       // layer widths: input, hidden…, 1
	W     [][]float64 // W[l] is Sizes[l]×Sizes[l+1], row-major
	B     [][]float64 // B[l] has Sizes[l+1] entries
	Mean  []float64   // per feature
	Std   []float64   // per feature (never 0)
	YMean float64
	YStd  float64

	fast lazyNet32 // the run-time form (inference.go), made on first use
}

// NewMLP allocates an MLP of the given layer widths (weights zero,
// normalization the identity).
func NewMLP(sizes []int) *MLP {
	m := &MLP{Sizes: append([]int(nil), sizes...), YStd: 1}
	for l := 0; l+1 < len(sizes); l++ {
		m.W = append(m.W, make([]float64, sizes[l]*sizes[l+1]))
		m.B = append(m.B, make([]float64, sizes[l+1]))
	}
	m.Mean = make([]float64, sizes[0])
	m.Std = make([]float64, sizes[0])
	for i := range m.Std {
		m.Std[i] = 1
	}
	return m
}

// Params is the number of weights and biases.
func (m *MLP) Params() int {
	n := 0
	for l := range m.W {
		n += len(m.W[l]) + len(m.B[l])
	}
	return n
}

// Normalize writes the standardized rows of raw (n rows of Sizes[0]) into dst.
func (m *MLP) Normalize(dst, raw []float64) {
	f := m.Sizes[0]
	for i := range raw {
		j := i % f
		dst[i] = (raw[i] - m.Mean[j]) / m.Std[j]
	}
}

// Forward runs the network on n standardized rows x and returns every
// layer's output (acts[0] = x; the last is the standardized prediction).
// Training and inference share it.
func (m *MLP) Forward(x []float64, n int) [][]float64 {
	acts := [][]float64{x}
	in := x
	for l := range m.W {
		rows, cols := m.Sizes[l], m.Sizes[l+1]
		out := make([]float64, n*cols)
		for i := 0; i < n; i++ {
			copy(out[i*cols:(i+1)*cols], m.B[l])
		}
		blas64.Gemm(blas.NoTrans, blas.NoTrans, 1,
			blas64.General{Rows: n, Cols: rows, Stride: rows, Data: in},
			blas64.General{Rows: rows, Cols: cols, Stride: cols, Data: m.W[l]},
			1, blas64.General{Rows: n, Cols: cols, Stride: cols, Data: out})
		if l+1 < len(m.W) {
			for i, v := range out {
				if v < 0 {
					out[i] = 0
				}
			}
		}
		acts = append(acts, out)
		in = out
	}
	return acts
}

// Predict returns the predictions (in the target's units) for n rows of raw
// features.
func (m *MLP) Predict(raw []float64, n int) []float64 {
	x := make([]float64, len(raw))
	m.Normalize(x, raw)
	out := m.Forward(x, n)
	y := out[len(out)-1]
	for i := range y {
		y[i] = m.YMean + m.YStd*y[i]
	}
	return y
}

// check reports structural problems of decoded weights.
func (m *MLP) check() error {
	if len(m.Sizes) < 2 || m.Sizes[len(m.Sizes)-1] != 1 {
		return fmt.Errorf("predictor: layer sizes %v: need an input and one output", m.Sizes)
	}
	for l := 0; l+1 < len(m.Sizes); l++ {
		if m.Sizes[l] <= 0 || len(m.W[l]) != m.Sizes[l]*m.Sizes[l+1] || len(m.B[l]) != m.Sizes[l+1] {
			return fmt.Errorf("predictor: layer %d shape mismatch", l)
		}
	}
	if len(m.Mean) != m.Sizes[0] || len(m.Std) != m.Sizes[0] {
		return fmt.Errorf("predictor: normalization has %d/%d entries for %d features", len(m.Mean), len(m.Std), m.Sizes[0])
	}
	for _, s := range m.Std {
		if !(s > 0) {
			return fmt.Errorf("predictor: non-positive feature scale %g", s)
		}
	}
	return nil
}

// Ensemble is a set of MLPs trained alike (different seeds) whose
// predictions are averaged: averaging lowers the variance that a search
// over configurations would otherwise exploit.
type Ensemble []*MLP

// Predict averages the members' predictions for n rows of raw features.
// Large batches are split into row blocks, and every (member, block) runs on
// its own goroutine: a chooser's first call on a new shape scores about a
// thousand configurations, and the caller waits for it. The result does not
// depend on the split (each row's arithmetic is the same).
func (e Ensemble) Predict(raw []float64, n int) []float64 {
	return e.average(raw, n, func(mi int) func([]float64, int, []float64) {
		return func(raw []float64, rows int, out []float64) { copy(out, e[mi].Predict(raw, rows)) }
	})
}

// average has every member predict every row block of n rows of raw
// features (predict(member) computes one block), each (member, block) on
// its own goroutine, and averages the members' predictions.
func (e Ensemble) average(raw []float64, n int, predict func(member int) func(raw []float64, rows int, out []float64)) []float64 {
	if len(e) == 0 || n == 0 {
		return make([]float64, n)
	}
	feats := len(raw) / n
	blocks := predictBlocks(n, len(e))
	rows := ceilDivInt(n, blocks)
	parts := make([][]float64, len(e)*blocks) // member-major
	var wg sync.WaitGroup
	for mi := range e {
		run := predict(mi)
		for b := 0; b < blocks; b++ {
			lo, hi := b*rows, min(n, (b+1)*rows)
			if lo >= hi {
				continue
			}
			part := make([]float64, hi-lo)
			parts[mi*blocks+b] = part
			if len(e) == 1 && blocks == 1 {
				run(raw[lo*feats:hi*feats], hi-lo, part)
				continue
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				run(raw[lo*feats:hi*feats], hi-lo, part)
			}()
		}
	}
	wg.Wait()
	return averageParts(parts, e, blocks, rows, n)
}

// predictBlocks is the number of row blocks a batch of n rows is split
// into for an ensemble of members: about two goroutines per processor, none
// smaller than predictBlockRows.
func predictBlocks(n, members int) int {
	if workers := runtime.GOMAXPROCS(0); workers > 1 && n >= 2*predictBlockRows {
		return min(ceilDivInt(n, predictBlockRows), max(1, 2*workers/members))
	}
	return 1
}

// averageParts averages the members' predictions, held per (member, row
// block) in member-major order.
func averageParts(parts [][]float64, e Ensemble, blocks, rows, n int) []float64 {
	sum := make([]float64, n)
	for mi := range e {
		for b := 0; b < blocks; b++ {
			addInto(sum[b*rows:min(n, (b+1)*rows)], parts[mi*blocks+b])
		}
	}
	for i := range sum {
		sum[i] /= float64(len(e))
	}
	return sum
}

// predictBlockRows is the smallest row block Ensemble.Predict hands to a
// goroutine.
const predictBlockRows = 64

func ceilDivInt(a, b int) int { return (a + b - 1) / b }

// addInto adds y to dst element-wise.
func addInto(dst, y []float64) {
	for i := range y {
		dst[i] += y[i]
	}
}

// Params is the number of weights and biases of all members.
func (e Ensemble) Params() int {
	n := 0
	for _, m := range e {
		n += m.Params()
	}
	return n
}
