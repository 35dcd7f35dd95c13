package main

import (
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/request"
)

// The convolution suites: every layer in every type and both layouts, each
// a call cuDNN accepts, served by ISAAC's kernels but the grouped one, with
// its direct arithmetic.
func TestConvSuites(t *testing.T) {
	t5, cnn := convSuite("table5"), convSuite("cnn")
	if len(t5) != 14*len(convTypes)*2 || len(cnn) != 33*len(convTypes)*2 || convSuite("table4") != nil {
		t.Fatalf("%d and %d inputs", len(t5), len(cnn))
	}
	var scalars [2]float64
	for _, in := range append(t5, cnn...) {
		req := in.convCase().RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
		req.Groups, req.W.Dims[1] = in.Groups, in.C/in.Groups
		_, r := req.Shape()
		if want := map[bool]request.Reason{true: request.Served, false: request.FwdUnsupported}[in.Groups == 1]; r != want {
			t.Errorf("%s %s %s: %v, want %v", in.Name, in.Type.Name, in.Layout, r, want)
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
