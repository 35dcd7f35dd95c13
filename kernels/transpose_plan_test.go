package kernels

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// apply moves src as plan p's job says (ptx.TransposeJob): a tiles job
// (A, B, C, D) into a packed (A, C, D, B), a rows job (A, B, D) into a
// packed (A, D, B).
func (p transposePlan) apply(src []int) []int {
	d, s := p.dims, p.strides
	if p.job == ptx.TransposeRows {
		d[2], s[2] = 1, 0
	}
	out := make([]int, d[0]*d[1]*d[2]*d[3])
	for a := 0; a < d[0]; a++ {
		for b := 0; b < d[1]; b++ {
			for c := 0; c < d[2]; c++ {
				for e := 0; e < d[3]; e++ {
					out[((a*d[2]+c)*d[3]+e)*d[1]+b] = src[a*s[0]+b*s[1]+c*s[2]+e*s[3]]
				}
			}
		}
	}
	return out
}

// A transposes plan moves a 4-d (N, C, H, W) tensor of any strides into a
// packed NHWC copy; a packed channel-contiguous one (NHWC x, a filter in
// NHWC format: what a TF32 convolution copies to round) is one rows job
// of N rows, a straight copy.
func TestPlanTranspose(t *testing.T) {
	const N, C, H, W = 3, 5, 4, 9 // H·W beyond RowsMaxD: the rows job is the copy alone
	for _, tc := range []struct {
		name    string
		strides [4]int
		rows    bool
	}{
		{"nchw", [4]int{C * H * W, H * W, W, 1}, false},
		{"nhwc", [4]int{H * W * C, 1, W * C, C}, true},
		{"nhwc in a larger tensor", [4]int{H * W * C * 2, 1, W * C, C}, true},
		{"nhwc with padded pixels", [4]int{H * W * (C + 3), 1, W * (C + 3), C + 3}, false},
		{"nchw slice", [4]int{(C + 2) * (H + 1) * (W + 3), (H + 1) * (W + 3), W + 3, 1}, false},
	} {
		size := 1
		for i, d := range [4]int{N, C, H, W} {
			size += (d - 1) * tc.strides[i]
		}
		src := make([]int, size)
		for i := range src {
			src[i] = -1
		}
		for n := range N {
			for c := range C {
				for h := range H {
					for w := range W {
						src[n*tc.strides[0]+c*tc.strides[1]+h*tc.strides[2]+w*tc.strides[3]] = ((n*H+h)*W+w)*C + c
					}
				}
			}
		}
		p := planTranspose(0, 0, [4]int{N, C, H, W}, tc.strides)
		if (p.job == ptx.TransposeRows) != tc.rows {
			t.Errorf("%s: job %v, want rows %v", tc.name, p.job, tc.rows)
		}
		got := p.apply(src)
		if len(got) != N*C*H*W {
			t.Fatalf("%s: %d elements", tc.name, len(got))
		}
		for i, v := range got {
			if v != i {
				t.Errorf("%s (%v, dims %v strides %v): element %d of the copy is %d", tc.name, p.job, p.dims, p.strides, i, v)
				break
			}
		}
	}
}
