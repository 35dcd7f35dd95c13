package cublas

import (
	"slices"
	"testing"

	"github.com/isaacgo/isaac/request"
)

// TestMatrixPointers: the arrays of pointers to a strided layout's
// matrices step by the stride in bytes, and a stride of 0 repeats the
// base (a broadcast operand).
func TestMatrixPointers(t *testing.T) {
	got := MatrixPointers(0x1000, 6, 2, 3)
	if want := []uint64{0x1000, 0x100c, 0x1018}; !slices.Equal(got, want) {
		t.Errorf("stride 6 of 2-byte elements: %#x, want %#x", got, want)
	}
	got = MatrixPointers(0x2000, 0, 8, 4)
	if want := []uint64{0x2000, 0x2000, 0x2000, 0x2000}; !slices.Equal(got, want) {
		t.Errorf("stride 0: %#x, want %#x", got, want)
	}
	if got := MatrixPointers(0x3000, 1<<33, 4, 2); got[1] != 0x3000+1<<35 {
		t.Errorf("a stride past 32 bits: %#x", got[1])
	}
}

// TestArraysAligned: a batched layout may go to cuBLAS's GEMM of arrays of
// pointers only where every matrix's address is 16-byte aligned: each base
// and each stride in bytes (a stride of 0 keeps the base's).
func TestArraysAligned(t *testing.T) {
	g := &request.Gemm{A: 0x1000, B: 0x2000, C: 0x3000, AType: request.R16F, BType: request.R16F, CType: request.R16F,
		StrideA: 64, StrideB: 0, StrideC: 8, Batch: 3}
	if !ArraysAligned(g) {
		t.Errorf("strides of 128, 0 and 16 bytes from aligned bases: not aligned")
	}
	odd := *g
	odd.StrideB = 393
	if ArraysAligned(&odd) {
		t.Errorf("a stride of 393 FP16 elements: aligned")
	}
	off := *g
	off.C += 2
	if ArraysAligned(&off) {
		t.Errorf("a base 2 bytes past alignment: aligned")
	}
	f := *g
	f.AType, f.BType, f.CType = request.R32F, request.R32F, request.R32F
	f.StrideC = 4
	if !ArraysAligned(&f) {
		t.Errorf("FP32 strides of 256, 0 and 16 bytes: not aligned")
	}
}
