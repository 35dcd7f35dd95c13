package serve

import (
	"testing"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// A batched class's decision: a configuration of its one-matrix twin, made a
// batched one (no grid split; its tensor copies and persistent grid kept), is
// legal for the batched class; the decision's key tells batches apart, a plain
// class's does not look at Batch.
func TestBatchDecision(t *testing.T) {
	g := request.Gemm{Entry: request.EntryGemmStridedBatchedEx, TransA: request.OpT, TransB: request.OpN,
		M: 128, N: 128, K: 64, LDA: 64, LDB: 64, LDC: 128, AType: request.R16F, BType: request.R16F, CType: request.R16F,
		Compute: request.Compute32F, Algo: request.AlgoDefault, A: 1 << 20, B: 2 << 20, C: 3 << 20,
		StrideA: 128 * 64, StrideB: 128 * 64, StrideC: 128 * 128, Batch: 96}
	cls, err := space.Class(&g)
	if err != nil {
		t.Fatal(err)
	}
	if !cls.Batched {
		t.Fatalf("class %v", cls)
	}
	one := cls
	one.Batched = false
	lim := ptx.H100()
	for _, s := range []string{
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1",
		"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
		"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=2,va=8,vb=8,st=3,math=mma_f16",
	} {
		cfg, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		if ptx.Legal(cfg, one, lim) != nil {
			t.Fatalf("%s not legal for the one-matrix class", s)
		}
		if (ptx.Legal(cfg, cls, lim) == nil) != (cfg.KG == 1) {
			t.Errorf("%s legal for the batched class as it is: %v", s, ptx.Legal(cfg, cls, lim))
		}
		b := servedConfig(cfg, cls, lim)
		if err := ptx.Legal(b, cls, lim); err != nil || b.KG != 1 || b.TMA != cfg.TMA || b.PS != cfg.PS {
			t.Errorf("%s as a batched configuration %v: %v", s, b, err)
		}
		if servedConfig(cfg, one, lim) != cfg {
			t.Errorf("%s changed for a plain class", s)
		}
	}
	g2 := g
	g2.Batch = 8
	if keyOf(kernels.Target{Class: cls}, &g, Auto) == keyOf(kernels.Target{Class: cls}, &g2, Auto) {
		t.Errorf("batches of 96 and 8 share a key")
	}
	plain := g
	plain.Entry, plain.Batch = request.EntryGemmEx, 0
	p2 := plain
	p2.Batch = 1
	if keyOf(kernels.Target{Class: one}, &plain, Auto) != keyOf(kernels.Target{Class: one}, &p2, Auto) {
		t.Errorf("a plain GEMM's key depends on its Batch")
	}
}

// An epilogue's class (cublasLtMatmul's bias, activation, D apart from C):
// a configuration of the class without it keeps a grid split the kernel's
// one-pass fixup sums, loses any other, and is then legal for the
// epilogue's class.
func TestEpilogueDecision(t *testing.T) {
	g := request.Gemm{Entry: request.EntryGemmEx, TransA: request.OpT, TransB: request.OpN,
		M: 4096, N: 16, K: 4096, LDA: 4096, LDB: 4096, LDC: 4096, AType: request.R16F, BType: request.R16F, CType: request.R16F,
		Compute: request.Compute32F, Algo: request.AlgoDefault, A: 1 << 20, B: 2 << 20, C: 3 << 20,
		D: 5 << 20, Bias: 4 << 20, Act: request.ActGELU}
	cls, err := space.Class(&g)
	if err != nil {
		t.Fatal(err)
	}
	if cls.Epi != (ptx.Epilogue{Bias: true, Act: ptx.ActGELU, OutOfPlace: true}) {
		t.Fatalf("class %v", cls)
	}
	plain := cls
	plain.Epi = ptx.Epilogue{}
	lim := ptx.H100()
	for _, s := range []string{
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1",
		"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
		"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=8,va=8,vb=8,st=3,math=mma_f16",
	} {
		cfg, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		if ptx.Legal(cfg, plain, lim) != nil {
			t.Fatalf("%s not legal for the class without the epilogue", s)
		}
		e := servedConfig(cfg, cls, lim)
		split := ptx.Legal(cfg, cls, lim) == nil // a grid split the one-pass fixup sums
		if err := ptx.Legal(e, cls, lim); err != nil || e.TMA != cfg.TMA || e.PS != cfg.PS ||
			split && e != cfg || !split && e.KG != 1 {
			t.Errorf("%s for the epilogue's class: %v (%v)", s, e, err)
		}
	}
}
