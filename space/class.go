package space

import (
	"fmt"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// ptxTypes are the generator's names of the served data types.
var ptxTypes = map[request.DataType]ptx.DataType{
	request.R16F: ptx.F16, request.R16BF: ptx.BF16, request.R32F: ptx.F32, request.R64F: ptx.F64,
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

// Class is the generator's input class of a GEMM request of a served type
// (request.TypeOf): its types, transpositions, the alignments vector
// loads may rely on, whether TF32 and atomics are allowed.
func Class(g *request.Gemm) (ptx.InputClass, error) {
	t, ok := request.TypeOf(g)
	if !ok {
		return ptx.InputClass{}, fmt.Errorf("space: unsupported types %v/%v/%v, compute %v", g.AType, g.BType, g.CType, g.Compute)
	}
	es, ec := t.AB.Size(), t.C.Size()
	in := TypeClass(t, op(g.TransA), op(g.TransB),
		elementAlignment(g.AlignA(), es), elementAlignment(g.AlignB(), es), elementAlignment(g.AlignC(), ec))
	in.AtomicsAllowed = g.Atomics
	in.Batched = g.Batch > 1
	in.Epi = ptx.Epilogue{Bias: g.Bias != 0, Act: ptx.Activation(g.Act), OutOfPlace: g.OutOfPlace()}
	return in, in.Validate()
}

// TypeClass is the input class of a served type with the given
// transpositions and alignments (in elements).
func TypeClass(t request.GemmType, ta, tb ptx.Op, alignA, alignB, alignC int) ptx.InputClass {
	a := ptxTypes[t.AB]
	return ptx.InputClass{
		AType: a, BType: a, CType: ptxTypes[t.C], Compute: ptxTypes[t.Acc],
		TransA: ta, TransB: tb, AlignA: alignA, AlignB: alignB, AlignC: alignC,
		// TF32 tensor cores: CUBLAS_TF32_TENSOR_OP_MATH with FP32 compute,
		// or 32F_FAST_TF32 (pedantic compute never).
		AllowTF32: t.TF32,
	}
}
