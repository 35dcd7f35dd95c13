package serve

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/weights"
)

// A convolution choice's line reads back as the choice it was written
// from, implicit GEMM and direct kernel alike; malformed lines do not read.
func TestConvChoiceLine(t *testing.T) {
	cfg, err := ptx.ParseConfig("ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=6,math=wgmma_f16,tma=2")
	if err != nil {
		t.Fatal(err)
	}
	dir, err := ptx.ParseGroupedConfig("direct t128 q8 r2 v1")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []*predictor.ConvChoice{
		{Top: []predictor.ConvRanked{{Path: "nhwc_copies", Route: 1, Config: cfg, Score: 3.25}, {Path: "implicit", Config: cfg, Score: -0.5}},
			OursTFLOPs: 25.8, VendorTFLOPs: 12.5, Serve: true},
		{Top: []predictor.ConvRanked{{Path: "direct", Direct: dir, Score: 1.5}}, OursTFLOPs: 4.5, VendorTFLOPs: math.NaN()},
		{VendorTFLOPs: 3},
	} {
		line := formatConvChoice("key", c)
		key, got, ok := parseConvChoice(strings.TrimSuffix(line, "\n"))
		if !ok || key != "key" {
			t.Fatalf("%q: not read back", line)
		}
		if got.Serve != c.Serve || got.OursTFLOPs != c.OursTFLOPs || !(got.VendorTFLOPs == c.VendorTFLOPs || math.IsNaN(c.VendorTFLOPs) && math.IsNaN(got.VendorTFLOPs)) ||
			!reflect.DeepEqual(got.Top, c.Top) {
			t.Errorf("%q read back as %+v", line, got)
		}
	}
	for _, bad := range []string{"", "key 2 1 1", "key 1 x 1", "key 1 1 1 implicit 0 ms=1 1", "key 1 1 1 sideways 0 ms=1,ns=1 1", "key 1 1 1 implicit -1 ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=ffma 1"} {
		if _, _, ok := parseConvChoice(bad); ok {
			t.Errorf("%q read", bad)
		}
	}
}

// A server keeps the convolution model's choices on disk: a second server
// on the same cache directory reads them instead of searching, and a
// shape's key tells its strides apart.
func TestConvChoiceStore(t *testing.T) {
	w, err := weights.ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ConvChooserOf(w, ptx.H100())
	if err != nil {
		t.Fatal(err)
	}
	var scalars [2]float64
	c := convcheck.Case{Type: request.ConvTypes[2], Math: request.CudnnTensorOpMath, N: 8, C: 64, H: 28, W: 28, K: 64, R: 3, S: 3,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NHWC, Y: convcheck.NHWC, FilterNHWC: true, Alpha: 1}
	req := c.RequestAt(0x1000000, 0x2000000, 0x3000000, &scalars, 0)
	shape, r := req.Shape()
	if r != request.Served {
		t.Fatal(r)
	}
	in, _ := predictor.ConvInputOf(shape)
	cls := space.ConvClass(shape, req.XPtr, req.WPtr)
	routes := []predictor.ConvRoute{{Path: "implicit", Class: cls, Seeds: []ptx.GemmConfig{space.ConvDefault(cls, shape, ptx.H100())}}}
	o := Defaults()
	o.CacheDir = t.TempDir()
	searches := 0
	choose := func() *predictor.ConvChoice { searches++; return ch.Choose(in, routes) }
	first := New(o).convChoiceFor("conv-test", cls, shape, choose)
	second := New(o)
	got := second.convChoiceFor("conv-test", cls, shape, choose)
	if searches != 1 || second.ChoiceStats().FromDisk != 1 || second.ChoiceStats().Searched != 0 {
		t.Errorf("%d searches, the second server's stats %+v", searches, second.ChoiceStats())
	}
	if !reflect.DeepEqual(got.Top, first.Top) || got.Serve != first.Serve {
		t.Errorf("read back %+v, chose %+v", got, first)
	}
	if files, _ := filepath.Glob(filepath.Join(o.CacheDir, "conv-choices-v1", "conv-test", "implicit-*.txt")); len(files) != 1 {
		t.Errorf("choice files %v", files)
	} else if b, _ := os.ReadFile(files[0]); strings.Count(string(b), "\n") != 1 {
		t.Errorf("file %q", b)
	}
	other := shape
	other.XStrides[0]++
	if convShapeKey(other) == convShapeKey(shape) || strings.ContainsAny(convShapeKey(shape), " \t\n") {
		t.Errorf("keys %q, %q", convShapeKey(shape), convShapeKey(other))
	}
}
