package convcheck_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// TestGPUConvCuDNN runs the convolution table through cuDNN (the algorithm
// cudnnGetConvolutionForwardAlgorithm_v7 picks, with its workspace): the
// vendor meets the same bound as ISAAC's kernels.
func TestGPUConvCuDNN(t *testing.T) {
	gemmcheck.GPUThread(t)
	h, err := cudnn.New()
	if err != nil {
		t.Skipf("no cuDNN: %v", err)
	}
	defer h.Destroy()
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Destroy()
	runs, failed, unsupported := 0, 0, 0
	worst := 0.0
	for _, c := range table() {
		d := convcheck.NewData(c)
		b, err := convcheck.Upload(c, d)
		if err != nil {
			t.Fatal(err)
		}
		req := b.Request(stream)
		v, err := h.Describe(req)
		if err != nil {
			t.Fatal(err)
		}
		algo, err := v.Heuristic()
		if err == nil {
			var ws cuda.DevicePtr
			if algo.WorkspaceBytes > 0 {
				if ws, err = cuda.Alloc(algo.WorkspaceBytes); err != nil {
					t.Fatal(err)
				}
			}
			if err = v.Forward(algo, uintptr(ws)); err == nil {
				var got []float64
				if got, err = b.ReadY(stream); err == nil {
					runs++
					r := d.Check(c, got)
					worst = max(worst, r.MaxRelBound)
					if r.Bad > 0 {
						if failed++; failed <= 20 {
							t.Logf("cuDNN %v (algo %d): %d bad elements: %s", c, algo.Algo, r.Bad, r.FirstBad)
						}
					}
				}
			}
			if ws != 0 {
				ws.Free()
			}
		}
		if err != nil {
			if unsupported++; unsupported <= 10 {
				t.Logf("cuDNN %v: %v", c, err)
			}
		}
		v.Destroy()
		b.Free()
	}
	rep := fmt.Sprintf("cudnn: %d cases run, %d outside the bound, %d refused; worst err/bound %.3g\n", runs, failed, unsupported, worst)
	t.Log(rep)
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-cudnn.txt"), []byte(rep), 0o644)
	}
}

// TestGPUConvTiming times ISAAC's convolutions (the heuristic's
// configuration and the best of a few drawn ones) against cuDNN's
// (cudnnGetConvolutionForwardAlgorithm_v7's pick and the fastest of
// cudnnFindConvolutionForwardAlgorithmEx) on Table 5 and ResNet-50 layers,
// FP16 (float compute) NCHW and NHWC, FP32 (FMA) NCHW and FP32 (TF32) NHWC, L2 flushed, the
// median of 5 runs. A lab measurement: the benchmark is bench_compare's.
func TestGPUConvTiming(t *testing.T) {
	if os.Getenv("ISAAC_GPU_CONV_TIMING") == "" {
		t.Skip("set ISAAC_GPU_CONV_TIMING=1")
	}
	ctx := gemmcheck.GPUThread(t)
	h, err := cudnn.New()
	if err != nil {
		t.Skipf("no cuDNN: %v", err)
	}
	defer h.Destroy()
	if v, err := cudnn.Version(); err == nil {
		t.Logf("cuDNN %d", v)
	}
	dev, _ := cuda.CurrentDevice()
	l2, _ := dev.Attribute(cuda.AttrL2CacheSize)
	timer, err := devbench.NewTimer(l2, devbench.FlushRead)
	if err != nil {
		t.Fatal(err)
	}
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	lim, _ := rt.Limits()
	rng := rand.New(rand.NewPCG(9, 9))
	draws := 12
	ws, err := cuda.Alloc(1 << 30)
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Free()
	median := func(run func() error) (float64, error) {
		if _, err := timer.Time(run); err != nil {
			return 0, err
		}
		var v []float64
		for i := 0; i < 5; i++ {
			us, err := timer.Time(run)
			if err != nil {
				return 0, err
			}
			v = append(v, us)
		}
		slices.Sort(v)
		return v[2], nil
	}
	var csv strings.Builder
	csv.WriteString("layer,type,layout,n,c,h,w,k,r,s,pad,stride,gflop,cudnn_v7_us,cudnn_v7_algo,cudnn_best_us,cudnn_best_algo,ours_heuristic_us,ours_best_us,ours_best_config,speedup_vs_best\n")
	only, err := regexp.Compile(os.Getenv("ISAAC_GPU_CONV_LAYERS")) // default: every layer
	if err != nil {
		t.Fatal(err)
	}
	layers := suites.Table5()
	for _, l := range suites.CNN()[22:] { // batch 32
		if slices.Contains([]string{"rn50-stem-n32", "rn50-s1-3x3-n32", "rn50-s3-1x1-reduce-n32", "rn50-s2-3x3-stride2-n32"}, l.Name) {
			layers = append(layers, l)
		}
	}
	variants, err := regexp.Compile(os.Getenv("ISAAC_GPU_CONV_VARIANTS")) // "type layout", default: all
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range layers {
		if !only.MatchString(l.Name) {
			continue
		}
		for _, v := range []struct {
			t      request.ConvType
			math   int
			layout convcheck.Layout
		}{
			{request.ConvTypes[2], request.CudnnTensorOpMath, convcheck.NCHW},
			{request.ConvTypes[2], request.CudnnTensorOpMath, convcheck.NHWC},
			{request.ConvTypes[0], request.CudnnFMAMath, convcheck.NCHW},
			{request.ConvTypes[0], request.CudnnTensorOpMath, convcheck.NHWC},
		} {
			if !variants.MatchString(v.t.Name + " " + v.layout.String()) {
				continue
			}
			c := convcheck.Case{Type: v.t, Math: v.math, N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S,
				PadH: l.Pad, PadW: l.Pad, StrH: l.Stride, StrW: l.Stride, DilH: l.Dil, DilW: l.Dil,
				X: v.layout, Y: v.layout, FilterNHWC: v.layout == convcheck.NHWC, Alpha: 1, Beta: 0, Seed: 1}
			b, err := convcheck.Upload(c, convcheck.Fill(c))
			if err != nil {
				t.Fatal(err)
			}
			req := b.Request(timer.Stream)
			shape, reason := req.Shape()
			if reason != request.Served {
				t.Fatalf("%s: %v", l.Name, reason)
			}
			desc, err := h.Describe(req)
			if err != nil {
				t.Fatal(err)
			}
			row := fmt.Sprintf("%s,%s,%s,%d,%d,%d,%d,%d,%d,%d,%d,%d,%.3f", l.Name, v.t.Name+map[bool]string{true: "_fma"}[v.math == request.CudnnFMAMath], v.layout,
				l.N, l.C, l.H, l.W, l.K, l.R, l.S, l.Pad, l.Stride, 2*float64(shape.Pixels())*float64(l.K)*float64(shape.ReductionCRS())/1e9)
			heur, err1 := desc.Heuristic()
			best, err2 := desc.Fastest(uintptr(ws), 1<<30)
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", l.Name, err1, err2)
			}
			vendor := func(a cudnn.Algo) func() error { return func() error { return desc.Forward(a, uintptr(ws)) } }
			hUS, err1 := median(vendor(heur))
			bUS, err2 := median(vendor(best))
			if err1 != nil || err2 != nil {
				t.Fatalf("%s: %v %v", l.Name, err1, err2)
			}
			cls := space.ConvClass(shape, req.XPtr, req.WPtr)
			cfgs := []ptx.GemmConfig{space.ConvDefault(cls, shape, lim)}
			samplers := []*space.Sampler{space.NewSampler(cls, lim, 200, 400000, rng)}
			if ws := space.NewWarpgroupSampler(cls, lim, 200, 400000, rng); ws != nil {
				samplers = append(samplers, ws)
			}
			for i := 0; i < draws; i++ {
				if cfg, ok := samplers[i%len(samplers)].Draw(rng, nil, 20000); ok {
					cfgs = append(cfgs, cfg)
				}
			}
			if os.Getenv("ISAAC_GPU_CONV_GRID") != "" {
				cfgs = append(cfgs, warpgroupGrid(cls, lim)...)
			}
			// The configurations' kernels compiled at once, then timed.
			var wg sync.WaitGroup
			for _, cfg := range cfgs {
				wg.Add(1)
				go func() {
					defer wg.Done()
					runtime.LockOSThread()
					defer runtime.UnlockOSThread()
					if ctx.SetCurrent() == nil {
						if tg, err := rt.ConvTarget(req, shape); err == nil {
							rt.Kernel(tg, cfg)
						}
					}
				}()
			}
			wg.Wait()
			oursH, oursBest, bestCfg := 0.0, 0.0, ""
			for i, cfg := range cfgs {
				us, err := median(func() error { return rt.Conv(req, shape, cfg) })
				if err != nil {
					t.Logf("%s %s: %v", l.Name, cfg, err)
					continue
				}
				if os.Getenv("ISAAC_GPU_CONV_GRID") != "" {
					t.Logf("%s %s %s [%s]: %.1f µs", l.Name, v.t.Name, v.layout, cfg, us)
				}
				if i == 0 {
					oursH = us
				}
				if oursBest == 0 || us < oursBest {
					oursBest, bestCfg = us, cfg.String()
				}
			}
			fmt.Fprintf(&csv, "%s,%.2f,%d,%.2f,%d,%.2f,%.2f,\"%s\",%.3f\n", row, hUS, heur.Algo, bUS, best.Algo, oursH, oursBest, bestCfg, bUS/oursBest)
			if kernels.Transposable(shape) { // through NHWC copies too, the heuristic's configuration
				if tg, err := rt.ConvNHWCTarget(req, shape); err == nil {
					cfg := space.ConvDefault(tg.Class, shape, lim)
					if us, err := median(func() error { return rt.ConvNHWC(req, shape, cfg) }); err == nil {
						t.Logf("%s %s %s: ours through NHWC copies %.1f µs (%s): %.2fx the vendor's best", l.Name, v.t.Name, v.layout, us, cfg, min(hUS, bUS)/us)
					} else {
						t.Logf("%s %s %s: through NHWC copies: %v", l.Name, v.t.Name, v.layout, err)
					}
				}
			}
			t.Logf("%s %s %s: cuDNN v7 %.1f µs (algo %d), fastest %.1f µs (algo %d); ours heuristic %.1f µs, best of %d %.1f µs: %.2fx",
				l.Name, v.t.Name, v.layout, hUS, heur.Algo, bUS, best.Algo, oursH, len(cfgs), oursBest, bUS/oursBest)
			desc.Destroy()
			b.Free()
		}
	}
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.WriteFile(filepath.Join(dir, "conv-timing.csv"), []byte(csv.String()), 0o644)
	}
}

// warpgroupGrid is a grid of the class's wgmma configurations (ISAAC_GPU_CONV_GRID: what
// the heuristic's block, stages, split and copies should be): 64, 128 or 256 pixels (one
// or two instructions along m per warpgroup) by 48, 64, 128 or 256 channels, 3 to 6
// stages, grid splits of 1 to 16, cp.async copies, the copy engine and the copy engine with
// a producer warp, as Legal allows, in k-slices of one 128-byte line. ISAAC_GPU_CONV_GRID=copies
// keeps the copy engine's; =deep has no grid split and adds k-slices of half a line (cp.async
// copies only) and 5 and 8 stages (deeper pipelines of the same bytes); =persistent has the
// producer warp's configurations without a grid split, each also persistent (ps=1).
func warpgroupGrid(in ptx.InputClass, dev ptx.DeviceLimits) []ptx.GemmConfig {
	maths := ptx.WarpgroupMathsFor(in)
	if len(maths) == 0 {
		return nil
	}
	v := 16 / in.AType.Size()
	tmas, us, stages, kgs, pss := []int{0, 1, 2}, []int{8 * v}, []int{3, 4, 6}, []int{1, 2, 4, 8, 16}, []int{0}
	switch os.Getenv("ISAAC_GPU_CONV_GRID") {
	case "copies":
		tmas = []int{1, 2}
	case "deep":
		tmas, us, stages, kgs = []int{0, 1, 2}, []int{4 * v, 8 * v}, []int{3, 4, 5, 6, 8}, []int{1}
	case "persistent":
		tmas, stages, kgs, pss = []int{2}, []int{3, 4, 5, 6, 8}, []int{1}, []int{0, 1}
	}
	var out []ptx.GemmConfig
	for _, blk := range [][2]int{{1, 64}, {1, 128}, {2, 128}, {2, 256}} {
		for _, nl := range []int{48, 64, 128, 256} {
			for _, u := range us {
				for _, st := range stages {
					for _, kg := range kgs {
						for _, tma := range tmas {
							for _, ps := range pss {
								c := ptx.GemmConfig{MS: blk[0], NS: nl / 8, ML: blk[1], NL: nl, U: u, KS: 1, KL: 1, KG: kg, KC: 1,
									VecA: v, VecB: v, Stages: st, Math: maths[0], TMA: tma, PS: ps}
								if ptx.Legal(c, in, dev) == nil {
									out = append(out, c)
								}
							}
						}
					}
				}
			}
		}
	}
	return out
}
