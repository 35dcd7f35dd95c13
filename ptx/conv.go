package ptx

import "fmt"

// ConvOrder says that an input class is a convolution's implicit GEMM, and
// in which order its reduction index runs over the filter's (c, r, s): the
// order of the filter in memory, so that the filter is a plain matrix (one
// row of C·R·S elements per output channel).
//
// The implicit GEMM (the ISAAC paper's §3.3) computes y = conv(x, w) as
// C = A·B with M = N·P·Q (output pixels), N = K (output channels) and a
// reduction over C·R·S: A is the im2col matrix, gathered from x tile by tile
// and never formed (im2colLoader); B is the filter, a K-row matrix read as
// GEMM's B (k-contiguous, ldb = C·R·S); C is y, addressed through its strides.
// The kernel takes the GEMM ABI's parameters (A = x, B = w, C = y, M, N, K,
// ldb) followed by convParams.
type ConvOrder int

// Reduction orders.
const (
	NotConv ConvOrder = iota // a GEMM
	ConvCRS                  // j = (c·R + r)·S + s: filters in NCHW format
	ConvRSC                  // j = (r·S + s)·C + c: filters in NHWC format
)

func (o ConvOrder) String() string {
	switch o {
	case ConvCRS:
		return "crs"
	case ConvRSC:
		return "rsc"
	}
	return ""
}

// convParamNames are a convolution kernel's parameters after the GEMM ABI's,
// all s32: the input channels (per group), the input's and the output's
// spatial sizes, the filter's, the strides, then each spatial dimension's
// first offset and step of the filter's taps in x (hOff = -padH, or
// -padH + (R-1)·dilH for a flipped filter; dilH, or -dilH when flipped),
// x's and y's element strides of n, c, h, w, then the division magic
// (DivMagic: multiplier, shift) of R·S, S, S·C and C, which split a
// reduction index into its filter tap (ConvMagic).
var convParamNames = []string{
	"cC", "cH", "cW", "cP", "cQ", "cR", "cS", "strH", "strW",
	"hOff", "wOff", "hStep", "wStep",
	"xN", "xC", "xH", "xW", "yN", "yC", "yH", "yW",
	"rsM", "rsL", "sM", "sL", "scM", "scL", "cM", "cL",
}

// ConvMagic is the last convParamNames' values for a filter of c channels
// (per group), r rows and s columns: DivMagic's multiplier (as its 32-bit
// pattern) and shift of R·S, S, S·C and C.
func ConvMagic(c, r, s int) []int {
	var out []int
	for _, d := range []int{r * s, s, s * c, c} {
		m, l := DivMagic(d)
		out = append(out, int(int32(m)), l)
	}
	return out
}

// ConvParams are the parameters a convolution kernel takes after the GEMM
// ABI's, in order (see convParamNames).
func ConvParams() []Param {
	out := make([]Param, len(convParamNames))
	for i, n := range convParamNames {
		out[i] = Param{n, ".s32", 4}
	}
	return out
}

// convLegal holds the rules only convolution kernels have: the im2col
// operand is gathered element by element, or in vectors of channels where x
// is channel-contiguous and the reduction runs over channels fastest (the
// class's A alignment then says how many channels a vector may hold: the
// channels, x's strides and address allow it), y is written element by element (C alignment 1, no staged or cluster
// epilogue), the filter is B untransposed (k-contiguous), and a split of
// the reduction across blocks finishes in the kernel (one pass: the
// separate reduction kernel writes C as a matrix; no cluster split).
// The bulk tensor copies (im2col mode) do not serve it yet.
func convLegal(cfg GemmConfig, in InputClass) error {
	switch {
	case in.Conv < ConvCRS || in.Conv > ConvRSC:
		return illegal("ptx: unknown convolution order %d", int(in.Conv))
	case in.AlignC != 1 || in.TransB != N:
		return illegal("ptx: a convolution's class has C alignment 1 and B untransposed (%s)", in)
	case in.AlignA > 1 && (in.Conv != ConvRSC || in.TransA != T):
		return illegal("ptx: only a channel-contiguous x gathered in (r, s, c) order has vectors of A (%s)", in)
	case cfg.KC > 1:
		return illegal("ptx: a convolution does not split its reduction across a cluster (kc=%d)", cfg.KC)
	case cfg.KG > 1 && !serialSplit(newGeometry(cfg, in)):
		return illegal("ptx: a convolution's grid split finishes in one pass (kg=%d: too many partials)", cfg.KG)
	case cfg.PP != 0:
		return illegal("ptx: a convolution's fragments are not pipelined across tiles (pp=%d)", cfg.PP)
	case cfg.TMA != 0 && !(in.ChannelLines && in.Conv == ConvRSC && in.TransA == T):
		return illegal("ptx: a convolution's bulk tensor copies need channels of whole 128-byte lines in (r, s, c) order (%s)", in)
	}
	return nil
}

// convSuffix is the class's addition to kernel names.
func (in InputClass) convSuffix() string {
	if in.Conv == NotConv {
		return ""
	}
	suffix := fmt.Sprintf("_conv%s", in.Conv)
	if in.ChannelLines {
		suffix += "l"
	}
	if in.RoundTF32 {
		suffix += "r"
	}
	return suffix
}
