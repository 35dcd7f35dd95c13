package predictor

import "golang.org/x/sys/cpu"

// haveFMA: the processor (and the operating system, for the YMM state)
// supports AVX2 and FMA, which layerFMA's kernel needs.
var haveFMA = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// The kernel's block: fmaRows rows by fmaCols columns of the output.
const (
	fmaRows = 4
	fmaCols = 16
)

// gemm4x16 computes a 4×16 block of the output: for r < 4, c < 16,
// out[r·ldOut + c] = bias[c] + Σ_{l<k} in[r·ldIn + l]·w[l·ldW + c], with
// fused multiply-adds in l order, then max(·, 0) when relu is set. Strides
// are in elements. Implemented in layer_amd64.s.
//
//go:noescape
func gemm4x16(in *float32, ldIn int, w *float32, ldW int, bias *float32, out *float32, ldOut int, k int, relu bool)

// layerFMA is layer for rows a multiple of fmaRows and cols of fmaCols,
// block by block.
func layerFMA(out, in, w, b []float32, rows, k, cols int, relu bool) {
	if rows == 0 {
		return
	}
	_ = in[rows*k-1]
	_ = out[rows*cols-1]
	for r := 0; r < rows; r += fmaRows {
		for c := 0; c < cols; c += fmaCols {
			gemm4x16(&in[r*k], k, &w[c], cols, &b[c], &out[r*cols+c], cols, k, relu)
		}
	}
}
