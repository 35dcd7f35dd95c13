package request

import "slices"

// GemmType is one type of GEMM ISAAC serves: its data types, the compute
// types a call may name for it, and whether TF32 tensor cores compute it.
// The serving decision, the kernels' input classes, the model's features,
// the conformance tests and the benchmarks all take the served types from
// GemmTypes.
type GemmType struct {
	Name     string         // as the model's features and the tests name it
	AB, C    DataType       // A and B, and C
	Acc      DataType       // what the kernels accumulate in (and alpha and beta's type)
	Computes [2]ComputeType // the compute types a call may name, the usual first (0: none)
	TF32     bool           // FP32 on TF32 tensor cores: the handle's math mode allows it, or 32F_FAST_TF32
}

// The served types.
var (
	Sgemm          = GemmType{"sgemm", R32F, R32F, R32F, [2]ComputeType{Compute32F, Compute32FPedantic}, false}
	SgemmTF32      = GemmType{"sgemm_tf32", R32F, R32F, R32F, [2]ComputeType{Compute32F}, true}
	Dgemm          = GemmType{"dgemm", R64F, R64F, R64F, [2]ComputeType{Compute64F}, false}
	Hgemm          = GemmType{"hgemm", R16F, R16F, R16F, [2]ComputeType{Compute16F}, false}
	GemmExF16F32   = GemmType{"gemmex_f16_f32", R16F, R16F, R32F, [2]ComputeType{Compute32F}, false}
	GemmExBF16F32  = GemmType{"gemmex_bf16_f32", R16BF, R16BF, R32F, [2]ComputeType{Compute32F}, false}
	GemmExFastTF32 = GemmType{"gemmex_f32_fasttf32", R32F, R32F, R32F, [2]ComputeType{Compute32FFastTF32}, true}
)

// GemmTypes are the served types, in the order of the model's features:
// cublasSgemm (FP32 FMA, and TF32 where the handle allows it), cublasDgemm,
// cublasHgemm, and cublasGemmEx's f16 and bf16 with FP32 compute and f32
// with FAST_TF32 (the legacy entry points name the compute type cuBLAS
// uses for them).
var GemmTypes = []GemmType{Sgemm, SgemmTF32, Dgemm, Hgemm, GemmExF16F32, GemmExBF16F32, GemmExFastTF32}

// Compute is the type's usual compute type.
func (t GemmType) Compute() ComputeType { return t.Computes[0] }

// Math is the handle math mode a call of the type is made with: TF32
// tensor ops for sgemm_tf32, the default otherwise.
func (t GemmType) Math() MathMode {
	if t.TF32 && t.Compute() == Compute32F {
		return MathTF32TensorOp
	}
	return MathDefault
}

// TypeOf is the served type of a call, or false for a type ISAAC does not
// serve: A, B and C of one data type, a compute type the type allows, and
// (for FP32 with FP32 compute) the handle's math mode deciding between
// sgemm and sgemm_tf32.
func TypeOf(g *Gemm) (GemmType, bool) {
	if g.AType != g.BType {
		return GemmType{}, false
	}
	tf32 := g.Compute == Compute32FFastTF32 || g.Compute == Compute32F && g.AType == R32F && g.MathMode.AllowsTF32()
	for _, t := range GemmTypes {
		if t.AB == g.AType && t.C == g.CType && t.TF32 == tf32 && g.Compute != 0 && slices.Contains(t.Computes[:], g.Compute) {
			return t, true
		}
	}
	return GemmType{}, false
}
