package request

import (
	"math/rand/v2"
	"testing"
)

// memory is host memory for the test's GEMMs: each buffer by its fake
// address, elements by their offsets.
type memory map[uintptr][]float64

// at is the element at address base + off elements (a batch's matrices,
// a column's rows), or a failure past the buffer.
func (m memory) at(t *testing.T, base uintptr, off int64) *float64 {
	t.Helper()
	buf, ok := m[base]
	if !ok || off < 0 || off >= int64(len(buf)) {
		t.Fatalf("offset %d outside the buffer at %#x (%d elements)", off, base, len(buf))
	}
	return &buf[off]
}

// run computes column-major g (host alpha and beta, no epilogue) on m: C
// = alpha·op(A)·op(B) + beta·C for each matrix of its batch.
func (m memory) run(t *testing.T, g Gemm) {
	t.Helper()
	for b := int64(0); b < max(g.Batch, 1); b++ {
		for i := int64(0); i < g.M; i++ {
			for j := int64(0); j < g.N; j++ {
				var acc float64
				for l := int64(0); l < g.K; l++ {
					ai, bi := i+l*g.LDA, l+j*g.LDB
					if g.TransA.Transposed() {
						ai = l + i*g.LDA
					}
					if g.TransB.Transposed() {
						bi = j + l*g.LDB
					}
					acc += *m.at(t, g.A, b*g.StrideA+ai) * *m.at(t, g.B, b*g.StrideB+bi)
				}
				c := m.at(t, g.C, b*g.StrideC+i+j*g.LDC)
				*c = g.Alpha.Value*acc + g.Beta.Value**c
			}
		}
	}
}

// stridesOf are strides for n, c, h, w of a tensor laid out in the order
// given (outermost first), each dimension's extent padded by pad[d]
// elements, so that slices of larger tensors are covered too (padded
// images and channels keep a tensor a matrix; padded rows would not).
func stridesOf(dims [4]int, order [4]int, pad [4]int) [4]int {
	var st [4]int
	step := 1
	for i := 3; i >= 0; i-- {
		d := order[i]
		st[d] = step
		step *= dims[d] + pad[d]
	}
	return st
}

// TestPointwiseGemm checks the GEMM a pointwise convolution runs as
// against the convolution itself, computed directly, on random shapes in
// NCHW and NHWC orders (x's and y's alike or not), packed and as slices of larger tensors (padded
// channel, row and image strides), with alpha and beta: every element of
// y as the direct convolution gives it, and nothing written outside y.
func TestPointwiseGemm(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	nchw, nhwc := [4]int{0, 1, 2, 3}, [4]int{0, 2, 3, 1}
	kinds := map[string]int{}
	for iter := 0; iter < 400; iter++ {
		n, ch, h, w, k := 1+rng.IntN(3), 1+rng.IntN(5), 1+rng.IntN(4), 1+rng.IntN(5), 1+rng.IntN(4)
		xo, yo := nchw, nhwc
		if rng.IntN(2) == 0 {
			xo = nhwc
		}
		if rng.IntN(3) > 0 {
			yo = xo
		}
		var xp, yp [4]int
		if rng.IntN(2) == 0 {
			xp, yp = [4]int{rng.IntN(2), rng.IntN(3), 0, 0}, [4]int{rng.IntN(2), rng.IntN(3), 0, 0}
		}
		xd, yd := [4]int{n, ch, h, w}, [4]int{n, k, h, w}
		xs, ys := stridesOf(xd, xo, xp), stridesOf(yd, yo, yp)
		c := &Conv{
			X:   Tensor{Type: CudnnFloat, Dims: xd[:], Strides: xs[:]},
			Y:   Tensor{Type: CudnnFloat, Dims: yd[:], Strides: ys[:]},
			W:   Filter{Type: CudnnFloat, Format: rng.IntN(2), Dims: []int{k, ch, 1, 1}},
			Pad: []int{0, 0}, Stride: []int{1, 1}, Dilation: []int{1 + rng.IntN(2), 1},
			Mode: rng.IntN(2), Compute: CudnnFloat, Groups: 1, MathType: CudnnFMAMath,
			XPtr: 1 << 20, WPtr: 2 << 20, YPtr: 3 << 20,
			Alpha: Scalar{Ptr: 1, Value: 1.5}, Beta: Scalar{Ptr: 2, Value: float64(rng.IntN(2)) / 4},
		}
		s, r := c.Shape()
		if r != Served {
			t.Fatalf("%v: %v", c, r)
		}
		g, ok := c.PointwiseGemm(s)
		if !ok {
			// Every tensor here is one of the two orders with its
			// images and channels padded: pixel-major or channel-major.
			t.Fatalf("%v: no GEMM", s)
		}
		// y's order, then x's: y channel-major is wᵀ·x, x channel-major
		// is op N there and transposed in x·w.
		kind := "y pixel-major, x channel-major"
		switch {
		case g.A == c.WPtr && g.TransB == OpN:
			kind = "y channel-major, x channel-major"
		case g.A == c.WPtr:
			kind = "y channel-major, x pixel-major"
		case g.TransA == OpN:
			kind = "y pixel-major, x pixel-major"
		}
		if g.Batch > 1 {
			kind += ", batched"
		}
		kinds[kind]++
		span := func(d, st [4]int) int { return (d[0]-1)*st[0] + (d[1]-1)*st[1] + (d[2]-1)*st[2] + (d[3]-1)*st[3] + 1 }
		mem := memory{c.XPtr: make([]float64, span(xd, xs)), c.WPtr: make([]float64, k*ch), c.YPtr: make([]float64, span(yd, ys))}
		for _, buf := range mem {
			for i := range buf {
				buf[i] = float64(rng.IntN(7) - 3)
			}
		}
		want := append([]float64(nil), mem[c.YPtr]...)
		xAt := func(b, i, y, x int) float64 { return mem[c.XPtr][b*xs[0]+i*xs[1]+y*xs[2]+x*xs[3]] }
		for b := 0; b < n; b++ {
			for o := 0; o < k; o++ {
				for y := 0; y < h; y++ {
					for x := 0; x < w; x++ {
						var acc float64
						for i := 0; i < ch; i++ {
							acc += mem[c.WPtr][o*ch+i] * xAt(b, i, y, x)
						}
						at := b*ys[0] + o*ys[1] + y*ys[2] + x*ys[3]
						want[at] = 1.5*acc + c.Beta.Value*want[at]
					}
				}
			}
		}
		mem.run(t, g)
		for i, v := range mem[c.YPtr] {
			if v != want[i] {
				t.Fatalf("%s %v as %v: y[%d] = %v, want %v", kind, s, &g, i, v, want[i])
			}
		}
	}
	for _, kind := range []string{"y pixel-major, x pixel-major, batched", "y channel-major, x channel-major",
		"y channel-major, x channel-major, batched", "y channel-major, x pixel-major, batched", "y pixel-major, x channel-major, batched"} {
		if kinds[kind] == 0 {
			t.Errorf("no %s GEMM among the cases: %v", kind, kinds)
		}
	}
}

// TestPointwiseGemmRefuses: convolutions that are no GEMM of their
// tensors as they lie, and FLOAT with TF32 allowed.
func TestPointwiseGemmRefuses(t *testing.T) {
	pointwise := func() *Conv {
		c := conv3x3()
		c.W.Dims = []int{128, 64, 1, 1}
		c.Pad = []int{0, 0}
		return c
	}
	if s, _ := pointwise().Shape(); func() bool { _, ok := pointwise().PointwiseGemm(s); return !ok }() {
		t.Fatal("a packed NCHW 1×1 convolution is not a GEMM")
	}
	for _, tc := range []struct {
		name string
		edit func(*Conv)
	}{
		{"3×3", func(c *Conv) { c.W.Dims = []int{128, 64, 3, 3}; c.Y.Dims[2], c.Y.Dims[3] = 26, 26 }},
		{"padded", func(c *Conv) {
			c.Pad = []int{1, 0}
			c.Y.Dims[2], c.Y.Strides = 30, []int{128 * 30 * 28, 30 * 28, 28, 1}
		}},
		{"stride 2", func(c *Conv) { c.Stride = []int{2, 2}; c.Y.Dims[2], c.Y.Dims[3] = 14, 14 }},
		{"grouped", func(c *Conv) { c.Groups, c.W.Dims[1] = 2, 32 }},
		{"TF32", func(c *Conv) { c.MathType = CudnnDefaultMath }},
		{"x's rows apart", func(c *Conv) { c.X.Strides = []int{64 * 30 * 28, 30 * 28, 30, 1} }},
		{"x's pixels strided", func(c *Conv) { c.X.Strides = []int{64 * 784 * 2, 784 * 2, 56, 2} }},
		{"channels overlapping pixels", func(c *Conv) { c.X.Strides = []int{64 * 784, 700, 28, 1} }},
	} {
		c := pointwise()
		tc.edit(c)
		s, r := c.Shape()
		if r != Served {
			t.Fatalf("%s: %v", tc.name, r)
		}
		if g, ok := c.PointwiseGemm(s); ok {
			t.Errorf("%s: %v", tc.name, &g)
		}
	}
	// TRUE_HALF: alpha and beta become halves.
	c := pointwise()
	c.X.Type, c.Y.Type, c.W.Type, c.Compute = CudnnHalf, CudnnHalf, CudnnHalf, CudnnHalf
	c.Alpha.Value = 0.5
	s, _ := c.Shape()
	if g, ok := c.PointwiseGemm(s); !ok || g.Compute != Compute16F || g.Alpha.Bits != 0x3800 {
		t.Errorf("true half: %v %v alpha bits %#x", &g, ok, g.Alpha.Bits)
	}
}
