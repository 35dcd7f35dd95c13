// Package cabitest tests libisaac.so as C programs see it, in the manner of
// Go's cmd/cgo/internal/testcshared: it builds the shared library, fake
// cuBLAS, cuBLASLt and cuDNN libraries that record what they receive (the
// fake cuBLASLt's descriptors store their attributes), and C programs that
// call every entry point, then checks symbols, prototypes, argument
// forwarding, statuses, ISAAC_DISABLE, the fork guard, preloading, vendor
// resolution from a local scope, threads, cublasLtMatmul's descriptor
// reading, and loading into Python.
//
// It needs gcc and no GPU. Set ISAAC_LIB to test an already built
// libisaac.so instead of building one.
package cabitest
