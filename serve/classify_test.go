package serve

import (
	"testing"

	"github.com/isaacgo/isaac/request"
)

func TestClassify(t *testing.T) {
	base := request.Gemm{TransA: request.OpN, TransB: request.OpN, M: 64, N: 64, K: 64,
		LDA: 64, LDB: 64, LDC: 64, AType: request.R32F, BType: request.R32F, CType: request.R32F,
		Compute: request.Compute32F, Algo: request.AlgoDefault,
		Alpha: request.Scalar{Ptr: 0x1000}, Beta: request.Scalar{Ptr: 0x1008}, Batch: 1}
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
		{"Batch left 0: one matrix", func(g *request.Gemm) { g.Batch = 0 }, request.Served},
		{"no matrices of a batched entry", func(g *request.Gemm) { g.Entry, g.Batch = request.EntrySgemmStridedBatched, 0 }, request.FwdEmpty},
	} {
		g := base
		c.edit(&g)
		if got := Classify(&g); got != c.want {
			t.Errorf("%s: Classify = %v, want %v", c.name, got, c.want)
		}
	}
}

// TestClassifyBatched: strided-batched calls. A batch of one matrix is the
// plain GEMM it computes; a batch of several is served, and goes to the
// vendor for negative strides or an overlapping C.
func TestClassifyBatched(t *testing.T) {
	base := request.Gemm{Entry: request.EntrySgemmStridedBatched, TransA: request.OpN, TransB: request.OpN,
		M: 64, N: 32, K: 16, LDA: 64, LDB: 16, LDC: 64,
		AType: request.R32F, BType: request.R32F, CType: request.R32F,
		Compute: request.Compute32F, Algo: request.AlgoDefault,
		Alpha: request.Scalar{Ptr: 0x1000}, Beta: request.Scalar{Ptr: 0x1008},
		StrideA: 64 * 16, StrideB: 16 * 32, StrideC: 64 * 32, Batch: 8}
	cases := []struct {
		name string
		edit func(g *request.Gemm)
		want request.Reason // with batched kernels: theirs
	}{
		{"batch of 8", func(g *request.Gemm) {}, request.Served},
		{"negative batch", func(g *request.Gemm) { g.Batch = -1 }, request.FwdInvalid},
		{"negative batch, _64", func(g *request.Gemm) { g.Entry, g.Batch = request.EntrySgemmStridedBatched64, -1 }, request.FwdInvalid},
		{"batch of 0", func(g *request.Gemm) { g.Batch = 0 }, request.FwdEmpty},
		{"batch of 8, invalid lda", func(g *request.Gemm) { g.LDA = 8 }, request.FwdInvalid},
		{"batch of 8, m=0", func(g *request.Gemm) { g.M = 0 }, request.FwdEmpty},
		{"batch of 8, int8", func(g *request.Gemm) {
			g.AType, g.BType, g.CType, g.Compute = request.R8I, request.R8I, request.R8I, request.Compute32I
		}, request.FwdUnsupported},
		{"broadcast A and B", func(g *request.Gemm) { g.StrideA, g.StrideB = 0, 0 }, request.Served},
		{"padded strides", func(g *request.Gemm) { g.StrideA, g.StrideC = 64*16+3, 64*32+5 }, request.Served},
		{"negative stride A", func(g *request.Gemm) { g.StrideA = -64 * 16 }, request.FwdUnsupported},
		{"negative stride B", func(g *request.Gemm) { g.StrideB = -1 }, request.FwdUnsupported},
		{"negative stride C", func(g *request.Gemm) { g.StrideC = -64 * 32 }, request.FwdUnsupported},
		{"C matrices overlap", func(g *request.Gemm) { g.StrideC = 64*32 - 1 }, request.FwdUnsupported},
		{"C written in place", func(g *request.Gemm) { g.StrideC = 0 }, request.FwdUnsupported},
		{"C overlap through ldc", func(g *request.Gemm) { g.LDC = 128 }, request.FwdUnsupported},
		{"_64 batch of 8", func(g *request.Gemm) { g.Entry = request.EntrySgemmStridedBatched64 }, request.Served},
		{"GemmEx bf16 batch", func(g *request.Gemm) {
			g.Entry, g.AType, g.BType, g.CType = request.EntryGemmStridedBatchedEx, request.R16BF, request.R16BF, request.R16BF
		}, request.Served},
	}
	// A batch of one: served as the plain GEMM whatever its strides.
	one := []struct {
		name string
		edit func(g *request.Gemm)
	}{
		{"batch of 1", func(g *request.Gemm) {}},
		{"batch of 1, negative strides", func(g *request.Gemm) { g.StrideA, g.StrideB, g.StrideC = -1, -2, -3 }},
		{"batch of 1, C in place", func(g *request.Gemm) { g.StrideC = 0 }},
		{"batch of 1, _64", func(g *request.Gemm) { g.Entry = request.EntryGemmStridedBatchedEx64 }},
	}
	for _, c := range one {
		g := base
		g.Batch = 1
		c.edit(&g)
		plain := g
		plain.Entry, plain.StrideA, plain.StrideB, plain.StrideC = request.EntrySgemm, 0, 0, 0
		if got, want := Classify(&g), Classify(&plain); got != request.Served || want != request.Served {
			t.Errorf("%s: Classify = %v (plain GEMM %v), want served", c.name, got, want)
		}
		if g.AlignA() != plain.AlignA() || g.AlignB() != plain.AlignB() || g.AlignC() != plain.AlignC() {
			t.Errorf("%s: alignments differ from the plain GEMM's", c.name)
		}
	}
	for _, c := range cases {
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
