package predictor_test

import (
	"math"
	"math/rand/v2"
	"reflect"
	"sort"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
)

func h100ConvChooser(t testing.TB) *predictor.ConvChooser {
	t.Helper()
	w, err := weights.ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	cfg, _ := w.Model("conv-config")
	ven, _ := w.Model("conv-vendor")
	return &predictor.ConvChooser{Config: cfg, Vendor: ven, Dev: ptx.H100(), TopK: 5, Margin: 1.1, Pool: 1024, Screen: 64} // the server's settings
}

// convRoutesOf are a convolution's routes as the server builds them
// (space's classes of x as it lies and of the NHWC copies), without a GPU.
func convRoutesOf(t testing.TB, c convcheck.Case) (predictor.ConvInput, request.ConvShape, []predictor.ConvRoute) {
	t.Helper()
	var scalars [2]float64
	req := c.RequestAt(0x1000000, 0x2000000, 0x3000000, &scalars, 0)
	shape, r := req.Shape()
	if r != request.Served {
		t.Fatalf("%v: %v", c, r)
	}
	in, ok := predictor.ConvInputOf(shape)
	if !ok {
		t.Fatalf("%v: not described", c)
	}
	cls := space.ConvClass(shape, req.XPtr, req.WPtr)
	routes := []predictor.ConvRoute{{Path: "implicit", Class: cls, Seeds: []ptx.GemmConfig{space.ConvDefault(cls, shape, ptx.H100())}}}
	if kernels.Transposable(shape) {
		v, sv := kernels.NHWC(req, shape, 1<<20, 1<<24)
		ccls := space.ConvClass(sv, v.XPtr, v.WPtr)
		routes = append(routes, predictor.ConvRoute{Path: "nhwc_copies", Class: ccls, Seeds: []ptx.GemmConfig{space.ConvDefault(ccls, sv, ptx.H100())}})
	}
	return in, shape, routes
}

// The shipped convolution model's choices: legal for their route's class,
// suiting the implicit GEMM, described by the model's schema without the
// copy engine (the server stages them), best first, at most TopK and then
// each route's best where those leave it out (every route ranked), the same
// when asked again; the serve decision follows the two predictions; a
// grouped convolution's choice is one of the direct kernel's given
// configurations.
func TestConvChooserH100(t *testing.T) {
	ch := h100ConvChooser(t)
	half := request.ConvTypes[2]
	for _, c := range []convcheck.Case{
		{Type: half, Math: request.CudnnTensorOpMath, N: 32, C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1},
		{Type: half, Math: request.CudnnTensorOpMath, N: 8, C: 256, H: 14, W: 14, K: 512, R: 1, S: 1, StrH: 2, StrW: 2, DilH: 1, DilW: 1, X: convcheck.NHWC, Y: convcheck.NHWC, FilterNHWC: true, Alpha: 1},
		{Type: request.ConvTypes[0], Math: request.CudnnFMAMath, N: 1, C: 3, H: 224, W: 224, K: 64, R: 7, S: 7, PadH: 3, PadW: 3, StrH: 2, StrW: 2, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1},
	} {
		in, shape, routes := convRoutesOf(t, c)
		got := ch.Choose(in, routes)
		if len(got.Top) == 0 || len(got.Top) > ch.TopK+len(routes)-1 {
			t.Fatalf("%v: %d configurations", c, len(got.Top))
		}
		onRoute := map[int]int{}
		for i, r := range got.Top {
			if _, ok := onRoute[r.Route]; !ok {
				onRoute[r.Route] = i
			}
		}
		if len(onRoute) != len(routes) {
			t.Errorf("%v: the choices take %d of %d routes", c, len(onRoute), len(routes))
		}
		for i := ch.TopK; i < len(got.Top); i++ {
			if onRoute[got.Top[i].Route] != i {
				t.Errorf("%v: choice %d beyond the TopK is not its route's best", c, i)
			}
		}
		m, n, k := shape.Pixels(), shape.K, shape.ReductionCRS()
		for i, r := range got.Top {
			if r.Route < 0 || r.Route >= len(routes) || r.Path != routes[r.Route].Path {
				t.Fatalf("%v: route %d path %q", c, r.Route, r.Path)
			}
			if err := ptx.Legal(r.Config, routes[r.Route].Class, ptx.H100()); err != nil {
				t.Errorf("%v: %v illegal: %v", c, r.Config, err)
			}
			if !space.Suits(r.Config, m, n, k) || !predictor.ConvDescribes(r.Config) || r.Config.TMA != 0 || r.Config.PS != 0 {
				t.Errorf("%v: %v does not suit or is not modelled", c, r.Config)
			}
			if i > 0 && r.Score > got.Top[i-1].Score {
				t.Errorf("%v: not best first", c)
			}
		}
		if math.Abs(got.OursTFLOPs-math.Exp(got.Top[0].Score)) > 1e-9*got.OursTFLOPs || !(got.VendorTFLOPs > 0) {
			t.Errorf("%v: rates %g, %g", c, got.OursTFLOPs, got.VendorTFLOPs)
		}
		if want := got.OursTFLOPs >= ch.Margin*got.VendorTFLOPs*(1-1e-12); got.Serve != want {
			t.Errorf("%v: serve %v with %g against %g", c, got.Serve, got.OursTFLOPs, got.VendorTFLOPs)
		}
		t.Logf("%v: %s %v, %.1f TFLOP/s predicted against cuDNN %.1f", c, got.Top[0].Path, got.Top[0].Config, got.OursTFLOPs, got.VendorTFLOPs)
		if again := ch.Choose(in, routes); !reflect.DeepEqual(again, got) {
			t.Errorf("%v: a second choice differs", c)
		}
		// The model scores the chosen configuration as Choose reports.
		rin := in
		rin.Path, rin.AlignA, rin.AlignB = got.Top[0].Path, routes[got.Top[0].Route].Class.AlignA, routes[got.Top[0].Route].Class.AlignB
		if s := ch.Config.ConvScores(rin, []ptx.GemmConfig{got.Top[0].Config}); math.Abs(s[0]-got.Top[0].Score) > 1e-9 {
			t.Errorf("%v: score %g, chose with %g", c, s[0], got.Top[0].Score)
		}
	}
	dw := convcheck.Case{Type: half, Math: request.CudnnTensorOpMath, N: 8, C: 128, H: 56, W: 56, K: 128, R: 3, S: 3, Groups: 128, PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NHWC, Y: convcheck.NHWC, FilterNHWC: true, Alpha: 1}
	var scalars [2]float64
	shape, _ := dw.RequestAt(0x1000000, 0x2000000, 0x3000000, &scalars, 0).Shape()
	in, _ := predictor.ConvInputOf(shape)
	cfgs := space.GroupedConfigs(space.GroupedClass(shape, 8))
	got := ch.ChooseDirect(in, 8, cfgs)
	if len(got.Top) == 0 {
		t.Fatal("depthwise: no choice")
	}
	found := false
	for _, c := range cfgs {
		found = found || c == got.Top[0].Direct
	}
	if !found || got.Top[0].Path != "direct" {
		t.Errorf("depthwise: chose %+v, not among the given", got.Top[0])
	}
	// Scored with the alignment the sampler records for the direct path.
	x := make([]float64, predictor.ConvConfigFeatures)
	din := in
	din.Path, din.AlignA = "direct", 8
	predictor.PutConvDirect(x, din, got.Top[0].Direct)
	if s := ch.Config.Nets.Score(x, 1)[0]; math.Abs(s-got.Top[0].Score) > 1e-9 {
		t.Errorf("depthwise: scored %g, chose with %g", s, got.Top[0].Score)
	}
	if other := ch.ChooseDirect(in, 1, cfgs); other.Top[0].Score == got.Top[0].Score && other.Top[0].Direct == got.Top[0].Direct {
		t.Error("depthwise: the alignment does not reach the features")
	}
}

// BenchmarkConvFirstChoice is the latency a convolution of a new shape
// pays for the model's choice (CPU only: the shipped H100 convolution
// weights, H100 limits): Table 5's and the CNN suite's layers in FP16,
// BF16, FP32 (FMA and TF32), NCHW and NHWC, and 40 convolutions per type
// drawn as the tuner draws them, ungrouped, through a fresh chooser; split
// into the first convolution of its routes' classes (which also draws
// their seed pools, unless the disk cache holds them) and the later ones.
// It reports the median, 90th percentile and maximum of each, in
// milliseconds.
func BenchmarkConvFirstChoice(b *testing.B) {
	var cases []convcheck.Case
	for _, t := range []struct {
		ty   request.ConvType
		math int
	}{{request.ConvTypes[2], request.CudnnTensorOpMath}, {request.ConvTypes[4], request.CudnnTensorOpMath},
		{request.ConvTypes[0], request.CudnnFMAMath}, {request.ConvTypes[0], request.CudnnTensorOpMath}} {
		for _, l := range []convcheck.Layout{convcheck.NCHW, convcheck.NHWC} {
			layers := append(suites.Table5(), suites.CNN()...)
			rng := rand.New(rand.NewPCG(7, uint64(len(cases))))
			for len(layers) < len(suites.Table5())+len(suites.CNN())+40 {
				if c := tune.DefaultConvDistribution().BatchOf(rng, t.ty, t.math, l, 1).Layers[0]; c.Groups == 1 {
					layers = append(layers, c)
				}
			}
			for _, c := range layers {
				if c.Groups > 1 {
					continue
				}
				cases = append(cases, convcheck.Case{Type: t.ty, Math: t.math, N: c.N, C: c.C, H: c.H, W: c.W, K: c.K, R: c.R, S: c.S,
					PadH: c.Pad, PadW: c.Pad, StrH: c.Stride, StrW: c.Stride, DilH: c.Dil, DilW: c.Dil, X: l, Y: l, FilterNHWC: l == convcheck.NHWC, Alpha: 1})
			}
		}
	}
	for i := 0; i < b.N; i++ {
		ch := h100ConvChooser(b)
		var first, later []float64
		for _, c := range cases {
			in, _, routes := convRoutesOf(b, c)
			fresh := false
			for _, r := range routes {
				fresh = fresh || !ch.HasSeedPool(r.Class)
			}
			t0 := time.Now()
			ch.Choose(in, routes)
			ms := float64(time.Since(t0).Microseconds()) / 1000
			if fresh {
				first = append(first, ms)
			} else {
				later = append(later, ms)
			}
		}
		for _, d := range []struct {
			name string
			v    []float64
		}{{"first-of-class", first}, {"new-shape", later}} {
			sort.Float64s(d.v)
			b.ReportMetric(d.v[len(d.v)/2], "ms-p50-"+d.name)
			b.ReportMetric(d.v[len(d.v)*9/10], "ms-p90-"+d.name)
			b.ReportMetric(d.v[len(d.v)-1], "ms-max-"+d.name)
		}
		b.ReportMetric(float64(len(later)), "new-shapes")
	}
}
