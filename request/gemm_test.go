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
