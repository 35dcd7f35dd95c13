// Package cabitest tests libisaac.so as C programs see it, in the manner of
// Go's cmd/cgo/internal/testcshared: it builds the shared library, fake
// cuBLAS and cuDNN libraries that record what they receive, and C programs
// that call every entry point, then checks symbols, prototypes, argument
// forwarding, statuses, ISAAC_DISABLE, the fork guard, preloading, vendor
// resolution from a local scope, threads, and loading into Python.
//
// It needs gcc and no GPU. Set ISAAC_LIB to test an already built
// libisaac.so instead of building one.
package cabitest
