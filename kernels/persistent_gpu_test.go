package kernels

import (
	"fmt"
	"slices"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// A persistent kernel (ps=1) computes each tile as its twin with a block
// per tile (the same tma=2 pipeline) does, in the same order: its result
// must be the twin's, bit for bit, and within the bound of the exact
// reference. The inputs have many more tiles than the device holds blocks
// (each block walks several, its producer running into the next tile's
// copies), cut edges along m and n, a k of one slice and of many, beta
// over C and beta = 0, for 16-bit, f16-accumulating and tf32 classes.
func TestGPUPersistentTwins(t *testing.T) {
	gemmcheck.GPUThread(t)
	lim, err := testRT.Limits()
	if err != nil {
		t.Fatal(err)
	}
	if lim.SMMajor != 9 || lim.SMMinor != 0 {
		t.Skipf("persistent kernels are wgmma's (sm_90a); this is sm_%d%d", lim.SMMajor, lim.SMMinor)
	}
	byName := func(name string) gemmcheck.Type {
		return gemmcheck.Types[slices.IndexFunc(gemmcheck.Types, func(ty gemmcheck.Type) bool { return ty.Name == name })]
	}
	s, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	checked, failed := 0, 0
	seed := uint64(0)
	for _, ty := range []string{"gemmex_f16_f32", "hgemm", "gemmex_bf16_f32", "sgemm_tf32"} {
		v, line := 8, 64
		if ty == "sgemm_tf32" {
			v, line = 4, 32
		}
		for _, tr := range [][2]request.Op{{request.OpT, request.OpN}, {request.OpN, request.OpN}, {request.OpN, request.OpT}} {
			for _, sh := range [][3]int{{3001, 2053, 64}, {2999, 1999, 200}, {1000, 3000, 16}} {
				seed++
				c := gemmcheck.Case{Type: byName(ty), TransA: tr[0], TransB: tr[1], M: sh[0], N: sh[1], K: sh[2],
					PadA: 8, PadB: 8, Alpha: 1.5, Beta: 0.5, Seed: seed}
				if sh[2] == 16 {
					c.Beta = 0
				}
				in := c.Class()
				maths := ptx.WarpgroupMathsFor(in)
				if len(maths) == 0 {
					continue // tf32 with an m- or n-contiguous operand
				}
				d := gemmcheck.NewData(c)
				b, err := gemmcheck.Upload(c, d)
				if err != nil {
					t.Fatal(err)
				}
				for _, blk := range []string{"ms=1,ns=8,ml=64,nl=64,st=6", "ms=2,ns=16,ml=128,nl=128,st=4", "ms=2,ns=16,ml=256,nl=128,st=4"} {
					twin, err := ptx.ParseConfig(fmt.Sprintf("%s,u=%d,ks=1,kl=1,kg=1,va=%d,vb=%d,math=%s,tma=2", blk, line, v, v, maths[0]))
					if err != nil {
						t.Fatal(err)
					}
					pers := twin
					pers.PS = 1
					if ptx.Legal(twin, in, lim) != nil || ptx.Legal(pers, in, lim) != nil {
						continue
					}
					var outs [2][]float64
					for i, cfg := range []ptx.GemmConfig{twin, pers} {
						if err := b.ResetC(); err != nil {
							t.Fatal(err)
						}
						if err := testRT.Gemm(b.Request(s), cfg); err != nil {
							t.Fatalf("%v [%s]: %v", c, cfg, err)
						}
						if outs[i], err = b.ReadC(s); err != nil {
							t.Fatal(err)
						}
						if r := d.Check(c, outs[i]); r.Bad > 0 {
							failed++
							t.Errorf("%v [%s]: %d outside the bound: %s", c, cfg, r.Bad, r.FirstBad)
						}
					}
					if !slices.Equal(outs[0], outs[1]) {
						failed++
						t.Errorf("%v [%s]: the persistent kernel's result differs from its twin's", c, pers)
					}
					checked++
				}
				b.Free()
			}
		}
	}
	t.Logf("%d persistent kernels against their twins, %d failed", checked, failed)
	if checked < 30 {
		t.Errorf("only %d pairs checked", checked)
	}
}
