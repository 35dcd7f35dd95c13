package cublas

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

// cublasLtMatmulHeuristicResult_t.
typedef struct {
	uint64_t algo[8]; // cublasLtMatmulAlgo_t
	size_t workspace_size;
	int state;
	float waves_count;
	int reserved[4];
} lt_heuristic_result;

typedef int (*lt_create_fn)(void **);
typedef int (*lt_destroy_fn)(void *);
typedef int (*lt_desc_create_fn)(void **, int, int);
typedef int (*lt_layout_create_fn)(void **, int, uint64_t, uint64_t, int64_t);
typedef int (*lt_set_fn)(void *, int, const void *, size_t);
typedef int (*lt_heuristic_fn)(void *, void *, void *, void *, void *, void *, void *, int,
	lt_heuristic_result *, int *);
typedef int (*lt_matmul_fn)(void *, void *, const void *, const void *, void *, const void *, void *,
	const void *, const void *, void *, void *, void *, const void *, void *, size_t, void *);

static void *ltlib;
static lt_create_fn lt_create_p, lt_pref_create_p;
static lt_destroy_fn lt_destroy_p, lt_desc_destroy_p, lt_layout_destroy_p, lt_pref_destroy_p;
static lt_desc_create_fn lt_desc_create_p;
static lt_layout_create_fn lt_layout_create_p;
static lt_set_fn lt_desc_set_p, lt_layout_set_p, lt_pref_set_p;
static lt_heuristic_fn lt_heuristic_p;
static lt_matmul_fn lt_matmul_p;

static int lt_load(void)
{
	static const char *names[] = {"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so", NULL};
	for (int i = 0; names[i] && !ltlib; i++)
		ltlib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
	if (!ltlib)
		return -1;
	lt_create_p = (lt_create_fn)dlsym(ltlib, "cublasLtCreate");
	lt_destroy_p = (lt_destroy_fn)dlsym(ltlib, "cublasLtDestroy");
	lt_desc_create_p = (lt_desc_create_fn)dlsym(ltlib, "cublasLtMatmulDescCreate");
	lt_desc_destroy_p = (lt_destroy_fn)dlsym(ltlib, "cublasLtMatmulDescDestroy");
	lt_desc_set_p = (lt_set_fn)dlsym(ltlib, "cublasLtMatmulDescSetAttribute");
	lt_layout_create_p = (lt_layout_create_fn)dlsym(ltlib, "cublasLtMatrixLayoutCreate");
	lt_layout_destroy_p = (lt_destroy_fn)dlsym(ltlib, "cublasLtMatrixLayoutDestroy");
	lt_layout_set_p = (lt_set_fn)dlsym(ltlib, "cublasLtMatrixLayoutSetAttribute");
	lt_pref_create_p = (lt_create_fn)dlsym(ltlib, "cublasLtMatmulPreferenceCreate");
	lt_pref_destroy_p = (lt_destroy_fn)dlsym(ltlib, "cublasLtMatmulPreferenceDestroy");
	lt_pref_set_p = (lt_set_fn)dlsym(ltlib, "cublasLtMatmulPreferenceSetAttribute");
	lt_heuristic_p = (lt_heuristic_fn)dlsym(ltlib, "cublasLtMatmulAlgoGetHeuristic");
	lt_matmul_p = (lt_matmul_fn)dlsym(ltlib, "cublasLtMatmul");
	return lt_create_p && lt_destroy_p && lt_desc_create_p && lt_desc_destroy_p && lt_desc_set_p &&
		lt_layout_create_p && lt_layout_destroy_p && lt_layout_set_p && lt_pref_create_p &&
		lt_pref_destroy_p && lt_pref_set_p && lt_heuristic_p && lt_matmul_p ? 0 : -2;
}

// Attribute numbers of cublasLt.h (shim/lt_attributes.h has the shim's).
enum {
	LT_DESC_COMPUTE_TYPE = 0, LT_DESC_SCALE_TYPE = 1, LT_DESC_POINTER_MODE = 2,
	LT_DESC_TRANSA = 3, LT_DESC_TRANSB = 4, LT_DESC_EPILOGUE = 7, LT_DESC_BIAS_POINTER = 8,
	LT_LAYOUT_BATCH_COUNT = 5, LT_LAYOUT_STRIDED_BATCH_OFFSET = 6,
	LT_PREF_MAX_WORKSPACE_BYTES = 1,
};

// lt_matrix is one matrix layout: cudaDataType, rows, columns, leading
// dimension (column-major), and its strided batch.
typedef struct {
	int type;
	uint64_t rows, cols;
	int64_t ld, stride;
} lt_matrix;

// lt_shape is what the descriptors of one matmul say.
typedef struct {
	int compute, scale, pointer_mode, transa, transb;
	uint32_t epilogue;
	int32_t batch;
	lt_matrix a, b, c;
	uint64_t workspace;
} lt_shape;

// lt_plan is a matmul's descriptors (C's layout is D's too) and the
// algorithm cuBLASLt's heuristic picked for them.
typedef struct {
	void *desc, *a, *b, *c;
	lt_heuristic_result r;
} lt_plan;

static int lt_handle_create(uintptr_t *h) { void *p = NULL; int s = lt_create_p(&p); *h = (uintptr_t)p; return s; }
static int lt_handle_destroy(uintptr_t h) { return lt_destroy_p((void *)h); }

static void lt_plan_free(lt_plan *p)
{
	if (p->desc)
		lt_desc_destroy_p(p->desc);
	if (p->a)
		lt_layout_destroy_p(p->a);
	if (p->b)
		lt_layout_destroy_p(p->b);
	if (p->c)
		lt_layout_destroy_p(p->c);
	free(p);
}

static int lt_layout(void **l, const lt_matrix *m, int32_t batch)
{
	int s = lt_layout_create_p(l, m->type, m->rows, m->cols, m->ld);
	if (s != 0 || batch <= 1)
		return s;
	if ((s = lt_layout_set_p(*l, LT_LAYOUT_BATCH_COUNT, &batch, sizeof batch)) != 0)
		return s;
	return lt_layout_set_p(*l, LT_LAYOUT_STRIDED_BATCH_OFFSET, &m->stride, sizeof m->stride);
}

// lt_plan_new makes sh's descriptors and asks the heuristic for its first
// algorithm under a preference of at most sh->workspace bytes. It returns
// cuBLAS's status and, in *which, the step that failed: 1 a descriptor, 2
// the preference, 3 the heuristic, 4 no algorithm (then the status is the
// result's state, or CUBLAS_STATUS_NOT_SUPPORTED).
static int lt_plan_new(uintptr_t h, const lt_shape *sh, uintptr_t bias, lt_plan **out, int *which)
{
	lt_plan *p = calloc(1, sizeof *p);
	if (!p) {
		*which = 1;
		return 3; // CUBLAS_STATUS_ALLOC_FAILED
	}
	void *b = (void *)bias;
	int s;
	*which = 1;
	if ((s = lt_desc_create_p(&p->desc, sh->compute, sh->scale)) != 0 ||
	    (s = lt_desc_set_p(p->desc, LT_DESC_POINTER_MODE, &sh->pointer_mode, sizeof(int32_t))) != 0 ||
	    (s = lt_desc_set_p(p->desc, LT_DESC_TRANSA, &sh->transa, sizeof(int32_t))) != 0 ||
	    (s = lt_desc_set_p(p->desc, LT_DESC_TRANSB, &sh->transb, sizeof(int32_t))) != 0 ||
	    (s = lt_desc_set_p(p->desc, LT_DESC_EPILOGUE, &sh->epilogue, sizeof sh->epilogue)) != 0 ||
	    (b && (s = lt_desc_set_p(p->desc, LT_DESC_BIAS_POINTER, &b, sizeof b)) != 0) ||
	    (s = lt_layout(&p->a, &sh->a, sh->batch)) != 0 || (s = lt_layout(&p->b, &sh->b, sh->batch)) != 0 ||
	    (s = lt_layout(&p->c, &sh->c, sh->batch)) != 0) {
		lt_plan_free(p);
		return s;
	}
	void *pref = NULL;
	*which = 2;
	if ((s = lt_pref_create_p(&pref)) != 0 ||
	    (s = lt_pref_set_p(pref, LT_PREF_MAX_WORKSPACE_BYTES, &sh->workspace, sizeof sh->workspace)) != 0) {
		if (pref)
			lt_pref_destroy_p(pref);
		lt_plan_free(p);
		return s;
	}
	int n = 0;
	*which = 3;
	s = lt_heuristic_p((void *)h, p->desc, p->a, p->b, p->c, p->c, pref, 1, &p->r, &n);
	lt_pref_destroy_p(pref);
	if (s == 0 && (n < 1 || p->r.state != 0)) {
		*which = 4;
		s = n < 1 ? 15 : p->r.state; // CUBLAS_STATUS_NOT_SUPPORTED
	}
	if (s != 0) {
		lt_plan_free(p);
		return s;
	}
	*out = p;
	return 0;
}

static int lt_plan_set_bias(lt_plan *p, uintptr_t bias)
{
	void *b = (void *)bias;
	return lt_desc_set_p(p->desc, LT_DESC_BIAS_POINTER, &b, sizeof b);
}

// lt_run runs the plan: alpha and beta are host values (their bits, of the
// scale type, in the low bytes) or, with device_scalars, device pointers.
static int lt_run(uintptr_t h, lt_plan *p, int device_scalars, uint64_t alpha_bits, uint64_t beta_bits,
	uintptr_t alpha_ptr, uintptr_t beta_ptr, uintptr_t A, uintptr_t B, uintptr_t C, uintptr_t D,
	uintptr_t ws, uint64_t ws_bytes, uintptr_t stream)
{
	uint64_t ab[2] = {alpha_bits, beta_bits};
	const void *alpha = device_scalars ? (const void *)alpha_ptr : (const void *)&ab[0];
	const void *beta = device_scalars ? (const void *)beta_ptr : (const void *)&ab[1];
	return lt_matmul_p((void *)h, p->desc, alpha, (const void *)A, p->a, (const void *)B, p->b, beta,
		(const void *)C, p->c, (void *)D, p->c, p->r.algo, (void *)ws, (size_t)ws_bytes, (void *)stream);
}

*/
import "C"

import (
	"errors"
	"fmt"
	"sync"

	"github.com/isaacgo/isaac/request"
)

var loadLt = sync.OnceValue(func() error {
	switch C.lt_load() {
	case -1:
		return errors.New("cublas: libcublasLt.so not found")
	case -2:
		return errors.New("cublas: libcublasLt.so lacks an entry point")
	}
	return nil
})

// LtWorkspaceBytes is the workspace PyTorch gives cublasLtMatmul on Hopper
// by default (CUBLASLT_WORKSPACE_SIZE, 32 MiB from compute capability 9.0):
// the heuristic's preference allows at most this much.
const LtWorkspaceBytes = 32 << 20

// Lt is a cuBLASLt handle, created in the current context, with the
// descriptors and algorithm of every matmul it has run (per shape, so that
// a repeated call is cublasLtMatmul alone, as in a framework that caches
// its plans). It is not safe for concurrent use.
type Lt struct {
	h     C.uintptr_t
	plans map[ltKey]*ltPlan
}

// ltPlan is a cached shape's descriptors and algorithm, and the bias
// pointer its matmul descriptor holds.
type ltPlan struct {
	p    *C.lt_plan
	bias uintptr
}

// NewLt creates a cuBLASLt handle.
func NewLt() (*Lt, error) {
	if err := loadLt(); err != nil {
		return nil, err
	}
	var h C.uintptr_t
	if s := C.lt_handle_create(&h); s != 0 {
		return nil, fmt.Errorf("cublasLtCreate: status %d", s)
	}
	return &Lt{h: h, plans: map[ltKey]*ltPlan{}}, nil
}

// Destroy destroys the cached descriptors and the handle.
func (l *Lt) Destroy() {
	for k, p := range l.plans {
		C.lt_plan_free(p.p)
		delete(l.plans, k)
	}
	C.lt_handle_destroy(l.h)
}

// ltKey is what a matmul's descriptors and algorithm depend on: every
// field of its shape (ltShape) and the workspace the preference allows.
type ltKey struct {
	shape     ltShape
	workspace int
}

// ltMatrix is one matrix layout: its type, rows and columns as stored
// (column-major), leading dimension and batch stride (elements).
type ltMatrix struct {
	Type       request.DataType
	Rows, Cols int64
	LD, Stride int64
}

// ltShape is what a matmul's descriptors say for a request: the compute
// and scale types, the pointer mode, the operations, the epilogue, the
// batch and the layouts of A, B and C (D's is C's).
type ltShape struct {
	Compute        request.ComputeType
	Scale          request.DataType
	PointerMode    request.PointerMode
	TransA, TransB request.Op
	Epilogue       int
	Batch          int64
	A, B, C        ltMatrix
}

// ltScale is the scale (alpha, beta) type of a compute type: its
// precision's, as cuBLASLt takes it.
func ltScale(c request.ComputeType) (request.DataType, error) {
	switch c {
	case request.Compute16F, request.Compute16FPedantic:
		return request.R16F, nil
	case request.Compute32F, request.Compute32FPedantic, request.Compute32FFast16F, request.Compute32FFast16BF,
		request.Compute32FFastTF32:
		return request.R32F, nil
	case request.Compute64F, request.Compute64FPedantic:
		return request.R64F, nil
	}
	return 0, fmt.Errorf("cublas: no cuBLASLt scale type for compute type %v", c)
}

// ltEpilogue is the cublasLtEpilogue_t of g's epilogue: its activation,
// with a bias where g.Bias is set.
func ltEpilogue(g *request.Gemm) (int, error) {
	bias := g.Bias != 0
	switch {
	case g.Act == request.ActNone && !bias:
		return request.LtEpilogueDefault, nil
	case g.Act == request.ActNone:
		return request.LtEpilogueBias, nil
	case g.Act == request.ActReLU && !bias:
		return request.LtEpilogueReLU, nil
	case g.Act == request.ActReLU:
		return request.LtEpilogueReLUBias, nil
	case g.Act == request.ActGELU && !bias:
		return request.LtEpilogueGELU, nil
	case g.Act == request.ActGELU:
		return request.LtEpilogueGELUBias, nil
	}
	return 0, fmt.Errorf("cublas: activation %d", g.Act)
}

// ltShapeOf is the matmul of g: column-major A (m×k, or k×m stored for
// op T), B (k×n, or n×k) and C (m×n), a strided batch where g.Batch > 1.
func ltShapeOf(g *request.Gemm) (ltShape, error) {
	scale, err := ltScale(g.Compute)
	if err != nil {
		return ltShape{}, err
	}
	epi, err := ltEpilogue(g)
	if err != nil {
		return ltShape{}, err
	}
	s := ltShape{
		Compute: g.Compute, Scale: scale, PointerMode: g.PointerMode, TransA: g.TransA, TransB: g.TransB,
		Epilogue: epi, Batch: max(g.Batch, 1),
		A: ltMatrix{Type: g.AType, Rows: g.M, Cols: g.K, LD: g.LDA},
		B: ltMatrix{Type: g.BType, Rows: g.K, Cols: g.N, LD: g.LDB},
		C: ltMatrix{Type: g.CType, Rows: g.M, Cols: g.N, LD: g.LDC},
	}
	if g.TransA.Transposed() {
		s.A.Rows, s.A.Cols = g.K, g.M
	}
	if g.TransB.Transposed() {
		s.B.Rows, s.B.Cols = g.N, g.K
	}
	if s.Batch > 1 {
		s.A.Stride, s.B.Stride, s.C.Stride = g.StrideA, g.StrideB, g.StrideC
	}
	return s, nil
}

func (m ltMatrix) c() C.lt_matrix {
	return C.lt_matrix{_type: C.int(m.Type), rows: C.uint64_t(m.Rows), cols: C.uint64_t(m.Cols),
		ld: C.int64_t(m.LD), stride: C.int64_t(m.Stride)}
}

// plan is the cached plan of g's shape under a workspace of wsBytes,
// made (descriptors, heuristic) on first use.
func (l *Lt) plan(g *request.Gemm, wsBytes int) (*ltPlan, error) {
	s, err := ltShapeOf(g)
	if err != nil {
		return nil, err
	}
	key := ltKey{s, wsBytes}
	if p, ok := l.plans[key]; ok {
		return p, nil
	}
	if s.Batch > 1<<31-1 {
		return nil, fmt.Errorf("cublas: a batch of %d matrices", s.Batch)
	}
	sh := C.lt_shape{
		compute: C.int(s.Compute), scale: C.int(s.Scale), pointer_mode: C.int(s.PointerMode),
		transa: C.int(s.TransA), transb: C.int(s.TransB), epilogue: C.uint32_t(s.Epilogue), batch: C.int32_t(s.Batch),
		a: s.A.c(), b: s.B.c(), c: s.C.c(), workspace: C.uint64_t(wsBytes),
	}
	var p *C.lt_plan
	var which C.int
	if st := C.lt_plan_new(l.h, &sh, C.uintptr_t(g.Bias), &p, &which); st != 0 {
		step := [...]string{"", "its descriptors", "its preference", "cublasLtMatmulAlgoGetHeuristic", "an algorithm (the heuristic returned none)"}[which]
		return nil, fmt.Errorf("cuBLASLt: %v: %s: status %d", g, step, st)
	}
	lp := &ltPlan{p: p, bias: g.Bias}
	l.plans[key] = lp
	return lp, nil
}

// Matmul runs g as one cublasLtMatmul on g's stream: g's types, compute
// type (and the scale type that goes with it), operations, sizes and
// leading dimensions, a strided batch where g.Batch > 1, the epilogue of
// g.Bias and g.Act (DEFAULT, RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS), D
// apart from C where g.OutOfPlace (with C's layout), g's pointer mode
// (host scalars read from their Bits). The algorithm is the first that
// cublasLtMatmulAlgoGetHeuristic returns under a preference of at most
// workspaceBytes of workspace, the caller's workspace (device memory of
// that many bytes); descriptors and algorithm are made on the first call
// of a shape and kept.
func (l *Lt) Matmul(g *request.Gemm, workspace uintptr, workspaceBytes int) error {
	p, err := l.plan(g, workspaceBytes)
	if err != nil {
		return err
	}
	if g.Bias != p.bias {
		if s := C.lt_plan_set_bias(p.p, C.uintptr_t(g.Bias)); s != 0 {
			return fmt.Errorf("cublasLtMatmulDescSetAttribute(BIAS_POINTER): status %d", s)
		}
		p.bias = g.Bias
	}
	d := g.C
	if g.OutOfPlace() {
		d = g.D
	}
	device := C.int(0)
	if g.PointerMode == request.PointerDevice {
		device = 1
	}
	s := C.lt_run(l.h, p.p, device, C.uint64_t(g.Alpha.Bits), C.uint64_t(g.Beta.Bits),
		C.uintptr_t(g.Alpha.Ptr), C.uintptr_t(g.Beta.Ptr), C.uintptr_t(g.A), C.uintptr_t(g.B),
		C.uintptr_t(g.C), C.uintptr_t(d), C.uintptr_t(workspace), C.uint64_t(workspaceBytes), C.uintptr_t(g.Stream))
	if s != 0 {
		return fmt.Errorf("cublasLtMatmul: status %d", s)
	}
	return nil
}
