package ptx

import "fmt"

// DataType is an element type of A, B or C, or a compute type.
type DataType int

const (
	F16 DataType = iota
	BF16
	F32
	F64
)

var dataTypeNames = [...]string{F16: "f16", BF16: "bf16", F32: "f32", F64: "f64"}

func (t DataType) String() string {
	if t >= 0 && int(t) < len(dataTypeNames) {
		return dataTypeNames[t]
	}
	return fmt.Sprintf("DataType(%d)", int(t))
}

// Size is the size of one element in bytes.
func (t DataType) Size() int {
	switch t {
	case F16, BF16:
		return 2
	case F32:
		return 4
	case F64:
		return 8
	}
	return 0
}

func (t DataType) valid() bool { return t >= F16 && t <= F64 }

// Op is a transposition of an operand. cuBLAS 'C' maps to T for real types.
type Op int

const (
	N Op = iota
	T
)

func (o Op) String() string {
	if o == T {
		return "T"
	}
	return "N"
}
