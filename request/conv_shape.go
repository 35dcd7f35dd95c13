package request

import "fmt"

// ConvType is one of cuDNN's data-type configurations of a convolution that
// ISAAC's kernels compute: the tensors' type and the convolution
// descriptor's compute type.
type ConvType struct {
	Name    string
	Data    CudnnDataType // x, w and y
	Compute CudnnDataType
}

// ConvTypes are the served configurations (cuDNN's FLOAT, DOUBLE,
// PSEUDO_HALF, TRUE_HALF and BFLOAT16 with float compute). FLOAT uses TF32
// tensor cores where the math type allows them, as cuDNN does.
var ConvTypes = []ConvType{
	{"float", CudnnFloat, CudnnFloat},
	{"double", CudnnDouble, CudnnDouble},
	{"pseudo_half", CudnnHalf, CudnnFloat},
	{"true_half", CudnnHalf, CudnnHalf},
	{"bfloat16", CudnnBFloat16, CudnnFloat},
}

// cudnnMathType_t values.
const (
	CudnnDefaultMath  = 0
	CudnnTensorOpMath = 1
	CudnnTensorOpConv = 2 // CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION
	CudnnFMAMath      = 3
)

// Size is the element size in bytes (0 for the types not served).
func (d CudnnDataType) Size() int {
	switch d {
	case CudnnHalf, CudnnBFloat16:
		return 2
	case CudnnFloat:
		return 4
	case CudnnDouble:
		return 8
	}
	return 0
}

// ConvShape is a 2-D convolution as the implicit GEMM sees it: the input
// x (N×C×H×W), the filter (K×C/G×R×S), the output y (N×K×P×Q), and the
// element strides of x and y in the order n, c, h, w (any layout: NCHW,
// NHWC, a slice of a larger tensor).
type ConvShape struct {
	Type                   ConvType
	TF32                   bool // FLOAT data, math type other than FMA
	N, C, H, W             int
	K, R, S, G             int
	P, Q                   int
	PadH, PadW             int
	StrH, StrW             int
	DilH, DilW             int
	Flip                   bool // CUDNN_CONVOLUTION: the filter is applied flipped
	FilterNHWC             bool // the filter's format: K×R×S×C in memory (else K×C×R×S)
	XStrides, YStrides     [4]int
	XBytes, YBytes, WBytes int // the extent of each tensor in bytes
}

// Shape is the convolution's shape, or the reason the vendor must take it:
// invalid where cuDNN itself rejects the call (it answers with its own
// status; an algorithm outside cudnnConvolutionFwdAlgo_t among them, which
// the kernels would not need but cuDNN refuses), unsupported for what the kernels do not compute (other ranks,
// types, formats), too large for offsets beyond 32 bits.
func (c *Conv) Shape() (ConvShape, Reason) {
	var s ConvShape
	if len(c.X.Dims) != 4 || len(c.Y.Dims) != 4 || len(c.W.Dims) != 4 || len(c.Pad) != 2 {
		if len(c.X.Dims) < 3 || len(c.X.Dims) != len(c.Y.Dims) || len(c.X.Dims) != len(c.W.Dims) {
			return s, FwdInvalid
		}
		return s, FwdUnsupported
	}
	if c.X.Type != c.Y.Type || c.X.Type != c.W.Type || c.XPtr == 0 || c.WPtr == 0 || c.YPtr == 0 ||
		c.Alpha.Ptr == 0 || c.Beta.Ptr == 0 || c.Mode != 0 && c.Mode != 1 || c.Algo < 0 || c.Algo >= CudnnConvFwdAlgoCount {
		return s, FwdInvalid
	}
	ti := -1
	for i, t := range ConvTypes {
		if t.Data == c.X.Type && t.Compute == c.Compute {
			ti = i
		}
	}
	if ti < 0 || c.W.Format != 0 && c.W.Format != 1 {
		return s, FwdUnsupported
	}
	s.Type = ConvTypes[ti]
	s.TF32 = s.Type.Data == CudnnFloat && c.MathType != CudnnFMAMath
	s.N, s.C, s.H, s.W = c.X.Dims[0], c.X.Dims[1], c.X.Dims[2], c.X.Dims[3]
	s.K, s.R, s.S = c.W.Dims[0], c.W.Dims[2], c.W.Dims[3]
	s.G = c.Groups
	s.PadH, s.PadW = c.Pad[0], c.Pad[1]
	s.StrH, s.StrW = c.Stride[0], c.Stride[1]
	s.DilH, s.DilW = c.Dilation[0], c.Dilation[1]
	s.Flip = c.Mode == 0
	s.FilterNHWC = c.W.Format == 1
	copy(s.XStrides[:], c.X.Strides)
	copy(s.YStrides[:], c.Y.Strides)
	for _, v := range []int{s.N, s.C, s.H, s.W, s.K, s.R, s.S, s.G, s.StrH, s.StrW, s.DilH, s.DilW} {
		if v <= 0 {
			return s, FwdInvalid
		}
	}
	if s.PadH < 0 || s.PadW < 0 || s.C%s.G != 0 || s.K%s.G != 0 || c.W.Dims[1]*s.G != s.C {
		return s, FwdInvalid
	}
	// cudnnGetConvolution2dForwardOutputDim: y must have exactly these.
	out := func(in, pad, f, dil, str int) int { return (in+2*pad-((f-1)*dil+1))/str + 1 }
	if in, f := s.H+2*s.PadH, (s.R-1)*s.DilH+1; in < f {
		return s, FwdInvalid
	}
	if in, f := s.W+2*s.PadW, (s.S-1)*s.DilW+1; in < f {
		return s, FwdInvalid
	}
	s.P, s.Q = out(s.H, s.PadH, s.R, s.DilH, s.StrH), out(s.W, s.PadW, s.S, s.DilW, s.StrW)
	if c.Y.Dims[0] != s.N || c.Y.Dims[1] != s.K || c.Y.Dims[2] != s.P || c.Y.Dims[3] != s.Q {
		return s, FwdInvalid
	}
	es := s.Type.Data.Size()
	var ok bool
	if s.XBytes, ok = extent([4]int{s.N, s.C, s.H, s.W}, s.XStrides, es); !ok {
		return s, FwdTooLarge
	}
	if s.YBytes, ok = extent([4]int{s.N, s.K, s.P, s.Q}, s.YStrides, es); !ok {
		return s, FwdTooLarge
	}
	if overlaps([4]int{s.N, s.K, s.P, s.Q}, s.YStrides) {
		// Elements of y that share an address: what they hold depends on
		// the order in which cuDNN writes them, where it takes the call.
		return s, FwdUnsupported
	}
	s.WBytes = s.K * s.C / s.G * s.R * s.S * es
	if s.WBytes/es >= 1<<31 || s.N*s.P*s.Q >= 1<<31 {
		return s, FwdTooLarge
	}
	return s, Served
}

// extent is the bytes a tensor of dims and (non-negative) element strides
// spans, and whether every element offset fits 32 bits.
func extent(dims, strides [4]int, es int) (int, bool) {
	last := 0
	for i, d := range dims {
		if strides[i] < 0 {
			return 0, false
		}
		last += (d - 1) * strides[i]
	}
	return (last + 1) * es, last < 1<<31-1
}

// overlaps reports whether two elements of a tensor of dims and
// (non-negative) element strides might share an address: unless, with its
// dimensions of more than one element in order of their strides, each
// stride steps past every offset the dimensions before it reach (a packed
// or padded layout in any order of dimensions), it says they might.
func overlaps(dims, strides [4]int) bool {
	order := [4]int{0, 1, 2, 3} // by stride: an insertion sort of four
	for i := 1; i < 4; i++ {
		for j := i; j > 0 && strides[order[j]] < strides[order[j-1]]; j-- {
			order[j], order[j-1] = order[j-1], order[j]
		}
	}
	reach := 0 // the largest offset of the dimensions so far
	for _, i := range order {
		if dims[i] <= 1 {
			continue
		}
		if strides[i] <= reach {
			return true
		}
		reach += (dims[i] - 1) * strides[i]
	}
	return false
}

// ReductionCRS is the implicit GEMM's reduction length, C/G·R·S.
func (s ConvShape) ReductionCRS() int { return s.C / s.G * s.R * s.S }

// Pixels is the implicit GEMM's M, N·P·Q.
func (s ConvShape) Pixels() int { return s.N * s.P * s.Q }

func (s ConvShape) String() string {
	return fmt.Sprintf("%s n%d c%d h%d w%d k%d r%d s%d pad%d,%d str%d,%d dil%d,%d g%d flip=%v filterNHWC=%v x%v y%v",
		s.Type.Name, s.N, s.C, s.H, s.W, s.K, s.R, s.S, s.PadH, s.PadW, s.StrH, s.StrW, s.DilH, s.DilW, s.G, s.Flip, s.FilterNHWC, s.XStrides, s.YStrides)
}

// UnitRoundoff is the type's unit roundoff (as DataType's).
func (d CudnnDataType) UnitRoundoff() float64 { return d.DataType().UnitRoundoff() }

// DataType is the cudaDataType of the same elements.
func (d CudnnDataType) DataType() DataType {
	switch d {
	case CudnnHalf:
		return R16F
	case CudnnBFloat16:
		return R16BF
	case CudnnDouble:
		return R64F
	}
	return R32F
}
