// Package gemmcheck is the conformance machinery for GEMM implementations
// (in the manner of gonum's blas/testblas): random cases covering every data
// type, layout, odd size, padded leading dimension, misaligned pointer and
// scalar, host-side encoding of inputs, an exact float64 reference, and
// documented error bounds. Its TestGPUConformance runs one table of cases
// through every implementation (ISAAC's kernels, its server, libisaac.so's
// C entry points, cuBLAS) against the same bound.
//
// Inputs are multiples of 1/8 in [-1, 1]: exact in f16, bf16, tf32, f32 and
// f64, so every product is exact and the float64 reference is the exact
// result (sums stay far below 2^53 / 64 for k ≤ 10^7). The error bound of an
// element is
//
//	|c - ref| ≤ 2·((k+2)·u_acc·S + u_out·|ref|) + tiny,   S = |α|·Σ|a||b| + |β|·|c0|
//
// with u_acc the unit roundoff of the accumulation (2^-24 for f32 and tf32
// accumulation, 2^-53 for f64, 2^-11 for f16) and u_out that of the output
// type (2^-24, 2^-53, 2^-11 f16, 2^-8 bf16): the classical worst-case
// bound of a recursive dot product plus the final rounding, with a factor 2
// margin for the order of the split-K and the in-block reductions.
package gemmcheck
