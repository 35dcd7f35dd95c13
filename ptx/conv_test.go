package ptx

import (
	"fmt"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// convClasses are the served convolution type configurations in both
// reduction orders and both staging layouts of the im2col tile.
func convClasses() []InputClass {
	var out []InputClass
	for _, base := range typeCombos {
		if base.CType != base.AType {
			continue // y has x's type
		}
		for _, order := range []ConvOrder{ConvCRS, ConvRSC} {
			for _, ta := range []Op{N, T} {
				in := base
				in.TransA, in.TransB = ta, N
				in.AlignA, in.AlignB, in.AlignC = 1, 2, 1
				in.Conv = order
				out = append(out, in)
				if order == ConvRSC && ta == T { // channel vectors of 16 bytes, and filter rows too
					in.AlignA = min(8, 16/in.AType.Size())
					out = append(out, in)
					in.AlignB = in.AlignA
					out = append(out, in)
					in.ChannelLines = true // the copy engine's im2col mode
					out = append(out, in)
					if in.AllowTF32 { // x read in place: wgmma's operands rounded in shared memory
						in.RoundTF32 = true
						out = append(out, in)
					}
				}
			}
		}
	}
	return out
}

// convConfigs are configurations of every math a convolution class takes.
func convConfigs(in InputClass) []GemmConfig {
	var out []GemmConfig
	for _, s := range []string{
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=2,st=3,math=ffma",
		"ms=2,ns=2,ml=32,nl=32,u=8,ks=2,kl=2,kg=1,va=1,vb=1,st=2,math=ffma",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=6,va=1,vb=1,st=2,math=ffma",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=4,va=1,vb=2,st=1,math=mma_f16",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=dfma",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=hfma",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=mma_f16",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=mma_f16acc",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=mma_bf16",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=3,math=mma_tf32",
		"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=2,kg=1,va=1,vb=2,st=2,math=mma_f64k8",
		"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=2,st=3,math=ffma",
		"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=2,st=3,math=mma_f16",
		"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=2,st=1,math=mma_bf16",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=2,va=4,vb=2,st=3,math=mma_tf32",
		"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=2,va=8,vb=8,st=4,math=wgmma_f16acc",
		"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_bf16",
		"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=2,va=8,vb=8,st=4,math=wgmma_bf16,tma=1",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2",
		"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=3,math=wgmma_bf16,tma=2",
		"ms=1,ns=8,ml=128,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32",
		"ms=1,ns=16,ml=128,nl=128,u=16,ks=1,kl=1,kg=2,va=4,vb=4,st=3,math=wgmma_tf32",
		"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32,tma=1",
		"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=4,va=4,vb=4,st=6,math=wgmma_tf32,tma=2",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1",
		"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=8,math=wgmma_tf32,tma=2,ps=1",
		"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=5,math=wgmma_tf32,mr=224,tma=2,ps=1",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,mr=224,tma=2,ps=1",
	} {
		cfg, err := ParseConfig(s)
		if err != nil {
			panic(err)
		}
		if Legal(cfg, in, H100()) == nil {
			out = append(out, cfg)
		}
	}
	return out
}

// Every convolution class has legal configurations of its maths, and the
// rules only convolutions have hold.
func TestConvLegal(t *testing.T) {
	for _, in := range convClasses() {
		if len(convConfigs(in)) == 0 {
			t.Errorf("%s: no legal configuration", in)
		}
	}
	in := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: N, AlignA: 1, AlignB: 2, AlignC: 1, Conv: ConvCRS}
	for _, s := range []string{
		"ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=512,va=1,vb=1,st=1,math=ffma",  // a grid split beyond one pass
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=2,kc=2,va=1,vb=1,st=1,math=ffma", // a cluster split
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=1,st=1,math=ffma",      // a vector of A
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=3,math=ffma,pp=1", // pipelined fragments
	} {
		cfg, _ := ParseConfig(s)
		if Legal(cfg, in, H100()) == nil {
			t.Errorf("%s legal for %s", s, in)
		}
	}
	vec, _ := ParseConfig("ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=1,st=1,math=ffma")
	for _, c := range []InputClass{in, {AType: F32, BType: F32, CType: F32, Compute: F32, TransA: T, TransB: N, AlignA: 2, AlignB: 2, AlignC: 1, Conv: ConvCRS}} {
		if Legal(vec, c, H100()) == nil {
			t.Errorf("vectors of A legal for %s", c)
		}
	}
	bad := in
	bad.AlignC = 2
	cfg, _ := ParseConfig("ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma")
	if Legal(cfg, bad, H100()) == nil {
		t.Errorf("a convolution class with C alignment 2 is legal")
	}
}

// A convolution kernel takes the GEMM ABI's parameters and then
// ConvParams, and its name says it is one.
func TestConvKernelABI(t *testing.T) {
	in := convClasses()[0]
	cfg := convConfigs(in)[0]
	k, err := GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	want := append(abiParams(in.Compute), ConvParams()...)
	if len(k.Params) != len(want) {
		t.Fatalf("%d parameters, want %d", len(k.Params), len(want))
	}
	for i := range want {
		if k.Params[i] != want[i] || !strings.Contains(k.PTX, want[i].decl()) {
			t.Errorf("parameter %d is %v, want %v declared", i, k.Params[i], want[i])
		}
	}
	if !strings.Contains(k.Name, "_convcrs") {
		t.Errorf("name %s does not say convolution", k.Name)
	}
}

// A class that asks for TF32 rounding (RoundTF32) rounds every stage in
// shared memory before wgmma's TF32 reads it, in every main loop: one
// cvt.rna per f32 element of a stage, spread over the computing threads
// in 16-byte vectors, then a fence into the async proxy. Other maths
// ignore the flag: their code is the class's without it.
func TestConvRoundTF32(t *testing.T) {
	n := 0
	for _, in := range convClasses() {
		if !in.RoundTF32 {
			continue
		}
		plain := in
		plain.RoundTF32 = false
		for _, cfg := range convConfigs(in) {
			k, err := GenerateGemm(cfg, in, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			p, err := GenerateGemm(cfg, plain, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			rounds := strings.Count(k.PTX, "cvt.rna.tf32.f32")
			if cfg.Math != WGMMA_TF32 {
				if strings.ReplaceAll(k.PTX, in.String(), plain.String()) != p.PTX {
					t.Errorf("%s %v: the rounding flag changes a %s kernel", in, cfg, cfg.Math)
				}
				continue
			}
			n++
			g := newGeometry(cfg, in)
			vecs := g.stageBytes / 16
			want := 4 * ((vecs + g.threads - 1) / g.threads)
			if rounds != want || strings.Count(p.PTX, "cvt.rna.tf32.f32") != 0 {
				t.Errorf("%s %v: %d roundings (%d unrounded), want %d: %d vectors of a stage over %d threads",
					in, cfg, rounds, strings.Count(p.PTX, "cvt.rna.tf32.f32"), want, vecs, g.threads)
			}
			if d := strings.Count(k.PTX, "fence.proxy.async") - strings.Count(p.PTX, "fence.proxy.async"); d != 1 {
				t.Errorf("%s %v: %d more proxy fences, want 1", in, cfg, d)
			}
		}
	}
	if n < 4 {
		t.Errorf("%d wgmma TF32 configurations of the rounding classes, want the three main loops and a persistent one", n)
	}
}

// Every convolution class's kernels assemble for sm_80 and sm_90 without
// spilling much.
func TestPTXASConv(t *testing.T) {
	var jobs []PTXASJob
	for _, in := range convClasses() {
		for _, cfg := range convConfigs(in) {
			jobs = append(jobs, PTXASJob{Cfg: cfg, In: in, Heuristic: true})
		}
	}
	runPTXAS(t, jobs, 64)
}

// Generated PTX is ASCII: the driver's JIT rejects any other byte, even in
// a comment (ptxas 12.4 does not).
func TestConvPTXASCII(t *testing.T) {
	var kernels []*Kernel
	kernels = append(kernels, transposesKernels(t)...)
	for _, in := range convClasses() {
		for _, cfg := range convConfigs(in) {
			k, err := GenerateGemm(cfg, in, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			kernels = append(kernels, k)
		}
	}
	for _, k := range kernels {
		for i, r := range k.PTX {
			if r > 0x7e || r < 0x20 && r != '\n' && r != '\t' {
				t.Fatalf("%s: byte %d is %q", k.Name, i, r)
			}
		}
	}
}

// transposesKernels are the transposes kernels of every element size and
// sequence of jobs.
func transposesKernels(t *testing.T) []*Kernel {
	var out []*Kernel
	for _, es := range []int{2, 4, 8} {
		all := [][]TransposeJob{{TransposeTiles}, {TransposeRows}, {TransposeTiles, TransposeTiles},
			{TransposeTiles, TransposeRows}, {TransposeRows, TransposeTiles}, {TransposeRows, TransposeRows}}
		for _, d := range []int{1, 9, 17} { // rows jobs of one, two and three groups
			all = append(all, []TransposeJob{RowsJob(d)}, []TransposeJob{TransposeTiles, RowsJob(d)}, []TransposeJob{RowsJob(d), TransposeRows})
		}
		if es == 2 {
			all = append(all, []TransposeJob{TransposePairs}, []TransposeJob{TransposePairs, TransposeRows}, []TransposeJob{TransposePairs, RowsJob(9)},
				[]TransposeJob{TransposePairs, TransposeTiles}, []TransposeJob{TransposeRows, TransposePairs}, []TransposeJob{TransposePairs, TransposePairs})
		}
		for i, jobs := range all {
			trigger := Trigger(i % 2) // both triggers through ptxas
			k, err := GenerateTransposes(es, jobs, "sm_90", trigger)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, k)
			if es == 4 {
				if k, err = GenerateTransposesTF32(jobs, "sm_90", trigger); err != nil {
					t.Fatal(err)
				}
				out = append(out, k)
			}
		}
	}
	return out
}

// The TF32 transposes kernels round every element they load (cvt.rna)
// before it is stored; the others move the bits untouched.
func TestTransposesTF32Rounding(t *testing.T) {
	for _, k := range transposesKernels(t) {
		loads := strings.Count(k.PTX, "ld.global.nc.b32")
		rounds := strings.Count(k.PTX, "cvt.rna.tf32.f32")
		tf32 := strings.HasPrefix(k.Name, "isaac_transposes_tf32_")
		switch {
		case tf32 && (loads == 0 || rounds != loads):
			t.Errorf("%s: %d loads, %d roundings", k.Name, loads, rounds)
		case !tf32 && rounds != 0:
			t.Errorf("%s: %d roundings", k.Name, rounds)
		}
	}
}

// The transposes kernels of every element size and sequence of jobs
// assemble; bad arguments are refused.
func TestPTXASTranspose(t *testing.T) {
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	for _, k := range transposesKernels(t) {
		if _, err := ptxas.Compile(k.PTX, "sm_90"); err != nil {
			t.Errorf("%s: %v", k.Name, err)
		}
	}
	for _, bad := range []struct {
		es   int
		jobs []TransposeJob
	}{{3, []TransposeJob{TransposeTiles}}, {2, nil}, {2, []TransposeJob{TransposeTiles, TransposeTiles, TransposeRows}},
		{4, []TransposeJob{TransposePairs}}, {8, []TransposeJob{TransposeRows, TransposePairs}}, {2, []TransposeJob{shortRows - 1}},
		{2, []TransposeJob{shortRows + RowsMaxD/rowsGroup - 1}}} {
		if _, err := GenerateTransposes(bad.es, bad.jobs, "sm_90", TriggerAtStart); err == nil {
			t.Errorf("%+v: generated", bad)
		}
	}
	if _, err := GenerateTransposesTF32([]TransposeJob{TransposePairs}, "sm_90", TriggerAtStart); err == nil {
		t.Errorf("a pairs job rounding to TF32: generated")
	}
	if gx, gy, _ := TransposeTileBlocks(1000, 64, 100, 100); true {
		if _, _, ok := TransposeGrid(TransposeTiles, [4]int{1000, 64, 100, 100}, gx, gy, 0); ok {
			t.Errorf("a grid of 100,000 slices along z")
		}
		if _, _, ok := TransposeGrid(TransposeTiles, [4]int{1, 64, 1, 100}, gx, gy, 1<<20); ok {
			t.Errorf("a second job of 2^20 blocks after 8")
		}
	}
	if _, _, ok := TransposeRowsBlocks(2, 64, RowsMaxD+1); ok {
		t.Errorf("a rows job of %d-element rows", RowsMaxD+1)
	}
}

// transposeCase is a tensor for one job of a transposes kernel: dims
// (A, B, C, D) and element strides (C = 1, sC = 0 for a rows job).
type transposeCase struct{ dims, strides [4]int }

// The transposes kernels, simulated thread by thread (each block twice,
// so that the second pass reads the tile the whole block wrote to shared
// memory): every element of each job's tensor, with padded strides, lands
// once at its place in the job's packed (A, C, D, B) copy, and nothing
// else is written; a block runs the job its z slice falls in, and the
// second job's blocks past its own exit.
func TestTransposesSimulated(t *testing.T) {
	t.Parallel()
	tiles := transposeCase{[4]int{2, 70, 3, 37}, [4]int{70 * (3*77 + 3), 3*77 + 3, 77, 2}} // rows 77 apart, every other element
	// rowsOf is a rows job's tensor of rows of d elements, padded.
	rowsOf := func(d int) transposeCase {
		return transposeCase{[4]int{3, 300, 1, d}, [4]int{300*d*2 + 5, d * 2, 0, 2}}
	}
	type run struct {
		es    int
		jobs  []TransposeJob
		rowsD int // a rows job's row length (9 where 0)
	}
	var runs []run
	for _, es := range []int{2, 4, 8} {
		runs = append(runs, run{es, []TransposeJob{TransposeTiles, TransposeRows}, 0})
	}
	runs = append(runs, run{2, []TransposeJob{TransposeRows, TransposeTiles}, 0}, run{4, []TransposeJob{TransposeTiles, TransposeTiles}, 0},
		run{2, []TransposeJob{TransposeTiles}, 0})
	runs = append(runs, run{-4, []TransposeJob{TransposeTiles, TransposeRows}, 0}) // -4: rounding to TF32
	// Rows that end in each of the loads' groups (rowsGroup) and at their
	// edges: every load before the first store, the stores returning after
	// the row's last group; by the rows job of RowsMaxD and by the one
	// RowsJob gives for the row (no more groups than it needs), alone and
	// after a tiles job.
	for _, d := range []int{1, 8, 16, 17, 25, RowsMaxD} {
		runs = append(runs, run{2, []TransposeJob{TransposeRows}, d}, run{2, []TransposeJob{RowsJob(d)}, d})
	}
	runs = append(runs, run{-4, []TransposeJob{TransposeRows}, 25}, run{-4, []TransposeJob{TransposeTiles, RowsJob(9)}, 9},
		run{4, []TransposeJob{TransposeTiles, RowsJob(7)}, 7})
	for _, r := range runs {
		rows := rowsOf(9)
		if r.rowsD > 0 {
			rows = rowsOf(r.rowsD)
		}
		gen := func() (*Kernel, error) { return GenerateTransposes(r.es, r.jobs, "sm_90", TriggerAtEnd) }
		if r.es == -4 {
			r.es = 4
			gen = func() (*Kernel, error) { return GenerateTransposesTF32(r.jobs, "sm_90", TriggerAtEnd) }
		}
		k, err := gen()
		if err != nil {
			t.Fatal(err)
		}
		prog := parseProgram(k.PTX)
		params := map[string]int64{}
		var cases []transposeCase
		var src, dst []int64
		var gxs, gys, ns []int
		for i, j := range r.jobs {
			c := rows
			if j == TransposeTiles {
				c = tiles
				if i == 1 { // a second tiles job of other dimensions
					c = transposeCase{[4]int{1, 33, 2, 97}, [4]int{2 * 97 * 33, 97, 33 * 97, 1}} // 16 blocks: not whole slices of the first job's
				}
			}
			cases = append(cases, c)
			src, dst = append(src, int64(2*i+1)<<40), append(dst, int64(2*i+2)<<40)
			pre := fmt.Sprintf("p_j%d_", i)
			params[pre+"src"], params[pre+"dst"] = src[i], dst[i]
			d, st := c.dims, c.strides
			var gx, gy, n int
			if j.Rows() {
				var ok bool
				if gx, n, ok = TransposeRowsBlocks(d[0], d[1], d[3]); !ok {
					t.Fatal("no rows job")
				}
				for name, v := range map[string]int{"dA": d[0], "dB": d[1], "dD": d[3], "sA": st[0], "sB": st[1], "sD": st[3], "gx": gx} {
					params[pre+name] = int64(v)
				}
			} else {
				gx, gy, n = TransposeTileBlocks(d[0], d[1], d[2], d[3])
				for name, v := range map[string]int{"dA": d[0], "dB": d[1], "dC": d[2], "dD": d[3], "sA": st[0], "sB": st[1], "sC": st[2], "sD": st[3], "gx": gx, "gy": gy} {
					params[pre+name] = int64(v)
				}
			}
			gxs, gys, ns = append(gxs, gx), append(gys, gy), append(ns, n)
		}
		n1 := 0
		if len(r.jobs) == 2 {
			n1 = ns[1]
		}
		grid, z0, ok := TransposeGrid(r.jobs[0], cases[0].dims, gxs[0], gys[0], n1)
		if !ok {
			t.Fatal("no grid")
		}
		params["p_z0"], params["p_n1"] = int64(z0), int64(n1)
		got := map[int64]int64{}
		g64 := [3]int64{int64(grid[0]), int64(grid[1]), int64(grid[2])}
		for bz := 0; bz < grid[2]; bz++ {
			for by := 0; by < grid[1]; by++ {
				for bx := 0; bx < grid[0]; bx++ {
					smemFrom := map[int64]int64{}
					for pass := 0; pass < 2; pass++ {
						for tid := 0; tid < k.Block[0]; tid++ {
							_, stores, err := simThreadSharedFrom(prog, params, int64(tid), [3]int64{int64(bx), int64(by), int64(bz)}, g64, nil, smemFrom, false)
							if err != nil {
								t.Fatalf("%s: %v", k.Name, err)
							}
							if pass == 0 {
								continue
							}
							for _, s := range stores {
								if s.bytes != int64(r.es) {
									t.Fatalf("%s: a store of %d bytes", k.Name, s.bytes)
								}
								if _, dup := got[s.addr]; dup {
									t.Fatalf("%s: %#x stored twice", k.Name, s.addr)
								}
								got[s.addr] = s.from
							}
						}
					}
				}
			}
		}
		want := 0
		for i, c := range cases {
			d, st := c.dims, c.strides
			want += d[0] * d[1] * d[2] * d[3]
			for a := 0; a < d[0]; a++ {
				for b := 0; b < d[1]; b++ {
					for cc := 0; cc < d[2]; cc++ {
						for x := 0; x < d[3]; x++ {
							at := dst[i] + int64(r.es*(((a*d[2]+cc)*d[3]+x)*d[1]+b))
							if from := src[i] + int64(r.es*(a*st[0]+b*st[1]+cc*st[2]+x*st[3])); got[at] != from {
								t.Fatalf("%s job %d: (%d, %d, %d, %d) stored from %#x, want %#x", k.Name, i, a, b, cc, x, got[at], from)
							}
						}
					}
				}
			}
		}
		if len(got) != want {
			t.Fatalf("%s: %d elements stored, want %d", k.Name, len(got), want)
		}
	}
}

// On sm_90 a convolution's kernel begins by waiting for the grids before
// it (griddepcontrol.wait, before any other instruction, so before it
// touches memory: Kernel.WaitsOnPrior), which makes it safe to launch as a
// programmatic dependent of its copies' transposes; on sm_80 (no such
// launch) and for a GEMM's kernel there is no wait. The transposes kernel
// lets its dependent be scheduled from its start on sm_90.
func TestConvWaitsOnPrior(t *testing.T) {
	first := func(k *Kernel) string {
		body := k.PTX[strings.Index(k.PTX, "{"):]
		for _, l := range strings.Split(body, "\n") {
			l = strings.TrimSpace(l)
			if l == "" || l == "{" || strings.HasPrefix(l, "//") || strings.HasPrefix(l, ".") {
				continue
			}
			return l
		}
		return ""
	}
	for _, in := range convClasses() {
		for _, cfg := range convConfigs(in) {
			for _, arch := range []string{"sm_80", "sm_90"} {
				k, err := GenerateGemm(cfg, in, arch)
				if err != nil {
					continue // a wgmma configuration for sm_80
				}
				want := arch == "sm_90"
				if k.WaitsOnPrior() != want || (first(k) == "griddepcontrol.wait;") != want || strings.Count(k.PTX, "griddepcontrol") != map[bool]int{true: 1}[want] {
					t.Errorf("%s %v %s: WaitsOnPrior %v, first instruction %q", in, cfg, arch, k.WaitsOnPrior(), first(k))
				}
			}
		}
	}
	gemm := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: T, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	cfg, err := ParseConfig("ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	if err != nil {
		t.Fatal(err)
	}
	if k, err := GenerateGemm(cfg, gemm, "sm_90"); err != nil || k.WaitsOnPrior() || strings.Contains(k.PTX, "griddepcontrol") {
		t.Errorf("a GEMM's kernel waits on the grid before it (%v)", err)
	}
	names := map[string]bool{}
	for _, arch := range []string{"sm_80", "sm_90"} {
		for _, trigger := range []Trigger{TriggerAtStart, TriggerAtEnd} {
			k, err := GenerateTransposes(2, []TransposeJob{TransposePairs}, arch, trigger)
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Contains(k.PTX, "griddepcontrol.launch_dependents;"); got != (arch == "sm_90" && trigger == TriggerAtStart) {
				t.Errorf("transposes for %s, trigger %d: launch_dependents %v", arch, trigger, got)
			}
			names[arch+" "+k.Name] = true
		}
	}
	if len(names) != 4 { // the runtime loads kernels by name
		t.Errorf("the two triggers' kernels share a name: %v", names)
	}
	if _, err := GenerateTransposes(2, []TransposeJob{TransposePairs}, "sm_90", Trigger(7)); err == nil {
		t.Error("no error for an unknown trigger")
	}
}
