// Package request holds the typed form of the calls libisaac.so intercepts:
// a GEMM or a convolution as the application asked for it, with the state
// of its cuBLAS handle or cuDNN descriptors, and the reasons a call can be
// handed back to the vendor. It has no cgo and no CUDA: the shim fills these
// types in, the dispatcher, the predictor and the kernels read them.
package request
