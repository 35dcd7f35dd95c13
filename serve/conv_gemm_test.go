package serve

import (
	"testing"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// pointwiseConv is a 1×1 convolution of n images of h×w pixels, c to k
// channels, of type dt (compute type ct), NCHW or NHWC.
func pointwiseConv(dt, ct request.CudnnDataType, n, c, h, w, k int, nhwc bool) *request.Conv {
	strides := func(ch int) []int {
		if nhwc {
			return []int{h * w * ch, 1, w * ch, ch}
		}
		return []int{ch * h * w, h * w, w, 1}
	}
	return &request.Conv{
		X:   request.Tensor{Type: dt, Dims: []int{n, c, h, w}, Strides: strides(c)},
		Y:   request.Tensor{Type: dt, Dims: []int{n, k, h, w}, Strides: strides(k)},
		W:   request.Filter{Type: dt, Dims: []int{k, c, 1, 1}},
		Pad: []int{0, 0}, Stride: []int{1, 1}, Dilation: []int{1, 1},
		Mode: 1, Compute: ct, Groups: 1, MathType: request.CudnnFMAMath,
		XPtr: 1 << 20, WPtr: 1 << 30, YPtr: 1 << 32,
		Alpha: request.Scalar{Ptr: 1, Value: 1}, Beta: request.Scalar{Ptr: 2},
	}
}

// The heuristic's GEMM route for pointwise convolutions: one matrix of
// FLOAT data in either layout, one 16-bit NCHW image whose pixels allow
// 4-byte copies; not batches of images, 16-bit NHWC tensors, or a 16-bit
// image of an odd number of pixels.
func TestGemmPreferred(t *testing.T) {
	f32, f16 := request.CudnnFloat, request.CudnnHalf
	for _, tc := range []struct {
		name string
		c    *request.Conv
		want bool
	}{
		{"FP32 NCHW, one image", pointwiseConv(f32, f32, 1, 256, 56, 56, 64, false), true},
		{"FP32 NHWC, a batch", pointwiseConv(f32, f32, 32, 256, 56, 56, 64, true), true},
		{"FP32 NCHW, a batch", pointwiseConv(f32, f32, 32, 256, 56, 56, 64, false), false},
		{"FP16 NCHW, one image", pointwiseConv(f16, f32, 1, 256, 56, 56, 64, false), true},
		{"FP16 NCHW, one image of 7×7", pointwiseConv(f16, f32, 1, 512, 7, 7, 2048, false), false},
		{"FP16 NHWC, one image", pointwiseConv(f16, f32, 1, 256, 56, 56, 64, true), false},
		{"FP16 NCHW, a batch", pointwiseConv(f16, f32, 8, 256, 56, 56, 64, false), false},
	} {
		s, r := tc.c.Shape()
		if r != request.Served {
			t.Fatalf("%s: %v", tc.name, r)
		}
		g, ok := tc.c.PointwiseGemm(s)
		if !ok {
			t.Fatalf("%s: no GEMM", tc.name)
		}
		cls, err := space.Class(&g)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		r2 := gemmRoute{g: g, t: kernels.Target{Class: cls}, pixelsByK: g.B == tc.c.WPtr}
		if got := gemmPreferred(r2); got != tc.want {
			t.Errorf("%s (%v): %v, want %v", tc.name, &g, got, tc.want)
		}
	}
}
