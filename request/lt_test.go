package request

import (
	"math"
	"math/rand/v2"
	"testing"
)

// linear is cublasLtMatmul as PyTorch's nn.Linear calls it (column-major,
// y = W·x + b over a batch of columns): m outputs, n samples, k inputs,
// A = W transposed in memory, C = D = y, the bias epilogue.
func linear() LtMatmul {
	col := func(t DataType, r, c, ld int64) LtMatrix {
		return LtMatrix{Type: t, Order: LtOrderCol, Rows: r, Cols: c, LD: ld, Batch: 1}
	}
	return LtMatmul{
		Compute: Compute32F, Scale: R32F, TransA: OpT, TransB: OpN, Epilogue: LtEpilogueBias,
		Bias: 0x5000, BiasType: -1,
		A: col(R16F, 256, 512, 256), B: col(R16F, 256, 64, 256), C: col(R16F, 512, 64, 512), D: col(R16F, 512, 64, 512),
		APtr: 0x1000, BPtr: 0x2000, CPtr: 0x3000, DPtr: 0x3000, Alpha: 0x100, Beta: 0x200,
	}
}

func TestLtMatmulGemm(t *testing.T) {
	g, r := func() (*Gemm, Reason) { l := linear(); return l.Gemm(EntryGemmEx) }()
	if r != Served || g.M != 512 || g.N != 64 || g.K != 256 || g.TransA != OpT || g.LDA != 256 || g.LDC != 512 ||
		g.Bias != 0x5000 || g.Act != ActNone || g.OutOfPlace() || g.Batch != 1 || g.Entry != EntryGemmEx || g.Compute != Compute32F {
		t.Fatalf("nn.Linear: %v %+v", r, g)
	}
	for _, c := range []struct {
		name string
		edit func(l *LtMatmul)
		want Reason
		test func(g *Gemm) bool
	}{
		{"out of place", func(l *LtMatmul) { l.DPtr = 0x4000 }, Served, func(g *Gemm) bool { return g.D == 0x4000 && g.C == 0x3000 }},
		{"out of place, D's ld differs", func(l *LtMatmul) { l.DPtr, l.D.LD = 0x4000, 520 }, FwdUnsupported, nil},
		{"in place, D's ld differs", func(l *LtMatmul) { l.D.LD = 520 }, FwdUnsupported, nil},
		{"a batch of arrays of pointers", func(l *LtMatmul) { l.A.BatchMode = 1 }, FwdUnsupported, nil},
		{"a batch of none", func(l *LtMatmul) { l.A.Batch, l.B.Batch, l.C.Batch, l.D.Batch = 0, 0, 0, 0 }, FwdUnsupported, nil},
		{"no reduction", func(l *LtMatmul) { l.A.Rows, l.B.Rows = 0, 0 }, FwdUnsupported, nil},
		{"no C", func(l *LtMatmul) { l.CPtr = 0 }, FwdUnsupported, nil},
		{"no A", func(l *LtMatmul) { l.APtr = 0 }, FwdUnsupported, nil},
		{"relu and bias", func(l *LtMatmul) { l.Epilogue = LtEpilogueReLUBias }, Served, func(g *Gemm) bool { return g.Act == ActReLU && g.Bias != 0 }},
		{"gelu", func(l *LtMatmul) { l.Epilogue = LtEpilogueGELU }, Served, func(g *Gemm) bool { return g.Act == ActGELU && g.Bias == 0 }},
		{"default ignores the bias pointer", func(l *LtMatmul) { l.Epilogue = LtEpilogueDefault }, Served, func(g *Gemm) bool { return g.Bias == 0 }},
		{"gelu with an auxiliary output", func(l *LtMatmul) { l.Epilogue = LtEpilogueGELU | 128 }, FwdUnsupported, nil},
		{"a gradient epilogue", func(l *LtMatmul) { l.Epilogue = 152 }, FwdUnsupported, nil},
		{"bias without its pointer", func(l *LtMatmul) { l.Bias = 0 }, FwdInvalid, nil},
		{"bias of another type", func(l *LtMatmul) { l.BiasType = R32F }, FwdUnsupported, nil},
		{"bias of D's type named", func(l *LtMatmul) { l.BiasType = R16F }, Served, nil},
		{"an auxiliary pointer", func(l *LtMatmul) { l.AuxPointer = 0x9000 }, FwdUnsupported, nil},
		{"FP8 scales", func(l *LtMatmul) { l.ScalePointers = true }, FwdUnsupported, nil},
		{"scale type not the compute's", func(l *LtMatmul) { l.Scale = R16F }, FwdUnsupported, nil},
		{"a vector of alpha", func(l *LtMatmul) { l.PointerMode = 2 }, FwdUnsupported, nil},
		{"device scalars", func(l *LtMatmul) { l.PointerMode = 1 }, Served, func(g *Gemm) bool { return g.Alpha.OnDevice && g.Beta.Ptr == 0x200 }},
		{"transposed C", func(l *LtMatmul) { l.TransC = OpT }, FwdUnsupported, nil},
		{"k of B differs", func(l *LtMatmul) { l.B.Rows = 255 }, FwdInvalid, nil},
		{"C's shape differs", func(l *LtMatmul) { l.C.Cols = 63 }, FwdInvalid, nil},
		{"lda below the rows", func(l *LtMatmul) { l.A.LD = 255 }, FwdInvalid, nil},
		{"COL32 order", func(l *LtMatmul) { l.A.Order, l.B.Order, l.C.Order, l.D.Order = 2, 2, 2, 2 }, FwdUnsupported, nil},
		{"mixed orders", func(l *LtMatmul) { l.B.Order = LtOrderRow }, FwdUnsupported, nil},
		{"row-major with a bias", func(l *LtMatmul) { l.A.Order, l.B.Order, l.C.Order, l.D.Order = 1, 1, 1, 1 }, FwdUnsupported, nil},
		{"A and B of other types", func(l *LtMatmul) { l.B.Type = R16BF }, FwdUnsupported, nil},
		{"a batch", func(l *LtMatmul) {
			for _, m := range []*LtMatrix{&l.A, &l.B, &l.C, &l.D} {
				m.Batch, m.Stride = 4, m.LD*m.Cols
			}
		}, Served, func(g *Gemm) bool { return g.Batch == 4 && g.StrideA == 256*512 && g.StrideC == 512*64 }},
		{"a batch with a bias per matrix", func(l *LtMatmul) {
			for _, m := range []*LtMatrix{&l.A, &l.B, &l.C, &l.D} {
				m.Batch, m.Stride = 4, m.LD*m.Cols
			}
			l.BiasBatchStride = 512
		}, FwdUnsupported, nil},
		{"batch counts differ", func(l *LtMatmul) { l.D.Batch, l.C.Batch, l.A.Batch = 2, 2, 2 }, FwdUnsupported, nil},
	} {
		l := linear()
		c.edit(&l)
		g, r := l.Gemm(EntryGemmEx)
		if r != c.want || r == Served && c.test != nil && !c.test(g) {
			t.Errorf("%s: %v %+v, want %v", c.name, r, g, c.want)
		}
	}
}

// A random call computed as cuBLASLt defines it, with each layout's order,
// and as the request Gemm makes of it (column-major, A and B swapped for a
// row-major call), gives the same D on host memory: the transpose, the
// operations, the leading dimensions, the bias and the activations.
func TestLtMatmulSameResult(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 9))
	for i := range 400 {
		l, mem := randomLt(rng)
		want := ltReference(&l, mem)
		g, r := l.Gemm(EntryGemmEx)
		if r != Served {
			t.Fatalf("case %d: %v (%+v)", i, r, l)
		}
		got := gemmReference(g, mem, l.A.Order == LtOrderRow)
		for j := range want {
			if math.Abs(got[j]-want[j]) > 1e-9*(1+math.Abs(want[j])) {
				t.Fatalf("case %d (%+v): element %d of D is %g, want %g", i, l, j, got[j], want[j])
			}
		}
	}
}

// randomLt is a small call of random shape, operations, order (row-major
// without a bias), leading dimensions and epilogue, and its operands.
func randomLt(rng *rand.Rand) (LtMatmul, map[uintptr][]float64) {
	m, n, k := int64(1+rng.IntN(7)), int64(1+rng.IntN(7)), int64(1+rng.IntN(7))
	order := LtOrder(rng.IntN(2))
	epi := []int{LtEpilogueDefault, LtEpilogueReLU, LtEpilogueGELU, LtEpilogueBias, LtEpilogueReLUBias, LtEpilogueGELUBias}
	l := LtMatmul{Compute: Compute32F, Scale: R32F, TransA: Op(rng.IntN(2)), TransB: Op(rng.IntN(2)), BiasType: -1,
		Epilogue: epi[rng.IntN(3)], APtr: 1, BPtr: 2, CPtr: 3, DPtr: 4, Bias: 5}
	if order == LtOrderCol {
		l.Epilogue = epi[rng.IntN(len(epi))]
	}
	mat := func(r, c int64) LtMatrix {
		lead := r // column-major: ld ≥ rows; row-major: ld ≥ cols
		if order == LtOrderRow {
			lead = c
		}
		return LtMatrix{Type: R32F, Order: order, Rows: r, Cols: c, LD: lead + int64(rng.IntN(3)), Batch: 1}
	}
	ra, ca := m, k
	if l.TransA == OpT {
		ra, ca = k, m
	}
	rb, cb := k, n
	if l.TransB == OpT {
		rb, cb = n, k
	}
	l.A, l.B, l.C = mat(ra, ca), mat(rb, cb), mat(m, n)
	l.D = l.C
	if rng.IntN(2) == 0 {
		l.DPtr = l.CPtr // in place
	}
	mem := map[uintptr][]float64{}
	fill := func(p uintptr, x LtMatrix) {
		lines := x.Cols
		if x.Order == LtOrderRow {
			lines = x.Rows
		}
		v := make([]float64, x.LD*lines)
		for j := range v {
			v[j] = float64(rng.IntN(9) - 4)
		}
		mem[p] = v
	}
	fill(1, l.A)
	fill(2, l.B)
	fill(3, l.C)
	fill(4, l.D)
	mem[5] = make([]float64, m)
	for j := range mem[5] {
		mem[5][j] = float64(rng.IntN(5) - 2)
	}
	mem[100], mem[200] = []float64{float64(rng.IntN(3) + 1)}, []float64{float64(rng.IntN(3))}
	l.Alpha, l.Beta = 100, 200
	return l, mem
}

// at is element (i, j) of matrix x lying at p in mem.
func at(mem map[uintptr][]float64, p uintptr, x LtMatrix, i, j int64) float64 {
	if x.Order == LtOrderRow {
		return mem[p][i*x.LD+j]
	}
	return mem[p][i+j*x.LD]
}

// act is an activation on host values.
func act(a Activation, x float64) float64 {
	switch a {
	case ActReLU:
		return math.Max(x, 0)
	case ActGELU:
		return x / 2 * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	}
	return x
}

// ltReference is D (m×n, column-major, packed) as cuBLASLt defines the call.
func ltReference(l *LtMatmul, mem map[uintptr][]float64) []float64 {
	m, n := l.D.Rows, l.D.Cols
	k := l.A.Cols
	if l.TransA == OpT {
		k = l.A.Rows
	}
	alpha, beta := mem[l.Alpha][0], mem[l.Beta][0]
	a := l.Epilogue &^ LtEpilogueBias
	out := make([]float64, m*n)
	for i := range m {
		for j := range n {
			var s float64
			for p := range k {
				var av, bv float64
				if l.TransA == OpT {
					av = at(mem, l.APtr, l.A, p, i)
				} else {
					av = at(mem, l.APtr, l.A, i, p)
				}
				if l.TransB == OpT {
					bv = at(mem, l.BPtr, l.B, j, p)
				} else {
					bv = at(mem, l.BPtr, l.B, p, j)
				}
				s += av * bv
			}
			v := alpha*s + beta*at(mem, l.CPtr, l.C, i, j)
			if l.Epilogue&LtEpilogueBias != 0 {
				v += mem[l.Bias][i]
			}
			out[i+j*m] = act(map[int]Activation{LtEpilogueDefault: ActNone, 0: ActNone, LtEpilogueReLU: ActReLU, LtEpilogueGELU: ActGELU}[a], v)
		}
	}
	return out
}

// gemmReference is the D that request g computes (column-major, its bias
// per row, its activation), read back as the caller's m×n D: transposed
// where the call was row-major (g's m and n then its n and m).
func gemmReference(g *Gemm, mem map[uintptr][]float64, rowMajor bool) []float64 {
	colMajor := func(p uintptr, ld, i, j int64) float64 { return mem[p][i+j*ld] }
	alpha, beta := mem[g.Alpha.Ptr][0], mem[g.Beta.Ptr][0]
	res := make([]float64, g.M*g.N)
	for i := range g.M {
		for j := range g.N {
			var s float64
			for p := range g.K {
				var av, bv float64
				if g.TransA == OpT {
					av = colMajor(g.A, g.LDA, p, i)
				} else {
					av = colMajor(g.A, g.LDA, i, p)
				}
				if g.TransB == OpT {
					bv = colMajor(g.B, g.LDB, j, p)
				} else {
					bv = colMajor(g.B, g.LDB, p, j)
				}
				s += av * bv
			}
			v := alpha*s + beta*colMajor(g.C, g.LDC, i, j)
			if g.Bias != 0 {
				v += mem[g.Bias][i]
			}
			res[i+j*g.M] = act(g.Act, v)
		}
	}
	if rowMajor { // g computed Dᵀ
		t := make([]float64, len(res))
		for i := range g.M {
			for j := range g.N {
				t[j+i*g.N] = res[i+j*g.M]
			}
		}
		return t
	}
	return res
}
