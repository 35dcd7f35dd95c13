// Package suites holds the GEMM benchmark suites' shapes (the ISAAC
// paper's Table 4 and the larger LINPACK sizes), shared by bench_compare,
// which measures them, and the tuner, which samples their neighbourhoods
// but never their exact shapes.
package suites

import "github.com/isaacgo/isaac/request"

// Shape is one GEMM input of a suite.
type Shape struct {
	Suite   string
	M, N, K int
	Layout  string // op(A) op(B): "NN", "NT", "TN" or "TT"
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

// Table4 is the ISAAC paper's Table 4 (LINPACK 512–2048, DeepBench forward
// and backward N = 16–128, ICA, LAPACK) plus LINPACK 4096 and 8192.
func Table4() []Shape {
	var s []Shape
	for _, n := range []int{512, 1024, 2048, 4096, 8192} {
		s = append(s, Shape{"linpack", n, n, n, "NT"})
	}
	for _, n := range []int{16, 32, 64, 128} {
		s = append(s, Shape{"deepbench-f", 2560, n, 2560, "NN"})
	}
	for _, n := range []int{16, 32, 64, 128} {
		s = append(s, Shape{"deepbench-b", 2560, n, 2560, "TN"})
	}
	for _, n := range []int{32, 64, 256} {
		s = append(s, Shape{"ica", n, n, 60000, "NT"})
	}
	for _, n := range []int{4096, 3456, 896} {
		s = append(s, Shape{"lapack", n, n, 32, "NT"})
	}
	return s
}
