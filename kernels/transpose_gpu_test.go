package kernels

import (
	"bytes"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// transposeGPUCase is a 16-bit (N, C, H, W) tensor of the given element
// strides to copy into a packed NHWC one.
type transposeGPUCase struct {
	name       string
	N, C, H, W int
	strides    [4]int
}

func (c transposeGPUCase) dims() [4]int { return [4]int{c.N, c.C, c.H, c.W} }

// extent is one past the source's largest element offset.
func (c transposeGPUCase) extent() int {
	e := 1
	for i, d := range c.dims() {
		e += (d - 1) * c.strides[i]
	}
	return e
}

// asTiles is plan p as a tiles job (what a copy by words replaces).
func asTiles(p transposePlan) transposePlan {
	p.job = ptx.TransposeTiles
	p.gx, p.gy, p.n = ptx.TransposeTileBlocks(p.dims[0], p.dims[1], p.dims[2], p.dims[3])
	return p
}

// transposeGPUSetup is a context's target and stream for the transposes'
// GPU tests.
func transposeGPUSetup(t testing.TB) (Target, cuda.Stream) {
	gemmcheck.GPUThread(t)
	dev, ctx, err := testRT.current()
	if err != nil {
		t.Fatal(err)
	}
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { stream.Destroy() })
	return Target{Ctx: ctx, Dev: dev}, stream
}

// copyNHWC runs plan p's job alone and returns the packed copy's bytes.
func copyNHWC(t testing.TB, tg Target, stream cuda.Stream, p transposePlan, out int) []byte {
	var params cuda.Params
	if err := testRT.launchTransposes(tg, 2, false, []transposePlan{p}, stream, &params); err != nil {
		t.Fatal(err)
	}
	if err := stream.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, out)
	if err := cuda.DevicePtr(p.dst).CopyToHost(got); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestGPUTransposePairs: the copy by words (ptx.TransposePairs) of 16-bit
// tensors, packed and slices, whole and partial tiles, is bit for bit the
// copy by elements (the tiles job) of the same tensor.
func TestGPUTransposePairs(t *testing.T) {
	tg, stream := transposeGPUSetup(t)
	nchw := func(n, c, h, w int) [4]int { return [4]int{c * h * w, h * w, w, 1} }
	cases := []transposeGPUCase{
		{"packed", 8, 64, 114, 114, nchw(8, 64, 114, 114)},
		{"partial tiles", 3, 70, 9, 30, nchw(3, 70, 9, 30)},
		{"one word a row", 1, 2, 1, 34, nchw(1, 2, 1, 34)},
		{"slice of padded rows", 2, 36, 17, 42, [4]int{40 * 20 * 46, 20 * 46, 46, 1}},
	}
	rng := rand.New(rand.NewPCG(5, 9))
	for _, c := range cases {
		p := planTranspose(2, 1<<8, 0, c.dims(), c.strides)
		if p.job != ptx.TransposePairs {
			t.Fatalf("%s: job %v, not by words", c.name, p.job)
		}
		src, err := cuda.Alloc(2 * c.extent())
		if err != nil {
			t.Fatal(err)
		}
		data := make([]byte, 2*c.extent())
		for i := range data {
			data[i] = byte(rng.Uint32())
		}
		if err := src.CopyFromHost(data); err != nil {
			t.Fatal(err)
		}
		out := 2 * c.N * c.C * c.H * c.W
		dst, err := cuda.Alloc(2 * out)
		if err != nil {
			t.Fatal(err)
		}
		p = planTranspose(2, uintptr(src), uintptr(dst), c.dims(), c.strides)
		words := copyNHWC(t, tg, stream, p, out)
		q := asTiles(p)
		q.dst = uintptr(dst) + uintptr(out)
		elems := copyNHWC(t, tg, stream, q, out)
		if !bytes.Equal(words, elems) {
			t.Errorf("%s: the copy by words differs from the copy by elements", c.name)
		}
		src.Free()
		dst.Free()
	}
}

// BenchmarkGPUTransposes times the NHWC copy of 16-bit NCHW tensors (x of
// Table 5's rows and of ResNet-50 layers at batch 32) by words and by
// elements, L2 flushed, median of 50, and reports both, their ratio and
// the copy by words' DRAM rate (bytes read and written).
func BenchmarkGPUTransposes(b *testing.B) {
	tg, _ := transposeGPUSetup(b)
	tm, err := devbench.NewTimer(64<<20, devbench.FlushRead)
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []transposeGPUCase{
		{"table5-conv2", 16, 32, 42, 175, [4]int{}}, {"table5-conv4", 16, 32, 14, 122, [4]int{}},
		{"table5-conv5", 8, 64, 56, 56, [4]int{}}, {"table5-conv9", 8, 64, 114, 114, [4]int{}},
		{"table5-conv10", 8, 128, 58, 58, [4]int{}}, {"table5-conv11", 16, 64, 132, 43, [4]int{}},
		{"table5-conv12", 16, 128, 260, 23, [4]int{}}, {"rn50-s1-n32", 32, 64, 56, 56, [4]int{}},
		{"rn50-s3-n32", 32, 256, 14, 14, [4]int{}},
	} {
		c.strides = [4]int{c.C * c.H * c.W, c.H * c.W, c.W, 1}
		b.Run(c.name, func(b *testing.B) {
			gemmcheck.GPUThread(b) // a sub-benchmark's goroutine: the context current on its thread
			n := c.N * c.C * c.H * c.W
			src, err := cuda.Alloc(2 * n)
			if err != nil {
				b.Fatal(err)
			}
			defer src.Free()
			dst, err := cuda.Alloc(2 * n)
			if err != nil {
				b.Fatal(err)
			}
			defer dst.Free()
			if err := devbench.Fill(src, n, request.R16F, 1); err != nil {
				b.Fatal(err)
			}
			words := planTranspose(2, uintptr(src), uintptr(dst), c.dims(), c.strides)
			if words.job != ptx.TransposePairs {
				b.Fatalf("job %v", words.job)
			}
			var params cuda.Params
			median := func(p transposePlan) float64 {
				var ts []float64
				for range 50 {
					us, err := tm.Time(func() error { return testRT.launchTransposes(tg, 2, false, []transposePlan{p}, tm.Stream, &params) })
					if err != nil {
						b.Fatal(err)
					}
					ts = append(ts, us)
				}
				sort.Float64s(ts)
				return ts[len(ts)/2]
			}
			for i := 0; i < b.N; i++ {
				w, e := median(words), median(asTiles(words))
				b.ReportMetric(w, "words_us")
				b.ReportMetric(e, "elements_us")
				b.ReportMetric(e/w, "speedup")
				b.ReportMetric(float64(4*n)/w/1e3, "words_GB/s")
			}
		})
	}
}
