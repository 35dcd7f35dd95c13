package request

import (
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func gemm(ta, tb Op, m, n, k, lda, ldb, ldc int64) *Gemm {
	return &Gemm{TransA: ta, TransB: tb, M: m, N: n, K: k, LDA: lda, LDB: ldb, LDC: ldc,
		AType: R32F, BType: R32F, CType: R32F, Compute: Compute32F, Algo: AlgoDefault,
		Alpha: Scalar{Ptr: 0x1000}, Beta: Scalar{Ptr: 0x1008}}
}

func with(g *Gemm, f func(*Gemm)) *Gemm { f(g); return g }

func TestValidate(t *testing.T) {
	for _, c := range []struct {
		g     *Gemm
		valid bool
	}{
		{gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), true},
		{gemm(OpT, OpT, 4, 5, 6, 6, 5, 4), true},
		{gemm(OpC, OpN, 4, 5, 6, 6, 6, 7), true},
		{gemm(OpN, OpN, 0, 0, 0, 1, 1, 1), true},  // empty: ld minimum is 1
		{gemm(OpN, OpN, 4, 5, 6, 3, 6, 4), false}, // lda < m
		{gemm(OpT, OpN, 4, 5, 6, 4, 6, 4), false}, // lda < k for op T
		{gemm(OpN, OpT, 4, 5, 6, 4, 4, 4), false}, // ldb < n for op T
		{gemm(OpN, OpN, 4, 5, 6, 4, 6, 3), false}, // ldc < m
		{gemm(OpN, OpN, -1, 5, 6, 4, 6, 4), false},
		{gemm(OpN, OpN, 0, 5, 6, 0, 6, 1), false}, // lda 0 < 1
		{gemm(OpConjG, OpN, 4, 5, 6, 4, 6, 4), false},
		{gemm(Op(7), OpN, 4, 5, 6, 4, 6, 4), false},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Algo = 23 }), true},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Algo = 99 }), true},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Algo = 115 }), true},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Algo = 24 }), false},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Algo = 12345 }), false},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Algo = -2 }), false},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Alpha.Ptr = 0 }), false},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Beta.Ptr = 0 }), false},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Batch = -1 }), false},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Batch = 0 }), true},
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Batch = 3; g.StrideA, g.StrideB, g.StrideC = 24, 30, 20 }), true},
		// cuBLAS takes any stride: negative, zero, overlapping.
		{with(gemm(OpN, OpN, 4, 5, 6, 4, 6, 4), func(g *Gemm) { g.Batch = 3; g.StrideA, g.StrideB, g.StrideC = -24, 0, 1 }), true},
	} {
		err := c.g.Validate()
		if (err == nil) != c.valid {
			t.Errorf("%v: Validate() = %v, want valid=%v", c.g, err, c.valid)
		}
		if err != nil && !errors.Is(err, ErrInvalid) {
			t.Errorf("error %v is not ErrInvalid", err)
		}
	}
}

func TestAlignment(t *testing.T) {
	for _, c := range []struct {
		ptr  uintptr
		ld   int64
		size int
		want int
	}{
		{0x1000, 1024, 4, 16},
		{0x1004, 1024, 4, 4},
		{0x1008, 1024, 4, 8},
		{0x1000, 1023, 4, 4},
		{0x1000, 1022, 4, 8},
		{0x1002, 64, 2, 2},
		{0x1000, 3, 8, 8},
		{0x1000, 64, 0, 0},
	} {
		if got := Alignment(c.ptr, c.ld, c.size); got != c.want {
			t.Errorf("Alignment(%#x, %d, %d) = %d, want %d", c.ptr, c.ld, c.size, got, c.want)
		}
	}
}

func TestBatchAlignment(t *testing.T) {
	for _, c := range []struct {
		ptr           uintptr
		ld, stride, n int64
		size          int
		want          int
	}{
		{0x1000, 1024, 1024 * 64, 4, 4, 16}, // stride a multiple of 16 bytes
		{0x1000, 1024, 1025, 4, 4, 4},       // the second matrix is 4-byte aligned
		{0x1000, 1024, 1026, 4, 4, 8},
		{0x1000, 1024, 1025, 1, 4, 16}, // one matrix: the stride is irrelevant
		{0x1000, 1024, 1025, 0, 4, 16},
		{0x1000, 1024, 0, 4, 4, 16},     // the same matrix for every batch
		{0x1000, 1024, -1024, 4, 4, 16}, // going down by whole vectors
		{0x1000, 1024, -1023, 4, 4, 4},
		{0x1004, 1024, 1024, 4, 4, 4}, // the pointer's own alignment still counts
		{0x1000, 64, 65, 4, 2, 2},
		{0x1000, 64, 3, 2, 8, 8}, // never below the element
	} {
		if got := BatchAlignment(c.ptr, c.ld, c.stride, c.n, c.size); got != c.want {
			t.Errorf("BatchAlignment(%#x, ld %d, stride %d, batch %d, %d) = %d, want %d",
				c.ptr, c.ld, c.stride, c.n, c.size, got, c.want)
		}
	}
	g := gemm(OpN, OpN, 64, 64, 64, 64, 64, 64)
	g.A, g.B, g.C = 0x10000, 0x20000, 0x30000
	g.Batch, g.StrideA, g.StrideB, g.StrideC = 2, 64*64+1, 64*64+2, 64*64
	if a, b, cc := g.AlignA(), g.AlignB(), g.AlignC(); a != 4 || b != 8 || cc != 16 {
		t.Errorf("batched AlignA/B/C = %d/%d/%d, want 4/8/16", a, b, cc)
	}
	g.Batch = 1
	if a, b, cc := g.AlignA(), g.AlignB(), g.AlignC(); a != 16 || b != 16 || cc != 16 {
		t.Errorf("AlignA/B/C of a batch of one = %d/%d/%d, want 16/16/16", a, b, cc)
	}
}

func TestEmpty(t *testing.T) {
	for _, c := range []struct {
		m, n, k, batch int64
		entry          Entry
		empty          bool
	}{
		{4, 5, 6, 1, EntrySgemmStridedBatched, false},
		{4, 5, 0, 1, EntrySgemmStridedBatched, false}, // k = 0 still scales C by beta
		{0, 5, 6, 1, EntrySgemmStridedBatched, true},
		{4, 0, 6, 1, EntrySgemmStridedBatched, true},
		{4, 5, 6, 0, EntrySgemmStridedBatched, true},
		{4, 5, 6, 0, EntryGemmStridedBatchedEx64, true},
		{4, 5, 6, 7, EntrySgemmStridedBatched, false},
		{4, 5, 6, 0, EntrySgemm, false}, // a request built in Go without its Batch: one matrix
		{0, 5, 6, 1, EntryGemmEx, true},
	} {
		g := gemm(OpN, OpN, c.m, c.n, c.k, 4, 6, 4)
		g.Batch, g.Entry = c.batch, c.entry
		if got := g.Empty(); got != c.empty {
			t.Errorf("m=%d n=%d k=%d batch=%d: Empty() = %v, want %v", c.m, c.n, c.k, c.batch, got, c.empty)
		}
	}
}

func TestEntries(t *testing.T) {
	// The numbers are the C enum's (shim/shim.h) and the conformance
	// runner's entry codes: the entry points before the batched ones keep
	// theirs.
	for e, want := range map[Entry]int{
		EntrySgemm: 0, EntryGemmEx64: 7, EntryConvForward: 8,
		EntrySgemmStridedBatched: 9, EntryGemmStridedBatchedEx: 12,
		EntrySgemmStridedBatched64: 13, EntryGemmStridedBatchedEx64: 16,
	} {
		if int(e) != want {
			t.Errorf("entry %d, want %d", e, want)
		}
	}
	is64 := map[Entry]bool{
		EntrySgemm64: true, EntryDgemm64: true, EntryHgemm64: true, EntryGemmEx64: true,
		EntrySgemmStridedBatched64: true, EntryDgemmStridedBatched64: true,
		EntryHgemmStridedBatched64: true, EntryGemmStridedBatchedEx64: true,
	}
	batched := map[Entry]bool{
		EntrySgemmStridedBatched: true, EntryDgemmStridedBatched: true,
		EntryHgemmStridedBatched: true, EntryGemmStridedBatchedEx: true,
		EntrySgemmStridedBatched64: true, EntryDgemmStridedBatched64: true,
		EntryHgemmStridedBatched64: true, EntryGemmStridedBatchedEx64: true,
	}
	for e := EntrySgemm; e <= EntryGemmStridedBatchedEx64; e++ {
		if e.Is64() != is64[e] {
			t.Errorf("entry %d: Is64() = %v", e, e.Is64())
		}
		if e.Batched() != batched[e] {
			t.Errorf("entry %d: Batched() = %v", e, e.Batched())
		}
	}
	// cublasLtMatmul's batch is in its layouts: not a strided-batched entry.
	if EntryLtMatmul.Is64() || EntryLtMatmul.Batched() {
		t.Error("cublasLtMatmul is 64-bit or a strided-batched entry")
	}
}

func TestString(t *testing.T) {
	g := gemm(OpN, OpT, 4, 5, 6, 4, 5, 4)
	g.Batch = 1
	if s := g.String(); strings.Contains(s, "batch") {
		t.Errorf("a non-batched call prints its batch: %s", s)
	}
	g.Entry, g.Batch, g.StrideA, g.StrideB, g.StrideC = EntrySgemmStridedBatched, 3, 24, -30, 0
	if s := g.String(); !strings.Contains(s, " batch=3 strides=24/-30/0") {
		t.Errorf("a batched call does not print its batch and strides: %s", s)
	}
}

func TestFits32(t *testing.T) {
	g := gemm(OpN, OpN, 1<<31-1, 5, 6, 1<<31-1, 6, 1<<31-1)
	if !g.Fits32() {
		t.Error("2^31-1 does not fit")
	}
	g.M = 1 << 31
	if g.Fits32() {
		t.Error("2^31 fits")
	}
}

func TestMathMode(t *testing.T) {
	if !(MathTF32TensorOp | MathDisallowReducedPrecRedn).AllowsTF32() {
		t.Error("TF32 with the reduction flag does not allow TF32")
	}
	if MathDefault.AllowsTF32() || MathPedantic.AllowsTF32() {
		t.Error("default or pedantic math allows TF32")
	}
}

func TestTensorPacked(t *testing.T) {
	nchw := Tensor{Dims: []int{2, 3, 4, 5}, Strides: []int{60, 20, 5, 1}}
	nhwc := Tensor{Dims: []int{2, 3, 4, 5}, Strides: []int{60, 1, 15, 3}}
	if !nchw.Packed([]int{0, 1, 2, 3}) || nchw.Packed([]int{0, 2, 3, 1}) {
		t.Error("NCHW tensor misclassified")
	}
	if !nhwc.Packed([]int{0, 2, 3, 1}) || nhwc.Packed([]int{0, 1, 2, 3}) {
		t.Error("NHWC tensor misclassified")
	}
}

// TestValidAlgoAgainstCuBLAS checks ValidAlgo against what cuBLAS answered
// for each algorithm value (gputest/edge_cases.cu on the GPU machine, the
// vendor's own status in its table's algo rows).
func TestValidAlgoAgainstCuBLAS(t *testing.T) {
	path := filepath.Join("..", "gputest", "results", "h100", "capture", "edge_plain.csv")
	f, err := os.Open(path)
	if err != nil {
		t.Skipf("no table of cuBLAS's answers: %v", err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range rows[1:] {
		entry, row, vendor := r[0], r[1], r[2]
		v, ok := strings.CutPrefix(row, "algo-")
		if !ok || !strings.HasPrefix(entry, "cublas") {
			continue
		}
		_, value, _ := strings.Cut(v, "=")
		algo, err := strconv.ParseInt(value, 10, 64)
		if err != nil {
			t.Fatalf("%s %s: %v", entry, row, err)
		}
		if accepted := vendor == "0"; ValidAlgo(int(algo)) != accepted {
			t.Errorf("%s %s: cuBLAS status %s, ValidAlgo(%d) = %v", entry, row, vendor, algo, ValidAlgo(int(algo)))
		}
		checked++
	}
	if checked < 100 {
		t.Errorf("only %d algo rows in %s", checked, path)
	}
}

// Out of place (cublasLtMatmul's D apart from C), C's alignment is also
// D's: vectors of the result are stored at D's addresses.
func TestOutOfPlaceAlignment(t *testing.T) {
	g := gemm(OpN, OpN, 64, 64, 64, 64, 64, 64)
	g.CType, g.C = R32F, 1<<20
	if a := g.AlignC(); a != 16 || g.OutOfPlace() {
		t.Fatalf("in place: alignment %d, out of place %v", a, g.OutOfPlace())
	}
	g.D = g.C
	if g.OutOfPlace() || g.AlignC() != 16 {
		t.Errorf("D = C is in place")
	}
	g.D = 2<<20 + 4
	if !g.OutOfPlace() || g.AlignC() != 4 {
		t.Errorf("D 4-byte aligned: out of place %v, alignment %d", g.OutOfPlace(), g.AlignC())
	}
}
