/*
 * abi_main.c: calls every entry point of libisaac.so with distinctive
 * arguments and checks that the (fake) vendor received exactly those
 * arguments and that its status came back. Modes:
 *   calls STATUS     every entry point once, in this thread
 *   threads          8 threads x 2000 calls at once
 *   fork             a call, then every entry point in a forked child
 *   local            the vendor loaded with dlopen(RTLD_LOCAL), as PyTorch does
 *   novendor         no vendor library anywhere: NOT_INITIALIZED statuses
 *   invalid          arguments cuBLAS rejects that a served class could
 *                    otherwise carry: an unknown algorithm, a NULL scalar,
 *                    a negative batch count
 *   gemmsettled      an int8 GemmEx (a type ISAAC does not serve) four times (A at
 *                    two alignments), then one Sgemm three times: the cuBLAS
 *                    getters called by each call printed
 *   convs            a convolution cuDNN rejects (x NULL) twice, then one it
 *                    takes: the cuDNN getters called by each call printed
 *   graph            cuDNN's graph API: a variant pack set, a plan executed three
 *                    times on it, once on a variant pack never set, then
 *                    destroyed and made again: each execution's plan reads printed
 *   lt               cublasLtMatmul calls of every kind the shim tells apart
 *                    (served classes, unsupported, invalid, descriptors whose
 *                    getters refuse an attribute, a NULL layout): the
 *                    cuBLASLt getters called by each call printed
 *   lt nullhandle    one cublasLtMatmul with a NULL cuBLASLt handle
 *   gemmcost N       host ns per forwarded Sgemm and int8 GemmEx, N calls each
 *   passthrough      an Sgemm, then one with isaac_passthrough(1), then one after
 *                    isaac_passthrough(0): the cuBLAS getters of each printed
 *   ltcost N         host ns per forwarded cublasLtMatmul of two kinds, N calls each
 *   graphthreads     8 threads x 2000 graph-API convolutions at once, each thread its
 *                    own plan, half of them destroying and remaking theirs every 50
 *   graphcost N      host ns per graph-API convolution as PyTorch makes one (a variant
 *                    pack made, its ids, pointers and workspace set, the plan
 *                    executed, the pack destroyed), of three kinds, N each
 * Built three ways: linked -lisaac -lcublas -lcublasLt -lcudnn, linked to the
 * fakes only (run with LD_PRELOAD=libisaac.so), or linked -lisaac only (local,
 * novendor). cuBLASLt's descriptor functions are looked up with dlsym, as
 * the program linked -lisaac only has no cuBLASLt to link them from.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fake_vendor.h"

static const fake_call *(*last_call)(void);
static long (*getter_calls)(void);
static long (*vendor_calls)(void);
static void (*set_status)(int);
static int failures;

/* The fake cuBLASLt's functions, from the library's handle. */
static struct {
	__typeof__(&cublasLtMatmulDescCreate) desc_create;
	__typeof__(&cublasLtMatmulDescDestroy) desc_destroy;
	__typeof__(&cublasLtMatmulDescSetAttribute) desc_set;
	__typeof__(&cublasLtMatmulDescGetAttribute) desc_get;
	__typeof__(&cublasLtMatrixLayoutCreate) layout_create;
	__typeof__(&cublasLtMatrixLayoutDestroy) layout_destroy;
	__typeof__(&cublasLtMatrixLayoutSetAttribute) layout_set;
	__typeof__(&cublasLtMatrixLayoutGetAttribute) layout_get;
	__typeof__(&fake_lt_getter_calls) getter_calls;
	__typeof__(&fake_lt_refuse) refuse;
} lt;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __func__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

/* lib: the fake cuBLAS's handle (or RTLD_DEFAULT); ltlib: the fake
 * cuBLASLt's. */
static void hooks(void *lib, void *ltlib)
{
	last_call = (const fake_call *(*)(void))dlsym(lib, "fake_last_call");
	getter_calls = (long (*)(void))dlsym(lib, "fake_getter_calls");
	vendor_calls = (long (*)(void))dlsym(lib, "fake_calls");
	set_status = (void (*)(int))dlsym(lib, "fake_set_status");
#define LT_HOOK(field, name) lt.field = (__typeof__(lt.field))dlsym(ltlib, name)
	LT_HOOK(desc_create, "cublasLtMatmulDescCreate");
	LT_HOOK(desc_destroy, "cublasLtMatmulDescDestroy");
	LT_HOOK(desc_set, "cublasLtMatmulDescSetAttribute");
	LT_HOOK(desc_get, "cublasLtMatmulDescGetAttribute");
	LT_HOOK(layout_create, "cublasLtMatrixLayoutCreate");
	LT_HOOK(layout_destroy, "cublasLtMatrixLayoutDestroy");
	LT_HOOK(layout_set, "cublasLtMatrixLayoutSetAttribute");
	LT_HOOK(layout_get, "cublasLtMatrixLayoutGetAttribute");
	LT_HOOK(getter_calls, "fake_lt_getter_calls");
	LT_HOOK(refuse, "fake_lt_refuse");
#undef LT_HOOK
	if (!last_call || !getter_calls || !vendor_calls || !set_status || !lt.desc_create ||
	    !lt.desc_destroy || !lt.desc_set || !lt.desc_get || !lt.layout_create || !lt.layout_destroy ||
	    !lt.layout_set || !lt.layout_get || !lt.getter_calls || !lt.refuse) {
		printf("FAIL: fake vendor hooks not found\n");
		exit(2);
	}
}

static void check_gemm(const char *fn, int status, int want_status, void *handle, int ta, int tb,
	int64_t m, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
	const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
	int at, int bt, int ct, int compute, int algo)
{
	const fake_call *c = last_call();
	CHECK(status == want_status, "%s returned %d, want %d", fn, status, want_status);
	CHECK(c->fn != NULL && strcmp(c->fn, fn) == 0, "vendor saw %s, want %s", c->fn ? c->fn : "nothing", fn);
	CHECK(c->handle == handle && c->transa == ta && c->transb == tb, "%s: handle/trans differ", fn);
	CHECK(c->m == m && c->n == n && c->k == k, "%s: m,n,k = %ld,%ld,%ld want %ld,%ld,%ld", fn,
		(long)c->m, (long)c->n, (long)c->k, (long)m, (long)n, (long)k);
	CHECK(c->lda == lda && c->ldb == ldb && c->ldc == ldc, "%s: leading dimensions differ", fn);
	CHECK(c->alpha == alpha && c->beta == beta && c->A == A && c->B == B && c->C == C,
		"%s: pointers differ", fn);
	CHECK(c->atype == at && c->btype == bt && c->ctype == ct && c->compute == compute && c->algo == algo,
		"%s: types %d %d %d %d %d, want %d %d %d %d %d", fn, c->atype, c->btype, c->ctype,
		c->compute, c->algo, at, bt, ct, compute, algo);
}

/* The strides and batch count the vendor received with the last call. */
static void check_batch(const char *fn, long long sa, long long sb, long long sc, int64_t batch)
{
	const fake_call *c = last_call();
	CHECK(c->stride_a == sa && c->stride_b == sb && c->stride_c == sc && c->batch == batch,
		"%s: strides %lld %lld %lld batch %lld, want %lld %lld %lld batch %lld", fn,
		c->stride_a, c->stride_b, c->stride_c, (long long)c->batch, sa, sb, sc, (long long)batch);
}

/* A matrix layout made through the fake cuBLASLt: type, rows, cols, ld, and
 * where they differ from cuBLASLt's defaults the order and the batch. */
static cublasLtMatrixLayout_t lt_layout(cudaDataType type, uint64_t rows, uint64_t cols, int64_t ld,
	int32_t order, int32_t batch, int64_t stride)
{
	cublasLtMatrixLayout_t l = NULL;
	int s = lt.layout_create(&l, type, rows, cols, ld);
	CHECK(s == 0 && l != NULL, "cublasLtMatrixLayoutCreate: %d", s);
	if (order != CUBLASLT_ORDER_COL) {
		s = lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order);
		CHECK(s == 0, "setting the order: %d", s);
	}
	if (batch != 1) {
		s = lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &batch, sizeof batch);
		CHECK(s == 0, "setting the batch count: %d", s);
		s = lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride, sizeof stride);
		CHECK(s == 0, "setting the batch stride: %d", s);
	}
	return l;
}

/* A matmul descriptor made through the fake cuBLASLt: FP32 computed and
 * scaled, the operations, the epilogue and its bias (NULL: not set). */
static cublasLtMatmulDesc_t lt_desc(int32_t transa, int32_t transb, uint32_t epilogue, const void *bias)
{
	cublasLtMatmulDesc_t d = NULL;
	int s = lt.desc_create(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F);
	CHECK(s == 0 && d != NULL, "cublasLtMatmulDescCreate: %d", s);
	s = lt.desc_set(d, CUBLASLT_MATMUL_DESC_TRANSA, &transa, sizeof transa);
	CHECK(s == 0, "setting transa: %d", s);
	s = lt.desc_set(d, CUBLASLT_MATMUL_DESC_TRANSB, &transb, sizeof transb);
	CHECK(s == 0, "setting transb: %d", s);
	s = lt.desc_set(d, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue);
	CHECK(s == 0, "setting the epilogue: %d", s);
	if (bias != NULL) {
		s = lt.desc_set(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias);
		CHECK(s == 0, "setting the bias: %d", s);
	}
	return d;
}

/* The 16 arguments of one cublasLtMatmul call. */
typedef struct lt_args {
	cublasLtHandle_t h;
	cublasLtMatmulDesc_t desc;
	const void *alpha, *A;
	cublasLtMatrixLayout_t ad;
	const void *B;
	cublasLtMatrixLayout_t bd;
	const void *beta, *C;
	cublasLtMatrixLayout_t cd;
	void *D;
	cublasLtMatrixLayout_t dd;
	const cublasLtMatmulAlgo_t *algo;
	void *workspace;
	size_t workspace_bytes;
	cudaStream_t stream;
} lt_args;

/* Calls cublasLtMatmul with a's arguments: the call must reach the fake
 * cuBLASLt once with every argument identical, and its status (want)
 * must come back. Returns the cuBLASLt getters called on the way. */
static long check_lt(const char *what, const lt_args *a, int want)
{
	long calls = vendor_calls(), getters = lt.getter_calls();
	int s = cublasLtMatmul(a->h, a->desc, a->alpha, a->A, a->ad, a->B, a->bd, a->beta, a->C, a->cd,
		a->D, a->dd, a->algo, a->workspace, a->workspace_bytes, a->stream);
	getters = lt.getter_calls() - getters;
	const fake_call *c = last_call();
	CHECK(s == want, "cublasLtMatmul (%s) returned %d, want %d", what, s, want);
	CHECK(vendor_calls() == calls + 1, "cublasLtMatmul (%s): %ld vendor calls, want 1", what,
		vendor_calls() - calls);
	CHECK(c->fn != NULL && strcmp(c->fn, "cublasLtMatmul") == 0, "%s: vendor saw %s", what,
		c->fn ? c->fn : "nothing");
	CHECK(c->handle == (void *)a->h && c->lt_desc == (const void *)a->desc, "%s: handle or desc differ", what);
	CHECK(c->alpha == a->alpha && c->beta == a->beta, "%s: alpha or beta differ", what);
	CHECK(c->A == a->A && c->B == a->B && c->C == a->C && c->D == a->D, "%s: A, B, C or D differ", what);
	CHECK(c->a_layout == (const void *)a->ad && c->b_layout == (const void *)a->bd &&
		c->c_layout == (const void *)a->cd && c->d_layout == (const void *)a->dd,
		"%s: layouts differ", what);
	CHECK(c->lt_algo == (const void *)a->algo && c->workspace == a->workspace &&
		c->workspace_bytes == a->workspace_bytes && c->stream == (void *)a->stream,
		"%s: algo, workspace (%p %zu, want %p %zu) or stream differ", what, c->workspace,
		c->workspace_bytes, a->workspace, a->workspace_bytes);
	return getters;
}

/* Every entry point once. seed varies the arguments; status is what the
 * fake returns. */
static void run_all(int seed, int status)
{
	float fa = 1.5f, fb = 0.25f;
	double da = 2.5, db = 0.5;
	__half ha = {0x3c00}, hb = {0x0000};
	void *h = (void *)(uintptr_t)(0x1000 + 16 * seed);
	char *p = (char *)(uintptr_t)(0x7f0000000000ULL + 4096 * seed);
	int m = 3 + seed, n = 5 + seed, k = 7 + seed;
	set_status(status);

	int s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &fa, (float *)p, m + 1,
		(float *)(p + 64), n + 2, &fb, (float *)(p + 128), m + 3);
	check_gemm("cublasSgemm_v2", s, status, h, 0, 1, m, n, k, &fa, p, m + 1, p + 64, n + 2, &fb,
		p + 128, m + 3, -1, -1, -1, -1, -1);
	s = cublasDgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, (double *)p, k, (double *)(p + 8),
		k, &db, (double *)(p + 16), m);
	check_gemm("cublasDgemm_v2", s, status, h, 1, 0, m, n, k, &da, p, k, p + 8, k, &db, p + 16, m,
		-1, -1, -1, -1, -1);
	s = cublasHgemm(h, CUBLAS_OP_C, CUBLAS_OP_C, m, n, k, &ha, (__half *)p, k, (__half *)(p + 2), n,
		&hb, (__half *)(p + 4), m);
	check_gemm("cublasHgemm", s, status, h, 2, 2, m, n, k, &ha, p, k, p + 2, n, &hb, p + 4, m,
		-1, -1, -1, -1, -1);
	s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, p, CUDA_R_16BF, m, p + 2, CUDA_R_16BF,
		k, &fb, p + 6, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmEx", s, status, h, 0, 0, m, n, k, &fa, p, m, p + 2, k, &fb, p + 6, m,
		CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, -1);
	int64_t big = 3000000000LL;  /* a _64 size that does not fit an int */
	s = cublasSgemm_v2_64(h, CUBLAS_OP_N, CUBLAS_OP_N, big, n, k, &fa, (float *)p, big,
		(float *)p, k, &fb, (float *)p, big);
	check_gemm("cublasSgemm_v2_64", s, status, h, 0, 0, big, n, k, &fa, p, big, p, k, &fb, p, big,
		-1, -1, -1, -1, -1);
	s = cublasDgemm_v2_64(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, k, &da, (double *)p, k, (double *)p, n,
		&db, (double *)p, m);
	check_gemm("cublasDgemm_v2_64", s, status, h, 1, 1, m, n, k, &da, p, k, p, n, &db, p, m,
		-1, -1, -1, -1, -1);
	s = cublasHgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &ha, (__half *)p, m, (__half *)p, n,
		&hb, (__half *)p, m);
	check_gemm("cublasHgemm_64", s, status, h, 0, 1, m, n, k, &ha, p, m, p, n, &hb, p, m,
		-1, -1, -1, -1, -1);
	s = cublasGemmEx_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, p, CUDA_R_64F, k, p, CUDA_R_64F, k,
		&db, p, CUDA_R_64F, m, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmEx_64", s, status, h, 1, 0, m, n, k, &da, p, k, p, k, &db, p, m,
		CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, -1);
	/* The strided-batched routines: batches of several matrices (one with
	 * a negative stride, one with 64-bit strides and batch count), of one
	 * matrix, and of none. */
	long long sa = (long long)(m + 1) * k, sb = (long long)(n + 2) * k + seed, sc = (long long)(m + 3) * n;
	s = cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &fa, (float *)p, m + 1, sa,
		(float *)(p + 64), n + 2, sb, &fb, (float *)(p + 128), m + 3, sc, 4 + seed);
	check_gemm("cublasSgemmStridedBatched", s, status, h, 0, 1, m, n, k, &fa, p, m + 1, p + 64, n + 2,
		&fb, p + 128, m + 3, -1, -1, -1, -1, -1);
	check_batch("cublasSgemmStridedBatched", sa, sb, sc, 4 + seed);
	s = cublasDgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, (double *)p, k, 0,
		(double *)(p + 8), k, sb, &db, (double *)(p + 16), m, sc, 2);
	check_gemm("cublasDgemmStridedBatched", s, status, h, 1, 0, m, n, k, &da, p, k, p + 8, k, &db,
		p + 16, m, -1, -1, -1, -1, -1);
	check_batch("cublasDgemmStridedBatched", 0, sb, sc, 2);
	s = cublasHgemmStridedBatched(h, CUBLAS_OP_C, CUBLAS_OP_N, m, n, k, &ha, (__half *)p, k, sa,
		(__half *)(p + 2), k, sb, &hb, (__half *)(p + 4), m, sc, 1);
	check_gemm("cublasHgemmStridedBatched", s, status, h, 2, 0, m, n, k, &ha, p, k, p + 2, k, &hb,
		p + 4, m, -1, -1, -1, -1, -1);
	check_batch("cublasHgemmStridedBatched", sa, sb, sc, 1);
	s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, p, CUDA_R_16BF, m, sa,
		p + 2, CUDA_R_16BF, k, sb, &fb, p + 6, CUDA_R_16BF, m, sc, 3, CUBLAS_COMPUTE_32F,
		CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmStridedBatchedEx", s, status, h, 0, 0, m, n, k, &fa, p, m, p + 2, k, &fb,
		p + 6, m, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, -1);
	check_batch("cublasGemmStridedBatchedEx", sa, sb, sc, 3);
	s = cublasSgemmStridedBatched_64(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, (float *)p, m, sa,
		(float *)p, k, sb, &fb, (float *)p, m, sc, 0);
	check_gemm("cublasSgemmStridedBatched_64", s, status, h, 0, 0, m, n, k, &fa, p, m, p, k, &fb, p, m,
		-1, -1, -1, -1, -1);
	check_batch("cublasSgemmStridedBatched_64", sa, sb, sc, 0);
	s = cublasDgemmStridedBatched_64(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, k, &da, (double *)p, k, -sa,
		(double *)p, n, sb, &db, (double *)p, m, sc, 5);
	check_gemm("cublasDgemmStridedBatched_64", s, status, h, 1, 1, m, n, k, &da, p, k, p, n, &db, p, m,
		-1, -1, -1, -1, -1);
	check_batch("cublasDgemmStridedBatched_64", -sa, sb, sc, 5);
	long long far = 5000000000LL;  /* strides and a batch count beyond 32 bits */
	s = cublasHgemmStridedBatched_64(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &ha, (__half *)p, m, far + 1,
		(__half *)p, n, far + 2, &hb, (__half *)p, m, far + 3, big);
	check_gemm("cublasHgemmStridedBatched_64", s, status, h, 0, 1, m, n, k, &ha, p, m, p, n, &hb, p, m,
		-1, -1, -1, -1, -1);
	check_batch("cublasHgemmStridedBatched_64", far + 1, far + 2, far + 3, big);
	s = cublasGemmStridedBatchedEx_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, p, CUDA_R_64F, k, sa,
		p, CUDA_R_64F, k, sb, &db, p, CUDA_R_64F, m, sc, 1, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmStridedBatchedEx_64", s, status, h, 1, 0, m, n, k, &da, p, k, p, k, &db, p, m,
		CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, -1);
	check_batch("cublasGemmStridedBatchedEx_64", sa, sb, sc, 1);
	/* Invalid (lda < m) and a NULL handle: the vendor must see them too. */
	s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, (float *)p, m - 1, (float *)p, k,
		&fb, (float *)p, m);
	check_gemm("cublasSgemm_v2", s, status, h, 0, 0, m, n, k, &fa, p, m - 1, p, k, &fb, p, m,
		-1, -1, -1, -1, -1);
	s = cublasSgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, (float *)p, m, (float *)p, k,
		&fb, (float *)p, m);
	check_gemm("cublasSgemm_v2", s, status, NULL, 0, 0, m, n, k, &fa, p, m, p, k, &fb, p, m,
		-1, -1, -1, -1, -1);

	void *xd = (void *)0x2000, *wd = (void *)0x3000, *cd = (void *)0x4000, *yd = (void *)0x5000;
	s = cudnnConvolutionForward((cudnnHandle_t)h, &fa, xd, p, wd, p + 8, cd,
		CUDNN_CONVOLUTION_FWD_ALGO_GEMM, p + 16, 4096 + seed, &fb, yd, p + 24);
	const fake_call *c = last_call();
	int want = status == 0 ? 0 : status + 1000;
	CHECK(s == want, "cudnnConvolutionForward returned %d, want %d", s, want);
	CHECK(c->fn && strcmp(c->fn, "cudnnConvolutionForward") == 0, "vendor saw %s", c->fn ? c->fn : "nothing");
	CHECK(c->handle == h && c->alpha == &fa && c->beta == &fb && c->x_desc == xd && c->w_desc == wd &&
		c->conv_desc == cd && c->y_desc == yd && c->x == p && c->w == p + 8 && c->y == p + 24 &&
		c->workspace == p + 16 && c->workspace_bytes == (size_t)(4096 + seed) && c->algo == 2,
		"cudnnConvolutionForward: arguments differ");

	/* cublasLtMatmul, its descriptors made through the fake cuBLASLt: a
	 * served class with C and D one matrix; one with a bias, D apart from
	 * C and a batch of 3 strided matrices; and a NULL matmul descriptor,
	 * which cuBLASLt answers itself (INVALID_VALUE). */
	cublasLtMatmulAlgo_t algo;
	for (int i = 0; i < 8; i++)
		algo.data[i] = 0xa150000000000000ULL + 16 * seed + i;
	cublasLtHandle_t lh = (cublasLtHandle_t)((char *)h + 8);
	cublasLtMatmulDesc_t d1 = lt_desc(CUBLAS_OP_N, CUBLAS_OP_T, CUBLASLT_EPILOGUE_DEFAULT, NULL);
	cublasLtMatrixLayout_t a1 = lt_layout(CUDA_R_32F, m, k, m + 1, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t b1 = lt_layout(CUDA_R_32F, n, k, n + 2, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t c1 = lt_layout(CUDA_R_32F, m, n, m + 3, CUBLASLT_ORDER_COL, 1, 0);
	lt_args l1 = {lh, d1, &fa, p, a1, p + 64, b1, &fb, p + 128, c1, p + 128, c1, &algo, p + 8192,
		((size_t)1 << 20) + seed, (cudaStream_t)((char *)h + 3)};
	check_lt("in place", &l1, status);
	cublasLtMatmulDesc_t d2 = lt_desc(CUBLAS_OP_T, CUBLAS_OP_N, CUBLASLT_EPILOGUE_BIAS, p + 256);
	cublasLtMatrixLayout_t a2 = lt_layout(CUDA_R_32F, k, m, k + 1, CUBLASLT_ORDER_COL, 3, (int64_t)(k + 1) * m);
	cublasLtMatrixLayout_t b2 = lt_layout(CUDA_R_32F, k, n, k + 2, CUBLASLT_ORDER_COL, 3,
		(int64_t)(k + 2) * n + seed);
	cublasLtMatrixLayout_t c2 = lt_layout(CUDA_R_32F, m, n, m, CUBLASLT_ORDER_COL, 3, (int64_t)m * n + 5);
	cublasLtMatrixLayout_t dd2 = lt_layout(CUDA_R_32F, m, n, m, CUBLASLT_ORDER_COL, 3, (int64_t)m * n + 5);
	lt_args l2 = {lh, d2, &fa, p + 1024, a2, p + 2048, b2, &fb, p + 3072, c2, p + 4096, dd2, NULL, NULL,
		0, NULL};
	check_lt("bias, D apart from C, a batch of 3", &l2, status);
	lt_args l3 = l1;
	l3.desc = NULL;
	check_lt("a NULL matmul descriptor", &l3, CUBLAS_STATUS_INVALID_VALUE);
	lt.desc_destroy(d1);
	lt.desc_destroy(d2);
	cublasLtMatrixLayout_t layouts[] = {a1, b1, c1, a2, b2, c2, dd2};
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		lt.layout_destroy(layouts[i]);
}

/* Calls whose types and sizes ISAAC serves, with an argument cuBLAS
 * rejects: each must reach the vendor, decided from its arguments alone. */
static void run_invalid(void)
{
	float fa = 1.5f, fb = 0.25f;
	__half ha = {0x3c00};
	void *h = (void *)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	set_status(7);
	int s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &fa, p, CUDA_R_32F, 8, p, CUDA_R_32F, 8,
		&fb, p, CUDA_R_32F, 8, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)12345);
	check_gemm("cublasGemmEx", s, 7, h, 0, 0, 8, 8, 8, &fa, p, 8, p, 8, &fb, p, 8,
		CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 12345);
	s = cublasGemmEx_64(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &fa, p, CUDA_R_32F, 8, p, CUDA_R_32F, 8,
		&fb, p, CUDA_R_32F, 8, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)24);
	check_gemm("cublasGemmEx_64", s, 7, h, 0, 0, 8, 8, 8, &fa, p, 8, p, 8, &fb, p, 8,
		CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 24);
	s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, NULL, (float *)p, 8, (float *)p, 8,
		&fb, (float *)p, 8);
	check_gemm("cublasSgemm_v2", s, 7, h, 0, 0, 8, 8, 8, NULL, p, 8, p, 8, &fb, p, 8, -1, -1, -1, -1, -1);
	s = cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &ha, (__half *)p, 8, (__half *)p, 8,
		NULL, (__half *)p, 8);
	check_gemm("cublasHgemm", s, 7, h, 0, 0, 8, 8, 8, &ha, p, 8, p, 8, NULL, p, 8, -1, -1, -1, -1, -1);
	s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &fa, p, CUDA_R_32F, 8, 64, p,
		CUDA_R_32F, 8, 64, &fb, p, CUDA_R_32F, 8, 64, -1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmStridedBatchedEx", s, 7, h, 0, 0, 8, 8, 8, &fa, p, 8, p, 8, &fb, p, 8,
		CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, -1);
	check_batch("cublasGemmStridedBatchedEx", 64, 64, 64, -1);
	s = cublasHgemmStridedBatched_64(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &ha, (__half *)p, 8, 64,
		(__half *)p, 8, 64, &ha, (__half *)p, 8, 64, -3);
	check_gemm("cublasHgemmStridedBatched_64", s, 7, h, 0, 0, 8, 8, 8, &ha, p, 8, p, 8, &ha, p, 8,
		-1, -1, -1, -1, -1);
	check_batch("cublasHgemmStridedBatched_64", 64, 64, 64, -3);
	/* cublasLtMatmul of a served class but for a NULL alpha, and with a
	 * bias epilogue but no bias. */
	cublasLtMatmulDesc_t plain = lt_desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT, NULL);
	cublasLtMatmulDesc_t nobias = lt_desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_BIAS, NULL);
	cublasLtMatrixLayout_t l = lt_layout(CUDA_R_32F, 8, 8, 8, CUBLASLT_ORDER_COL, 1, 0);
	lt_args a = {(cublasLtHandle_t)h, plain, NULL, p, l, p + 256, l, &fb, p + 512, l, p + 512, l,
		NULL, NULL, 0, NULL};
	check_lt("a NULL alpha", &a, 7);
	a.desc = nobias;
	a.alpha = &fa;
	check_lt("a bias epilogue without a bias", &a, 7);
	lt.desc_destroy(plain);
	lt.desc_destroy(nobias);
	lt.layout_destroy(l);
}

/* The fake cuBLASLt itself: cuBLASLt's defaults, size checks and unknown
 * attributes. */
static void lt_fake_selfcheck(void)
{
	cublasLtMatmulDesc_t d = NULL;
	cublasLtMatrixLayout_t l = NULL;
	int32_t i32 = 0;
	uint32_t u32 = 0;
	int64_t i64 = 0;
	uint64_t u64 = 0;
	const void *ptr = NULL;
	size_t written = 0;
	CHECK(lt.desc_create(&d, CUBLAS_COMPUTE_32F, CUDA_R_32F) == 0, "cublasLtMatmulDescCreate");
#define DESC_IS(attr, var, want) do {                                                      \
	written = 0;                                                                       \
	int s_ = lt.desc_get(d, attr, &var, sizeof var, &written);                         \
	CHECK(s_ == 0 && var == want && written == sizeof var, #attr ": status %d, size %zu", s_, written); \
} while (0)
	DESC_IS(CUBLASLT_MATMUL_DESC_COMPUTE_TYPE, i32, CUBLAS_COMPUTE_32F);
	DESC_IS(CUBLASLT_MATMUL_DESC_SCALE_TYPE, i32, CUDA_R_32F);
	DESC_IS(CUBLASLT_MATMUL_DESC_POINTER_MODE, i32, CUBLASLT_POINTER_MODE_HOST);
	DESC_IS(CUBLASLT_MATMUL_DESC_TRANSA, i32, CUBLAS_OP_N);
	DESC_IS(CUBLASLT_MATMUL_DESC_TRANSB, i32, CUBLAS_OP_N);
	DESC_IS(CUBLASLT_MATMUL_DESC_EPILOGUE, u32, CUBLASLT_EPILOGUE_DEFAULT);
	DESC_IS(CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, i32, -1);
	DESC_IS(CUBLASLT_MATMUL_DESC_BIAS_POINTER, ptr, NULL);
	DESC_IS(CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE, i64, 0);
	DESC_IS(CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER, ptr, NULL);
	i32 = CUBLAS_OP_T;
	CHECK(lt.desc_set(d, CUBLASLT_MATMUL_DESC_TRANSA, &i32, sizeof i32) == 0, "setting transa");
	DESC_IS(CUBLASLT_MATMUL_DESC_TRANSA, i32, CUBLAS_OP_T);
#undef DESC_IS
	CHECK(lt.desc_set(d, CUBLASLT_MATMUL_DESC_TRANSA, &i64, sizeof i64) == 7, "transa set with 8 bytes");
	CHECK(lt.desc_get(d, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &i32, sizeof i32, &written) == 7,
		"a pointer read into 4 bytes");
	CHECK(lt.desc_get(d, CUBLASLT_MATMUL_DESC_EPILOGUE, NULL, 0, &written) == 0 && written == 4,
		"the epilogue's size asked: %zu", written);
	CHECK(lt.desc_get(d, CUBLASLT_MATMUL_DESC_EPILOGUE, NULL, 0, NULL) == 7, "no buffer, no size");
	for (int attr = 9; attr <= 31; attr += 7)  /* 9, 16, 23 (known), 30 (known) */
		CHECK(lt.desc_get(d, (cublasLtMatmulDescAttributes_t)attr, &ptr, sizeof ptr, NULL) ==
			(attr == 9 || attr == 16 ? 7 : 0), "attribute %d", attr);
	CHECK(lt.desc_get(d, (cublasLtMatmulDescAttributes_t)31, &ptr, sizeof ptr, NULL) == 7, "attribute 31");
	CHECK(lt.desc_get(NULL, CUBLASLT_MATMUL_DESC_TRANSA, &i32, sizeof i32, NULL) == 7, "a NULL descriptor");
	CHECK(lt.layout_create(&l, CUDA_R_16F, 3, 5, 7) == 0, "cublasLtMatrixLayoutCreate");
#define LAYOUT_IS(attr, var, want) do {                                                    \
	written = 0;                                                                       \
	int s_ = lt.layout_get(l, attr, &var, sizeof var, &written);                       \
	CHECK(s_ == 0 && var == want && written == sizeof var, #attr ": status %d, size %zu", s_, written); \
} while (0)
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_TYPE, u32, CUDA_R_16F);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_ORDER, i32, CUBLASLT_ORDER_COL);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_ROWS, u64, 3);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_COLS, u64, 5);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_LD, i64, 7);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, i32, 1);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, i64, 0);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET, i64, 0);
	LAYOUT_IS(CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, i32, CUBLASLT_BATCH_MODE_STRIDED);
#undef LAYOUT_IS
	CHECK(lt.layout_get(l, CUBLASLT_MATRIX_LAYOUT_ROWS, &i32, sizeof i32, NULL) == 7, "rows read into 4 bytes");
	CHECK(lt.layout_set(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &i64, sizeof i64) == 7, "order set with 8 bytes");
	CHECK(lt.layout_get(l, (cublasLtMatrixLayoutAttribute_t)9, &i32, sizeof i32, NULL) == 7, "attribute 9");
	lt.refuse(0, (uint64_t)1 << CUBLASLT_MATRIX_LAYOUT_BATCH_MODE);
	CHECK(lt.layout_get(l, CUBLASLT_MATRIX_LAYOUT_BATCH_MODE, &i32, sizeof i32, NULL) == 7, "a refused attribute");
	lt.refuse(0, 0);
	lt.desc_destroy(d);
	lt.layout_destroy(l);
}

/* cublasLtMatmul calls of every kind the shim tells apart, each checked by
 * check_lt; the cuBLASLt getters each call made printed ("ltN getters=G").
 * With null_handle, one call with a NULL cuBLASLt handle alone. */
static void run_lt(int null_handle)
{
	float fa = 1.5f, fb = 0.25f;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	int m = 24, n = 16, k = 40;
	lt_fake_selfcheck();
	set_status(CUBLAS_STATUS_NOT_SUPPORTED);
	cublasLtMatmulDesc_t plain = lt_desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT, NULL);
	cublasLtMatmulDesc_t relu = lt_desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_RELU, NULL);
	cublasLtMatmulDesc_t scaled = lt_desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT, NULL);
	cublasLtMatmulDesc_t grad = lt_desc(CUBLAS_OP_N, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DRELU_BGRAD, p + 0x6000);
	const void *scale = p + 0x5000;
	CHECK(lt.desc_set(scaled, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale) == 0, "A's scale");
	cublasLtMatrixLayout_t A = lt_layout(CUDA_R_32F, m, k, m, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t B = lt_layout(CUDA_R_32F, k, n, k, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t C = lt_layout(CUDA_R_32F, m, n, m, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t Ar = lt_layout(CUDA_R_32F, m, k, k, CUBLASLT_ORDER_ROW, 1, 0);
	cublasLtMatrixLayout_t Br = lt_layout(CUDA_R_32F, k, n, n, CUBLASLT_ORDER_ROW, 1, 0);
	cublasLtMatrixLayout_t Cr = lt_layout(CUDA_R_32F, m, n, n, CUBLASLT_ORDER_ROW, 1, 0);
	cublasLtMatrixLayout_t Dr = lt_layout(CUDA_R_32F, m, n, n, CUBLASLT_ORDER_ROW, 1, 0);
	cublasLtMatrixLayout_t Abad = lt_layout(CUDA_R_32F, m + 1, k, m + 1, CUBLASLT_ORDER_COL, 1, 0);
	lt_args base = {(cublasLtHandle_t)(uintptr_t)0x1008, plain, &fa, p, A, p + 0x1000, B, &fb,
		p + 0x2000, C, p + 0x2000, C, NULL, p + 0x3000, 4096, (cudaStream_t)(uintptr_t)0x1003};
	if (null_handle) {
		lt_args a = base;
		a.h = NULL;
		check_lt("a NULL handle", &a, CUBLAS_STATUS_NOT_INITIALIZED);
	} else {
		long g[9];
		lt_args a = base;
		/* 0: a served class. */
		g[0] = check_lt("a served class", &a, 15);
		/* 1: row-major, ReLU, D apart from C: a served class too. */
		a.desc = relu; a.ad = Ar; a.bd = Br; a.cd = Cr; a.D = p + 0x4000; a.dd = Dr;
		g[1] = check_lt("row-major with ReLU", &a, 15);
		/* 2: A's FP8 scale set: unsupported. */
		a = base; a.desc = scaled;
		g[2] = check_lt("a scale pointer", &a, 15);
		/* 3: a library without the optional attributes (the scaling,
		 * amax and atomic-synchronization pointers, the batch mode):
		 * they count as unset, and the call is a served class. */
		a = base;
		lt.refuse((1ULL << 17) | (1ULL << 18) | (1ULL << 19) | (1ULL << 20) | (1ULL << 21) |
			(1ULL << 23) | (1ULL << 24) | (1ULL << 29) | (1ULL << 30), 1ULL << 8);
		g[3] = check_lt("optional attributes refused", &a, 15);
		/* 4, 5: a required attribute refused, of the matmul descriptor
		 * (its last, the bias type) or of a layout (A's last, the plane
		 * offset): cuBLASLt takes the call (reason handle). */
		lt.refuse(1ULL << CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, 0);
		g[4] = check_lt("the bias type refused", &a, 15);
		lt.refuse(0, 1ULL << CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET);
		g[5] = check_lt("the plane offset refused", &a, 15);
		lt.refuse(0, 0);
		/* 6: a NULL layout (B's): cuBLASLt's status, nothing read. */
		a.bd = NULL;
		g[6] = check_lt("a NULL layout", &a, CUBLAS_STATUS_INVALID_VALUE);
		/* 7: a gradient epilogue: unsupported. */
		a = base; a.desc = grad;
		g[7] = check_lt("a gradient epilogue", &a, 15);
		/* 8: A of m+1 rows for D of m: invalid. */
		a = base; a.ad = Abad;
		g[8] = check_lt("A's rows are not D's", &a, 15);
		for (int i = 0; i < 9; i++)
			printf("lt%d getters=%ld\n", i, g[i]);
	}
	cublasLtMatmulDesc_t descs[] = {plain, relu, scaled, grad};
	for (size_t i = 0; i < sizeof descs / sizeof descs[0]; i++)
		lt.desc_destroy(descs[i]);
	cublasLtMatrixLayout_t layouts[] = {A, B, C, Ar, Br, Cr, Dr, Abad};
	for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
		lt.layout_destroy(layouts[i]);
}

/* GEMMs: a call like one Go answered for good is answered from what the shim
 * remembers of it; each call's getters printed. */
static void run_gemms_settled(void)
{
	int ia = 1, ib = 0;
	float fa = 1, fb = 0;
	cublasHandle_t h = (cublasHandle_t)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	const size_t offsets[4] = {0, 256, 2, 258};  /* A aligned to 256 bytes, then to 2 */
	set_status(0);
	for (int i = 0; i < 4; i++) {
		long before = getter_calls();
		const void *A = p + offsets[i];
		int s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &ia, A, CUDA_R_8I, 8, p + 4096, CUDA_R_8I, 8,
			&ib, p + 8192, CUDA_R_32I, 8, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
		const fake_call *c = last_call();
		CHECK(s == 0 && c->A == A && c->handle == h && c->atype == CUDA_R_8I, "GemmEx %d: status %d or arguments differ", i, s);
		printf("gemm%d getters=%ld\n", i, getter_calls() - before);
	}
	for (int i = 0; i < 3; i++) {
		long before = getter_calls();
		float *A = (float *)(p + 65536 * (i + 1));
		int s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &fa, A, 16, (float *)(p + 4096), 16,
			&fb, (float *)(p + 8192), 16);
		const fake_call *c = last_call();
		CHECK(s == 0 && c->A == A && c->handle == h && c->m == 16, "Sgemm %d: status %d or arguments differ", i, s);
		printf("gemm%d getters=%ld\n", 4 + i, getter_calls() - before);
	}
}

/* Convolutions: the second of two alike that cuDNN rejects is answered
 * from what the shim remembers of the first; each call's getters printed. */
static void run_convs(void)
{
	float fa = 1, fb = 0;
	void *h = (void *)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	void *xd = (void *)0x2000, *wd = (void *)0x3000, *cd = (void *)0x4000, *yd = (void *)0x5000;
	set_status(0);
	for (int i = 0; i < 3; i++) {
		long before = getter_calls();
		const void *x = i < 2 ? NULL : p;
		int s = cudnnConvolutionForward((cudnnHandle_t)h, &fa, xd, x, wd, p + 8, cd,
			CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, 0, &fb, yd, p + 24);
		const fake_call *c = last_call();
		CHECK(s == 0 && c->x == x && c->handle == h && c->y == p + 24, "convolution %d: status %d or arguments differ", i, s);
		printf("conv%d getters=%ld\n", i, getter_calls() - before);
	}
}

/* cuDNN's graph API: every call reaches the fake with its own arguments
 * and returns its status; a plan's JSON is read once until its descriptor
 * is destroyed. */
static void run_graph(void)
{
	long (*json_reads)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_graph_json_reads");
	long (*destroys)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_graph_destroys");
	long (*sets)(void) = (long (*)(void))dlsym(RTLD_DEFAULT, "fake_graph_sets");
	/* Not an entry point of the shim: the program linked -lisaac only has none. */
	__typeof__(&cudnnBackendCreateDescriptor) create =
		(__typeof__(&cudnnBackendCreateDescriptor))dlsym(RTLD_DEFAULT, "cudnnBackendCreateDescriptor");
	if (!json_reads || !destroys || !sets || !create) {
		printf("FAIL: fake graph hooks not found\n");
		exit(2);
	}
	void *h = (void *)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	cudnnBackendDescriptor_t plan = NULL, vp = NULL, unset = NULL;
	set_status(0);
	CHECK(create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) == 0, "plan");
	CHECK(create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp) == 0, "variant pack");
	CHECK(create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &unset) == 0, "variant pack");
	int64_t uids[3] = {120, 119, 121};  /* x, w, y */
	void *ptrs[3] = {p, p + 8, p + 24}, *ws = p + 4096;
	long s0 = sets();
	CHECK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids) == 0, "ids");
	CHECK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs) == 0, "pointers");
	CHECK(cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws) == 0, "workspace");
	CHECK(cudnnBackendSetAttribute(NULL, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws) == CUDNN_STATUS_BAD_PARAM,
		"a NULL descriptor: cuDNN's status");
	CHECK(sets() - s0 == 4, "sets reached cuDNN: %ld", sets() - s0);
	for (int i = 0; i < 5; i++) {
		cudnnBackendDescriptor_t v = i == 3 ? unset : vp;
		if (i == 4) {  /* the plan destroyed, and another made (its address may be the old one's) */
			long d0 = destroys();
			CHECK(cudnnBackendDestroyDescriptor(plan) == 0 && destroys() - d0 == 1, "destroy");
			CHECK(create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan) == 0, "plan again");
			set_status(3);
		}
		long before = json_reads();
		int st = cudnnBackendExecute((cudnnHandle_t)h, plan, v);
		const fake_call *c = last_call();
		int want = i == 4 ? 3 + 1000 : 0;
		CHECK(st == want && strcmp(c->fn, "cudnnBackendExecute") == 0 && c->handle == h && c->x_desc == plan && c->w_desc == v,
			"execution %d: status %d or arguments differ", i, st);
		printf("graph%d reads=%ld\n", i, json_reads() - before);
	}
	set_status(0);
	CHECK(cudnnBackendExecute(NULL, plan, vp) == CUDNN_STATUS_BAD_PARAM, "a NULL handle: cuDNN's status");
	/* x NULL, twice: cuDNN's to reject, the second answered from what the
	 * shim remembers of the first. */
	cudnnBackendDescriptor_t nullx = NULL;
	void *nptrs[3] = {NULL, p + 8, p + 24};
	CHECK(create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &nullx) == 0, "variant pack");
	CHECK(cudnnBackendSetAttribute(nullx, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids) == 0 &&
		cudnnBackendSetAttribute(nullx, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, nptrs) == 0, "x NULL");
	for (int i = 0; i < 2; i++) {
		int st = cudnnBackendExecute((cudnnHandle_t)h, plan, nullx);
		const fake_call *c = last_call();
		CHECK(st == 0 && c->x_desc == plan && c->w_desc == nullx, "x NULL %d: status %d or arguments differ", i, st);
	}
	CHECK(cudnnBackendDestroyDescriptor(nullx) == 0, "destroy");
	long d0 = destroys();
	CHECK(cudnnBackendDestroyDescriptor(vp) == 0 && cudnnBackendDestroyDescriptor(unset) == 0 &&
		cudnnBackendDestroyDescriptor(plan) == 0 && destroys() - d0 == 3, "destroys reached cuDNN");
	CHECK(cudnnBackendDestroyDescriptor(NULL) == CUDNN_STATUS_BAD_PARAM, "destroying NULL: cuDNN's status");
}

/* graph_ns: host ns per convolution through the graph API as PyTorch
 * makes one: a variant pack made (the fake's create), its three attributes
 * set, a plan executed on it, the pack destroyed; the plans taken in turn
 * (nplans of them, as a network's layers are), x NULL where nullx. */
static double graph_ns(void **plans, int nplans, int nullx, long n)
{
	__typeof__(&cudnnBackendCreateDescriptor) create =
		(__typeof__(&cudnnBackendCreateDescriptor))dlsym(RTLD_DEFAULT, "cudnnBackendCreateDescriptor");
	void *h = (void *)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	int64_t uids[3] = {120, 119, 121};
	void *ptrs[3] = {nullx ? NULL : p, p + 8, p + 24}, *ws = p + 4096;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++) {
		cudnnBackendDescriptor_t vp = NULL;
		create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
		cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
		cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
		cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
		cudnnBackendExecute((cudnnHandle_t)h, plans[i % nplans], vp);
		cudnnBackendDestroyDescriptor(vp);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / n;
}

/* graph_cost: a plan of a served class (no driver here: asked of Go on
 * every call) and the same plan on x NULL (cuDNN's to reject, answered by
 * the entry point once Go settled it), then GRAPH_PLANS plans on x NULL in
 * turn (a network's layers, each settled), each after a tenth as many
 * untimed. */
#define GRAPH_PLANS 64
static void graph_cost(long n)
{
	__typeof__(&cudnnBackendCreateDescriptor) create =
		(__typeof__(&cudnnBackendCreateDescriptor))dlsym(RTLD_DEFAULT, "cudnnBackendCreateDescriptor");
	void *plans[GRAPH_PLANS];
	set_status(0);
	for (int i = 0; i < GRAPH_PLANS; i++)
		create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plans[i]);
	graph_ns(plans, 1, 0, n / 10);
	double served = graph_ns(plans, 1, 0, n);
	graph_ns(plans, 1, 1, n / 10);
	double settled = graph_ns(plans, 1, 1, n);
	graph_ns(plans, GRAPH_PLANS, 1, n / 10);
	double many = graph_ns(plans, GRAPH_PLANS, 1, n);
	for (int i = 0; i < GRAPH_PLANS; i++)
		cudnnBackendDestroyDescriptor(plans[i]);
	printf("graphcost served_class_ns=%.1f unsupported_ns=%.1f plans%d_ns=%.1f\n", served, settled, GRAPH_PLANS, many);
}

static void *thread_main(void *arg)
{
	int id = (int)(intptr_t)arg;
	float fa = 1, fb = 0;
	for (int i = 0; i < 2000 && failures == 0; i++) {
		void *h = (void *)(uintptr_t)(0x100000 + id * 4096 + i);
		int m = 1 + (i + id) % 97;
		int s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, m, 9, 4, &fa, (float *)h, m,
			(float *)h, 4, &fb, (float *)h, m);
		check_gemm("cublasSgemm_v2", s, 13, h, 0, 0, m, 9, 4, &fa, h, m, h, 4, &fb, h, m,
			-1, -1, -1, -1, -1);
	}
	return NULL;
}

/* graph_thread: 2000 convolutions through the graph API on this thread's
 * plan, as PyTorch makes them; odd threads destroy and remake the plan
 * every 50 (its descriptor freed while other threads' plans and packs come
 * and go). Every call must return the fake's status. */
static void *graph_thread(void *arg)
{
	int id = (int)(intptr_t)arg;
	__typeof__(&cudnnBackendCreateDescriptor) create =
		(__typeof__(&cudnnBackendCreateDescriptor))dlsym(RTLD_DEFAULT, "cudnnBackendCreateDescriptor");
	void *h = (void *)(uintptr_t)(0x200000 + id * 4096);
	char *p = (char *)(uintptr_t)(0x7f0000000000ULL + (uint64_t)id * 0x100000);
	int64_t uids[3] = {120, 119, 121};
	cudnnBackendDescriptor_t plan = NULL;
	create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
	for (int i = 0; i < 2000 && failures == 0; i++) {
		if (id % 2 == 1 && i % 50 == 49) {
			cudnnBackendDestroyDescriptor(plan);
			create(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, &plan);
		}
		void *ptrs[3] = {p + 256 * (i % 7), p + 8, p + 24};
		cudnnBackendDescriptor_t vp = NULL;
		create(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
		int s1 = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
		int s2 = cudnnBackendSetAttribute(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
		int s3 = cudnnBackendExecute((cudnnHandle_t)h, plan, vp);
		int s4 = cudnnBackendDestroyDescriptor(vp);
		CHECK(s1 == 0 && s2 == 0 && s3 == 0 && s4 == 0, "thread %d call %d: statuses %d %d %d %d", id, i, s1, s2, s3, s4);
	}
	cudnnBackendDestroyDescriptor(plan);
	return NULL;
}

/* lt_cost prints the host nanoseconds per cublasLtMatmul call, n calls
 * back to back, of a call of a served class (column-major FP32 with a
 * bias) and of one ISAAC never serves (an FP8 scale pointer set): what the
 * entry point costs on a call it forwards, over the fake's own cost. */
static double lt_ns(const lt_args *a, long n)
{
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		cublasLtMatmul(a->h, a->desc, a->alpha, a->A, a->ad, a->B, a->bd, a->beta, a->C, a->cd,
			a->D, a->dd, a->algo, a->workspace, a->workspace_bytes, a->stream);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n;
}

static void lt_cost(long n)
{
	float fa = 1, fb = 0;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	int m = 4096, k = 4096, t = 16;
	set_status(0);
	cublasLtMatmulDesc_t bias = lt_desc(CUBLAS_OP_T, CUBLAS_OP_N, CUBLASLT_EPILOGUE_BIAS, p + 0x8000000);
	cublasLtMatmulDesc_t scaled = lt_desc(CUBLAS_OP_T, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT, NULL);
	const void *scale = p + 0x9000000;
	CHECK(lt.desc_set(scaled, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale) == 0, "A's scale");
	cublasLtMatrixLayout_t A = lt_layout(CUDA_R_32F, k, m, k, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t B = lt_layout(CUDA_R_32F, k, t, k, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t C = lt_layout(CUDA_R_32F, m, t, m, CUBLASLT_ORDER_COL, 1, 0);
	lt_args a = {(cublasLtHandle_t)(uintptr_t)0x1008, bias, &fa, p, A, p + 0x4000000, B, &fb,
		p + 0x6000000, C, p + 0x6000000, C, NULL, NULL, 0, NULL};
	lt_ns(&a, n / 10); /* the first calls decide */
	double served = lt_ns(&a, n);
	a.desc = scaled;
	lt_ns(&a, n / 10);
	double unsupported = lt_ns(&a, n);
	printf("ltcost served_class_ns=%.1f unsupported_ns=%.1f\n", served, unsupported);
	lt.desc_destroy(bias);
	lt.desc_destroy(scaled);
	lt.layout_destroy(A);
	lt.layout_destroy(B);
	lt.layout_destroy(C);
}

/* Pass-through switched at run time (isaac_passthrough, found with dlsym as
 * a program that does not link -lisaac finds it): the call between the two
 * switches reaches cuBLAS untouched, the others through Go. */
static void run_passthrough(void)
{
	int (*passthrough)(int) = (int (*)(int))dlsym(RTLD_DEFAULT, "isaac_passthrough");
	CHECK(passthrough != NULL, "isaac_passthrough not found: %s", dlerror());
	if (passthrough == NULL)
		return;
	float fa = 1, fb = 0;
	cublasHandle_t h = (cublasHandle_t)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	set_status(0);
	for (int i = 0; i < 3; i++) {
		if (i == 1)
			CHECK(passthrough(1) == 0, "pass-through was on before it was switched on");
		if (i == 2)
			CHECK(passthrough(0) == 1, "pass-through was off before it was switched off");
		long before = getter_calls();
		int s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 16, 16, 16, &fa, (float *)p, 16, (float *)(p + 4096), 16,
			&fb, (float *)(p + 8192), 16);
		const fake_call *c = last_call();
		CHECK(s == 0 && c->A == p && c->handle == h, "Sgemm %d: status %d or arguments differ", i, s);
		printf("pass%d getters=%ld\n", i, getter_calls() - before);
	}
}

/* gemm_cost: host nanoseconds per forwarded call of a served class's Sgemm
 * and of an int8 GemmEx (a type ISAAC does not serve), n calls each after
 * n/10 that decide. */
static double sgemm_ns(cublasHandle_t h, char *p, long n)
{
	float fa = 1, fb = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &fa, (float *)p, 64, (float *)(p + 65536), 64,
			&fb, (float *)(p + 131072), 64);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n;
}

static double int8_ns(cublasHandle_t h, char *p, long n)
{
	int ia = 1, ib = 0;
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < n; i++)
		cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 64, 64, 64, &ia, p, CUDA_R_8I, 64, p + 65536, CUDA_R_8I, 64,
			&ib, p + 131072, CUDA_R_32I, 64, CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	return ((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) / (double)n;
}

static void gemm_cost(long n)
{
	cublasHandle_t h = (cublasHandle_t)(uintptr_t)0x1010;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	set_status(0);
	sgemm_ns(h, p, n / 10);
	double served = sgemm_ns(h, p, n);
	int8_ns(h, p, n / 10);
	double unsupported = int8_ns(h, p, n);
	printf("gemmcost served_class_ns=%.1f unsupported_ns=%.1f\n", served, unsupported);
}

/* lt_settled: a call ISAAC never serves (an FP8 scale pointer set), three
 * times with other matrices and bias of the same alignments, then once
 * with A less aligned: each reaches cuBLASLt with its own arguments. */
static void lt_settled(void)
{
	float fa = 1, fb = 0;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	set_status(0);
	cublasLtMatmulDesc_t d = lt_desc(CUBLAS_OP_T, CUBLAS_OP_N, CUBLASLT_EPILOGUE_DEFAULT, NULL);
	const void *scale = p + 0x9000000;
	CHECK(lt.desc_set(d, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &scale, sizeof scale) == 0, "A's scale");
	cublasLtMatrixLayout_t A = lt_layout(CUDA_R_32F, 64, 32, 64, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t B = lt_layout(CUDA_R_32F, 64, 16, 64, CUBLASLT_ORDER_COL, 1, 0);
	cublasLtMatrixLayout_t C = lt_layout(CUDA_R_32F, 32, 16, 32, CUBLASLT_ORDER_COL, 1, 0);
	for (int i = 0; i < 4; i++) {
		char *q = p + (i + 1) * 0x100000 + (i == 3 ? 4 : 0);
		lt_args a = {(cublasLtHandle_t)(uintptr_t)0x1008, d, &fa, q, A, q + 0x10000, B, &fb,
			q + 0x20000, C, q + 0x20000, C, NULL, NULL, 0, NULL};
		printf("settled%d getters=%ld\n", i, check_lt("a scale pointer", &a, 0));
	}
	lt.desc_destroy(d);
	lt.layout_destroy(A);
	lt.layout_destroy(B);
	lt.layout_destroy(C);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "calls";
	if (strcmp(mode, "novendor") == 0) {
		float a = 1, b = 0;
		int s = cublasSgemm_v2((cublasHandle_t)0x10, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &a, NULL, 2,
			NULL, 2, &b, NULL, 2);
		CHECK(s == CUBLAS_STATUS_NOT_INITIALIZED, "no cuBLAS: status %d", s);
		s = cudnnConvolutionForward((cudnnHandle_t)0x10, &a, NULL, NULL, NULL, NULL, NULL,
			CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, 0, &b, NULL, NULL);
		CHECK(s == CUDNN_STATUS_NOT_INITIALIZED, "no cuDNN: status %d", s);
		/* Descriptors no getter can read: nothing may look at them. */
		s = cublasLtMatmul((cublasLtHandle_t)0x10, (cublasLtMatmulDesc_t)0x20, &a, NULL,
			(cublasLtMatrixLayout_t)0x30, NULL, (cublasLtMatrixLayout_t)0x40, &b, NULL,
			(cublasLtMatrixLayout_t)0x50, NULL, (cublasLtMatrixLayout_t)0x50, NULL, NULL, 0, NULL);
		CHECK(s == CUBLAS_STATUS_NOT_INITIALIZED, "no cuBLASLt: status %d", s);
		printf("%s\n", failures ? "FAILED" : "PASS novendor");
		return failures != 0;
	}
	if (strcmp(mode, "local") == 0) {
		void *lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
		void *ltlib = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_LOCAL);
		void *dnn = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
		if (!lib || !ltlib || !dnn) {
			printf("FAIL: dlopen: %s\n", dlerror());
			return 2;
		}
		if (dlsym(RTLD_DEFAULT, "fake_last_call") != NULL ||
		    dlsym(RTLD_DEFAULT, "fake_lt_getter_calls") != NULL) {
			printf("FAIL: the vendor is in the global scope; this mode needs a local one\n");
			return 2;
		}
		hooks(lib, ltlib);
	} else {
		hooks(RTLD_DEFAULT, RTLD_DEFAULT);
	}

	Dl_info info;
	if (!dladdr((void *)cublasSgemm_v2, &info) || !strstr(info.dli_fname, "libisaac")) {
		printf("FAIL: cublasSgemm_v2 resolves to %s, not libisaac\n", info.dli_fname);
		return 2;
	}
	if (!dladdr((void *)cublasLtMatmul, &info) || !strstr(info.dli_fname, "libisaac")) {
		printf("FAIL: cublasLtMatmul resolves to %s, not libisaac\n", info.dli_fname);
		return 2;
	}

	if (strcmp(mode, "calls") == 0) {
		run_all(1, argc > 2 ? atoi(argv[2]) : 0);
	} else if (strcmp(mode, "local") == 0) {
		run_all(2, 14);
	} else if (strcmp(mode, "invalid") == 0) {
		run_invalid();
	} else if (strcmp(mode, "convs") == 0) {
		run_convs();
	} else if (strcmp(mode, "graph") == 0) {
		run_graph();
	} else if (strcmp(mode, "graphthreads") == 0) {
		set_status(0);
		pthread_t t[8];
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, graph_thread, (void *)(intptr_t)i);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	} else if (strcmp(mode, "graphcost") == 0) {
		graph_cost(argc > 2 ? atol(argv[2]) : 100000);
	} else if (strcmp(mode, "gemmsettled") == 0) {
		run_gemms_settled();
	} else if (strcmp(mode, "lt") == 0) {
		run_lt(argc > 2 && strcmp(argv[2], "nullhandle") == 0);
	} else if (strcmp(mode, "ltsettled") == 0) {
		lt_settled();
	} else if (strcmp(mode, "passthrough") == 0) {
		run_passthrough();
	} else if (strcmp(mode, "gemmcost") == 0) {
		gemm_cost(argc > 2 ? atol(argv[2]) : 200000);
	} else if (strcmp(mode, "ltcost") == 0) {
		lt_cost(argc > 2 ? atol(argv[2]) : 200000);
	} else if (strcmp(mode, "threads") == 0) {
		pthread_t t[8];
		set_status(13);
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	} else if (strcmp(mode, "fork") == 0) {
		run_all(3, 0);
		long getters = getter_calls(), lt_getters = lt.getter_calls();
		pid_t pid = fork();
		if (pid == 0) {
			run_all(4, 7);
			CHECK(getter_calls() == getters, "the forked child ran Go: %ld getter calls, %ld before",
				getter_calls(), getters);
			CHECK(lt.getter_calls() == lt_getters, "the forked child read cuBLASLt descriptors: "
				"%ld getter calls, %ld before", lt.getter_calls(), lt_getters);
			printf("child %s\n", failures ? "FAILED" : "ok");
			fflush(stdout);
			exit(failures != 0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exited with %d", st);
	} else {
		printf("unknown mode %s\n", mode);
		return 2;
	}
	printf("getters=%ld\n", getter_calls());
	printf("lt_getters=%ld\n", lt.getter_calls());
	printf("%s\n", failures ? "FAILED" : "PASS");
	return failures != 0;
}
