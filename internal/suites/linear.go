package suites

import "fmt"

// linearLayers are the linear suite's nn.Linear layers, in → out features,
// each with the token counts it runs at: the projections and MLPs of
// LLaMA-class decoders (LLaMA-7B's 11008, LLaMA-3-8B's and Mistral-7B's
// 14336) from one token (decoding) to 4096 (a prompt), and BERT-base's and
// BERT-large's attention projections and feed-forward layers at sequence
// 128 by batch 1, 4 and 32.
var linearLayers = []struct {
	name    string
	in, out int
	tokens  []int
}{
	{"llama-4096x4096", 4096, 4096, llamaTokens},
	{"llama-4096x11008", 4096, 11008, llamaTokens},
	{"llama-11008x4096", 11008, 4096, llamaTokens},
	{"llama-4096x14336", 4096, 14336, llamaTokens},
	{"llama-14336x4096", 14336, 4096, llamaTokens},
	{"bert-base-attn", 768, 768, bertTokens},
	{"bert-base-fc1", 768, 3072, bertTokens},
	{"bert-base-fc2", 3072, 768, bertTokens},
	{"bert-large-attn", 1024, 1024, bertTokens},
	{"bert-large-fc1", 1024, 4096, bertTokens},
	{"bert-large-fc2", 4096, 1024, bertTokens},
}

var (
	llamaTokens = []int{1, 8, 16, 64, 512, 4096}
	bertTokens  = []int{128, 512, 4096} // sequence 128 × batch 1, 4, 32
)

// Linear is PyTorch's nn.Linear, y = x·Wᵀ + b, as PyTorch calls
// cublasLtMatmul for it: x (tokens × in) and W (out × in) row-major are,
// column-major, xᵀ (in × tokens) and Wᵀ (in × out), so that yᵀ = W·xᵀ is
// the GEMM with transa = T, transb = N, m = out features, n = tokens, k =
// in features (lda = ldb = k, ldc = m), the bias (m elements) added by the
// BIAS epilogue, alpha 1, beta 0, D = C in place. Each input is named
// after its layer and tokens, e.g. "llama-4096x11008-t8".
func Linear() []Shape {
	var s []Shape
	for _, l := range linearLayers {
		for _, t := range l.tokens {
			s = append(s, Shape{Suite: "linear", M: l.out, N: t, K: l.in, Layout: "TN", Bias: true,
				Name: fmt.Sprintf("%s-t%d", l.name, t)})
		}
	}
	return s
}
