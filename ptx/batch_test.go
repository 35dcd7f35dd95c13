package ptx

import (
	"strings"
	"testing"
)

// alignedClasses are a class of every served type with k-contiguous A
// and B (every math's layout) and 16-byte alignments of A, B and C (C's
// of 1 element where cAlign1).
func alignedClasses(cAlign1 bool) []InputClass {
	var out []InputClass
	for _, base := range typeCombos {
		in := base
		in.TransA, in.TransB = T, N
		a := min(16/in.AType.Size(), 8)
		in.AlignA, in.AlignB, in.AlignC = a, a, min(16/in.CType.Size(), 8)
		if cAlign1 {
			in.AlignC = 1
		}
		out = append(out, in)
	}
	return out
}

// batchedClasses are a batched twin of a class of each math family's
// types: f32 (ffma, mma_tf32, wgmma_tf32), f64, f16 and bf16.
func batchedClasses() []InputClass {
	out := alignedClasses(true)
	for i := range out {
		out[i].Batched = true
	}
	return out
}

// batchedConfigs are configurations of each kind a batched class takes
// (SIMT, mma.sync, wgmma with cp.async, a cluster split, tensor copies, a
// persistent grid), and the kind it refuses (a grid split).
var batchedConfigs = []struct {
	cfg   string
	legal bool
}{
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=2,math=ffma", true},
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=dfma", true},
	{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", true},
	{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16", true},
	{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=3,math=mma_tf32", true},
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=1,vb=1,st=2,math=ffma", true},
	{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", true},
	{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_bf16", true},
	{"ms=1,ns=8,ml=128,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32", true},
	{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1", true},
	{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_bf16,tma=2", true},
	{"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1", true},
	{"ms=1,ns=8,ml=128,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32,tma=2,ps=1", true},
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=4,va=1,vb=1,st=2,math=ffma", false},
	{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=2,va=8,vb=8,st=4,math=wgmma_f16,tma=1", false},
}

// A batched class's kernels: a name of their own, the batch's strides and
// count after the ABI's parameters (and tensor maps), the block moved to its
// matrix from ctaid.z (divided by the cluster's blocks where it has them),
// a grid of z slices per matrix, or a persistent grid over every matrix's
// tiles, each tile moving C; tensor copies of three dimensions, the
// matrix's coordinate 0 for an operand of stride 0; the rules refuse a grid
// split of the reduction.
func TestBatchedKernels(t *testing.T) {
	n := 0
	for _, in := range batchedClasses() {
		plain := in
		plain.Batched = false
		for _, bc := range batchedConfigs {
			cfg, err := ParseConfig(bc.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if Legal(cfg, plain, H100()) != nil {
				continue // not this type's math
			}
			err = Legal(cfg, in, H100())
			if (err == nil) != bc.legal {
				t.Errorf("%s %s: legal %v, want %v (%v)", in, bc.cfg, err == nil, bc.legal, err)
				continue
			}
			if !bc.legal {
				continue
			}
			n++
			k, err := GenerateGemm(cfg, in, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			p, _ := GenerateGemm(cfg, plain, "sm_90")
			if k.Name == p.Name || !strings.Contains(k.Name, "_batched") {
				t.Errorf("%s: name %s", in, k.Name)
			}
			want := append(abiParams(in.Compute), tensorMapParams(k.TensorMaps)...)
			want = append(want, Param{"strideA", ".s64", 8}, Param{"strideB", ".s64", 8}, Param{"strideC", ".s64", 8}, Param{"batch", ".s32", 4})
			if len(k.Params) != len(want) {
				t.Fatalf("%s %s: %d parameters, want %d", in, bc.cfg, len(k.Params), len(want))
			}
			for i := range want {
				if k.Params[i] != want[i] || !strings.Contains(k.PTX, want[i].decl()) {
					t.Errorf("%s: parameter %d is %v, want %v declared", k.Name, i, k.Params[i], want[i])
				}
			}
			persistent := cfg.PS == 1
			reads := map[string]bool{"[p_strideA]": true, "[p_strideB]": true, "[p_strideC]": true, "%ctaid.z": !persistent, "[p_batch]": persistent}
			for s, want := range reads {
				if strings.Contains(k.PTX, s) != want || strings.Contains(p.PTX, s) && s != "%ctaid.z" {
					t.Errorf("%s: %s read %v, want %v (unbatched %v)", k.Name, s, strings.Contains(k.PTX, s), want, strings.Contains(p.PTX, s))
				}
			}
			for _, m := range k.TensorMaps {
				if !m.Batched {
					t.Errorf("%s: a two-dimensional map of %c", k.Name, m.Operand)
				}
			}
			if copies := strings.Count(k.PTX, "cp.async.bulk.tensor.3d"); (copies > 0) != (cfg.TMA > 0) || strings.Contains(k.PTX, "cp.async.bulk.tensor.2d") {
				t.Errorf("%s: %d copies of three dimensions, and two-dimensional ones %v", k.Name, copies, strings.Contains(k.PTX, "cp.async.bulk.tensor.2d"))
			}
			// A persistent kernel's producer and computing warps each take
			// every tile to its matrix: C moved (and the copies' matrix).
			if moves := strings.Count(k.PTX, "mad.lo.s64"); persistent && moves-strings.Count(p.PTX, "mad.lo.s64") != 2 {
				t.Errorf("%s: C moved %d times a tile, want in the producer and the warpgroups", k.Name, moves)
			}
			if cfg.TMA > 0 && strings.Count(k.PTX, "setp.eq.s64") < 2 {
				t.Errorf("%s: the copies' coordinates do not test the strides for 0", k.Name)
			}
			splits := max(cfg.KC, 1)
			if hasDiv := strings.Contains(k.PTX, "div.u32") && strings.Contains(k.PTX, "rem.u32"); !persistent && hasDiv != (splits > 1) && !strings.Contains(p.PTX, "rem.u32") {
				t.Errorf("%s: the batch index divides ctaid.z %v, want %v", k.Name, hasDiv, splits > 1)
			}
			g, pg := k.BatchGrid(1000, 300, 64, 7), p.Grid(1000, 300, 64)
			switch {
			case persistent && (g[0] != 7*pg[0] || g[1] != 1 || g[2] != 1):
				t.Errorf("%s: persistent batch grid %v, one problem's %v", k.Name, g, pg)
			case !persistent && (g[0] != pg[0] || g[1] != pg[1] || g[2] != 7*pg[2] || pg[2] != splits):
				t.Errorf("%s: batch grid %v, one problem's %v", k.Name, g, pg)
			}
		}
	}
	if n < 16 {
		t.Errorf("%d batched kernels generated", n)
	}
	conv := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: N, AlignA: 1, AlignB: 1, AlignC: 1, Conv: ConvCRS, Batched: true}
	if conv.Validate() == nil {
		t.Errorf("a batched convolution class validates")
	}
}

// The batched kernels assemble for sm_80 and sm_90.
func TestPTXASBatched(t *testing.T) {
	var jobs []PTXASJob
	for _, in := range batchedClasses() {
		for _, bc := range batchedConfigs {
			cfg, _ := ParseConfig(bc.cfg)
			if bc.legal && Legal(cfg, in, H100()) == nil {
				jobs = append(jobs, PTXASJob{Cfg: cfg, In: in})
			}
		}
	}
	runPTXAS(t, jobs, 64)
}
