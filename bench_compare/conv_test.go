package main

import (
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/ptx"
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

// -convconfigs: the shipped FP32 FMA tile list parses, and on Table 5's
// FP32 FMA rows only the configurations their class takes are listed
// (scalar gathers of x in NCHW), whole-K
// everywhere and split only where the split grid stays within three waves.
func TestListedConvConfigs(t *testing.T) {
	list, err := readConfigs("cases/conv_ffma_tiles.txt")
	if err != nil || len(list) < 100 {
		t.Fatalf("%d configurations, %v", len(list), err)
	}
	rows, _ := convSuite("table5", "s_fma")
	var scalars [2]float64
	for _, in := range rows {
		req := in.convCase().RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
		shape, _ := req.Shape()
		cls := space.ConvClass(shape, req.XPtr, req.WPtr)
		got := listedConfigs(list, cls, ptx.H100(), shape)
		whole := 0
		for _, c := range got {
			if in.Layout == convcheck.NCHW && c.VecA != 1 {
				t.Errorf("%s %s: %s listed", in.Name, in.Layout, c)
			}
			if tiles := ceil(shape.Pixels(), c.ML) * ceil(shape.K, c.NL); c.KG > 1 && tiles*c.KG > 3*132 {
				t.Errorf("%s %s: %s splits %d tiles", in.Name, in.Layout, c, tiles)
			}
			if c.KG == 1 {
				whole++
			}
		}
		if whole < 50 {
			t.Errorf("%s %s: %d whole-K configurations of %d listed", in.Name, in.Layout, whole, len(got))
		}
	}
	if _, err := readConfigs("cases/heldout_shapes.csv"); err == nil {
		t.Errorf("a shapes file read as configurations")
	}
}

func ceil(a, b int) int { return (a + b - 1) / b }
