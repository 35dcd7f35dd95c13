package predictor

import (
	"sync"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// net32 is an MLP's run-time form: the same network in float32, which
// halves the memory traffic of the small matrix products a chooser's
// search is made of and doubles the width of gonum's vector kernels. The
// chooser only ranks configurations, and float32 moves a prediction by
// about 1e-6 of its value (Model.Verify bounds it on the trainer's rows).
type net32 struct {
	sizes []int
	w     [][]float32 // w[l]: sizes[l]×sizes[l+1], row-major; the last layer's is a vector
	b     [][]float32
	mean  []float64
	scale []float64 // 1/Std
	yMean float64
	yStd  float64
}

// inference returns the MLP's float32 form, made on first use. The MLP
// must not change after that (decoded weights do not).
func (m *MLP) inference() *net32 {
	m.fast.once.Do(func() {
		n := &net32{sizes: m.Sizes, yMean: m.YMean, yStd: m.YStd, mean: m.Mean}
		for l := range m.W {
			n.w = append(n.w, to32(m.W[l]))
			n.b = append(n.b, to32(m.B[l]))
		}
		n.scale = make([]float64, len(m.Std))
		for i, s := range m.Std {
			n.scale[i] = 1 / s
		}
		m.fast.net = n
	})
	return m.fast.net
}

// lazyNet32 holds an MLP's run-time form (MLP.inference).
type lazyNet32 struct {
	once sync.Once
	net  *net32
}

// scratch holds float32 buffers for net32.predict.
var scratch sync.Pool // *[]float32

func getScratch(n int) *[]float32 {
	p, _ := scratch.Get().(*[]float32)
	if p == nil || cap(*p) < n {
		b := make([]float32, n)
		return &b
	}
	*p = (*p)[:n]
	return p
}

func to32(v []float64) []float32 {
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = float32(x)
	}
	return out
}

// predict writes the predictions (in the target's units) for n rows of raw
// features into y.
func (n *net32) predict(raw []float64, rows int, y []float64) {
	f := n.sizes[0]
	wide := 0
	for _, s := range n.sizes[1:] {
		wide = max(wide, s)
	}
	// One scratch buffer from a pool holds the input and two layers'
	// activations: a chooser's search would otherwise allocate megabytes
	// per input, and the collections that follow show in its latency.
	buf := getScratch(rows * (f + 2*wide))
	defer scratch.Put(buf)
	in, act := (*buf)[:rows*f], [2][]float32{(*buf)[rows*f : rows*(f+wide)], (*buf)[rows*(f+wide):]}
	for i := 0; i < rows; i++ {
		r, x := raw[i*f:(i+1)*f], in[i*f:(i+1)*f]
		for j, v := range r {
			x[j] = float32((v - n.mean[j]) * n.scale[j])
		}
	}
	last := len(n.w) - 1
	for l := 0; l < last; l++ {
		k, cols := n.sizes[l], n.sizes[l+1]
		out := act[l%2][:rows*cols]
		layer(out, in, n.w[l], n.b[l], rows, k, cols, true)
		in = out
	}
	// The one-output layer is a matrix-vector product (a dot product per
	// row), not a product with a one-column matrix.
	k := n.sizes[last]
	out := act[last%2][:rows]
	blas32.Gemv(blas.NoTrans, 1,
		blas32.General{Rows: rows, Cols: k, Stride: k, Data: in},
		blas32.Vector{N: k, Inc: 1, Data: n.w[last]},
		0, blas32.Vector{N: rows, Inc: 1, Data: out})
	b := n.b[last][0]
	for i, v := range out {
		y[i] = n.yMean + n.yStd*float64(v+b)
	}
}

// Score averages the members' run-time (float32) predictions for n rows
// of raw features: Predict's result to about 1e-6 relative, at about half
// its cost. It is what the chooser ranks configurations with; the trainer
// and Model.Verify use Predict. Large batches are split into row blocks as
// in Predict.
func (e Ensemble) Score(raw []float64, n int) []float64 {
	return e.average(raw, n, func(mi int) func([]float64, int, []float64) { return e[mi].inference().predict })
}
