package gemmcheck_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
)

// epilogueConfigs are configurations of every kernel family an epilogue
// class takes: SIMT with vector stores, a cluster split, mma.sync, wgmma
// with cp.async, with tensor copies (staged stores), with a producer warp
// and persistent; grid splits of K whose last block applies the epilogue in
// the one-pass fixup.
var epilogueConfigs = []string{
	"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=4,va=1,vb=1,st=2,math=ffma",
	"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=3,va=8,vb=8,st=3,math=mma_f16",
	"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=2,math=ffma",
	"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=1,vb=1,st=2,math=ffma",
	"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=dfma",
	"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16",
	"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16",
	"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_bf16,tma=1",
	"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32,tma=2",
	"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1",
}

// TestGPUEpilogue runs random GEMMs with cuBLASLt's epilogues
// (ISAAC_GPU_EPILOGUE_CASES, 1500 by default) through ISAAC's kernels —
// the heuristic's configuration as the server runs it, and one of
// epilogueConfigs — with a bias (C's type, per row) or none, no
// activation, ReLU or GELU, in place or D apart from C: every element of
// the result within its bound of the FP64 reference, every other element
// of D untouched, and out of place C untouched whole.
func TestGPUEpilogue(t *testing.T) {
	f := newKernelFixture(t, "ISAAC_GPU_EPILOGUE_CASES", 1500, epilogueConfigs)
	ctx, rt, stream, heur, n, configFor := f.ctx, f.rt, f.stream, f.heur, f.n, f.configFor
	rng := rand.New(rand.NewPCG(31, 5))
	cases := make([]gemmcheck.EpilogueCase, n)
	for i := range cases {
		cases[i] = gemmcheck.RandomEpilogueCase(rng, gemmcheck.Types[i%len(gemmcheck.Types)], 4_000_000)
	}
	// reqOf is case c's request on buffers at a, b, cc, bias and d.
	reqOf := func(c gemmcheck.EpilogueCase, a, b, cc, scalars, bias, d uintptr, s cuda.Stream) *request.Gemm {
		g := c.RequestAt(a, b, cc, scalars, uintptr(s))
		g.Act = c.Act
		if c.Bias {
			g.Bias = bias
		}
		if c.OutOfPlace {
			g.D = d + uintptr(c.OffC*c.Type.C.Size())
		}
		return g
	}
	gemmcheck.OnThreads(t, ctx, 16, n, nil, func(i int) {
		g := reqOf(cases[i], 1<<20, 2<<20, 3<<20, 4<<20, 5<<20, 6<<20, 0)
		if cfg, err := heur.Heuristic(g); err == nil {
			rt.Prepare(g, cfg)
		}
		if tg, err := rt.Target(g); err == nil {
			if cfg, ok := configFor(i, tg.Class); ok {
				rt.Prepare(g, cfg)
			}
		}
	})
	runs, bad, worst := map[string]int{}, map[string]int{}, 0.0
	for i, c := range cases {
		d := gemmcheck.NewEpilogueData(c)
		b, err := gemmcheck.Upload(c.Case, d.Data)
		if err != nil {
			t.Fatal(err)
		}
		put := func(t request.DataType, vals []float64) cuda.DevicePtr {
			raw := gemmcheck.Encode(t, vals)
			p, err := cuda.Alloc(max(len(raw), 16))
			if err == nil {
				err = p.CopyFromHost(raw)
			}
			if err != nil {
				panic(err)
			}
			return p
		}
		biasP := put(c.Type.C, d.BiasV)
		var dP cuda.DevicePtr
		if c.OutOfPlace {
			dP = put(c.Type.C, d.D0)
		}
		g := reqOf(c, uintptr(b.A), uintptr(b.B), uintptr(b.C), uintptr(b.Scalars), uintptr(biasP), uintptr(dP), stream)
		tg, err := rt.Target(g)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		jobs := map[string]func() error{"heuristic": func() error {
			cfg, err := heur.Heuristic(g)
			if err != nil {
				return err
			}
			return rt.Gemm(g, cfg)
		}}
		if cfg, ok := configFor(i, tg.Class); ok {
			jobs["config"] = func() error { return rt.Gemm(g, cfg) }
		}
		for name, run := range jobs {
			runs[name]++
			err := b.ResetC()
			if err == nil && c.OutOfPlace {
				err = dP.CopyFromHost(gemmcheck.Encode(c.Type.C, d.D0))
			}
			if err == nil {
				err = run()
			}
			var got, c0 []float64
			if err == nil {
				c0, err = b.ReadC(stream)
			}
			if err == nil && c.OutOfPlace {
				raw := make([]byte, len(d.D0)*c.Type.C.Size())
				if err = dP.CopyToHost(raw); err == nil {
					got = gemmcheck.Decode(c.Type.C, raw)
				}
			} else {
				got = c0
			}
			if err != nil {
				bad[name]++
				t.Errorf("%s %v: %v", name, c, err)
				continue
			}
			r := d.Check(c, got, c0)
			worst = max(worst, r.MaxRelBound)
			if r.Bad > 0 {
				bad[name]++
				if bad[name] <= 5 {
					t.Errorf("%s %v (%v): %d elements wrong; first: %s", name, c, tg.Class, r.Bad, r.FirstBad)
				}
			}
		}
		biasP.Free()
		if c.OutOfPlace {
			dP.Free()
		}
		b.Free()
	}
	rep := fmt.Sprintf("epilogue: %d cases; worst err/bound %.3g\n", n, worst)
	for _, name := range []string{"heuristic", "config"} {
		rep += fmt.Sprintf("  %s: %d runs, %d wrong or failed\n", name, runs[name], bad[name])
	}
	t.Log(rep)
	writeReport(t, "gemm-epilogue.txt", []byte(rep))
}
