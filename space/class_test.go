package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

func TestClass(t *testing.T) {
	g := &request.Gemm{
		TransA: request.OpC, TransB: request.OpN,
		AType: request.R16F, BType: request.R16F, CType: request.R16F, Compute: request.Compute32F,
		M: 64, N: 64, K: 64, LDA: 64, LDB: 66, LDC: 63,
		A: 0x1000, B: 0x2000, C: 0x3002, MathMode: request.MathTF32TensorOp,
	}
	in, err := Class(g)
	if err != nil {
		t.Fatal(err)
	}
	want := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32,
		TransA: ptx.T, TransB: ptx.N, AlignA: 8, AlignB: 2, AlignC: 1}
	if in != want {
		t.Errorf("Class = %+v\nwant %+v", in, want)
	}
	// TF32 only for FP32 data with the handle's TF32 math or a FAST_TF32 compute type.
	g.AType, g.BType, g.CType = request.R32F, request.R32F, request.R32F
	if in, _ := Class(g); !in.AllowTF32 {
		t.Error("CUBLAS_TF32_TENSOR_OP_MATH did not allow TF32")
	}
	g.MathMode = request.MathDefault
	if in, _ := Class(g); in.AllowTF32 {
		t.Error("default math allowed TF32")
	}
	g.Compute = request.Compute32FFastTF32
	if in, _ := Class(g); !in.AllowTF32 {
		t.Error("COMPUTE_32F_FAST_TF32 did not allow TF32")
	}
	g.Compute = request.Compute32FPedantic
	g.MathMode = request.MathTF32TensorOp
	if in, _ := Class(g); in.AllowTF32 {
		t.Error("pedantic compute allowed TF32")
	}
	g.AType = request.R8I
	if _, err := Class(g); err == nil {
		t.Error("int8 accepted")
	}
}
