package predictor

import (
	"math"
	"slices"
	"strings"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// Input is a GEMM input as the model sees it.
type Input struct {
	Type                   string // a served type: sgemm, sgemm_tf32, dgemm, hgemm, gemmex_f16_f32, gemmex_bf16_f32, gemmex_f32_fasttf32
	TransA, TransB         bool
	M, N, K                int
	AlignA, AlignB, AlignC int // elements
}

// Types are the served types' names (request.GemmTypes) in feature order.
var Types = func() []string {
	var out []string
	for _, t := range request.GemmTypes {
		out = append(out, t.Name)
	}
	return out
}()

// Maths are the kernel maths in feature order.
var Maths = []ptx.Math{ptx.FFMA, ptx.DFMA, ptx.HFMA, ptx.MMA_F16, ptx.MMA_F16_F16ACC, ptx.MMA_BF16, ptx.MMA_TF32, ptx.MMA_F64, ptx.MMA_F64_K8, ptx.MMA_F64_K16,
	ptx.WGMMA_F16, ptx.WGMMA_F16_F16ACC, ptx.WGMMA_BF16}

// inputFeatureNames are the features of the input alone (the vendor model's).
var inputFeatureNames = func() []string {
	n := []string{"log2_m", "log2_n", "log2_k", "log2_align_a", "log2_align_b", "log2_align_c", "trans_a", "trans_b"}
	for _, t := range Types {
		n = append(n, "type_"+t)
	}
	return n
}()

// tilingFeatureNames follow the input's in the configuration model: the
// tiling's, then a one-hot of the maths (mathFeatureNames), then
// derivedFeatureNames.
var tilingFeatureNames = []string{"log2_ms", "log2_ns", "log2_ml", "log2_nl", "log2_u", "log2_ks", "log2_kl", "log2_kg", "log2_kc",
	"log2_va", "log2_vb", "log2_stages"}

var derivedFeatureNames = []string{"log2_blocks", "log2_m_tile_use", "log2_n_tile_use", "log2_k_per_split", "log2_threads"}

// stagingFeatureNames end schema v3: the options that stage, pipeline and
// cap a kernel (ptx.GemmConfig.TMA, PS, PP, MR), which the parameter spaces
// do not draw and v2 does not tell from their plain twins.
var stagingFeatureNames = []string{"tma_copy", "tma_producer", "persistent", "pipelined", "reg_capped", "log2_reg_cap"}

func mathFeatureNames(maths []ptx.Math) []string {
	var n []string
	for _, m := range maths {
		n = append(n, "math_"+m.String())
	}
	return n
}

// vendorFeatureNames are the vendor model's features: the input's, then
// how many times 2 divides m, n and k (capped at vendorPow2Cap): cuBLAS is
// several times faster on shapes that are multiples of large powers of two
// than on their odd neighbours (weights/README.md), which the logarithms
// alone cannot express.
var vendorFeatureNames = append(append([]string{}, inputFeatureNames...), "pow2_m", "pow2_n", "pow2_k")

// vendorPow2Cap caps the power-of-two features (1024 divides every size
// that a tile of cuBLAS's divides).
const vendorPow2Cap = 10

// InputFeatures is the width of the input feature vector.
var InputFeatures = len(inputFeatureNames)

// VendorFeatures is the width of the vendor model's feature vector.
var VendorFeatures = len(vendorFeatureNames)

// ConfigFeatures is the width of the (input, configuration) feature
// vector of this build's schema (ConfigSchema: v3).
var ConfigFeatures = ConfigV3.Width

// InputSchema and ConfigSchema name the feature vectors' layouts; weights
// record them and a loader refuses weights with a schema it does not know.
// ConfigSchema is the one the trainer writes; weights of the older
// ConfigV2 (the H200's) are scored with theirs (Model.ConfigLayout).
var (
	InputSchema  = "gemm-input-v1:" + strings.Join(inputFeatureNames, ",")
	VendorSchema = "gemm-vendor-v2:" + strings.Join(vendorFeatureNames, ",")
	ConfigSchema = ConfigV3.Schema
)

// ConfigLayout is one configuration schema: its name, the width of its
// feature vector and the maths it has features for. Weights record their
// schema, and a model is scored with its own layout, so that weights
// trained on an older schema keep working beside newer ones.
type ConfigLayout struct {
	Schema string
	Width  int
	Maths  []ptx.Math // the maths of its one-hot, in order
	// Staging reports whether the schema tells a configuration from its
	// staged, pipelined and register-capped twins (TMA, PS, PP, MR): a
	// search with such a model scores the twins, and the server runs its
	// choice as it is instead of staging it.
	Staging bool
}

func newConfigLayout(version string, maths []ptx.Math, staging bool) *ConfigLayout {
	names := append(append(append(append([]string{}, inputFeatureNames...), tilingFeatureNames...), mathFeatureNames(maths)...), derivedFeatureNames...)
	if staging {
		names = append(names, stagingFeatureNames...)
	}
	return &ConfigLayout{Schema: version + ":" + strings.Join(names, ","), Width: len(names), Maths: maths, Staging: staging}
}

// The configuration schemas: v2, the input's features, the tiling, the
// maths of Maths and five derived quantities; v3, the same with
// wgmma_tf32 among the maths, then the staging options
// (stagingFeatureNames).
var (
	ConfigV2 = newConfigLayout("gemm-config-v2", Maths, false)
	ConfigV3 = newConfigLayout("gemm-config-v3", append(append([]ptx.Math{}, Maths...), ptx.WGMMA_TF32), true)
)

// ConfigLayoutOf is the layout of a configuration schema, false for one
// this build does not know.
func ConfigLayoutOf(schema string) (*ConfigLayout, bool) {
	for _, l := range []*ConfigLayout{ConfigV3, ConfigV2} {
		if l.Schema == schema {
			return l, true
		}
	}
	return nil, false
}

// KnowsMath reports whether the schema has a feature for math m: a
// configuration of another math would be taken for one of no math at all,
// so the search scores none.
func (l *ConfigLayout) KnowsMath(m ptx.Math) bool { return slices.Contains(l.Maths, m) }

// Describes reports whether the schema tells c apart from every other
// configuration: it knows c's math and, unless it has Staging, c has none
// of the options the spaces do not draw (TMA, PS, PP, MR), whose rows v2
// would take for their plain twins'. The trainer leaves other rows out.
func (l *ConfigLayout) Describes(c ptx.GemmConfig) bool {
	return l.KnowsMath(c.Math) && (l.Staging || c.PP == 0 && c.MR == 0 && c.TMA == 0 && c.PS == 0)
}

// Rows are the feature rows of (in, cfgs), one after the other.
func (l *ConfigLayout) Rows(in Input, cfgs []ptx.GemmConfig) []float64 {
	x := make([]float64, len(cfgs)*l.Width)
	for i, c := range cfgs {
		l.Put(x[i*l.Width:(i+1)*l.Width], in, c)
	}
	return x
}

// Put writes the pair's features into dst[:l.Width].
func (l *ConfigLayout) Put(dst []float64, in Input, c ptx.GemmConfig) {
	PutInput(dst, in)
	d := putTiling(dst[InputFeatures:], c, l.Maths)
	kc := max(c.KC, 1)
	tm, tn := ceilDiv(in.M, c.ML), ceilDiv(in.N, c.NL)
	d[0] = lg(tm * tn * c.KG * kc)
	d[1] = math.Log2(float64(max(in.M, 1)) / float64(tm*c.ML))
	d[2] = math.Log2(float64(max(in.N, 1)) / float64(tn*c.NL))
	d[3] = math.Log2(float64(max(in.K, 1)) / float64(c.KG*kc))
	d[4] = lg(c.Threads())
	if !l.Staging {
		return
	}
	d = d[len(derivedFeatureNames):]
	d[0], d[1] = b2f(c.TMA == 1), b2f(c.TMA == 2)
	d[2], d[3] = b2f(c.PS == 1), b2f(c.PP == 1)
	d[4], d[5] = b2f(c.MR > 0), 0
	if c.MR > 0 {
		d[5] = lg(c.MR)
	}
}

func lg(x int) float64 { return math.Log2(float64(max(x, 1))) }

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// PutInput writes the input's features into dst[:InputFeatures].
func PutInput(dst []float64, in Input) {
	dst[0], dst[1], dst[2] = lg(in.M), lg(in.N), lg(in.K)
	dst[3], dst[4], dst[5] = lg(in.AlignA), lg(in.AlignB), lg(in.AlignC)
	dst[6], dst[7] = b2f(in.TransA), b2f(in.TransB)
	for i, t := range Types {
		dst[8+i] = b2f(in.Type == t)
	}
}

// PutVendorInput writes the vendor model's features into
// dst[:VendorFeatures].
func PutVendorInput(dst []float64, in Input) {
	PutInput(dst, in)
	for i, v := range []int{in.M, in.N, in.K} {
		dst[InputFeatures+i] = float64(pow2(v))
	}
}

// pow2 is how many times 2 divides v, at most vendorPow2Cap (0 for v ≤ 0).
func pow2(v int) int {
	n := 0
	for v > 0 && v%2 == 0 && n < vendorPow2Cap {
		v /= 2
		n++
	}
	return n
}

// Describes reports whether this build's schema (ConfigV3) tells c apart
// from every other configuration (ConfigLayout.Describes).
func Describes(c ptx.GemmConfig) bool { return ConfigV3.Describes(c) }

// PutConfig writes the pair's features into dst[:ConfigFeatures], in this
// build's schema (ConfigV3).
func PutConfig(dst []float64, in Input, c ptx.GemmConfig) { ConfigV3.Put(dst, in, c) }

// putTiling writes the configuration's tiling (logarithms of its block,
// warp, unrolling, split, vector and stage parameters) and its math, one of
// maths, into d and returns the rest of d.
func putTiling(d []float64, c ptx.GemmConfig, maths []ptx.Math) []float64 {
	for i, v := range []int{c.MS, c.NS, c.ML, c.NL, c.U, c.KS, c.KL, c.KG, max(c.KC, 1), c.VecA, c.VecB, c.Stages} {
		d[i] = lg(v)
	}
	d = d[12:]
	for i, m := range maths {
		d[i] = b2f(c.Math == m)
	}
	return d[len(maths):]
}

func ceilDiv(a, b int) int { return (max(a, 1) + b - 1) / b }

// Names are the layout's feature names, in order.
func (l *ConfigLayout) Names() []string {
	_, names, _ := strings.Cut(l.Schema, ":")
	return strings.Split(names, ",")
}
