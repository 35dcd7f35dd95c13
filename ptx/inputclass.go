package ptx

import "fmt"

// InputClass is what a kernel is specialised for besides its tuning
// parameters: element types, compute type, transpositions and the alignments
// (in elements) that vector loads and stores may rely on. The caller derives
// each alignment from the pointer address and the leading dimension: an
// alignment of a means the pointer is a*size-byte aligned and ld % a == 0.
type InputClass struct {
	AType, BType, CType DataType
	Compute             DataType // F16, F32 or F64
	TransA, TransB      Op
	AlignA, AlignB      int // 1, 2, 4 or 8 elements
	AlignC              int
	AllowTF32           bool      // f32 inputs may use tf32 tensor cores
	AtomicsAllowed      bool      // reserved: the generator never emits atomics
	Conv                ConvOrder // a convolution's implicit GEMM (NotConv: a GEMM)
	// ChannelLines marks a convolution in (r, s, c) order whose x is
	// channel-contiguous with 16-byte aligned pixels and whose channels
	// fill whole 128-byte lines: every 128-byte k-slice of the reduction
	// lies within one filter tap, as the bulk tensor copies' im2col mode
	// loads it (GemmConfig.TMA).
	ChannelLines bool
	// RoundTF32 asks the wgmma TF32 kernels to round their f32 operands to
	// TF32 (to nearest) in shared memory before the tensor cores read them,
	// which otherwise truncate: a convolution whose x and filter are not
	// the NHWC copies, which are rounded as they are made. GEMM classes
	// leave it unset.
	RoundTF32 bool
	// Batched marks a strided-batched GEMM (cuBLAS's *StridedBatched
	// entry points): the grid's z dimension walks the batch, and the
	// kernel takes each matrix's element stride (batchParams). Only a
	// GEMM, and its alignments hold for every matrix of the batch.
	Batched bool
	// Epi is what the kernel does to each result before it writes it
	// (a bias, an activation, D apart from C): cuBLASLt's epilogues. Only
	// a GEMM's.
	Epi Epilogue
}

// String is a compact deterministic form used in kernel names.
func (in InputClass) String() string {
	return fmt.Sprintf("%s%s%s_c%s_%s%s_a%db%dc%d%s", in.AType, in.BType, in.CType, in.Compute,
		in.TransA, in.TransB, in.AlignA, in.AlignB, in.AlignC, in.convSuffix()+in.batchSuffix()+in.Epi.String())
}

// Validate checks that the class is one the kernel family serves (it says
// nothing about a configuration).
func (in InputClass) Validate() error {
	switch {
	case !in.AType.valid() || !in.BType.valid() || !in.CType.valid() || !in.Compute.valid():
		return fmt.Errorf("ptx: invalid data type in %+v", in)
	case in.AType != in.BType:
		return fmt.Errorf("ptx: A and B types differ (%s, %s)", in.AType, in.BType)
	case in.Compute == BF16:
		return fmt.Errorf("ptx: bf16 is not a compute type")
	case in.TransA != N && in.TransA != T || in.TransB != N && in.TransB != T:
		return fmt.Errorf("ptx: invalid transposition")
	case in.Batched && in.Conv != NotConv:
		return fmt.Errorf("ptx: a convolution is not a batched GEMM")
	}
	if err := in.Epi.valid(in); err != nil {
		return err
	}
	for _, a := range []int{in.AlignA, in.AlignB, in.AlignC} {
		if a != 1 && a != 2 && a != 4 && a != 8 {
			return fmt.Errorf("ptx: alignment %d not in {1,2,4,8}", a)
		}
	}
	ok := false
	switch in.Compute {
	case F64:
		ok = in.AType == F64 && in.CType == F64
	case F16:
		ok = in.AType == F16 && in.CType == F16
	case F32:
		switch in.AType {
		case F32:
			ok = in.CType == F32
		case F16, BF16:
			ok = in.CType == in.AType || in.CType == F32
		}
	}
	if !ok {
		return fmt.Errorf("ptx: unsupported type combination A=%s C=%s compute=%s", in.AType, in.CType, in.Compute)
	}
	return nil
}

// typeCombos are the (A/B, C, compute, TF32) combinations the family serves.
var typeCombos = []InputClass{
	{AType: F32, BType: F32, CType: F32, Compute: F32},
	{AType: F32, BType: F32, CType: F32, Compute: F32, AllowTF32: true},
	{AType: F64, BType: F64, CType: F64, Compute: F64},
	{AType: F16, BType: F16, CType: F16, Compute: F16},
	{AType: F16, BType: F16, CType: F16, Compute: F32},
	{AType: F16, BType: F16, CType: F32, Compute: F32},
	{AType: BF16, BType: BF16, CType: BF16, Compute: F32},
	{AType: BF16, BType: BF16, CType: F32, Compute: F32},
}

// Classes is every class the family serves with equal alignments of A, B
// and C: each type combination × layout × alignment of 1, 2, 4, 8.
func Classes() []InputClass {
	var out []InputClass
	for _, base := range typeCombos {
		for _, ta := range []Op{N, T} {
			for _, tb := range []Op{N, T} {
				for _, al := range []int{1, 2, 4, 8} {
					in := base
					in.TransA, in.TransB = ta, tb
					in.AlignA, in.AlignB, in.AlignC = al, al, al
					out = append(out, in)
				}
			}
		}
	}
	return out
}
