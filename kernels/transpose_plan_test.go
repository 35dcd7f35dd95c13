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
	if p.job.Rows() {
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
// of N rows, a straight copy, whose loads are as many as its rows need
// (ptx.RowsJob). 2-byte elements move in words (a pairs job)
// where the channels, the rows of D and the strides are even.
func TestPlanTranspose(t *testing.T) {
	for _, tc := range []struct {
		name       string
		es         int
		N, C, H, W int
		strides    func(N, C, H, W int) [4]int
		job        ptx.TransposeJob
	}{
		{"nchw", 4, 3, 5, 4, 9, nchw, ptx.TransposeTiles},
		{"nchw of 2-byte elements, odd channels", 2, 3, 5, 4, 9, nchw, ptx.TransposeTiles},
		{"nchw of 2-byte elements", 2, 3, 6, 4, 9, nchw, ptx.TransposePairs},
		{"nchw of 2-byte elements, odd pixels", 2, 3, 6, 5, 9, nchw, ptx.TransposeTiles},
		{"nchw of 4-byte elements, even", 4, 3, 6, 4, 9, nchw, ptx.TransposeTiles},
		{"nhwc", 2, 3, 6, 4, 9, func(N, C, H, W int) [4]int { return [4]int{H * W * C, 1, W * C, C} }, ptx.TransposeRows},
		{"nhwc in a larger tensor", 4, 3, 5, 4, 9, func(N, C, H, W int) [4]int { return [4]int{H * W * C * 2, 1, W * C, C} }, ptx.TransposeRows},
		{"nhwc with padded pixels", 4, 3, 5, 4, 9, func(N, C, H, W int) [4]int { return [4]int{H * W * (C + 3), 1, W * (C + 3), C + 3} }, ptx.TransposeTiles},
		{"nchw slice", 2, 3, 6, 4, 9, func(N, C, H, W int) [4]int {
			return [4]int{(C + 2) * (H + 1) * (W + 3), (H + 1) * (W + 3), W + 3, 1}
		}, ptx.TransposeTiles},
		{"nchw slice of even rows", 2, 3, 6, 4, 10, func(N, C, H, W int) [4]int {
			return [4]int{(C + 2) * (H + 1) * (W + 4), (H + 1) * (W + 4), W + 4, 1}
		}, ptx.TransposePairs},
		{"nchw slice of one image, odd", 2, 1, 6, 4, 10, func(N, C, H, W int) [4]int { return [4]int{7, H * W, W, 1} }, ptx.TransposePairs},
	} {
		N, C, H, W := tc.N, tc.C, tc.H, tc.W // H·W beyond RowsMaxD: the rows job is the copy alone
		st := tc.strides(N, C, H, W)
		src := nhwcIndices([4]int{N, C, H, W}, st)
		p := planTranspose(tc.es, 0, 0, [4]int{N, C, H, W}, st)
		switch {
		case tc.job == ptx.TransposeRows && p.job != ptx.RowsJob(p.dims[3]):
			t.Errorf("%s: job %v, want the rows job of %d-element rows (%v)", tc.name, p.job, p.dims[3], ptx.RowsJob(p.dims[3]))
		case tc.job != ptx.TransposeRows && p.job != tc.job:
			t.Errorf("%s: job %v, want %v", tc.name, p.job, tc.job)
		}
		if p.job == ptx.TransposePairs && planTranspose(tc.es, 2, 0, [4]int{N, C, H, W}, st).job == ptx.TransposePairs {
			t.Errorf("%s: a pairs job from a 2-byte aligned source", tc.name)
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

// nhwcIndices is a tensor of dims (N, C, H, W) and element strides st
// whose elements hold their index in the packed NHWC copy (-1 where no
// element lies).
func nhwcIndices(dims, st [4]int) []int {
	size := 1
	for i, d := range dims {
		size += (d - 1) * st[i]
	}
	src := make([]int, size)
	for i := range src {
		src[i] = -1
	}
	N, C, H, W := dims[0], dims[1], dims[2], dims[3]
	for n := range N {
		for c := range C {
			for h := range H {
				for w := range W {
					src[n*st[0]+c*st[1]+h*st[2]+w*st[3]] = ((n*H+h)*W+w)*C + c
				}
			}
		}
	}
	return src
}

// nchw are the strides of a packed NCHW tensor.
func nchw(N, C, H, W int) [4]int { return [4]int{C * H * W, H * W, W, 1} }

// FuzzPlanTranspose: for a tensor of any dimensions and strides (packed or
// padded NCHW, packed or padded NHWC, or a permutation of the dimensions),
// the plan moves every element to its place in the packed NHWC copy, and
// takes a job only where it fits: words (a pairs job) for 2-byte elements
// that ptx.PairsFit allows from a 4-byte aligned source, a rows job for rows
// of at most ptx.RowsMaxD elements, generated for its rows (ptx.RowsJob).
func FuzzPlanTranspose(f *testing.F) {
	f.Add(uint8(2), uint8(3), uint8(6), uint8(4), uint8(9), uint8(0), uint8(0), false)
	f.Add(uint8(4), uint8(3), uint8(5), uint8(4), uint8(9), uint8(1), uint8(0), false)
	f.Add(uint8(2), uint8(2), uint8(36), uint8(17), uint8(42), uint8(2), uint8(3), false)
	f.Add(uint8(2), uint8(1), uint8(64), uint8(3), uint8(3), uint8(3), uint8(0), true)
	f.Add(uint8(8), uint8(2), uint8(7), uint8(1), uint8(1), uint8(4), uint8(5), false)
	f.Fuzz(func(t *testing.T, esb, n, c, h, w, layout, pad uint8, odd bool) {
		es := []int{2, 4, 8}[int(esb)%3]
		N, C, H, W := 1+int(n)%4, 1+int(c)%70, 1+int(h)%9, 1+int(w)%40
		p := int(pad) % 5
		var st [4]int
		switch layout % 5 {
		case 0: // NCHW, rows padded by p
			st = [4]int{C * H * (W + p), H * (W + p), W + p, 1}
		case 1: // NHWC, pixels padded by p
			st = [4]int{H * W * (C + p), 1, W * (C + p), C + p}
		case 2: // a slice of a larger NCHW tensor
			st = [4]int{(C + p) * (H + 1) * (W + p), (H + 1) * (W + p), W + p, 1}
		case 3: // CNHW: images interleaved
			st = [4]int{H * W, N * H * W, W, 1}
		default: // HWNC
			st = [4]int{C, 1, W * N * C, N * C}
		}
		src := nhwcIndices([4]int{N, C, H, W}, st)
		at := uintptr(1 << 12)
		if odd {
			at += uintptr(es / 2) // a source not aligned to 4 bytes (for 2-byte elements)
		}
		plan := planTranspose(es, at, 0, [4]int{N, C, H, W}, st)
		switch {
		case plan.job == ptx.TransposePairs && (es != 2 || !ptx.PairsFit(at, plan.dims, plan.strides)):
			t.Fatalf("a pairs job of %d-byte elements at %#x, dims %v strides %v", es, at, plan.dims, plan.strides)
		case plan.job.Rows() && (plan.dims[3] > ptx.RowsMaxD || plan.job != ptx.RowsJob(plan.dims[3]) && plan.job != ptx.TransposeRows):
			t.Fatalf("rows job %v for rows of %d", plan.job, plan.dims[3])
		case plan.job.Rows() && plan.job != ptx.RowsJob(plan.dims[3]):
			t.Fatalf("rows job %v for rows of %d, want %v", plan.job, plan.dims[3], ptx.RowsJob(plan.dims[3]))
		}
		got := plan.apply(src)
		if len(got) != N*C*H*W {
			t.Fatalf("%d elements, want %d", len(got), N*C*H*W)
		}
		for i, v := range got {
			if v != i {
				t.Fatalf("%v (dims %v strides %v): element %d of the copy is %d", plan.job, plan.dims, plan.strides, i, v)
			}
		}
	})
}
