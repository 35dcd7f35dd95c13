package kernels

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// warpgroupConfigs are wgmma kernels of every shape family: the large
// 128×256 and 256×128 tiles (one and two instructions per warpgroup along
// m), a 128×128 tile with 5 stages, a skinny 64×16 tile with a one-pass
// grid split, a cluster split and a two-pass grid split. The math is set
// per type.
var warpgroupConfigs = []string{
	"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4",
	"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4",
	"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=5",
	"ms=1,ns=2,ml=64,nl=16,u=64,ks=1,kl=1,kg=8,va=8,vb=8,st=3",
	"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=4",
	"ms=1,ns=8,ml=128,nl=64,u=16,ks=1,kl=1,kg=24,va=8,vb=8,st=3",
}

// warpgroupTMAConfigs are wgmma kernels staged by the bulk tensor copy
// engine (TMA): the large tiles, a skinny tile with a one-pass grid split
// (several boxes of A per tile), a cluster split, a two-pass grid split and
// eight stages. Layouts whose tiles the engine cannot stage (an
// n-contiguous B narrower than 64 columns) are skipped.
var warpgroupTMAConfigs = []string{
	"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,tma=1",
	"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3,tma=1",
	"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,tma=1",
	"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=4,tma=1",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=24,va=8,vb=8,st=3,tma=1",
	"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=8,tma=1",
	// A producer warp (tma=2): large tiles, a one-pass and a two-pass
	// grid split, and more stages than tiles.
	"ms=2,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,tma=2",
	"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3,tma=2",
	"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,tma=2",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=24,va=8,vb=8,st=3,tma=2",
	"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=8,tma=2",
}

// warpgroupShapes cut every tile at the m, n and k edges (k not a multiple
// of U, odd m and n), plus one deep k; leading dimensions are padded to
// multiples of 8 elements so that every operand is 16-byte aligned.
var warpgroupShapes = [][3]int{{520, 264, 1000}, {77, 19, 600}, {1000, 72, 4104}, {256, 256, 64}}

// pad8 is the padding that makes a leading dimension of at least min
// elements a multiple of 8.
func pad8(min int) int { return (8 - min%8) % 8 }

// TestGPUWarpgroup runs every wgmma configuration (the TMA ones too; only
// those with ISAAC_GPU_TMA_ONLY set) on every 16-bit type,
// operand layout (both K-major and MN-major descriptors) and shape above,
// against the exact reference within the vendor's error bound, with beta
// ≠ 0 on half of them; the split configurations run twice and must be
// bit-identical.
func TestGPUWarpgroup(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	d, err := cuda.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := testRT.device(d)
	if err != nil {
		t.Fatal(err)
	}
	if dev.Limits.SMMajor != 9 || dev.Limits.SMMinor != 0 {
		t.Skipf("wgmma needs compute capability 9.0, this GPU is %d.%d", dev.Limits.SMMajor, dev.Limits.SMMinor)
	}
	configs := warpgroupConfigs
	if os.Getenv("ISAAC_GPU_TMA_ONLY") != "" {
		configs = nil
	}
	for ci, cs := range append(configs, warpgroupTMAConfigs...) {
		t.Run(fmt.Sprintf("c%d", ci), func(t *testing.T) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ctx.SetCurrent()
			runWarpgroupConfig(t, dev, cs)
		})
	}
}

// runWarpgroupConfig is one configuration of TestGPUWarpgroup on every
// 16-bit type, layout and shape.
func runWarpgroupConfig(t *testing.T, dev *Device, cs string) {
	ran := 0
	for _, ty := range gemmcheck.Types {
		if ty.AB != request.R16F && ty.AB != request.R16BF {
			continue
		}
		for _, ops := range [][2]request.Op{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
			for si, s := range warpgroupShapes {
				c := gemmcheck.Case{Type: ty, TransA: ops[0], TransB: ops[1], M: s[0], N: s[1], K: s[2],
					Alpha: 1, Beta: float64(si % 2), Seed: uint64(100 + si)}
				lda, ldb := c.M, c.K
				if ops[0].Transposed() {
					lda = c.K
				}
				if ops[1].Transposed() {
					ldb = c.N
				}
				c.PadA, c.PadB, c.PadC = pad8(lda), pad8(ldb), pad8(c.M)
				in := c.Class()
				maths := space.ForWarpgroup(in).Math
				if len(maths) == 0 {
					t.Fatalf("%s: no wgmma math for %s", c, in)
				}
				data := gemmcheck.NewData(c)
				b, err := gemmcheck.Upload(c, data)
				if err != nil {
					t.Fatal(err)
				}
				for _, m := range maths {
					{
						cfg, err := ptx.ParseConfig(cs + ",math=" + m.String())
						if err != nil {
							t.Fatal(err)
						}
						if err := ptx.Legal(cfg, in, dev.Limits); err != nil {
							if cfg.TMA != 0 {
								continue // a layout the copy engine cannot stage
							}
							t.Fatalf("%s %s: %v", cfg, in, err)
						}
						runs := 1
						if cfg.KG > 1 || cfg.KC > 1 {
							runs = 2
						}
						var first []float64
						for r := 0; r < runs; r++ {
							if err := b.ResetC(); err != nil {
								t.Fatal(err)
							}
							if err := testRT.Gemm(b.Request(0), cfg); err != nil {
								t.Fatalf("%s %s: %v", cfg, c, err)
							}
							got, err := b.ReadC(0)
							if err != nil {
								t.Fatal(err)
							}
							if res := data.Check(c, got); res.Bad > 0 {
								t.Errorf("%s %s: %d wrong, first %s (err/bound %.3g)", cfg, c, res.Bad, res.FirstBad, res.MaxRelBound)
								break
							}
							if first == nil {
								first = got
							} else if !equalBits(first, got) {
								t.Errorf("%s %s: second run differs", cfg, c)
							}
						}
						ran++
					}
				}
				b.Free()
			}
		}
	}
	t.Logf("%s: %d runs (types × layouts × shapes × maths)", cs, ran)
}

// equalBits compares two results element by element, NaN equal to NaN.
func equalBits(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] && !(a[i] != a[i] && b[i] != b[i]) {
			return false
		}
	}
	return true
}

// TestGPUWarpgroupLayout pins down where each element of A and B lands in
// the smallest wgmma kernels (one warpgroup, k-steps of 16, with and
// without cluster and grid splits, swizzled and unswizzled operand tiles):
// with B a shifted identity, C is a
// window of A's columns, and with A a shifted identity, C is a window of
// B's rows, for every operand layout. The values are small integers, exact
// in f16, so a wrong element names the element of A or B that took its
// place.
func TestGPUWarpgroupLayout(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	d, err := cuda.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	dev, err := testRT.device(d)
	if err != nil {
		t.Fatal(err)
	}
	if dev.Limits.SMMajor != 9 || dev.Limits.SMMinor != 0 {
		t.Skipf("wgmma needs compute capability 9.0, this GPU is %d.%d", dev.Limits.SMMajor, dev.Limits.SMMinor)
	}
	probes := []struct {
		cfg string
		k   int
	}{
		{"ms=1,ns=1,ml=64,nl=8,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_f16", 16},
		{"ms=1,ns=1,ml=64,nl=8,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_f16", 32},
		{"ms=1,ns=1,ml=64,nl=8,u=16,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=3,math=wgmma_f16", 32},
		{"ms=1,ns=1,ml=64,nl=8,u=16,ks=1,kl=1,kg=2,va=8,vb=8,st=3,math=wgmma_f16", 32},
		// 128-byte swizzled k-contiguous tiles (u·2 = 128 bytes) and a
		// swizzled n-contiguous B (n = 64 per instruction)
		{"ms=1,ns=1,ml=64,nl=8,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_f16", 32},
		{"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_f16", 32},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=4,math=wgmma_f16", 32},
	}
	if env := os.Getenv("ISAAC_PROBE_CONFIGS"); env != "" {
		// "cfg;cfg;…", k = 32: other configurations to probe the same way
		probes = probes[:0]
		for _, c := range strings.Split(env, ";") {
			probes = append(probes, struct {
				cfg string
				k   int
			}{c, 32})
		}
	}
	for pi, p := range probes {
		for shift := 0; shift < p.k; shift += 16 {
			t.Run(fmt.Sprintf("p%d,k=%d,shift=%d", pi, p.k, shift), func(t *testing.T) {
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				ctx.SetCurrent()
				probeWarpgroupLayout(t, p.cfg, p.k, shift)
			})
		}
	}
}

// probeWarpgroupLayout runs one configuration of TestGPUWarpgroupLayout for
// every operand layout: with B(l, j) = [l == j+shift], C(i, j) = A(i,
// j+shift); with A(i, l) = [i+shift == l], C(i, j) = B(i+shift, j).
func probeWarpgroupLayout(t *testing.T, cs string, k, shift int) {
	cfg, err := ptx.ParseConfig(cs)
	if err != nil {
		t.Fatal(err)
	}
	const m, n = 64, 8
	for _, ops := range [][2]request.Op{{0, 0}, {0, 1}, {1, 0}, {1, 1}} {
		for _, probeA := range []bool{true, false} {
			c := gemmcheck.Case{Type: gemmcheck.Types[4], TransA: ops[0], TransB: ops[1], M: m, N: n, K: k, Alpha: 1}
			a := func(i, l int) float64 { // A(i, l)
				if probeA {
					return float64(k*i + l)
				}
				return b2f(i+shift == l)
			}
			b := func(l, j int) float64 { // B(l, j)
				if probeA {
					return b2f(l == j+shift)
				}
				return float64(8*l + j)
			}
			data := &gemmcheck.Data{A: make([]float64, c.ElemsA()), B: make([]float64, c.ElemsB()), C0: make([]float64, c.ElemsC())}
			for i := 0; i < m; i++ {
				for l := 0; l < k; l++ {
					if ops[0].Transposed() {
						data.A[l+i*c.LDA()] = a(i, l)
					} else {
						data.A[i+l*c.LDA()] = a(i, l)
					}
				}
			}
			for l := 0; l < k; l++ {
				for j := 0; j < n; j++ {
					if ops[1].Transposed() {
						data.B[j+l*c.LDB()] = b(l, j)
					} else {
						data.B[l+j*c.LDB()] = b(l, j)
					}
				}
			}
			in := c.Class()
			if err := ptx.Legal(cfg, in, ptx.H100()); err != nil {
				t.Logf("%s %s: not legal (%v): skipped", cs, in, err)
				continue
			}
			buf, err := gemmcheck.Upload(c, data)
			if err != nil {
				t.Fatal(err)
			}
			if err := testRT.Gemm(buf.Request(0), cfg); err != nil {
				t.Fatalf("%s %s: %v", cfg, in, err)
			}
			got, err := buf.ReadC(0)
			buf.Free()
			if err != nil {
				t.Fatal(err)
			}
			bad := 0
			for j := 0; j < n; j++ {
				for i := 0; i < m; i++ {
					want := 0.0
					if probeA {
						want = a(i, j+shift)
					} else if i+shift < k {
						want = b(i+shift, j)
					}
					v := got[i+j*m]
					if v == want {
						continue
					}
					bad++
					if bad <= 12 {
						src := fmt.Sprintf("B(%d,%d)", int(v)/8, int(v)%8)
						if probeA {
							src = fmt.Sprintf("A(%d,%d)", int(v)/k, int(v)%k)
						}
						t.Errorf("%s probe %s: C(%d,%d) = %g, want %g (%s)", in, map[bool]string{true: "A", false: "B"}[probeA], i, j, v, want, src)
					}
				}
			}
			t.Logf("%s %s probe A=%v: %d of %d elements wrong", cs, in, probeA, bad, m*n)
		}
	}
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
