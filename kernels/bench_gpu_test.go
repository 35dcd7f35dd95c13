package kernels

import (
	"errors"
	"fmt"
	"runtime"
	"sort"
	"testing"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
)

// BenchmarkGPUGemm times the engine's chosen kernel and cuBLAS on the same
// buffers, interleaved, with CUDA events (median of the iterations), and
// reports both and their ratio. bench_compare is the full benchmark; this
// is the quick look a kernel change deserves.
func BenchmarkGPUGemm(b *testing.B) {
	if err := cuda.Load(); err != nil {
		b.Skipf("no GPU: %v", err)
	}
	shapes := []struct {
		ty      int
		ta, tb  request.Op
		m, n, k int
	}{
		{0, 0, 1, 2048, 2048, 2048}, {0, 0, 0, 4096, 16, 4096}, {0, 0, 0, 32, 32, 60000},
		{2, 0, 1, 2048, 2048, 2048}, {3, 0, 1, 4096, 4096, 4096}, {4, 0, 1, 4096, 4096, 4096},
		{5, 0, 0, 2560, 32, 2560}, {4, 1, 0, 1760, 128, 1760},
	}
	for _, s := range shapes {
		ty := gemmcheck.Types[s.ty]
		name := fmt.Sprintf("%s/%s%s/%dx%dx%d", ty.Name, s.ta, s.tb, s.m, s.n, s.k)
		b.Run(name, func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			d, _ := cuda.GetDevice(0)
			if _, err := d.RetainPrimaryContext(); err != nil {
				b.Fatal(err)
			}
			c := gemmcheck.Case{Type: ty, TransA: s.ta, TransB: s.tb, M: s.m, N: s.n, K: s.k, Alpha: 1, Beta: 0, Seed: 1}
			data := &gemmcheck.Data{A: make([]float64, c.ElemsA()), B: make([]float64, c.ElemsB()), C0: make([]float64, c.ElemsC())}
			for i := range data.A {
				data.A[i] = float64(i%7-3) / 8
			}
			for i := range data.B {
				data.B[i] = float64(i%5-2) / 8
			}
			bufs, err := gemmcheck.Upload(c, data)
			if err != nil {
				b.Fatal(err)
			}
			defer bufs.Free()
			h, err := cublas.New()
			if err != nil {
				b.Fatal(err)
			}
			defer h.Destroy()
			g := bufs.Request(0)
			start, _ := cuda.NewEvent()
			stop, _ := cuda.NewEvent()
			time := func(run func() error) float64 {
				start.Record(0)
				if err := run(); err != nil {
					b.Fatal(err)
				}
				stop.Record(0)
				stop.Synchronize()
				ms, _ := stop.Elapsed(start)
				return float64(ms) * 1e3
			}
			cfg, err := heuristicConfig(g)
			if err != nil {
				b.Fatal(err)
			}
			ours := func() error { return testRT.Gemm(g, cfg) }
			vendor := func() error { return h.Gemm(g) }
			for i := 0; i < 3; i++ {
				time(ours)
				time(vendor)
			}
			var to, tv []float64
			for i := 0; i < max(b.N, 10); i++ {
				to = append(to, time(ours))
				tv = append(tv, time(vendor))
			}
			sort.Float64s(to)
			sort.Float64s(tv)
			mo, mv := to[len(to)/2], tv[len(tv)/2]
			flops := 2 * float64(s.m) * float64(s.n) * float64(s.k)
			b.ReportMetric(mo, "ours_us")
			b.ReportMetric(mv, "cublas_us")
			b.ReportMetric(mv/mo, "speedup")
			b.ReportMetric(flops/mo/1e6, "ours_TFLOPs")
		})
	}
}

// BenchmarkGPUCallOverhead is the GPU time between two events of the
// stream operations a split-K call makes besides its kernel, each alone and
// all together: with a workspace of the call's own, its stream-ordered
// allocation and free from the engine's pool and the counters' memset; with
// the stream's kept workspace (the usual path), only the lookup; against an
// empty timed region.
func BenchmarkGPUCallOverhead(b *testing.B) {
	if err := cuda.Load(); err != nil {
		b.Skipf("no GPU: %v", err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d, _ := cuda.GetDevice(0)
	ctx, err := d.RetainPrimaryContext()
	if err != nil {
		b.Fatal(err)
	}
	ctxID, err := ctx.ID()
	if err != nil {
		b.Fatal(err)
	}
	dev, err := testRT.device(d)
	if err != nil {
		b.Fatal(err)
	}
	tm, err := devbench.NewTimer(64<<20, devbench.FlushRead)
	if err != nil {
		b.Fatal(err)
	}
	buf, err := cuda.Alloc(256)
	if err != nil {
		b.Fatal(err)
	}
	defer buf.Free()
	median := func(run func() error) float64 {
		var ts []float64
		for i := 0; i < 200; i++ {
			us, err := tm.Time(run)
			if err != nil {
				b.Fatal(err)
			}
			ts = append(ts, us)
		}
		sort.Float64s(ts)
		return ts[len(ts)/2]
	}
	const wsBytes = 4 << 20
	alloc := func(memset bool) func() error {
		return func() error {
			ws, err := dev.allocWorkspace(wsBytes, tm.Stream)
			if err != nil {
				return err
			}
			if memset {
				if err := ws.MemsetD32Async(0, 64, tm.Stream); err != nil {
					return err
				}
			}
			return ws.FreeAsync(tm.Stream)
		}
	}
	for i := 0; i < b.N; i++ {
		empty := median(func() error { return nil })
		b.ReportMetric(empty, "µs-empty")
		b.ReportMetric(median(func() error { return buf.MemsetD32Async(0, 64, tm.Stream) })-empty, "µs-memset")
		b.ReportMetric(median(alloc(false))-empty, "µs-allocfree")
		b.ReportMetric(median(alloc(true))-empty, "µs-alloc+memset+free")
		b.ReportMetric(median(func() error {
			w := testRT.streamWorkspaceFor(Target{Ctx: ctxID, Dev: dev}, tm.Stream, wsBytes, 64)
			if w == nil {
				return errors.New("the stream kept no workspace")
			}
			w.mu.Unlock()
			return nil
		})-empty, "µs-kept")
	}
}
