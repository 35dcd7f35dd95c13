package serve

import (
	"testing"

	"github.com/isaacgo/isaac/request"
)

func TestClassify(t *testing.T) {
	base := request.Gemm{TransA: request.OpN, TransB: request.OpN, M: 64, N: 64, K: 64,
		LDA: 64, LDB: 64, LDC: 64, AType: request.R32F, BType: request.R32F, CType: request.R32F,
		Compute: request.Compute32F, Algo: request.AlgoDefault,
		Alpha: request.Scalar{Ptr: 0x1000}, Beta: request.Scalar{Ptr: 0x1008}}
	for _, c := range []struct {
		name string
		edit func(g *request.Gemm)
		want request.Reason
	}{
		{"sgemm", func(g *request.Gemm) {}, request.Served},
		{"invalid lda", func(g *request.Gemm) { g.LDA = 1 }, request.FwdInvalid},
		{"m=0", func(g *request.Gemm) { g.M = 0 }, request.FwdEmpty},
		{"k=0 is computed", func(g *request.Gemm) { g.K = 0 }, request.Served},
		{"too large", func(g *request.Gemm) { g.N = 1 << 32; g.LDB = 64 }, request.FwdTooLarge},
		{"f16 compute 16F", func(g *request.Gemm) {
			g.AType, g.BType, g.CType, g.Compute = request.R16F, request.R16F, request.R16F, request.Compute16F
		}, request.Served},
		{"bf16 compute 16F", func(g *request.Gemm) {
			g.AType, g.BType, g.CType, g.Compute = request.R16BF, request.R16BF, request.R16BF, request.Compute16F
		}, request.FwdUnsupported},
		{"f16 in, f32 out", func(g *request.Gemm) { g.AType, g.BType = request.R16F, request.R16F }, request.FwdUnsupported},
		{"int8", func(g *request.Gemm) {
			g.AType, g.BType, g.CType, g.Compute = request.R8I, request.R8I, request.R8I, request.Compute32I
		}, request.FwdUnsupported},
		{"tf32", func(g *request.Gemm) { g.Compute = request.Compute32FFastTF32 }, request.Served},
		{"tensor-op algorithm", func(g *request.Gemm) { g.Algo = 99 }, request.Served},
		{"invalid algorithm", func(g *request.Gemm) { g.Algo = 12345 }, request.FwdInvalid},
		{"NULL alpha", func(g *request.Gemm) { g.Alpha.Ptr = 0 }, request.FwdInvalid},
		{"f64", func(g *request.Gemm) {
			g.AType, g.BType, g.CType, g.Compute = request.R64F, request.R64F, request.R64F, request.Compute64F
		}, request.Served},
	} {
		g := base
		c.edit(&g)
		if got := Classify(&g); got != c.want {
			t.Errorf("%s: Classify = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestParsePolicy(t *testing.T) {
	for _, c := range []struct {
		policy, config string
		want           Policy
	}{
		{"", "", Auto}, {"auto", "", Auto}, {"always", "", Always},
		{"never", "", Never}, {"", "ms=1", Always}, {"never", "ms=1", Never},
		{"bogus", "", Auto},
	} {
		if got := ParsePolicy(c.policy, c.config); got != c.want {
			t.Errorf("ParsePolicy(%q, %q) = %v, want %v", c.policy, c.config, got, c.want)
		}
	}
}
