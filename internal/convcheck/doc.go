// Package convcheck is the conformance table of convolutions, the
// counterpart of gemmcheck: random cases over every served type, layout
// (NCHW, NHWC, strided slices of larger tensors), filter format, padding,
// stride, dilation and mode, host data exact in every type, the exact
// reference in float64 and one error bound. Every implementation (the
// kernels, the server, the C ABI, cuDNN) runs the same cases against it.
package convcheck
