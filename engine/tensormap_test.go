package engine

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/shim/cuda"
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
		a, b   cuda.TensorMap2D // Base, Dims, Stride, Box
	}{
		{request.OpN, request.OpN,
			cuda.TensorMap2D{Base: 0x1000, Dims: [2]uint64{300, 500}, Stride: 2 * 304, Box: [2]uint32{64, 64}},
			cuda.TensorMap2D{Base: 0x2000, Dims: [2]uint64{500, 200}, Stride: 2 * 512, Box: [2]uint32{64, 64}}},
		{request.OpT, request.OpT,
			cuda.TensorMap2D{Base: 0x1000, Dims: [2]uint64{500, 300}, Stride: 2 * 504, Box: [2]uint32{64, 128}},
			cuda.TensorMap2D{Base: 0x2000, Dims: [2]uint64{200, 500}, Stride: 2 * 208, Box: [2]uint32{64, 64}}},
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
		for i, want := range []cuda.TensorMap2D{tc.a, tc.b} {
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
