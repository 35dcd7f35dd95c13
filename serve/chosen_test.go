package serve

import (
	"testing"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// How the server runs a model's choice: a v3 model ranked the staged twins
// itself, so its choice runs as it is (a plain one unstaged, a staged one
// staged) and, with ISAAC_TMA=0, a staged one on its plain twin; a v2
// model's plain choice runs on its tensor-copy twin, as before; a batch's
// by the batch's rule whatever the model.
func TestChosen(t *testing.T) {
	g := &request.Gemm{M: 4096, N: 4096, K: 4096, Batch: 1}
	cls := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	tgt := kernels.Target{Class: cls, Dev: &kernels.Device{Limits: ptx.H100()}}
	plain, _ := ptx.ParseConfig("ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	prod, _ := ptx.ParseConfig("ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1")
	copyTwin := ptx.TMATwin(plain, cls, ptx.H100())
	if copyTwin.TMA != 1 {
		t.Fatalf("no tensor-copy twin of %v", plain)
	}
	on := &Server{opts: Options{TMA: true}}
	off := &Server{opts: Options{TMA: false}}
	for _, tc := range []struct {
		s    *Server
		l    *predictor.ConfigLayout
		c    ptx.GemmConfig
		want ptx.GemmConfig
	}{
		{on, predictor.ConfigV3, plain, plain},
		{on, predictor.ConfigV3, prod, prod},
		{off, predictor.ConfigV3, prod, plain},
		{on, predictor.ConfigV2, plain, copyTwin},
		{off, predictor.ConfigV2, plain, plain},
	} {
		if got := tc.s.chosen(tc.c, tc.l, tgt, g); got != tc.want {
			t.Errorf("%.14s, TMA %v: %v runs as %v, want %v", tc.l.Schema, tc.s.opts.TMA, tc.c, got, tc.want)
		}
	}
	batched := tgt
	batched.Class.Batched = true
	gb := &request.Gemm{M: 128, N: 128, K: 64, Batch: 96}
	if got, want := on.chosen(plain, predictor.ConfigV3, batched, gb), on.staged(plain, batched, gb); got != want || got.TMA == 0 {
		t.Errorf("a batch's choice runs as %v, want the batch's rule's %v", got, want)
	}
}
