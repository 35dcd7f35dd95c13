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

func (o Op) String() string {
	switch o {
	case OpN:
		return "N"
	case OpT:
		return "T"
	case OpC:
		return "C"
	case OpConjG:
		return "CONJG"
	}
	return fmt.Sprintf("Op(%d)", int(o))
}

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

func (d DataType) String() string {
	switch d {
	case R32F:
		return "f32"
	case R64F:
		return "f64"
	case R16F:
		return "f16"
	case R16BF:
		return "bf16"
	case R8I:
		return "i8"
	}
	return fmt.Sprintf("cudaDataType(%d)", int(d))
}

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

func (c ComputeType) String() string {
	switch c {
	case Compute16F:
		return "16F"
	case Compute16FPedantic:
		return "16F_PEDANTIC"
	case Compute32F:
		return "32F"
	case Compute32FPedantic:
		return "32F_PEDANTIC"
	case Compute64F:
		return "64F"
	case Compute64FPedantic:
		return "64F_PEDANTIC"
	case Compute32FFast16F:
		return "32F_FAST_16F"
	case Compute32FFast16BF:
		return "32F_FAST_16BF"
	case Compute32FFastTF32:
		return "32F_FAST_TF32"
	}
	return fmt.Sprintf("cublasComputeType(%d)", int(c))
}

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
