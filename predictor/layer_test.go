package predictor

import (
	"math"
	"math/rand/v2"
	"testing"
)

// layer (the FMA kernel where the processor has one) agrees with gonum's
// product on every shape: row counts around the kernel's block (tails
// included), the networks' widths and odd ones, with and without ReLU.
func TestLayerMatchesGonum(t *testing.T) {
	if !haveFMA {
		t.Log("no AVX2/FMA on this processor: layer is gonum's product alone")
	}
	rng := rand.New(rand.NewPCG(3, 4))
	randv := func(n int) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(rng.NormFloat64())
		}
		return v
	}
	for _, rows := range []int{1, 3, 4, 5, 8, 13, 64, 130} {
		for _, k := range []int{1, 2, ConfigFeatures, 64, 128} {
			for _, cols := range []int{16, 24, 64, 128} {
				for _, relu := range []bool{false, true} {
					in, w, b := randv(rows*k), randv(k*cols), randv(cols)
					want := make([]float32, rows*cols)
					layerGonum(want, in, w, b, rows, k, cols, relu)
					got := randv(rows * cols) // garbage: layer must overwrite it
					layer(got, in, w, b, rows, k, cols, relu)
					for i := range want {
						tol := 1e-5 * (1 + math.Sqrt(float64(k)))
						if d := math.Abs(float64(got[i] - want[i])); d > tol || relu && got[i] < 0 {
							t.Fatalf("rows %d k %d cols %d relu %v: element %d (row %d) = %g, gonum %g",
								rows, k, cols, relu, i, i/cols, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

// The kernel keeps a NaN as gonum's path does (ReLU of NaN is NaN), so a
// broken network shows in its predictions instead of being clipped to 0.
func TestLayerNaN(t *testing.T) {
	const rows, k, cols = 4, 3, 16
	in := make([]float32, rows*k)
	in[k] = float32(math.NaN()) // row 1
	w, b := make([]float32, k*cols), make([]float32, cols)
	for i := range w {
		w[i] = 1
	}
	out := make([]float32, rows*cols)
	layer(out, in, w, b, rows, k, cols, true)
	for c := 0; c < cols; c++ {
		if !math.IsNaN(float64(out[cols+c])) {
			t.Fatalf("row 1 column %d = %g, want NaN", c, out[cols+c])
		}
		if out[c] != 0 {
			t.Fatalf("row 0 column %d = %g, want 0", c, out[c])
		}
	}
}

// A row's result does not depend on the rows beside it: the first row of
// a batch and the same row alone (a tail of the kernel's block) agree
// exactly, as the chooser's comparisons across batches need.
func TestLayerRowIndependent(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	k, cols := ConfigFeatures, 64
	for _, rows := range []int{1, 2, 4, 5, 9} {
		in := make([]float32, rows*k)
		for i := range in {
			in[i] = float32(rng.NormFloat64())
		}
		w, b := make([]float32, k*cols), make([]float32, cols)
		for i := range w {
			w[i] = float32(rng.NormFloat64())
		}
		batch := make([]float32, rows*cols)
		layer(batch, in, w, b, rows, k, cols, true)
		for r := 0; r < rows; r++ {
			alone := make([]float32, cols)
			layer(alone, in[r*k:(r+1)*k], w, b, 1, k, cols, true)
			for c := range alone {
				if alone[c] != batch[r*cols+c] {
					t.Fatalf("%d rows: row %d column %d: %g in the batch, %g alone", rows, r, c, batch[r*cols+c], alone[c])
				}
			}
		}
	}
}
