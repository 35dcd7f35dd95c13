//go:build !amd64

package predictor

// Without the amd64 kernel every layer takes gonum's product.
const (
	haveFMA = false
	fmaRows = 4
	fmaCols = 16
)

func layerFMA(out, in, w, b []float32, rows, k, cols int, relu bool) {
	panic("predictor: no FMA kernel on this architecture")
}
