// Package suites holds the benchmark suites' shapes: the GEMMs (the ISAAC
// paper's Table 4 and the larger LINPACK sizes, batched attention, nn.Linear
// layers with a bias) and the convolutions, shared by bench_compare, which
// measures them, and the tuner, which samples their neighbourhoods but
// never their exact shapes.
package suites

import (
	"fmt"

	"github.com/isaacgo/isaac/request"
)

// Shape is one GEMM input of a suite.
type Shape struct {
	Suite   string
	M, N, K int
	Layout  string // op(A) op(B): "NN", "NT", "TN" or "TT"
	Batch   int    // a strided batch of Batch such GEMMs, packed one after another (0 or 1: one)
	Name    string // the input's name where it has one
	// Bias is a bias per row of C (m elements, C's type): the input is a
	// cublasLtMatmul call with the BIAS epilogue (Linear).
	Bias bool
}

// Ops returns the cuBLAS operations of the layout.
func (s Shape) Ops() (request.Op, request.Op) {
	op := func(c byte) request.Op {
		if c == 'T' {
			return request.OpT
		}
		return request.OpN
	}
	return op(s.Layout[0]), op(s.Layout[1])
}

// Attention is batched attention-style products (issue 25): for
// batch·heads of 32 to 1024 and sequences of 128 to 4096 (at most 2²⁸
// scores in all), head dimension 64 and 128, the scores S = Q·Kᵀ and the
// output P·V of PyTorch's row-major tensors as cuBLAS computes them in
// column-major order: Sᵀ = K·Qᵀ (m = n = sequence, k = head dimension,
// "TN") and (P·V)ᵀ = Vᵀ·Pᵀ (m = head dimension, n = k = sequence, "NN").
func Attention() []Shape {
	var s []Shape
	for _, bh := range []int{32, 128, 512, 1024} {
		for _, seq := range []int{128, 512, 1024, 2048, 4096} {
			if bh*seq*seq > 1<<28 {
				continue
			}
			for _, d := range []int{64, 128} {
				s = append(s,
					Shape{Suite: "attention", M: seq, N: seq, K: d, Layout: "TN", Batch: bh, Name: fmt.Sprintf("qk-b%d-s%d-d%d", bh, seq, d)},
					Shape{Suite: "attention", M: d, N: seq, K: seq, Layout: "NN", Batch: bh, Name: fmt.Sprintf("pv-b%d-s%d-d%d", bh, seq, d)})
			}
		}
	}
	return s
}

// Table4 is the ISAAC paper's Table 4 (LINPACK 512–2048, DeepBench forward
// and backward N = 16–128, ICA, LAPACK) plus LINPACK 4096 and 8192.
func Table4() []Shape {
	var s []Shape
	for _, n := range []int{512, 1024, 2048, 4096, 8192} {
		s = append(s, Shape{Suite: "linpack", M: n, N: n, K: n, Layout: "NT"})
	}
	for _, n := range []int{16, 32, 64, 128} {
		s = append(s, Shape{Suite: "deepbench-f", M: 2560, N: n, K: 2560, Layout: "NN"})
	}
	for _, n := range []int{16, 32, 64, 128} {
		s = append(s, Shape{Suite: "deepbench-b", M: 2560, N: n, K: 2560, Layout: "TN"})
	}
	for _, n := range []int{32, 64, 256} {
		s = append(s, Shape{Suite: "ica", M: n, N: n, K: 60000, Layout: "NT"})
	}
	for _, n := range []int{4096, 3456, 896} {
		s = append(s, Shape{Suite: "lapack", M: n, N: n, K: 32, Layout: "NT"})
	}
	return s
}
