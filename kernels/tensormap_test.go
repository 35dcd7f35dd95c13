package kernels

import (
	"bytes"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// The tensor maps of a TMA kernel describe each operand as the kernel's
// boxes address it: the contiguous dimension first (k for A 'T' and B 'N',
// m or n otherwise), the leading dimension in bytes as the stride, the
// operand's own pointer, 16-bit elements as 2-byte copies, the 128-byte
// swizzle.
func TestTensorMapOf(t *testing.T) {
	in := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, AlignA: 8, AlignB: 8, AlignC: 8}
	cfg, err := ptx.ParseConfig("ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ta, tb request.Op
		a, b   cuda.TensorMapTiled // Base, Dims, Stride, Box
	}{
		{request.OpN, request.OpN,
			cuda.TensorMapTiled{Base: 0x1000, Dims: [2]uint64{300, 500}, Stride: 2 * 304, Box: [2]uint32{64, 64}},
			cuda.TensorMapTiled{Base: 0x2000, Dims: [2]uint64{500, 200}, Stride: 2 * 512, Box: [2]uint32{64, 64}}},
		{request.OpT, request.OpT,
			cuda.TensorMapTiled{Base: 0x1000, Dims: [2]uint64{500, 300}, Stride: 2 * 504, Box: [2]uint32{64, 128}},
			cuda.TensorMapTiled{Base: 0x2000, Dims: [2]uint64{200, 500}, Stride: 2 * 208, Box: [2]uint32{64, 64}}},
	} {
		in.TransA, in.TransB = ptx.N, ptx.N
		lda, ldb := int64(304), int64(512)
		if tc.ta == request.OpT {
			in.TransA, lda = ptx.T, 504
		}
		if tc.tb == request.OpT {
			in.TransB, ldb = ptx.T, 208
		}
		k, err := ptx.GenerateGemm(cfg, in, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		g := &request.Gemm{TransA: tc.ta, TransB: tc.tb, M: 300, N: 200, K: 500, LDA: lda, LDB: ldb, LDC: 304, A: 0x1000, B: 0x2000}
		for i, want := range []cuda.TensorMapTiled{tc.a, tc.b} {
			got, err := tensorMapOf(k.TensorMaps[i], g)
			if err != nil {
				t.Fatal(err)
			}
			want.Type, want.Swizzle, want.Promotion = cuda.TensorMapUint16, cuda.Swizzle128B, cuda.L2Promotion256B
			if got != want {
				t.Errorf("%v%v operand %c: %+v, want %+v", tc.ta, tc.tb, k.TensorMaps[i].Operand, got, want)
			}
		}
	}
}

// A batched class's maps have a third dimension, the batch: its count and
// the operand's stride in bytes; an operand of stride 0 (one matrix for the
// whole batch) is a batch of one, at a stride the driver takes (a multiple
// of 16 bytes) that no copy uses, its kernel's coordinate being 0.
func TestTensorMapOfBatched(t *testing.T) {
	in := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N,
		AlignA: 8, AlignB: 8, AlignC: 8, Batched: true}
	cfg, err := ptx.ParseConfig("ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1")
	if err != nil {
		t.Fatal(err)
	}
	k, err := ptx.GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	g := &request.Gemm{TransA: request.OpT, TransB: request.OpN, M: 100, N: 120, K: 72, LDA: 80, LDB: 72, LDC: 104,
		A: 0x1000, B: 0x200000, StrideA: 100 * 80, StrideB: 0, StrideC: 120 * 104, Batch: 33}
	a, err := tensorMapOf(k.TensorMaps[0], g)
	if err != nil {
		t.Fatal(err)
	}
	if a.Dims != [2]uint64{72, 100} || a.Stride != 160 || a.Batch != 33 || a.BatchStride != 2*100*80 {
		t.Errorf("A's map %+v", a)
	}
	b, err := tensorMapOf(k.TensorMaps[1], g)
	if err != nil {
		t.Fatal(err)
	}
	if b.Dims != [2]uint64{72, 120} || b.Stride != 144 || b.Batch != 1 || b.BatchStride%16 != 0 || b.BatchStride < 120*144 {
		t.Errorf("B's map (stride 0) %+v", b)
	}
	plain := in
	plain.Batched = false
	cfg.PS, cfg.TMA = 0, 1
	p, err := ptx.GenerateGemm(cfg, plain, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	if m, err := tensorMapOf(p.TensorMaps[0], g); err != nil || m.Batch != 0 || m.BatchStride != 0 {
		t.Errorf("a plain class's map %+v (%v)", m, err)
	}
}

// tmaKernelFor is a loaded-kernel record (no driver involved) of a TMA
// configuration for f16 NN inputs, and a call of it.
func tmaKernelFor(t testing.TB) (*Kernel, *request.Gemm) {
	in := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, AlignA: 8, AlignB: 8, AlignC: 8}
	cfg, err := ptx.ParseConfig("ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1")
	if err != nil {
		t.Fatal(err)
	}
	k, err := ptx.GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	g := &request.Gemm{M: 512, N: 256, K: 1024, LDA: 512, LDB: 1024, LDC: 512, A: 0x10000, B: 0x20000}
	return &Kernel{cfg: cfg, gen: k}, g
}

// cacheMaps stores maps of recognisable bytes as lk's last call's maps for g.
func cacheMaps(t testing.TB, lk *Kernel, g *request.Gemm) *encodedMaps {
	e := &encodedMaps{}
	for i, m := range lk.gen.TensorMaps {
		d, err := tensorMapOf(m, g)
		if err != nil {
			t.Fatal(err)
		}
		e.desc = append(e.desc, d)
		var b [cuda.TensorMapBytes]byte
		for j := range b {
			b[j] = byte(17*i + j)
		}
		e.buf = append(e.buf, b)
	}
	lk.maps.Store(e)
	return e
}

// A call on the operands of the kernel's last call takes the kept maps
// (no driver call: this runs without a GPU); a call on other operands does
// not take them.
func TestPackTensorMapsKeepsLastCall(t *testing.T) {
	lk, g := tmaKernelFor(t)
	e := cacheMaps(t, lk, g)
	var p cuda.Params
	if err := packTensorMaps(&p, g, lk); err != nil {
		t.Fatal(err)
	}
	if p.Len() != 2 || !bytes.Equal(p.Arg(0), e.buf[0][:]) || !bytes.Equal(p.Arg(1), e.buf[1][:]) {
		t.Fatalf("the same operands did not take the kept maps: %d parameters", p.Len())
	}
	other := *g
	other.B += 0x100 // another B: its map must be encoded anew
	p.Reset()
	err := packTensorMaps(&p, &other, lk)
	if err == nil && bytes.Equal(p.Arg(1), e.buf[1][:]) {
		t.Fatal("another B took the kept map of B")
	}
	if err != nil && lk.maps.Load() != e {
		t.Fatal("a failed encoding replaced the kept maps")
	}
}

// BenchmarkPackTensorMapsKept is the host time a TMA call on the operands
// of the kernel's last call spends on its maps (no driver call).
func BenchmarkPackTensorMapsKept(b *testing.B) {
	lk, g := tmaKernelFor(b)
	cacheMaps(b, lk, g)
	var p cuda.Params
	for b.Loop() {
		p.Reset()
		if err := packTensorMaps(&p, g, lk); err != nil {
			b.Fatal(err)
		}
	}
}
