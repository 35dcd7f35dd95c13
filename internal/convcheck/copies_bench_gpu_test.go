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
			c := convcheck.Case{Type: v.typ, Math: v.math, N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S,
				PadH: l.Pad, PadW: l.Pad, StrH: l.Stride, StrW: l.Stride, DilH: l.Dil, DilW: l.Dil,
				X: v.layout, Y: v.layout, FilterNHWC: v.layout == convcheck.NHWC, Alpha: 1, Seed: 1}
			b.Run(fmt.Sprintf("%s/%s", v.name, l.Name), func(b *testing.B) {
				gemmcheck.GPUThread(b) // a sub-benchmark's goroutine: the context current on its thread
				buf, err := convcheck.Upload(c, convcheck.Fill(c))
				if err != nil {
					b.Fatal(err)
				}
				defer buf.Free()
				req := buf.Request(tm.Stream)
				shape, reason := req.Shape()
				if reason != request.Served {
					b.Fatalf("%v: %v", c, reason)
				}
				if !kernels.Transposable(shape) {
					b.Skipf("%v: no NHWC copies", c)
				}
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
