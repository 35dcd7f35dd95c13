package request

// LtOrder is cublasLtOrder_t: how a matrix lies in memory.
type LtOrder int

// cublasLtOrder_t values the kernels take; the others (COL32 and the
// tiled orders) are forwarded.
const (
	LtOrderCol LtOrder = 0
	LtOrderRow LtOrder = 1
)

// cublasLtEpilogue_t values ISAAC's kernels apply (InputClass.Epi); the
// others (auxiliary outputs, gradients, bias gradients) are forwarded.
const (
	LtEpilogueDefault  = 1
	LtEpilogueReLU     = 2
	LtEpilogueBias     = 4
	LtEpilogueReLUBias = LtEpilogueReLU | LtEpilogueBias
	LtEpilogueGELU     = 32
	LtEpilogueGELUBias = LtEpilogueGELU | LtEpilogueBias
)

// LtMatrix is a cublasLtMatrixLayout_t as its getters read it.
type LtMatrix struct {
	Type        DataType
	Order       LtOrder
	Rows, Cols  int64
	LD          int64
	Batch       int64 // CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT
	BatchMode   int   // CUBLASLT_MATRIX_LAYOUT_BATCH_MODE: 0 strided (the default), else arrays of pointers
	Stride      int64 // CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, elements
	PlaneOffset int64
}

// LtMatmul is one cublasLtMatmul call: its operands, and its matmul
// descriptor and matrix layouts as cuBLASLt's getters read them.
type LtMatmul struct {
	Handle, Stream    uintptr
	Compute           ComputeType
	Scale             DataType
	PointerMode       int // cublasLtPointerMode_t: 0 host, 1 device, others vectors of alpha
	TransA, TransB    Op
	TransC            Op
	Epilogue          int
	Bias              uintptr
	BiasType          DataType // -1: the default (D's type)
	BiasBatchStride   int64
	AuxPointer        uintptr // an epilogue's auxiliary matrix
	ScalePointers     bool    // any of the A, B, C, D scale or D's amax pointers set (FP8)
	AlphaVectorStride int64
	A, B, C, D        LtMatrix
	APtr, BPtr, CPtr  uintptr
	DPtr, Alpha, Beta uintptr
}

// scaleOf is the scale (alpha, beta) type cuBLASLt takes with a compute
// type: its precision's.
func scaleOf(c ComputeType) (DataType, bool) {
	switch c {
	case Compute16F, Compute16FPedantic:
		return R16F, true
	case Compute32F, Compute32FPedantic, Compute32FFast16F, Compute32FFast16BF, Compute32FFastTF32:
		return R32F, true
	case Compute64F, Compute64FPedantic:
		return R64F, true
	}
	return 0, false
}

// Gemm is the call as a column-major GEMM request of entry point entry
// (its scalars not read yet), or the reason the vendor must take it:
// invalid where the layouts contradict the operation (cuBLASLt answers
// with its own status), unsupported for what the kernels do not compute —
// orders other than column- or row-major, or mixed; a row-major call with
// a bias (a bias per row of D is one per column of Dᵀ); epilogues beyond
// a bias, ReLU and GELU; auxiliary outputs, scale pointers, vectors of
// alpha; a bias of another type than D's, or one per matrix of a batch;
// matrices of unequal batch counts, batches of arrays of pointers or of no
// matrix; a reduction of length 0; a NULL matrix; D of another layout
// than C's.
// A row-major call is computed as its transpose: Dᵀ = op(B)ᵀ·op(A)ᵀ, A and
// B swapped with their operations, m and n swapped.
func (l *LtMatmul) Gemm(entry Entry) (*Gemm, Reason) {
	ms := []LtMatrix{l.A, l.B, l.C, l.D}
	for _, m := range ms {
		if m.Rows < 0 || m.Cols < 0 || m.Batch < 0 {
			return nil, FwdInvalid
		}
		if m.Order != ms[0].Order || m.Order != LtOrderCol && m.Order != LtOrderRow || m.PlaneOffset != 0 {
			return nil, FwdUnsupported
		}
		if m.BatchMode != 0 || m.Batch == 0 {
			return nil, FwdUnsupported // arrays of pointers; a batch of none
		}
	}
	scale, ok := scaleOf(l.Compute)
	switch {
	case !ok || l.Scale != scale:
		return nil, FwdUnsupported
	case l.TransC != OpN || l.PointerMode != int(PointerHost) && l.PointerMode != int(PointerDevice):
		return nil, FwdUnsupported
	case l.AuxPointer != 0 || l.ScalePointers || l.AlphaVectorStride != 0:
		return nil, FwdUnsupported
	}
	var act Activation
	bias := false
	switch l.Epilogue {
	case LtEpilogueDefault:
	case LtEpilogueReLU:
		act = ActReLU
	case LtEpilogueBias:
		bias = true
	case LtEpilogueReLUBias:
		act, bias = ActReLU, true
	case LtEpilogueGELU:
		act = ActGELU
	case LtEpilogueGELUBias:
		act, bias = ActGELU, true
	default:
		return nil, FwdUnsupported
	}
	if bias && l.Bias == 0 {
		return nil, FwdInvalid
	}
	if bias && (l.BiasType != -1 && l.BiasType != l.D.Type || l.D.Batch > 1 && l.BiasBatchStride != 0 || l.A.Order == LtOrderRow) {
		return nil, FwdUnsupported
	}
	// D is m×n; op(A) m×k, op(B) k×n; C like D.
	m, n := l.D.Rows, l.D.Cols
	rowsA, colsA := l.A.Rows, l.A.Cols
	if l.TransA.Transposed() {
		rowsA, colsA = colsA, rowsA
	}
	rowsB, colsB := l.B.Rows, l.B.Cols
	if l.TransB.Transposed() {
		rowsB, colsB = colsB, rowsB
	}
	k := colsA // an order changes how a matrix lies, not its rows and columns
	switch {
	case rowsA != m || rowsB != k || colsB != n || l.C.Rows != m || l.C.Cols != n:
		return nil, FwdInvalid
	case l.A.Type != l.B.Type || l.C.Type != l.D.Type:
		return nil, FwdUnsupported
	case l.A.Batch != l.D.Batch || l.B.Batch != l.D.Batch || l.C.Batch != l.D.Batch:
		return nil, FwdUnsupported
	case k == 0:
		return nil, FwdUnsupported // D = beta·C + bias through the epilogue alone
	}
	if l.APtr == 0 || l.BPtr == 0 || l.CPtr == 0 || l.DPtr == 0 {
		// cuBLASLt's own answer to a missing matrix (a C it may not read
		// where beta is zero included).
		return nil, FwdUnsupported
	}
	c, cl := l.CPtr, l.C
	if cl.LD != l.D.LD || cl.Stride != l.D.Stride && l.D.Batch > 1 {
		// D apart from C lies at a fixed offset from it, with C's layout;
		// in place, D is C (Cdesc and Ddesc alike).
		return nil, FwdUnsupported
	}
	g := &Gemm{
		Entry: entry, Handle: l.Handle, Stream: l.Stream,
		TransA: l.TransA, TransB: l.TransB,
		AType: l.A.Type, BType: l.B.Type, CType: l.D.Type, Compute: l.Compute, Algo: AlgoDefault,
		M: m, N: n, K: k, LDA: l.A.LD, LDB: l.B.LD, LDC: cl.LD,
		A: l.APtr, B: l.BPtr, C: c,
		StrideA: l.A.Stride, StrideB: l.B.Stride, StrideC: cl.Stride, Batch: max(l.D.Batch, 1),
		Act: act,
	}
	if c != l.DPtr {
		g.D = l.DPtr
	}
	if bias {
		g.Bias = l.Bias
	}
	if l.A.Order == LtOrderRow {
		// Row-major X (r×c, ld) lies as column-major Xᵀ (c×r, ld).
		g.M, g.N = n, m
		g.TransA, g.TransB = l.TransB, l.TransA
		g.AType, g.BType = l.B.Type, l.A.Type
		g.A, g.B = l.BPtr, l.APtr
		g.LDA, g.LDB = l.B.LD, l.A.LD
		g.StrideA, g.StrideB = l.B.Stride, l.A.Stride
	}
	g.PointerMode = PointerMode(l.PointerMode)
	g.Alpha = Scalar{Ptr: l.Alpha, OnDevice: g.PointerMode == PointerDevice}
	g.Beta = Scalar{Ptr: l.Beta, OnDevice: g.PointerMode == PointerDevice}
	if err := g.Validate(); err != nil {
		return nil, FwdInvalid
	}
	return g, Served
}
