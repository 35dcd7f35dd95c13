package predictor

import (
	"math/rand/v2"
	"testing"
)

// randomNet32 is a net32 of the shipped configuration model's shape
// (ConfigFeatures-64-128-64-1) with random weights.
func randomNet32(rng *rand.Rand) *net32 {
	sizes := []int{ConfigFeatures, 64, 128, 64, 1}
	n := &net32{sizes: sizes, yMean: 1, yStd: 2, mean: make([]float64, sizes[0]), scale: make([]float64, sizes[0])}
	for i := range n.scale {
		n.mean[i], n.scale[i] = rng.NormFloat64(), 1+rng.Float64()
	}
	for l := 0; l+1 < len(sizes); l++ {
		w := make([]float32, sizes[l]*sizes[l+1])
		for i := range w {
			w[i] = float32(rng.NormFloat64() / 8)
		}
		b := make([]float32, sizes[l+1])
		for i := range b {
			b[i] = float32(rng.NormFloat64() / 8)
		}
		n.w, n.b = append(n.w, w), append(n.b, b)
	}
	return n
}

// BenchmarkNet32Predict is one member's prediction for a seed pool's worth
// of rows, the bulk of a chooser's arithmetic.
func BenchmarkNet32Predict(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := randomNet32(rng)
	const rows = 1280
	raw := make([]float64, rows*ConfigFeatures)
	for i := range raw {
		raw[i] = rng.NormFloat64()
	}
	y := make([]float64, rows)
	macs := 0
	for l := 0; l+1 < len(n.sizes); l++ {
		macs += n.sizes[l] * n.sizes[l+1]
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n.predict(raw, rows, y)
	}
	b.ReportMetric(float64(macs*rows)*float64(b.N)/b.Elapsed().Seconds()/1e9, "GMAC/s")
}
