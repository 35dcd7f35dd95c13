package request

import (
	"math"
)

// A pointwise convolution (a 1×1 filter, stride 1, no padding, one group)
// is a product of matrices: y[n][k][p] = Σ_c w[k][c]·x[n][c][p] over the
// pixels p of each image. Where x and y lie as matrices (a unit stride
// along one of pixels or channels and a uniform stride along the other)
// it runs as a GEMM, or a strided batch of one GEMM an image, with no
// gather and no copies: PointwiseGemm says which.

// PointwiseGemm is convolution c of shape s as the column-major GEMM that
// computes it, when it has one:
//
//   - a channel-major y (NHWC-like: unit channel stride, an image's pixels
//     one stride apart) is the K × pixels matrix wᵀ · x: m = K, A the
//     filter (C × K with ld C, transposed), B x as C × pixels (channel-
//     major, ld its pixel stride) or pixels × C (pixel-major, transposed);
//   - a pixel-major y (NCHW-like: an image's pixels consecutive, channels
//     one stride apart) is the pixels × K matrix x · w: m = pixels, A x as
//     pixels × C (pixel-major, ld its channel stride) or C × pixels
//     (channel-major, transposed), B the filter (C × K, ld C);
//   - one GEMM of the batch's N·H·W pixels where x and y are channel-major
//     with every pixel of the tensor one stride apart, else a strided
//     batch of N GEMMs of an image's H·W pixels each, x's and y's image
//     strides apart, the filter shared (stride 0).
//
// alpha and beta are the convolution's, in the GEMM type's accumulator
// (a float for TRUE_HALF becomes a half, as its kernels compute in
// halves). FLOAT with TF32 allowed has none: the GEMM kernels read TF32
// operands truncated, where cuDNN's round.
func (c *Conv) PointwiseGemm(s ConvShape) (Gemm, bool) {
	if s.R != 1 || s.S != 1 || s.G != 1 || s.PadH != 0 || s.PadW != 0 || s.StrH != 1 || s.StrW != 1 {
		return Gemm{}, false
	}
	t, ok := pointwiseType(s)
	if !ok {
		return Gemm{}, false
	}
	g := Gemm{
		Entry: EntryGemmEx, Handle: c.Handle, Stream: c.Stream,
		AType: t.AB, BType: t.AB, CType: t.C, Compute: t.Compute(), Algo: AlgoDefault,
		Alpha: accScalar(c.Alpha, t.Acc), Beta: accScalar(c.Beta, t.Acc),
		K: int64(s.C), Batch: 1,
	}
	x, y := s.XStrides, s.YStrides
	hw := s.H * s.W
	ldx, wholeX, xRows := channelMajor(s.N, s.H, s.W, s.C, x)
	if !xRows {
		if ldx, ok = pixelMajor(s.H, s.W, s.C, x); !ok {
			return Gemm{}, false
		}
	}
	ldy, wholeY, yRows := channelMajor(s.N, s.H, s.W, s.K, y)
	if !yRows {
		if ldy, ok = pixelMajor(s.H, s.W, s.K, y); !ok {
			return Gemm{}, false
		}
	}
	filter := int64(s.C) // the filter's ld, as C × K
	pixels := int64(hw)  // an image's
	if xRows && yRows && wholeX && wholeY {
		pixels = int64(s.N * hw) // the batch's pixels, one matrix
	} else if s.N > 1 {
		g.Entry, g.Batch = EntryGemmStridedBatchedEx, int64(s.N)
	}
	g.C, g.LDC = c.YPtr, int64(ldy)
	if yRows {
		// y (K × pixels) = wᵀ (K × C) · x (C × pixels)
		g.M, g.N = int64(s.K), pixels
		g.TransA, g.A, g.LDA = OpT, c.WPtr, filter
		g.TransB, g.B, g.LDB = OpN, c.XPtr, int64(ldx)
		if !xRows {
			g.TransB = OpT // x (pixels × C), transposed
		}
		if g.Batch > 1 {
			g.StrideB, g.StrideC = int64(x[0]), int64(y[0])
		}
	} else {
		// y (pixels × K) = x (pixels × C) · w (C × K)
		g.M, g.N = pixels, int64(s.K)
		g.TransA, g.A, g.LDA = OpN, c.XPtr, int64(ldx)
		if xRows {
			g.TransA = OpT // x (C × pixels), transposed
		}
		g.TransB, g.B, g.LDB = OpN, c.WPtr, filter
		if g.Batch > 1 {
			g.StrideA, g.StrideC = int64(x[0]), int64(y[0])
		}
	}
	return g, g.Validate() == nil
}

// pointwiseType is the GEMM type of a pointwise convolution of s's type.
func pointwiseType(s ConvShape) (GemmType, bool) {
	switch s.Type.Data {
	case CudnnFloat:
		return Sgemm, !s.TF32
	case CudnnDouble:
		return Dgemm, true
	case CudnnHalf:
		if s.Type.Compute == CudnnHalf {
			return Hgemm, true
		}
		return GemmExF16F32, true
	case CudnnBFloat16:
		return GemmExBF16F32, true
	}
	return GemmType{}, false
}

// accScalar is a convolution's host scalar (its Value read) as a GEMM's
// of accumulator type acc.
func accScalar(v Scalar, acc DataType) Scalar {
	out := Scalar{Ptr: v.Ptr, Value: v.Value}
	switch acc {
	case R16F:
		out.Bits = uint64(HalfBits(v.Value))
	case R64F:
		out.Bits = math.Float64bits(v.Value)
	default:
		out.Bits = uint64(math.Float32bits(float32(v.Value)))
	}
	return out
}

// channelMajor reports whether a tensor of n images of h×w pixels of ch
// channels with (n, c, h, w) element strides st has its channels at unit
// stride and each image's pixels one stride ld apart, ld ≥ ch (rows that
// do not overlap), and whether the images' pixels are too (whole).
func channelMajor(n, h, w, ch int, st [4]int) (ld int, whole, ok bool) {
	if ch > 1 && st[1] != 1 {
		return 0, false, false
	}
	// The pixel stride: of the innermost pixel dimension that is not 1.
	ld = ch
	switch {
	case w > 1:
		ld = st[3]
	case h > 1:
		ld = st[2]
	case n > 1:
		ld = st[0]
	}
	if ld < ch || h > 1 && w > 1 && st[2] != w*ld {
		return 0, false, false
	}
	whole = n == 1 || h*w == 1 && st[0] == ld || st[0] == h*w*ld
	return ld, whole, true
}

// pixelMajor reports whether an image of h×w pixels of ch channels with
// (n, c, h, w) element strides st has its pixels consecutive, and its
// channels ld ≥ h·w apart.
func pixelMajor(h, w, ch int, st [4]int) (ld int, ok bool) {
	if w > 1 && st[3] != 1 || h > 1 && st[2] != w {
		return 0, false
	}
	ld = h * w
	if ch > 1 {
		ld = st[1]
	}
	return ld, ld >= h*w
}
