package space

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// convTypes are the generator's names of cuDNN's served data types.
var convTypes = map[request.CudnnDataType]ptx.DataType{
	request.CudnnHalf: ptx.F16, request.CudnnBFloat16: ptx.BF16, request.CudnnFloat: ptx.F32, request.CudnnDouble: ptx.F64,
}

// ConvClass is the generator's input class of a convolution's implicit
// GEMM (see ptx.ConvOrder) with its filter at w: the tensors' and compute
// types, the filter's order, the im2col tile staged along the dimension x
// is contiguous in (channels for NHWC: k-contiguous), the filter rows'
// alignment.
func ConvClass(s request.ConvShape, w uintptr) ptx.InputClass {
	t := convTypes[s.Type.Data]
	es := s.Type.Data.Size()
	crs := s.ReductionCRS()
	in := ptx.InputClass{
		AType: t, BType: t, CType: t, Compute: convTypes[s.Type.Compute],
		TransA: ptx.N, TransB: ptx.N,
		AlignA: 1, AlignC: 1,
		AlignB:    elementAlignment(int(gcdPow2(uint64(w), uint64(crs*es))), es),
		AllowTF32: s.TF32,
		Conv:      ptx.ConvCRS,
	}
	if s.XStrides[1] == 1 {
		in.TransA = ptx.T
	}
	if s.FilterNHWC {
		in.Conv = ptx.ConvRSC
	}
	return in
}

// gcdPow2 is the largest power of two (up to 16) dividing both a and b.
func gcdPow2(a, b uint64) uint64 {
	p := uint64(1)
	for p < 16 && a%(2*p) == 0 && b%(2*p) == 0 {
		p *= 2
	}
	return p
}

// ConvDefault is the heuristic's configuration of a convolution: Default's
// for its implicit GEMM (M = N·P·Q, N = K, K = C·R·S) without grid splits.
func ConvDefault(in ptx.InputClass, s request.ConvShape, dev ptx.DeviceLimits) ptx.GemmConfig {
	for _, c := range candidates(in, s.Pixels(), s.K, s.ReductionCRS(), dev) {
		c.KG = 1
		if ptx.Legal(c, in, dev) == nil {
			return c
		}
	}
	return fallbackConfig(in)
}
