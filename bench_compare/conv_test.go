package main

import (
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// The convolution suites: every layer in every type and both layouts, each
// a call cuDNN accepts and ISAAC's kernels compute (the grouped one by the
// direct kernel), with its direct arithmetic.
func TestConvSuites(t *testing.T) {
	t5, _ := convSuite("table5", "")
	cnn, _ := convSuite("cnn", "")
	dw, _ := convSuite("depthwise", "")
	gemm, _ := convSuite("table4", "")
	half, err := convSuite("table5", "h_pseudo, bf16")
	if len(t5) != 14*len(convTypes)*2 || len(cnn) != 33*len(convTypes)*2 || len(dw) != 12*len(convTypes)*2 || gemm != nil || err != nil || len(half) != 14*2*2 {
		t.Fatalf("%d, %d and %d inputs (%v)", len(t5), len(cnn), len(half), err)
	}
	if _, err := convSuite("cnn", "h"); err == nil {
		t.Errorf("unknown type accepted")
	}
	var scalars [2]float64
	for _, in := range append(append(t5, cnn...), dw...) {
		req := in.convCase().RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
		shape, r := req.Shape()
		if r != request.Served || req.Groups != in.Groups || in.Groups > 1 && !space.GroupedDirect(shape) {
			t.Errorf("%s %s %s: %v (groups %d)", in.Name, in.Type.Name, in.Layout, r, req.Groups)
		}
		if in.Layout == convcheck.NHWC && (!in.convCase().FilterNHWC || req.X.Strides[1] != 1) {
			t.Errorf("%s: NHWC with %v", in.Name, req.X.Strides)
		}
	}
	c1 := t5[0]
	if flops, bytes := convWork(c1); flops != 2*16*32*79*341*1*5*20 || bytes != 4*(16*83*360+32*100+16*32*79*341) {
		t.Errorf("conv1 %s: %g flops, %g bytes", c1.Type.Name, flops, bytes)
	}
}
