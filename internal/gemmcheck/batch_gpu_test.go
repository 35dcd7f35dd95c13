package gemmcheck_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
)

// batchConfigs are configurations of every kernel family a batched class
// takes (SIMT, mma.sync, wgmma with cp.async, a cluster split of the
// reduction, tensor copies from the computing threads or a producer warp,
// a persistent grid over the batch's tiles); a case runs the first legal
// for its class after its own draw.
var batchConfigs = []string{
	"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=2,math=ffma",
	"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=1,vb=1,st=2,math=ffma",
	"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=dfma",
	"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,kc=4,va=1,vb=1,st=1,math=dfma",
	"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16",
	"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16",
	"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_bf16",
	"ms=1,ns=8,ml=128,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32",
	"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=3,math=wgmma_f16",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_bf16,tma=2",
	"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2,ps=1",
	"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_bf16,tma=2,ps=1",
	"ms=1,ns=8,ml=128,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32,tma=2,ps=1",
	"ms=1,ns=16,ml=64,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=5,math=wgmma_f16,tma=2,ps=1",
	"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=8,math=wgmma_bf16,tma=2,ps=1",
}

// TestGPUBatched runs random strided-batched GEMMs (ISAAC_GPU_BATCH_CASES,
// 3000 by default) of every served type through ISAAC's kernels (the
// heuristic's configuration, and one of batchConfigs), the server under
// ISAAC_POLICY=always, cuBLAS's cublasGemmStridedBatchedEx and its
// cublasGemmBatchedEx on arrays of pointers to the same matrices (where every
// matrix is 16-byte aligned, as cuBLAS asks: cublas.ArraysAligned): batches of
// 1 to 512 matrices, odd and aligned strides, broadcast (stride 0) and
// overlapping A and B, one case in 8 aligned with many tiles
// (AlignedBatchCase), every layout, alpha and beta (beta = 0 over NaN),
// host and device scalars, and a batch of 70,001 (more matrices than the
// grid's z dimension takes: launched in chunks). Every matrix of every
// result within the bound of the FP64 reference, C between the matrices
// untouched.
func TestGPUBatched(t *testing.T) {
	f := newKernelFixture(t, "ISAAC_GPU_BATCH_CASES", 3000, batchConfigs)
	ctx, rt, stream, heur, n, configFor := f.ctx, f.rt, f.stream, f.heur, f.n, f.configFor
	o := serve.FromEnv()
	o.Policy = serve.Always
	srv := serve.NewOn(rt, o)
	h, err := cublas.New()
	if err != nil {
		t.Fatal(err)
	}
	defer h.Destroy()
	rng := rand.New(rand.NewPCG(25, 3))
	cases := make([]gemmcheck.BatchCase, n)
	for i := range cases {
		cases[i] = gemmcheck.RandomBatchCase(rng, gemmcheck.Types[i%len(gemmcheck.Types)], 2_000_000)
		if i%8 == 5 {
			// Aligned, many tiles: tensor copies and persistent blocks
			// walking several tiles.
			cases[i] = gemmcheck.AlignedBatchCase(rng, gemmcheck.Types[i%len(gemmcheck.Types)], 24_000_000)
		}
	}
	if n > 0 {
		// A batch beyond the grid's z limit (65535): launched in chunks.
		c := gemmcheck.Case{Type: gemmcheck.Types[0], M: 3, N: 5, K: 7, Alpha: 1.5, Beta: 0.5, Seed: 6}
		cases[0] = gemmcheck.BatchCase{Case: c, Batch: 70001, StrideA: c.ElemsA(), StrideB: c.ElemsB() + 1, StrideC: c.ElemsC() + 2}
	}
	// Compiling each new class's kernels is most of the work: every
	// case's kernels first, on 16 threads (the buffers' alignments, and so
	// the classes, are those of allocations on 1 MiB boundaries).
	start := time.Now()
	deadline, timed := t.Deadline()
	nearDeadline := func() bool { return timed && time.Until(deadline) < 90*time.Second } // the rest compile as their cases run
	gemmcheck.OnThreads(t, ctx, 16, n, nearDeadline, func(i int) {
		g := cases[i].RequestAt(1<<20, 2<<20, 3<<20, 4<<20, 0)
		if cfg, err := heur.Heuristic(g); err == nil {
			rt.Prepare(g, cfg)
		}
		if tg, err := rt.Target(g); err == nil {
			if cfg, ok := configFor(i, tg.Class); ok {
				rt.Prepare(g, cfg)
			}
			for _, cfg := range f.cfgs {
				if i%8 == 5 && cfg.TMA > 0 && ptx.Legal(cfg, tg.Class, f.lim) == nil {
					rt.Prepare(g, cfg)
				}
			}
		}
		srv.Decide(g)
	})
	t.Logf("%d cases' kernels compiled in %v", n, time.Since(start).Round(time.Millisecond))
	type tally struct{ runs, bad int }
	tallies := map[string]*tally{}
	worst := 0.0
	report := func(ran int) string {
		rep := fmt.Sprintf("batched: %d of %d cases; ours worst err/bound %.3g\n", ran, n, worst)
		for _, name := range []string{"kernels/heuristic", "kernels/config", "kernels/copies", "serve", "cublas", "cublas-arrays"} {
			if tl := tallies[name]; tl != nil {
				rep += fmt.Sprintf("  %s: %d runs, %d outside the bound or failed\n", name, tl.runs, tl.bad)
			}
		}
		return rep
	}
	// With -test.timeout the test stops 30 s before it and says how far
	// it got.
	ran := 0
	for i := range n {
		if timed && time.Until(deadline) < 30*time.Second {
			t.Logf("stopped at the deadline after %d of %d cases", i, n)
			break
		}
		if i > 0 && i%200 == 0 {
			t.Log(report(i))
		}
		ran = i + 1
		c := cases[i]
		d := gemmcheck.NewBatchData(c)
		b, err := gemmcheck.UploadBatch(c, d)
		if err != nil {
			t.Fatal(err)
		}
		g := c.BatchRequest(b, stream)
		tg, err := rt.Target(g)
		if err != nil {
			t.Fatalf("%v: %v", c, err)
		}
		if tg.Class.Batched != (c.Batch > 1) {
			t.Fatalf("%v: class %v", c, tg.Class)
		}
		runs := map[string]func() error{
			"cublas": func() error { return h.Gemm(g) },
			"serve": func() error {
				if r, _ := srv.Serve(g); r != request.Served {
					return fmt.Errorf("forwarded (%v) under ISAAC_POLICY=always", r)
				}
				return nil
			},
			"kernels/heuristic": func() error {
				cfg, err := heur.Heuristic(g)
				if err != nil {
					return err
				}
				return rt.Gemm(g, cfg)
			},
		}
		if cfg, ok := configFor(i, tg.Class); ok {
			runs["kernels/config"] = func() error { return rt.Gemm(g, cfg) }
		}
		if g.Entry.Batched() && cublas.ArraysAligned(g) {
			// cuBLAS's batched GEMM of arrays of pointers on the same
			// matrices (bench_compare -vendor-arrays times it), where its
			// documented alignment holds.
			runs["cublas-arrays"] = func() error { return gemmArrays(h, g) }
		}
		if i%8 == 5 {
			// An aligned case: every configuration with tensor copies
			// its class takes.
			for j, cfg := range f.cfgs {
				if cfg.TMA > 0 && ptx.Legal(cfg, tg.Class, f.lim) == nil {
					runs[fmt.Sprintf("kernels/copies#%d", j)] = func() error { return rt.Gemm(g, cfg) }
				}
			}
		}
		for name, run := range runs {
			name, _, _ = strings.Cut(name, "#")
			if tallies[name] == nil {
				tallies[name] = &tally{}
			}
			tl := tallies[name]
			if err := b.ResetC(); err != nil {
				t.Fatal(err)
			}
			err := run()
			var got []float64
			if err == nil {
				got, err = b.ReadC(stream)
			}
			tl.runs++
			if err != nil {
				tl.bad++
				t.Errorf("%s %v: %v", name, c, err)
				continue
			}
			r := d.Check(c, got)
			if !strings.HasPrefix(name, "cublas") {
				worst = max(worst, r.MaxRelBound)
			}
			if r.Bad > 0 {
				tl.bad++
				if tl.bad <= 5 {
					t.Errorf("%s %v: %d elements outside the bound; first: %s", name, c, r.Bad, r.FirstBad)
				}
			}
		}
		b.Free()
	}
	rep := report(ran)
	t.Log(rep)
	writeReport(t, "gemm-batched.txt", []byte(rep))
}

// gemmArrays runs g's matrices through cuBLAS's batched GEMM of arrays of
// pointers, the arrays made for the call and freed after it.
func gemmArrays(h cublas.Handle, g *request.Gemm) error {
	arr, err := cublas.MatrixArrays(g)
	if err != nil {
		return err
	}
	defer func() {
		for _, p := range arr {
			p.Free()
		}
	}()
	return h.GemmArrays(g, uintptr(arr[0]), uintptr(arr[1]), uintptr(arr[2]))
}
