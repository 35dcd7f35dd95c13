package convcheck_test

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// BenchmarkGPUConvCopies times the copies the NHWC-copies path makes before
// its kernel (kernels.ConvCopies: x to a packed NHWC copy and the filter to
// NHWC format, in one launch), as the server runs them, on Table 5's layers
// in FP16 with x in NCHW and in FP32 with TF32 allowed (the copies round)
// with x in NCHW and in NHWC: L2 flushed before each, median of 30. It
// reports the time, and the rate of the bytes read and written (each copy's
// source read once and its copy written once).
func BenchmarkGPUConvCopies(b *testing.B) {
	gemmcheck.GPUThread(b)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	tm, err := devbench.NewTimerBlocking(64<<20, devbench.FlushRead)
	if err != nil {
		b.Fatal(err)
	}
	variants := []struct {
		name   string
		typ    request.ConvType
		math   int
		layout convcheck.Layout
	}{
		{"h_pseudo-nchw", request.ConvTypes[2], request.CudnnTensorOpMath, convcheck.NCHW},
		{"s_tf32-nchw", request.ConvTypes[0], request.CudnnDefaultMath, convcheck.NCHW},
		{"s_tf32-nhwc", request.ConvTypes[0], request.CudnnDefaultMath, convcheck.NHWC},
	}
	for _, v := range variants {
		for _, l := range suites.Table5() {
			c := table5Case(l, v.typ, v.math, v.layout)
			b.Run(fmt.Sprintf("%s/%s", v.name, l.Name), func(b *testing.B) {
				gemmcheck.GPUThread(b) // a sub-benchmark's goroutine: the context current on its thread
				buf, req, shape := uploadCopies(b, c, tm.Stream)
				defer buf.Free()
				n := kernels.CopyBytes(shape)
				dst, err := cuda.Alloc(n)
				if err != nil {
					b.Fatal(err)
				}
				defer dst.Free()
				for i := 0; i < b.N; i++ {
					var ts []float64
					for range 30 {
						us, err := tm.Time(func() error { return rt.ConvCopies(req, shape, dst) })
						if err != nil {
							b.Fatal(err)
						}
						ts = append(ts, us)
					}
					sort.Float64s(ts)
					us := ts[len(ts)/2]
					b.ReportMetric(us, "copies_us")
					b.ReportMetric(float64(2*n)/us/1e3, "GB/s")
				}
			})
		}
	}
}

// copiesCases are Table 5's layers with x in NCHW in FP16 and in FP32 with
// TF32 allowed: the rows the NHWC-copies path serves.
func copiesCases() []convcheck.Case {
	var out []convcheck.Case
	for _, v := range []struct {
		typ  request.ConvType
		math int
	}{{request.ConvTypes[2], request.CudnnTensorOpMath}, {request.ConvTypes[0], request.CudnnDefaultMath}} {
		for _, l := range suites.Table5() {
			out = append(out, table5Case(l, v.typ, v.math, convcheck.NCHW))
		}
	}
	return out
}

// table5Case is layer l of a suite as a case of type typ and math with x
// and y in layout (the filter in NHWC format with NHWC tensors).
func table5Case(l suites.Conv, typ request.ConvType, math int, layout convcheck.Layout) convcheck.Case {
	return convcheck.Case{Type: typ, Math: math, N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S,
		PadH: l.Pad, PadW: l.Pad, StrH: l.Stride, StrW: l.Stride, DilH: l.Dil, DilW: l.Dil,
		X: layout, Y: layout, FilterNHWC: layout == convcheck.NHWC, Alpha: 1, Seed: 1}
}

// uploadCopies uploads case c's tensors and returns them with its request
// on stream and its shape; the benchmark is skipped where the NHWC-copies
// path cannot run c.
func uploadCopies(b *testing.B, c convcheck.Case, stream cuda.Stream) (*convcheck.Buffers, *request.Conv, request.ConvShape) {
	buf, err := convcheck.Upload(c, convcheck.Fill(c))
	if err != nil {
		b.Fatal(err)
	}
	req := buf.Request(stream)
	shape, reason := req.Shape()
	if reason != request.Served {
		buf.Free()
		b.Fatalf("%v: %v", c, reason)
	}
	if !kernels.Transposable(shape) {
		buf.Free()
		b.Skipf("%v: no NHWC copies", c)
	}
	return buf, req, shape
}

// TestGPUConvCopiesDependent: the kernel on the NHWC copies launched as a
// programmatic dependent of the transposes (kernels.Runtime.
// SetDependentLaunch), scheduled as they start or as they end, writes the
// bits the plain launch writes, on Table 5's layers in FP16 and TF32 with
// x in NCHW and the heuristic's configuration. Calls of two inputs
// alternate on one stream, so that a kernel which read its copies before
// the transposes ended would find the other input's copies in the
// workspace.
func TestGPUConvCopiesDependent(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	lim, err := rt.Limits()
	if err != nil {
		t.Fatal(err)
	}
	// The kernels first, on 16 threads.
	var scalars [2]float64
	var todo []compileJob
	for _, c := range copiesCases() {
		req := c.RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
		shape, _ := req.Shape()
		if kernels.Transposable(shape) {
			if tg, err := rt.ConvNHWCTarget(req, shape); err == nil {
				todo = append(todo, compileJob{space.ConvDefault(tg.Class, shape, lim), func() (kernels.Target, error) { return rt.ConvNHWCTarget(req, shape) }})
			}
		}
	}
	compileAll(t, ctx, rt, todo)
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Destroy()
	checked := 0
	for _, c := range copiesCases() {
		other := c
		other.Seed = 2
		var bufs [2]*convcheck.Buffers
		for i, cc := range []convcheck.Case{c, other} {
			if bufs[i], err = convcheck.Upload(cc, convcheck.Fill(cc)); err != nil {
				t.Fatal(err)
			}
			defer bufs[i].Free()
		}
		reqs := [2]*request.Conv{bufs[0].Request(stream), bufs[1].Request(stream)}
		shape, reason := reqs[0].Shape()
		if reason != request.Served || !kernels.Transposable(shape) {
			continue
		}
		tg, err := rt.ConvNHWCTarget(reqs[0], shape)
		if err != nil {
			t.Fatal(err)
		}
		cfg := space.ConvDefault(tg.Class, shape, lim)
		k, err := rt.Kernel(tg, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if !k.WaitsOnPrior() {
			t.Fatalf("%v [%s]: the kernel does not wait for the transposes", c, cfg)
		}
		run := func(i int, d kernels.DependentLaunch) []float64 {
			rt.SetDependentLaunch(d)
			if err := bufs[i].ResetY(); err != nil {
				t.Fatal(err)
			}
			if err := rt.ConvNHWC(reqs[i], shape, cfg); err != nil {
				t.Fatalf("%v [%s]: %v", c, cfg, err)
			}
			y, err := bufs[i].ReadY(stream)
			if err != nil {
				t.Fatal(err)
			}
			return y
		}
		want := [2][]float64{run(0, kernels.DependentOff), run(1, kernels.DependentOff)}
		for round := 0; round < 8; round++ {
			i := round % 2
			d := []kernels.DependentLaunch{kernels.DependentAtStart, kernels.DependentAtEnd}[round/2%2]
			// The other input's call first, plainly: its copies are in the
			// workspace when this one's transposes start.
			rt.SetDependentLaunch(kernels.DependentOff)
			if err := rt.ConvNHWC(reqs[1-i], shape, cfg); err != nil {
				t.Fatal(err)
			}
			got := run(i, d)
			for j := range got {
				if got[j] != want[i][j] && !(got[j] != got[j] && want[i][j] != want[i][j]) {
					t.Fatalf("%v [%s] round %d: y[%d] = %g launched as a dependent (%v), %g plainly", c, cfg, round, j, got[j], d, want[i][j])
				}
			}
		}
		checked++
	}
	rt.SetDependentLaunch(kernels.DefaultDependentLaunch)
	if checked == 0 {
		t.Fatal("no case ran on the NHWC copies")
	}
	t.Logf("%d layers: the dependent launch, at start and at end, wrote the plain launch's bits in 8 alternating rounds each", checked)
}

// BenchmarkGPUConvCopiesDependent times the NHWC-copies path (the
// transposes, then the heuristic's kernel on the copies) on Table 5's
// layers in FP16 and TF32 with x in NCHW, its kernel launched plainly
// and as a programmatic dependent of the transposes, scheduled as they
// start (a kernel with a grid split plainly: LaunchConvNHWC) and as they
// end, in turn (L2 flushed before each call, 30 of each): the medians and the
// plain launch's over each dependent's.
func BenchmarkGPUConvCopiesDependent(b *testing.B) {
	gemmcheck.GPUThread(b)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	defer rt.SetDependentLaunch(kernels.DefaultDependentLaunch)
	lim, err := rt.Limits()
	if err != nil {
		b.Fatal(err)
	}
	tm, err := devbench.NewTimerBlocking(64<<20, devbench.FlushRead)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range copiesCases() {
		b.Run(fmt.Sprintf("%s-nchw/%dx%dx%dx%d-k%d-%dx%d", c.Type.Name, c.N, c.C, c.H, c.W, c.K, c.R, c.S), func(b *testing.B) {
			gemmcheck.GPUThread(b)
			buf, req, shape := uploadCopies(b, c, tm.Stream)
			defer buf.Free()
			tg, err := rt.ConvNHWCTarget(req, shape)
			if err != nil {
				b.Fatal(err)
			}
			cfg := space.ConvDefault(tg.Class, shape, lim)
			modes := []kernels.DependentLaunch{kernels.DependentOff, kernels.DependentAtStart, kernels.DependentAtEnd}
			for _, d := range modes { // each mode's transposes kernel loaded before timing
				rt.SetDependentLaunch(d)
				if err := rt.ConvNHWC(req, shape, cfg); err != nil {
					b.Fatal(err)
				}
			}
			for i := 0; i < b.N; i++ {
				ts := make([][]float64, len(modes))
				for round := 0; round < 30*len(modes); round++ {
					m := round % len(modes)
					rt.SetDependentLaunch(modes[m])
					us, err := tm.Time(func() error { return rt.ConvNHWC(req, shape, cfg) })
					if err != nil {
						b.Fatal(err)
					}
					ts[m] = append(ts[m], us)
				}
				for i := range ts {
					sort.Float64s(ts[i])
				}
				plain, start, end := ts[0][len(ts[0])/2], ts[1][len(ts[1])/2], ts[2][len(ts[2])/2]
				b.ReportMetric(plain, "plain_us")
				b.ReportMetric(start, "dependent_us")
				b.ReportMetric(plain/start, "speedup")
				b.ReportMetric(end, "end_us")
				b.ReportMetric(plain/end, "end_speedup")
				b.ReportMetric(float64(cfg.KG), "kg") // where > 1, launched plainly at the start
				// The grid's blocks (a persistent kernel's: its tiles), to set
				// against the SMs: a grid of less than a wave may be placed
				// less evenly when its blocks start as the transposes end.
				tiles := (shape.Pixels() + cfg.ML - 1) / cfg.ML * ((shape.K + cfg.NL - 1) / cfg.NL)
				b.ReportMetric(float64(tiles*cfg.KG), "blocks")
			}
		})
	}
}
