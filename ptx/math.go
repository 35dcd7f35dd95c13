package ptx

import "fmt"

// Math is the multiply-accumulate instruction family of a kernel.
type Math int

const (
	FFMA           Math = iota // f32 SIMT fma (f16/bf16 inputs converted to f32)
	DFMA                       // f64 SIMT fma
	HFMA                       // f16 SIMT fma.rn.f16, f16 accumulation (compute 16F)
	MMA_F16                    // mma.sync m16n8k16 f16 inputs, f32 accumulation
	MMA_F16_F16ACC             // mma.sync m16n8k16 f16 inputs, f16 accumulation
	MMA_BF16                   // mma.sync m16n8k16 bf16 inputs, f32 accumulation
	MMA_TF32                   // mma.sync m16n8k8 tf32 (cvt.rna from f32), f32 accumulation
	MMA_F64                    // mma.sync m8n8k4 f64
	MMA_F64_K8                 // mma.sync m16n8k8 f64 (sm_90)
	MMA_F64_K16                // mma.sync m16n8k16 f64 (sm_90)

	lastMath = MMA_F64_K16
)

var mathNames = [...]string{
	FFMA: "ffma", DFMA: "dfma", HFMA: "hfma", MMA_F16: "mma_f16",
	MMA_F16_F16ACC: "mma_f16acc", MMA_BF16: "mma_bf16", MMA_TF32: "mma_tf32", MMA_F64: "mma_f64",
	MMA_F64_K8: "mma_f64k8", MMA_F64_K16: "mma_f64k16",
}

func (m Math) String() string {
	if m >= 0 && int(m) < len(mathNames) {
		return mathNames[m]
	}
	return fmt.Sprintf("Math(%d)", int(m))
}

// ParseMath parses the String form of a Math.
func ParseMath(s string) (Math, error) {
	for i, n := range mathNames {
		if n == s {
			return Math(i), nil
		}
	}
	return 0, fmt.Errorf("ptx: unknown math %q", s)
}

// IsMMA reports whether m uses tensor-core mma.sync.
func (m Math) IsMMA() bool { return m >= MMA_F16 && m <= lastMath }

// sm90Only reports whether m exists only on sm_90 and newer.
func (m Math) sm90Only() bool { return m == MMA_F64_K8 || m == MMA_F64_K16 }

// mmaShape is the M, N, K of one mma.sync instruction (1,1,1 for SIMT).
func (m Math) mmaShape() (int, int, int) {
	switch m {
	case MMA_F16, MMA_F16_F16ACC, MMA_BF16:
		return 16, 8, 16
	case MMA_TF32:
		return 16, 8, 8
	case MMA_F64:
		return 8, 8, 4
	case MMA_F64_K8:
		return 16, 8, 8
	case MMA_F64_K16:
		return 16, 8, 16
	}
	return 1, 1, 1
}

// inputType is the A/B element type the instruction consumes.
func (m Math) inputType() DataType {
	switch m {
	case DFMA, MMA_F64, MMA_F64_K8, MMA_F64_K16:
		return F64
	case HFMA, MMA_F16, MMA_F16_F16ACC:
		return F16
	case MMA_BF16:
		return BF16
	}
	return F32
}

// computeType is the compute (scalar and accumulation) type of the math.
func (m Math) computeType() DataType {
	switch m {
	case DFMA, MMA_F64, MMA_F64_K8, MMA_F64_K16:
		return F64
	case HFMA, MMA_F16_F16ACC:
		return F16
	}
	return F32
}

// compatible reports whether m can serve input element type t with compute c.
func (m Math) compatible(t, c DataType, allowTF32 bool) bool {
	if m.computeType() != c {
		return false
	}
	switch m {
	case FFMA:
		return t == F16 || t == BF16 || t == F32
	case MMA_TF32:
		return t == F32 && allowTF32
	}
	return m.inputType() == t
}

// MathsFor lists the math instructions valid for an input class.
func MathsFor(in InputClass) []Math {
	var out []Math
	for m := FFMA; m <= lastMath; m++ {
		if m.compatible(in.AType, in.Compute, in.AllowTF32) {
			out = append(out, m)
		}
	}
	return out
}
