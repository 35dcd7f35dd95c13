package space

import "github.com/isaacgo/isaac/ptx"

// Suits reports whether a legal configuration suits an m×n×k problem: no
// block tile far larger than the problem (at most twice the next power of
// two above the extent, or 16), and a k-split only where every split still
// has two U-deep slices of K. The sweep, the sampler and the search prune
// with it; Legal says nothing about shapes.
func Suits(c ptx.GemmConfig, m, n, k int) bool {
	ceil2 := func(x int) int {
		p := 1
		for p < x {
			p *= 2
		}
		return p
	}
	if c.ML > 2*ceil2(m) && c.ML > 16 || c.NL > 2*ceil2(n) && c.NL > 16 {
		return false
	}
	splits := c.KG * max(1, c.KC)
	return splits == 1 || k/splits >= 2*c.U
}

// WithinMatrix reports whether c's block tile is no larger than an m×n
// matrix rounded up to powers of two (or 16): a batch's tiles, whose
// matrices give the grid its width (gputest/results/h100/batched/call8:
// 128×256 tiles on 128×128 matrices).
func WithinMatrix(c ptx.GemmConfig, m, n int) bool {
	ceil2 := func(x int) int {
		p := 16
		for p < x {
			p *= 2
		}
		return p
	}
	return c.ML <= ceil2(m) && c.NL <= ceil2(n)
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// Suited is the configurations of cfgs that suit an m×n×k input, in order.
func Suited(cfgs []ptx.GemmConfig, m, n, k int) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	for _, c := range cfgs {
		if Suits(c, m, n, k) {
			out = append(out, c)
		}
	}
	return out
}
