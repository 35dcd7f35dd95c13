package request

import (
	"math/rand/v2"
	"testing"
)

// conv3x3 is a valid 3×3 convolution of 8×64×28×28 float, NCHW.
func conv3x3() *Conv {
	return &Conv{
		X:   Tensor{Type: CudnnFloat, Dims: []int{8, 64, 28, 28}, Strides: []int{64 * 784, 784, 28, 1}},
		Y:   Tensor{Type: CudnnFloat, Dims: []int{8, 128, 28, 28}, Strides: []int{128 * 784, 784, 28, 1}},
		W:   Filter{Type: CudnnFloat, Dims: []int{128, 64, 3, 3}},
		Pad: []int{1, 1}, Stride: []int{1, 1}, Dilation: []int{1, 1},
		Mode: 1, Compute: CudnnFloat, Groups: 1, MathType: CudnnFMAMath,
		XPtr: 1 << 20, WPtr: 2 << 20, YPtr: 3 << 20,
		Alpha: Scalar{Ptr: 1, Value: 1}, Beta: Scalar{Ptr: 2},
	}
}

// Shape derives the implicit GEMM's sizes and answers what cuDNN rejects
// with invalid, what the kernels do not compute with unsupported.
func TestConvShape(t *testing.T) {
	s, r := conv3x3().Shape()
	if r != Served || s.P != 28 || s.Q != 28 || s.Pixels() != 8*784 || s.ReductionCRS() != 576 || s.TF32 || s.Flip {
		t.Fatalf("%v %v", s, r)
	}
	for _, tc := range []struct {
		name string
		edit func(*Conv)
		want Reason
	}{
		{"y of the wrong size", func(c *Conv) { c.Y.Dims[2] = 27 }, FwdInvalid},
		{"types differ", func(c *Conv) { c.W.Type = CudnnHalf }, FwdInvalid},
		{"filter channels", func(c *Conv) { c.W.Dims[1] = 32 }, FwdInvalid},
		{"NULL y", func(c *Conv) { c.YPtr = 0 }, FwdInvalid},
		{"NULL alpha", func(c *Conv) { c.Alpha.Ptr = 0 }, FwdInvalid},
		{"filter wider than the padded input", func(c *Conv) { c.W.Dims[3] = 31; c.Y.Dims[3] = 0 }, FwdInvalid},
		{"unknown mode", func(c *Conv) { c.Mode = 2 }, FwdInvalid},
		{"unknown algorithm", func(c *Conv) { c.Algo = 1234 }, FwdInvalid},
		{"negative algorithm", func(c *Conv) { c.Algo = -1 }, FwdInvalid},
		{"the last algorithm", func(c *Conv) { c.Algo = CudnnConvFwdAlgoCount - 1 }, Served},
		{"3-d", func(c *Conv) {
			c.X.Dims, c.Y.Dims, c.W.Dims = append(c.X.Dims, 4), append(c.Y.Dims, 4), append(c.W.Dims, 1)
			c.Pad, c.Stride, c.Dilation = []int{1, 1, 0}, []int{1, 1, 1}, []int{1, 1, 1}
		}, FwdUnsupported},
		{"int8", func(c *Conv) { c.X.Type, c.Y.Type, c.W.Type, c.Compute = CudnnInt8, CudnnInt8, CudnnInt8, CudnnInt32 }, FwdUnsupported},
		{"vectorized filter", func(c *Conv) { c.W.Format = 2 }, FwdUnsupported},
		{"grouped", func(c *Conv) { c.Groups = 2; c.W.Dims[1] = 32 }, Served},
		{"grouped, filter channels not C/G", func(c *Conv) { c.Groups = 2 }, FwdInvalid},
		{"half data, double compute", func(c *Conv) { c.X.Type, c.Y.Type, c.W.Type, c.Compute = CudnnHalf, CudnnHalf, CudnnHalf, CudnnDouble }, FwdUnsupported},
		{"offsets beyond 32 bits", func(c *Conv) { c.X.Strides[0] = 1 << 29 }, FwdTooLarge},
		{"y in NHWC", func(c *Conv) { c.Y.Strides = []int{784 * 128, 1, 28 * 128, 128} }, Served},
		{"y a slice of padded rows", func(c *Conv) { c.Y.Strides = []int{130 * 30 * 29, 30 * 29, 29, 1} }, Served},
		{"x with a stride of 0", func(c *Conv) { c.X.Strides[0] = 0 }, Served}, // read only: a batch of one image, repeated
		{"y with a stride of 0", func(c *Conv) { c.Y.Strides[0] = 0 }, FwdUnsupported},
		{"y's channels overlapping", func(c *Conv) { c.Y.Strides[1] = 500 }, FwdUnsupported},
		{"y's pixels overlapping their neighbours", func(c *Conv) { c.Y.Strides = []int{784 * 128, 1, 28 * 128, 64} }, FwdUnsupported},
	} {
		c := conv3x3()
		tc.edit(c)
		if _, r := c.Shape(); r != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, r, tc.want)
		}
	}
	c := conv3x3()
	c.MathType, c.Mode = CudnnDefaultMath, 0
	if s, _ := c.Shape(); !s.TF32 || !s.Flip {
		t.Errorf("default math and CUDNN_CONVOLUTION: %v", s)
	}
}

// overlaps is never false where two elements share an address (every
// offset of small tensors of drawn strides enumerated), and is false for
// packed and padded layouts in every order of their dimensions.
func TestOverlaps(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var dims, strides [4]int
		for i := range dims {
			dims[i], strides[i] = 1+rng.IntN(4), rng.IntN(20)
		}
		seen, dup := map[int]bool{}, false
		for a := range dims[0] {
			for b := range dims[1] {
				for c := range dims[2] {
					for d := range dims[3] {
						o := a*strides[0] + b*strides[1] + c*strides[2] + d*strides[3]
						dup = dup || seen[o]
						seen[o] = true
					}
				}
			}
		}
		if dup && !overlaps(dims, strides) {
			t.Fatalf("dims %v strides %v: elements share an address, overlaps says no", dims, strides)
		}
	}
	for _, perm := range [][4]int{{0, 1, 2, 3}, {0, 2, 3, 1}, {1, 0, 2, 3}, {3, 2, 1, 0}} {
		dims := [4]int{3, 5, 2, 7}
		var strides [4]int
		step := 1
		for i := 3; i >= 0; i-- { // perm[3] the fastest dimension, each row padded by one
			strides[perm[i]] = step
			step = (step*dims[perm[i]] + 1)
		}
		if overlaps(dims, strides) {
			t.Errorf("dims %v strides %v (packed and padded): overlaps says yes", dims, strides)
		}
	}
}

// FuzzConvShape: whatever the descriptors say, Shape answers without a
// panic, and a convolution it serves is one the kernels can address: y's
// dimensions are the output's, every dimension and stride positive where it
// matters, y's elements apart, and each tensor's extent the span of its
// strides.
func FuzzConvShape(f *testing.F) {
	f.Add(int16(8), int16(64), int16(28), int16(28), int16(128), int8(3), int8(3), int8(1), int8(1), int8(1), int8(1), int32(784), int32(28), int32(1), uint8(0))
	f.Add(int16(1), int16(3), int16(224), int16(224), int16(64), int8(7), int8(7), int8(3), int8(2), int8(1), int8(1), int32(1), int32(672), int32(3), uint8(1))
	f.Add(int16(2), int16(4), int16(5), int16(5), int16(4), int8(3), int8(3), int8(0), int8(1), int8(2), int8(4), int32(0), int32(5), int32(1), uint8(2))
	f.Fuzz(func(t *testing.T, n, c, h, w, k int16, r, s, pad, str, dil, groups int8, ysC, ysH, ysW int32, mode uint8) {
		cv := conv3x3()
		N, C, H, W, K := int(n), int(c), int(h), int(w), int(k)
		cv.X.Dims = []int{N, C, H, W}
		cv.X.Strides = []int{C * H * W, H * W, W, 1}
		g := max(int(groups), 1)
		cv.Groups = int(groups)
		cv.W.Dims = []int{K, C / g, int(r), int(s)}
		cv.Pad, cv.Stride, cv.Dilation = []int{int(pad), int(pad)}, []int{int(str), int(str)}, []int{int(dil), int(dil)}
		out := func(in int) int {
			if str == 0 {
				return 0
			}
			return (in+2*int(pad)-((int(r)-1)*int(dil)+1))/int(str) + 1
		}
		P, Q := out(H), out(W)
		cv.Y.Dims = []int{N, K, P, Q}
		cv.Y.Strides = []int{K * int(ysC), int(ysC), int(ysH), int(ysW)}
		cv.Mode = int(mode % 3)
		shape, reason := cv.Shape()
		if reason != Served {
			return
		}
		if shape.P != P || shape.Q != Q || shape.P < 1 || shape.Q < 1 {
			t.Fatalf("served with an output of %d×%d, y's %d×%d", shape.P, shape.Q, P, Q)
		}
		for _, v := range []int{shape.N, shape.C, shape.H, shape.W, shape.K, shape.R, shape.S, shape.G, shape.StrH, shape.DilH} {
			if v < 1 {
				t.Fatalf("served with a dimension %d: %v", v, shape)
			}
		}
		if overlaps([4]int{shape.N, shape.K, shape.P, shape.Q}, shape.YStrides) {
			t.Fatalf("served with y's elements overlapping: %v", shape)
		}
		if x, ok := extent([4]int{shape.N, shape.C, shape.H, shape.W}, shape.XStrides, shape.Type.Data.Size()); !ok || x != shape.XBytes || x <= 0 {
			t.Fatalf("x's extent %d (%v), shape says %d", x, ok, shape.XBytes)
		}
		if y, ok := extent([4]int{shape.N, shape.K, shape.P, shape.Q}, shape.YStrides, shape.Type.Data.Size()); !ok || y != shape.YBytes || y <= 0 {
			t.Fatalf("y's extent %d (%v), shape says %d", y, ok, shape.YBytes)
		}
	})
}
