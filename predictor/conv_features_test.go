package predictor

import (
	"math"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

func TestConvShape(t *testing.T) {
	for _, c := range []struct {
		in        ConvInput
		p, q      int
		m, n, k   int
		gigaflops float64
	}{
		{ConvInput{N: 8, C: 64, H: 114, W: 114, K: 128, R: 3, S: 3, G: 1, Stride: 1, Dil: 1}, 112, 112, 8 * 112 * 112, 128, 576, 2 * 8 * 112 * 112 * 128 * 576 / 1e9},
		{ConvInput{N: 1, C: 3, H: 224, W: 224, K: 64, R: 7, S: 7, G: 1, Pad: 3, Stride: 2, Dil: 1}, 112, 112, 112 * 112, 64, 147, 2 * 112 * 112 * 64 * 147 / 1e9},
		{ConvInput{N: 2, C: 32, H: 9, W: 5, K: 32, R: 3, S: 3, G: 32, Pad: 2, Stride: 1, Dil: 2}, 9, 5, 2 * 9 * 5, 1, 9, 2 * 2 * 9 * 5 * 32 * 9 / 1e9},
	} {
		m, n, k := c.in.GemmDims()
		if c.in.P() != c.p || c.in.Q() != c.q || m != c.m || n != c.n || k != c.k || math.Abs(c.in.FLOPs()/1e9-c.gigaflops) > 1e-9 {
			t.Errorf("%+v: P %d Q %d, GEMM %d×%d×%d, %g GFLOP; want %d %d, %d×%d×%d, %g", c.in, c.in.P(), c.in.Q(), m, n, k, c.in.FLOPs()/1e9, c.p, c.q, c.m, c.n, c.k, c.gigaflops)
		}
	}
}

// The feature vectors: their widths match their names, the schemas are not
// GEMM's, each one-hot group has one bit set, and an implicit GEMM's row
// leaves the direct kernel's features zero and the other way round.
func TestConvFeatures(t *testing.T) {
	if !strings.HasPrefix(ConvConfigSchema, "conv-config-") || !strings.HasPrefix(ConvVendorSchema, "conv-vendor-") {
		t.Fatalf("schemas %q %q", ConvConfigSchema[:20], ConvVendorSchema[:20])
	}
	names := append(append([]string{}, convInputFeatureNames...), convConfigFeatureNames...)
	in := ConvInput{Type: "bfloat16", NHWC: true, N: 8, C: 64, H: 58, W: 58, K: 128, R: 3, S: 3, G: 1, Stride: 1, Dil: 1, Path: "nhwc_copies", AlignA: 8, AlignB: 8}
	gemm := ptx.GemmConfig{MS: 1, NS: 16, ML: 128, NL: 128, U: 64, KS: 1, KL: 1, KG: 1, KC: 1, VecA: 8, VecB: 8, Stages: 6, Math: ptx.WGMMA_BF16, TMA: 2, PS: 1}
	x := make([]float64, ConvConfigFeatures)
	for i := range x {
		x[i] = math.NaN() // every feature written
	}
	PutConvConfig(x, in, gemm)
	at := func(name string) float64 {
		for i, n := range names {
			if n == name {
				return x[i]
			}
		}
		t.Fatalf("no feature %s", name)
		return 0
	}
	for i, v := range x {
		if math.IsNaN(v) {
			t.Fatalf("feature %s not written", names[i])
		}
	}
	onehots := func(prefix string) (n int) {
		for i, name := range names {
			if strings.HasPrefix(name, prefix) && x[i] == 1 {
				n++
			}
		}
		return n
	}
	if onehots("type_") != 1 || onehots("path_") != 1 || onehots("math_") != 1 || at("math_wgmma_bf16") != 1 || at("path_nhwc_copies") != 1 {
		t.Errorf("one-hot groups: %v", x)
	}
	if at("tma_producer") != 1 || at("tma_threads") != 0 || at("persistent") != 1 || at("log2_gemm_k") != math.Log2(576) || at("log2_u") != 6 {
		t.Errorf("configuration features: %v", x)
	}
	if at("log2_blocks") != math.Log2(8*56*56/128) { // 196 tiles of 128 pixels, one of 128 filters
		t.Errorf("blocks %v", at("log2_blocks"))
	}
	for _, n := range []string{"direct_log2_threads", "direct_log2_columns", "direct_log2_rows", "direct_log2_vec"} {
		if at(n) != 0 {
			t.Errorf("%s = %v in an implicit GEMM's row", n, at(n))
		}
	}
	dw := ConvInput{Type: "float", N: 8, C: 32, H: 56, W: 56, K: 32, R: 3, S: 3, G: 32, Pad: 1, Stride: 1, Dil: 1, Path: "direct", AlignA: 4, AlignB: 1}
	PutConvDirect(x, dw, ptx.GroupedConfig{Threads: 128, Columns: 4, Rows: 2})
	if at("direct_log2_threads") != 7 || at("direct_log2_columns") != 2 || at("direct_log2_rows") != 1 || at("direct_log2_vec") != 2 || at("path_direct") != 1 {
		t.Errorf("direct features: %v", x)
	}
	if onehots("math_") != 0 || at("log2_ml") != 0 || at("log2_groups") != 5 {
		t.Errorf("a direct kernel's row with implicit-GEMM features: %v", x)
	}
	if !ConvDescribes(gemm) || ConvDescribes(ptx.GemmConfig{Math: ptx.WGMMA_TF32, PP: 1}) || !ConvDescribes(ptx.GemmConfig{Math: ptx.WGMMA_TF32}) {
		t.Errorf("ConvDescribes")
	}
	v := make([]float64, ConvVendorFeatures)
	PutConvVendorInput(v, in)
	if v[ConvVendorFeatures-2] != 6 || v[ConvVendorFeatures-1] != 7 || len(convVendorFeatureNames) != ConvVendorFeatures {
		t.Errorf("vendor features %v", v)
	}
}
