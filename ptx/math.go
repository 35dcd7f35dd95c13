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

	// Warpgroup mma (sm_90a): a warpgroup of 4 warps computes 64×8·NS of C
	// per wgmma.mma_async.m64nNk16, A and B read from shared memory through
	// matrix descriptors.
	WGMMA_F16        // wgmma f16 inputs, f32 accumulation
	WGMMA_F16_F16ACC // wgmma f16 inputs, f16 accumulation
	WGMMA_BF16       // wgmma bf16 inputs, f32 accumulation
	WGMMA_TF32       // wgmma m64nNk8 tf32 (f32 data read as tf32), f32 accumulation; k-contiguous A and B only

	// lastMath ends the mma.sync and SIMT maths, the ones the tuning space
	// (SpaceFor) and the predictor's features cover; the wgmma maths have
	// their own space (WarpgroupSpace).
	lastMath  = MMA_F64_K16
	lastWGMMA = WGMMA_TF32
)

var mathNames = [...]string{
	FFMA: "ffma", DFMA: "dfma", HFMA: "hfma", MMA_F16: "mma_f16",
	MMA_F16_F16ACC: "mma_f16acc", MMA_BF16: "mma_bf16", MMA_TF32: "mma_tf32", MMA_F64: "mma_f64",
	MMA_F64_K8: "mma_f64k8", MMA_F64_K16: "mma_f64k16",
	WGMMA_F16: "wgmma_f16", WGMMA_F16_F16ACC: "wgmma_f16acc", WGMMA_BF16: "wgmma_bf16",
	WGMMA_TF32: "wgmma_tf32",
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

// IsMMA reports whether m uses the tensor cores (mma.sync or wgmma).
func (m Math) IsMMA() bool { return m >= MMA_F16 && m <= lastWGMMA }

// IsWGMMA reports whether m is a warpgroup mma (wgmma.mma_async, sm_90a).
func (m Math) IsWGMMA() bool { return m >= WGMMA_F16 && m <= lastWGMMA }

// isF64MMA reports whether m is an f64 mma.sync (DMMA) math.
func (m Math) isF64MMA() bool { return m == MMA_F64 || m == MMA_F64_K8 || m == MMA_F64_K16 }

// sm90Only reports whether m exists only on sm_90 and newer.
func (m Math) sm90Only() bool { return m == MMA_F64_K8 || m == MMA_F64_K16 || m.IsWGMMA() }

// unitThreads is the number of threads of one mma unit: a warp for
// mma.sync, a warpgroup for wgmma.
func (m Math) unitThreads() int {
	if m.IsWGMMA() {
		return 128
	}
	return 32
}

// Shape is the M, N, K of one instruction of the math: mma.sync's, the
// warpgroup's m64nNk16 per N of 8 for wgmma, 1,1,1 for SIMT.
func (m Math) Shape() (int, int, int) { return m.mmaShape() }

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
	case WGMMA_F16, WGMMA_F16_F16ACC, WGMMA_BF16:
		// per warpgroup instruction along M; N is 8·NS, a multiple of 8
		return 64, 8, 16
	case WGMMA_TF32:
		return 64, 8, 8 // 32 bytes of k per row, as k16 of 16-bit elements
	}
	return 1, 1, 1
}

// InputType is the A/B element type the instruction consumes.
func (m Math) InputType() DataType {
	switch m {
	case DFMA, MMA_F64, MMA_F64_K8, MMA_F64_K16:
		return F64
	case HFMA, MMA_F16, MMA_F16_F16ACC, WGMMA_F16, WGMMA_F16_F16ACC:
		return F16
	case MMA_BF16, WGMMA_BF16:
		return BF16
	}
	return F32
}

// computeType is the compute (scalar and accumulation) type of the math.
func (m Math) computeType() DataType {
	switch m {
	case DFMA, MMA_F64, MMA_F64_K8, MMA_F64_K16:
		return F64
	case HFMA, MMA_F16_F16ACC, WGMMA_F16_F16ACC:
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
	case MMA_TF32, WGMMA_TF32:
		return t == F32 && allowTF32
	}
	return m.InputType() == t
}

// WarpgroupMathsFor lists the wgmma maths valid for an input class (tf32
// only where A and B are k-contiguous: it takes no transposes).
func WarpgroupMathsFor(in InputClass) []Math {
	var out []Math
	for m := WGMMA_F16; m <= lastWGMMA; m++ {
		if m == WGMMA_TF32 && (in.TransA != T || in.TransB != N) {
			continue
		}
		if m.compatible(in.AType, in.Compute, in.AllowTF32) {
			out = append(out, m)
		}
	}
	return out
}

// MathsFor lists the mma.sync and SIMT math instructions valid for an input
// class (WarpgroupMathsFor lists the wgmma ones).
func MathsFor(in InputClass) []Math {
	var out []Math
	for m := FFMA; m <= lastMath; m++ {
		if m.compatible(in.AType, in.Compute, in.AllowTF32) {
			out = append(out, m)
		}
	}
	return out
}
