package predictor

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// layer computes one hidden layer of a net32 for rows rows: out = in·w + b
// (in: rows×k, w: k×cols, both row-major), then ReLU when relu is set.
// Where the processor has AVX2 and FMA (layer_amd64.go) and cols is a
// multiple of the kernel's 16 columns, every row goes through an 8-wide
// fused multiply-add kernel, 4 rows at a time: gonum's float32 products are
// 4-wide SSE multiply-then-add, and these products are most of a chooser's
// latency (BenchmarkNet32Predict compares the two). Other layers,
// and every other processor, take gonum's product.
func layer(out, in, w, b []float32, rows, k, cols int, relu bool) {
	in, out = in[:rows*k], out[:rows*cols]
	_ = w[k*cols-1]
	_ = b[cols-1]
	if !haveFMA || cols%fmaCols != 0 {
		layerGonum(out, in, w, b, rows, k, cols, relu)
		return
	}
	full := rows - rows%fmaRows
	layerFMA(out, in, w, b, full, k, cols, relu)
	if full < rows {
		// The last rows go through the kernel too, in a zero-padded
		// block, so that a row's result does not depend on its place in
		// the batch (the chooser compares scores across batches).
		tail := rows - full
		pin, pout := make([]float32, fmaRows*k), make([]float32, fmaRows*cols)
		copy(pin, in[full*k:])
		layerFMA(pout, pin, w, b, fmaRows, k, cols, relu)
		copy(out[full*cols:], pout[:tail*cols])
	}
}

// layerGonum is layer through gonum's Sgemm.
func layerGonum(out, in, w, b []float32, rows, k, cols int, relu bool) {
	for i := 0; i < rows; i++ {
		copy(out[i*cols:(i+1)*cols], b)
	}
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1,
		blas32.General{Rows: rows, Cols: k, Stride: k, Data: in},
		blas32.General{Rows: k, Cols: cols, Stride: cols, Data: w},
		1, blas32.General{Rows: rows, Cols: cols, Stride: cols, Data: out})
	if relu {
		for i, v := range out[:rows*cols] {
			if v < 0 {
				out[i] = 0
			}
		}
	}
}
