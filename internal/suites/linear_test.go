package suites

import (
	"fmt"
	"testing"
)

// The linear suite: every LLaMA-class layer at 1 to 4096 tokens and every
// BERT layer at 128, 512 and 4096, as PyTorch's nn.Linear calls
// cublasLtMatmul (m = out, n = tokens, k = in, "TN", a bias), each named
// once after its layer and tokens.
func TestLinear(t *testing.T) {
	shapes := Linear()
	llama := [][2]int{{4096, 4096}, {4096, 11008}, {11008, 4096}, {4096, 14336}, {14336, 4096}}
	bert := map[string][2]int{
		"bert-base-attn": {768, 768}, "bert-base-fc1": {768, 3072}, "bert-base-fc2": {3072, 768},
		"bert-large-attn": {1024, 1024}, "bert-large-fc1": {1024, 4096}, "bert-large-fc2": {4096, 1024},
	}
	want := map[string][3]int{} // name → in, out, tokens
	for _, l := range llama {
		for _, tok := range []int{1, 8, 16, 64, 512, 4096} {
			want[fmt.Sprintf("llama-%dx%d-t%d", l[0], l[1], tok)] = [3]int{l[0], l[1], tok}
		}
	}
	for name, l := range bert {
		for _, tok := range []int{128, 512, 4096} {
			want[fmt.Sprintf("%s-t%d", name, tok)] = [3]int{l[0], l[1], tok}
		}
	}
	if len(shapes) != len(want) || len(want) != 48 {
		t.Errorf("%d shapes, want %d (48)", len(shapes), len(want))
	}
	seen := map[string]bool{}
	for _, s := range shapes {
		if seen[s.Name] {
			t.Errorf("name %q twice", s.Name)
		}
		seen[s.Name] = true
		w, ok := want[s.Name]
		if !ok {
			t.Errorf("unexpected input %+v", s)
			continue
		}
		if s.Suite != "linear" || s.Layout != "TN" || !s.Bias || s.Batch > 1 || s.K != w[0] || s.M != w[1] || s.N != w[2] {
			t.Errorf("%s: %+v, want in %d out %d tokens %d, TN with a bias", s.Name, s, w[0], w[1], w[2])
		}
	}
	if s := shapes[1]; s.Name != "llama-4096x4096-t8" {
		t.Errorf("second input %q", s.Name)
	}
	for _, s := range append(Table4(), Attention()...) {
		if s.Bias {
			t.Errorf("%+v has a bias", s)
		}
	}
}
