package engine

import (
	"fmt"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// dataType maps a cudaDataType to the generator's type.
func dataType(t request.DataType) (ptx.DataType, bool) {
	switch t {
	case request.R16F:
		return ptx.F16, true
	case request.R16BF:
		return ptx.BF16, true
	case request.R32F:
		return ptx.F32, true
	case request.R64F:
		return ptx.F64, true
	}
	return 0, false
}

// elementAlignment is a byte alignment in elements, as the generator counts
// it: 1, 2, 4 or 8.
func elementAlignment(bytes, elemSize int) int {
	a := bytes / elemSize
	switch {
	case a >= 8:
		return 8
	case a >= 4:
		return 4
	case a >= 2:
		return 2
	}
	return 1
}

func op(o request.Op) ptx.Op {
	if o.Transposed() {
		return ptx.T
	}
	return ptx.N
}

// Class is the generator's input class of a GEMM request.
func Class(g *request.Gemm) (ptx.InputClass, error) {
	a, okA := dataType(g.AType)
	b, okB := dataType(g.BType)
	c, okC := dataType(g.CType)
	if !okA || !okB || !okC {
		return ptx.InputClass{}, fmt.Errorf("engine: unsupported data types %v/%v/%v", g.AType, g.BType, g.CType)
	}
	in := ptx.InputClass{
		AType: a, BType: b, CType: c,
		TransA: op(g.TransA), TransB: op(g.TransB),
		AlignA: elementAlignment(g.AlignA(), a.Size()),
		AlignB: elementAlignment(g.AlignB(), b.Size()),
		AlignC: elementAlignment(g.AlignC(), c.Size()),
	}
	switch g.Compute {
	case request.Compute16F:
		in.Compute = ptx.F16
	case request.Compute32F, request.Compute32FPedantic:
		in.Compute = ptx.F32
		// CUBLAS_TF32_TENSOR_OP_MATH lets FP32 GEMMs with FP32 compute use
		// TF32 tensor cores; pedantic compute never does.
		in.AllowTF32 = g.Compute == request.Compute32F && a == ptx.F32 && g.MathMode.AllowsTF32()
	case request.Compute32FFastTF32:
		in.Compute = ptx.F32
		in.AllowTF32 = a == ptx.F32
	case request.Compute64F:
		in.Compute = ptx.F64
	default:
		return ptx.InputClass{}, fmt.Errorf("engine: unsupported compute type %v", g.Compute)
	}
	in.AtomicsAllowed = g.Atomics
	return in, in.Validate()
}
