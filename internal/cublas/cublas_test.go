package cublas

import (
	"slices"
	"testing"
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
