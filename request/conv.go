package request

import "fmt"

// CudnnDataType is cudnnDataType_t.
type CudnnDataType int

// cudnnDataType_t values.
const (
	CudnnFloat    CudnnDataType = 0
	CudnnDouble   CudnnDataType = 1
	CudnnHalf     CudnnDataType = 2
	CudnnInt8     CudnnDataType = 3
	CudnnInt32    CudnnDataType = 4
	CudnnBFloat16 CudnnDataType = 9
)

// CudnnConvFwdAlgoCount is CUDNN_CONVOLUTION_FWD_ALGO_COUNT: the forward
// algorithms cuDNN 9 knows (IMPLICIT_GEMM 0 to WINOGRAD_NONFUSED 7).
const CudnnConvFwdAlgoCount = 8

var cudnnDataTypeNames = map[CudnnDataType]string{CudnnFloat: "f32", CudnnDouble: "f64", CudnnHalf: "f16", CudnnBFloat16: "bf16", CudnnInt8: "i8", CudnnInt32: "i32"}

func (d CudnnDataType) String() string { return nameOf(cudnnDataTypeNames, d, "cudnnDataType") }

// Tensor is a cuDNN tensor descriptor: type, dimensions (N, C, [D,] H, W)
// and strides in elements.
type Tensor struct {
	Type    CudnnDataType
	Dims    []int
	Strides []int
}

// Packed reports whether the tensor's strides are those of a dense layout
// in the given dimension order (e.g. {0,1,2,3} for NCHW, {0,2,3,1} for NHWC).
func (t Tensor) Packed(order []int) bool {
	if len(order) != len(t.Dims) {
		return false
	}
	want := 1
	for i := len(order) - 1; i >= 0; i-- {
		d := order[i]
		if t.Dims[d] != 1 && t.Strides[d] != want {
			return false
		}
		want *= t.Dims[d]
	}
	return true
}

// Filter is a cuDNN filter descriptor: type, format (cudnnTensorFormat_t:
// 0 NCHW, 1 NHWC, 2 NCHW_VECT_C) and dimensions (K, C, [T,] R, S).
type Filter struct {
	Type   CudnnDataType
	Format int
	Dims   []int
}

// Conv is one cudnnConvolutionForward call, y = alpha·conv(x, w) + beta·y,
// with its descriptors as the vendor's getters report them.
type Conv struct {
	Handle uintptr
	Stream uintptr

	X, Y Tensor
	W    Filter

	Pad, Stride, Dilation []int
	Mode                  int // 0 CUDNN_CONVOLUTION, 1 CUDNN_CROSS_CORRELATION
	Compute               CudnnDataType
	Groups                int
	MathType              int // cudnnMathType_t
	Algo                  int // cudnnConvolutionFwdAlgo_t (0 to CudnnConvFwdAlgoCount-1)

	XPtr, WPtr, YPtr uintptr
	Workspace        uintptr
	WorkspaceBytes   uint64
	Alpha, Beta      Scalar // host memory: float for f16/bf16/f32 data, double for f64

	// Graph marks a call that came through cuDNN's graph API
	// (cudnnBackendExecute of a plan whose one operation is this
	// convolution): the vendor's side of its check is the caller's plan,
	// not the legacy entry point with Algo.
	Graph bool
}

// SpatialDims is the number of spatial dimensions (2 for NCHW, 3 for NCDHW).
func (c *Conv) SpatialDims() int { return len(c.X.Dims) - 2 }

func (c *Conv) String() string {
	return fmt.Sprintf("conv x=%v%v w=%v y=%v pad=%v stride=%v dilation=%v groups=%d algo=%d",
		c.X.Type, c.X.Dims, c.W.Dims, c.Y.Dims, c.Pad, c.Stride, c.Dilation, c.Groups, c.Algo)
}
