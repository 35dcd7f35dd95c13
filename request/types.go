package request

import "fmt"

// Op is cublasOperation_t.
type Op int

// cublasOperation_t values.
const (
	OpN     Op = 0
	OpT     Op = 1
	OpC     Op = 2
	OpConjG Op = 3
)

var opNames = map[Op]string{OpN: "N", OpT: "T", OpC: "C", OpConjG: "CONJG"}

func (o Op) String() string { return nameOf(opNames, o, "Op") }

// Transposed reports whether op(X) reads X transposed. For real data types
// CUBLAS_OP_C is CUBLAS_OP_T.
func (o Op) Transposed() bool { return o == OpT || o == OpC }

// DataType is cudaDataType (cuBLAS) .
type DataType int

// cudaDataType values of the real types the shim knows by name.
const (
	R32F  DataType = 0
	R64F  DataType = 1
	R16F  DataType = 2
	R8I   DataType = 3
	R16BF DataType = 14
)

// Size is the element size in bytes, or 0 for types ISAAC does not serve.
func (d DataType) Size() int {
	switch d {
	case R16F, R16BF:
		return 2
	case R32F:
		return 4
	case R64F:
		return 8
	}
	return 0
}

// UnitRoundoff is the type's unit roundoff (half an ulp of 1): the error
// bound of the conformance tests counts in it.
func (d DataType) UnitRoundoff() float64 {
	switch d {
	case R16F:
		return 0x1p-11
	case R16BF:
		return 0x1p-8
	case R64F:
		return 0x1p-53
	}
	return 0x1p-24
}

var dataTypeNames = map[DataType]string{R32F: "f32", R64F: "f64", R16F: "f16", R16BF: "bf16", R8I: "i8"}

func (d DataType) String() string { return nameOf(dataTypeNames, d, "cudaDataType") }

// ComputeType is cublasComputeType_t.
type ComputeType int

// cublasComputeType_t values.
const (
	Compute16F          ComputeType = 64
	Compute16FPedantic  ComputeType = 65
	Compute32F          ComputeType = 68
	Compute32FPedantic  ComputeType = 69
	Compute64F          ComputeType = 70
	Compute64FPedantic  ComputeType = 71
	Compute32I          ComputeType = 72
	Compute32IPedantic  ComputeType = 73
	Compute32FFast16F   ComputeType = 74
	Compute32FFast16BF  ComputeType = 75
	Compute32FFastTF32  ComputeType = 77
	Compute32FEmulBF16x ComputeType = 78
)

var computeTypeNames = map[ComputeType]string{
	Compute16F: "16F", Compute16FPedantic: "16F_PEDANTIC", Compute32F: "32F", Compute32FPedantic: "32F_PEDANTIC",
	Compute64F: "64F", Compute64FPedantic: "64F_PEDANTIC",
	Compute32FFast16F: "32F_FAST_16F", Compute32FFast16BF: "32F_FAST_16BF", Compute32FFastTF32: "32F_FAST_TF32",
}

func (c ComputeType) String() string { return nameOf(computeTypeNames, c, "cublasComputeType") }

// PointerMode is cublasPointerMode_t: where alpha and beta live.
type PointerMode int

// cublasPointerMode_t values.
const (
	PointerHost   PointerMode = 0
	PointerDevice PointerMode = 1
)

// MathMode is cublasMath_t, a bit set.
type MathMode int

// cublasMath_t values.
const (
	MathDefault                 MathMode = 0
	MathTensorOp                MathMode = 1 // deprecated by cuBLAS, allows FP16 down-conversion
	MathPedantic                MathMode = 2
	MathTF32TensorOp            MathMode = 3
	MathDisallowReducedPrecRedn MathMode = 16
)

// Base is the mode without the DISALLOW_REDUCED_PRECISION_REDUCTION flag.
func (m MathMode) Base() MathMode { return m &^ MathDisallowReducedPrecRedn }

// AllowsTF32 reports whether FP32 GEMMs may use TF32 tensor cores.
func (m MathMode) AllowsTF32() bool { return m.Base() == MathTF32TensorOp }

// nameOf is v's name in names, or its type's name and number.
func nameOf[T ~int](names map[T]string, v T, typ string) string {
	if s, ok := names[v]; ok {
		return s
	}
	return fmt.Sprintf("%s(%d)", typ, int(v))
}
