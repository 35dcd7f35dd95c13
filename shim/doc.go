// Package shim is the C face of libisaac.so: the exported cuBLAS and cuDNN
// entry points with the vendor's exact prototypes (cublas_entry.c,
// cudnn_entry.c), the search for the real vendor functions (vendor.c), the
// guards taken in C before any Go code runs and the ISAAC_LOG counters
// (guards.c), and, on the Go side, the decoding of an intercepted call into a
// typed request, reading the handle's state through the vendor's getters.
//
// Nothing here knows about kernels: package main (exports.go) hands the
// decoded request to the dispatcher and returns its answer to C.
package shim

/*
#cgo CFLAGS: -O2 -Wall -Wextra -Wno-unused-parameter -fvisibility=hidden
#cgo LDFLAGS: -ldl -lpthread
*/
import "C"
