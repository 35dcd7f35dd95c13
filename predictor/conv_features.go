package predictor

import (
	"math"
	"strings"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// ConvInput is a convolution as the convolution models see it: the call's
// shape, type, math and layout, and the path ISAAC runs it by.
type ConvInput struct {
	Type                   string // a request.ConvTypes name: float, double, pseudo_half, true_half, bfloat16
	TF32                   bool   // FLOAT data with a tensor-op math type (TF32 allowed)
	NHWC                   bool   // x, y and the filter channel-last (else NCHW)
	Flip                   bool   // CUDNN_CONVOLUTION
	N, C, H, W, K, R, S, G int
	Pad, Stride, Dil       int // along both dimensions
	// Path is one of ConvPaths: the implicit GEMM on x as it lies, on NHWC
	// copies of x and the filter, or the direct kernel of grouped
	// convolutions (the vendor model ignores it).
	Path           string
	AlignA, AlignB int // the path's input class's alignments of x and the filter, in elements
}

// ConvPaths are the paths' names in feature order (tune.PathImplicit, …).
var ConvPaths = []string{"implicit", "nhwc_copies", "direct"}

// ConvTypes are the convolution types' names in feature order.
var ConvTypes = func() []string {
	var out []string
	for _, t := range request.ConvTypes {
		out = append(out, t.Name)
	}
	return out
}()

// ConvMaths are the implicit GEMM's kernel maths in feature order: the
// GEMM's and wgmma_tf32.
var ConvMaths = append(append([]ptx.Math{}, Maths...), ptx.WGMMA_TF32)

// P and Q are the output's height and width.
func (in ConvInput) P() int { return (in.H+2*in.Pad-in.Dil*(in.R-1)-1)/in.Stride + 1 }
func (in ConvInput) Q() int { return (in.W+2*in.Pad-in.Dil*(in.S-1)-1)/in.Stride + 1 }

// GemmDims are the implicit GEMM's m (output pixels), n (filters of a
// group) and k (the reduction over a group's channels and the filter's
// taps).
func (in ConvInput) GemmDims() (m, n, k int) {
	g := max(in.G, 1)
	return in.N * max(in.P(), 1) * max(in.Q(), 1), max(in.K/g, 1), max(in.C/g, 1) * in.R * in.S
}

// FLOPs is the direct convolution's arithmetic: 2·N·P·Q·K·(C/G)·R·S.
func (in ConvInput) FLOPs() float64 {
	m, n, k := in.GemmDims()
	return 2 * float64(m) * float64(n*max(in.G, 1)) * float64(k)
}

// convShapeFeatureNames are the features of the call alone (the vendor
// model's, with its own).
var convShapeFeatureNames = func() []string {
	n := []string{"log2_n", "log2_c", "log2_h", "log2_w", "log2_k", "log2_r", "log2_s", "log2_p", "log2_q", "log2_groups",
		"log2_pad_plus_1", "log2_stride", "log2_dil", "log2_gemm_m", "log2_gemm_n", "log2_gemm_k", "nhwc", "flip", "tf32"}
	for _, t := range ConvTypes {
		n = append(n, "type_"+t)
	}
	return n
}()

// convInputFeatureNames add the path and its alignments.
var convInputFeatureNames = func() []string {
	n := append([]string{}, convShapeFeatureNames...)
	n = append(n, "log2_align_a", "log2_align_b")
	for _, p := range ConvPaths {
		n = append(n, "path_"+p)
	}
	return n
}()

// convVendorFeatureNames are cuDNN's model's: the call's, and how many
// times 2 divides C and K (capped at vendorPow2Cap): cuDNN's kernels take
// channels in vectors.
var convVendorFeatureNames = append(append([]string{}, convShapeFeatureNames...), "pow2_c", "pow2_k")

// convConfigFeatureNames follow the input's: an implicit GEMM's
// configuration (zero for the direct kernel), then the direct kernel's
// (zero for an implicit GEMM).
var convConfigFeatureNames = func() []string {
	n := []string{"log2_ms", "log2_ns", "log2_ml", "log2_nl", "log2_u", "log2_ks", "log2_kl", "log2_kg", "log2_kc",
		"log2_va", "log2_vb", "log2_stages"}
	for _, m := range ConvMaths {
		n = append(n, "math_"+m.String())
	}
	n = append(n, "tma_threads", "tma_producer", "persistent", "log2_blocks", "log2_m_tile_use", "log2_n_tile_use", "log2_k_per_split", "log2_threads")
	return append(n, "direct_log2_threads", "direct_log2_columns", "direct_log2_rows", "direct_log2_vec")
}()

// ConvInputFeatures, ConvVendorFeatures and ConvConfigFeatures are the
// widths of the convolution models' feature vectors.
var (
	ConvInputFeatures  = len(convInputFeatureNames)
	ConvVendorFeatures = len(convVendorFeatureNames)
	ConvConfigFeatures = len(convInputFeatureNames) + len(convConfigFeatureNames)
)

// ConvVendorSchema and ConvConfigSchema name the convolution models'
// feature layouts, as VendorSchema and ConfigSchema do GEMM's.
var (
	ConvVendorSchema = "conv-vendor-v1:" + strings.Join(convVendorFeatureNames, ",")
	ConvConfigSchema = "conv-config-v1:" + strings.Join(append(append([]string{}, convInputFeatureNames...), convConfigFeatureNames...), ",")
)

// lg1 is log2(x + 1): for sizes that may be 0.
func lg1(x int) float64 { return math.Log2(float64(max(x, 0) + 1)) }

// putConvShape writes the call's features into dst[:len(convShapeFeatureNames)].
func putConvShape(dst []float64, in ConvInput) {
	m, n, k := in.GemmDims()
	for i, v := range []int{in.N, in.C, in.H, in.W, in.K, in.R, in.S, in.P(), in.Q(), in.G} {
		dst[i] = lg(v)
	}
	dst[10], dst[11], dst[12] = lg1(in.Pad), lg(in.Stride), lg(in.Dil)
	dst[13], dst[14], dst[15] = lg(m), lg(n), lg(k)
	dst[16], dst[17], dst[18] = b2f(in.NHWC), b2f(in.Flip), b2f(in.TF32)
	for i, t := range ConvTypes {
		dst[19+i] = b2f(in.Type == t)
	}
}

// PutConvInput writes the input's features into dst[:ConvInputFeatures].
func PutConvInput(dst []float64, in ConvInput) {
	putConvShape(dst, in)
	d := dst[len(convShapeFeatureNames):]
	d[0], d[1] = lg(in.AlignA), lg(in.AlignB)
	for i, p := range ConvPaths {
		d[2+i] = b2f(in.Path == p)
	}
}

// PutConvVendorInput writes cuDNN's model's features into
// dst[:ConvVendorFeatures].
func PutConvVendorInput(dst []float64, in ConvInput) {
	putConvShape(dst, in)
	d := dst[len(convShapeFeatureNames):]
	d[0], d[1] = float64(pow2(in.C)), float64(pow2(in.K))
}

// ConvDescribes reports whether the convolution schema tells c apart from
// every other implicit-GEMM configuration: it has features for the copy
// engine's staging and persistent grids, not for pipelined fragments or a
// register cap (ptx.GemmConfig.PP, MR), nor for a math outside ConvMaths.
func ConvDescribes(c ptx.GemmConfig) bool {
	knows := false
	for _, m := range ConvMaths {
		knows = knows || c.Math == m
	}
	return c.PP == 0 && c.MR == 0 && knows
}

// PutConvConfig writes an implicit GEMM's (input, configuration) features
// into dst[:ConvConfigFeatures].
func PutConvConfig(dst []float64, in ConvInput, c ptx.GemmConfig) {
	PutConvInput(dst, in)
	d := dst[ConvInputFeatures:]
	clear(d)
	kc := max(c.KC, 1)
	d = putTiling(d, c, ConvMaths)
	d[0], d[1], d[2] = b2f(c.TMA == 1), b2f(c.TMA == 2), b2f(c.PS == 1)
	m, n, k := in.GemmDims()
	tm, tn := ceilDiv(m, c.ML), ceilDiv(n, c.NL)
	d[3] = lg(tm * tn * max(in.G, 1) * c.KG * kc)
	d[4] = math.Log2(float64(m) / float64(tm*c.ML))
	d[5] = math.Log2(float64(n) / float64(tn*c.NL))
	d[6] = math.Log2(float64(k) / float64(c.KG*kc))
	d[7] = lg(c.Threads())
}

// PutConvDirect writes a direct kernel's (input, configuration) features
// into dst[:ConvConfigFeatures]; a vector of 0 is the input class's
// (AlignA).
func PutConvDirect(dst []float64, in ConvInput, c ptx.GroupedConfig) {
	PutConvInput(dst, in)
	d := dst[ConvInputFeatures:]
	clear(d)
	vec := c.Vec
	if vec == 0 {
		vec = in.AlignA
	}
	d = d[len(convConfigFeatureNames)-4:]
	d[0], d[1], d[2], d[3] = lg(c.Threads), lg(c.Columns), lg(max(c.Rows, 1)), lg(vec)
}

// ConvInputOf is a convolution call's input for the models (its Path and
// alignments unset), and whether the models describe it: one padding,
// stride and dilation along both dimensions, as the data set has them.
func ConvInputOf(s request.ConvShape) (ConvInput, bool) {
	in := ConvInput{Type: s.Type.Name, TF32: s.TF32, NHWC: s.XStrides[1] == 1, Flip: s.Flip,
		N: s.N, C: s.C, H: s.H, W: s.W, K: s.K, R: s.R, S: s.S, G: s.G, Pad: s.PadH, Stride: s.StrH, Dil: s.DilH}
	return in, s.PadH == s.PadW && s.StrH == s.StrW && s.DilH == s.DilW
}
