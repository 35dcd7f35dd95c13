/*
 * edge_cases.cu: invalid and edge-case arguments for every exported entry
 * point. Each row calls the vendor's own function (dlsym on libcublas's or
 * libcudnn's handle) on Cv and the exported symbol (the shim under
 * LD_PRELOAD, else the vendor again) on Cs, with the same handle and inputs.
 * The statuses must be equal; where the vendor failed Cs must equal Cv byte
 * for byte, where it computed Cs must match within tolerance, and nothing
 * outside the ldc-strided m×n region may change on either side.
 *
 *   nvcc -O2 -o edge gputest/edge_cases.cu -I<dir of cudnn.h> -lcublas -lcudnn -ldl -lpthread
 *   ./edge [--csv PATH]              every row except the risky ones
 *   ./edge --row ID                  one row, risky or not
 *   ./edge --list | --list-risky     the row ids
 *   LD_PRELOAD=build/device/libisaac.so ISAAC_POLICY=always ./edge
 *
 * Row ids are <entry>/<row>: sgemm, dgemm, hgemm, gemmex, sgemm64, dgemm64,
 * hgemm64, gemmex64, conv; e.g. sgemm/lda-lt-m, gemmex64/algo-f32=99,
 * conv/null-xdesc. Risky rows (NULL alpha or beta, which may crash the
 * vendor) run only through --row, one process each.
 * Exit status: 0 all equal, 1 a mismatch, 2 a setup failure or a sticky CUDA
 * error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cublas_v2.h>
#include <cudnn.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A setup step that must succeed: exit 2, unlike a mismatch (exit 1). */
#define MUST(x) do { int e_ = (int)(x); if (e_) { printf("setup error %d at %s:%d\n", e_, __FILE__, __LINE__); exit(2); } } while (0)

/* Baseline GEMM: C(m×n) = alpha·A(m×k)·B(k×n) + beta·C, column-major. */
#define M0 33
#define N0 17
#define K0 9
/* Elements per buffer, 8 bytes each at most: no row reads out of bounds. */
#define BUF_ELEMS (256 * 256 + 4096)
/* Convolution: x 1×3×8×8, w 4×3×3×3, y 1×4×8×8 (1×4×7×7 for the bad row). */
#define X_ELEMS 192
#define W_ELEMS 108
#define Y_ELEMS 4096
#define Y_REGION 256
#define Y_BAD_REGION 196

enum { E_SGEMM, E_DGEMM, E_HGEMM, E_GEMMEX, E_SGEMM64, E_DGEMM64, E_HGEMM64, E_GEMMEX64,
	E_CONV, E_COUNT };
static const char *entry_name[E_COUNT] = {
	"cublasSgemm_v2", "cublasDgemm_v2", "cublasHgemm", "cublasGemmEx",
	"cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasHgemm_64", "cublasGemmEx_64",
	"cudnnConvolutionForward",
};
static const char *entry_short[E_COUNT] = {
	"sgemm", "dgemm", "hgemm", "gemmex", "sgemm64", "dgemm64", "hgemm64", "gemmex64", "conv",
};

/* Which entry points a row applies to. */
#define ON_GEMM 1  /* all eight GEMM entry points */
#define ON_S32 2   /* cublasSgemm_v2 and cublasSgemm_v2_64 */
#define ON_EX 4    /* cublasGemmEx and cublasGemmEx_64 */
#define ON_CONV 8

/* Row flags. */
#define RISKY 1     /* may crash the vendor: only through --row */
#define SWEEP 2     /* part of the f32 algo sweep summarized after the algo rows */
#define ALGO_END 4  /* the entry's last algo row: print the summary after it */

/* One edit of the baseline call: field f takes value v. */
enum { F_END, F_TA, F_TB, F_M, F_N, F_K, F_LDA, F_LDB, F_LDC, F_ALPHA, F_BETA,
	F_AT, F_BT, F_CT, F_COMPUTE, F_ALGO, F_NULL_HANDLE, F_NULL_ALPHA, F_NULL_BETA,
	F_DEVPTR, F_MATH, F_NAN_C, F_NULL_X, F_BAD_Y, F_NO_WS };
typedef struct {
	int f;
	double v;
} edit;
#define MAX_EDITS 14

/* The arguments of one call, after the row's edits. */
typedef struct {
	int transa, transb;
	int64_t m, n, k, lda, ldb, ldc;
	int atype, btype, ctype, compute, algo;
	double alpha, beta;
	int null_handle, null_alpha, null_beta;
	int devptr;  /* alpha and beta in device memory */
	int math;    /* cublasMath_t for the row, -1: leave the handle's */
	int nan_c;   /* C starts as NaN */
	int null_x, bad_y, no_ws;  /* convolution */
} args;

#define TYPES(A, B, C, P) {F_AT, A}, {F_BT, B}, {F_CT, C}, {F_COMPUTE, P}

/* Rows, in order; the GemmEx algo sweep is generated in build_rows. */
static const struct spec {
	int on, flags;
	const char *slug;
	edit e[MAX_EDITS];
} specs[] = {
	{ON_GEMM, 0, "valid-nn", {}},
	{ON_GEMM, 0, "valid-tn", {{F_TA, CUBLAS_OP_T}, {F_LDA, K0}}},
	{ON_GEMM, 0, "valid-nt", {{F_TB, CUBLAS_OP_T}, {F_LDB, N0}}},
	{ON_GEMM, 0, "m-neg", {{F_M, -1}}},
	{ON_GEMM, 0, "n-neg", {{F_N, -1}}},
	{ON_GEMM, 0, "k-neg", {{F_K, -1}}},
	{ON_GEMM, 0, "m-zero", {{F_M, 0}}},
	{ON_GEMM, 0, "n-zero", {{F_N, 0}}},
	{ON_GEMM, 0, "k-zero-beta-0.5", {{F_K, 0}}},
	{ON_GEMM, 0, "k-zero-beta-0-nan-c", {{F_K, 0}, {F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_GEMM, 0, "k-zero-beta-1", {{F_K, 0}, {F_BETA, 1}}},
	{ON_GEMM, 0, "lda-lt-m", {{F_LDA, M0 - 1}}},
	{ON_GEMM, 0, "lda-lt-k-opT", {{F_TA, CUBLAS_OP_T}, {F_LDA, K0 - 1}}},
	{ON_GEMM, 0, "ldb-lt-k", {{F_LDB, K0 - 1}}},
	{ON_GEMM, 0, "ldb-lt-n-opT", {{F_TB, CUBLAS_OP_T}, {F_LDB, N0 - 1}}},
	{ON_GEMM, 0, "ldc-lt-m", {{F_LDC, M0 - 1}}},
	{ON_GEMM, 0, "lda-zero-m-zero", {{F_M, 0}, {F_LDA, 0}}},
	{ON_GEMM, 0, "transa-conjg", {{F_TA, 3}}},
	{ON_GEMM, 0, "transa-7", {{F_TA, 7}}},
	{ON_GEMM, 0, "transb-neg1", {{F_TB, -1}}},
	{ON_GEMM, 0, "null-handle", {{F_NULL_HANDLE, 1}}},
	{ON_GEMM, 0, "device-ptr-mode", {{F_DEVPTR, 1}}},
	{ON_S32, 0, "math-tf32", {{F_MATH, CUBLAS_TF32_TENSOR_OP_MATH}}},
	{ON_S32, 0, "math-pedantic", {{F_MATH, CUBLAS_PEDANTIC_MATH}}},
	{ON_EX, 0, "f16x3-c16f", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F)}},
	{ON_EX, 0, "f16x3-c32f", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F)}},
	{ON_EX, 0, "bf16x3-c32f", {TYPES(CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F)}},
	{ON_EX, 0, "bf16x3-c16f", {TYPES(CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_16F)}},
	{ON_EX, 0, "f32x3-c32f-fast-tf32", {TYPES(CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32)}},
	{ON_EX, 0, "f32x3-c32f-pedantic", {TYPES(CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_PEDANTIC)}},
	{ON_EX, 0, "f32x3-c16f", {TYPES(CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_16F)}},
	{ON_EX, 0, "f16.f16.f32-c32f", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F)}},
	{ON_EX, 0, "f64x3-c32f", {TYPES(CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_32F)}},
	{ON_EX, 0, "f64x3-c64f", {TYPES(CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F)}},
	{ON_EX, 0, "i8.i8.i32-c32i", {TYPES(CUDA_R_8I, CUDA_R_8I, CUDA_R_32I, CUBLAS_COMPUTE_32I),
		{F_M, 32}, {F_N, 16}, {F_K, 8}, {F_LDA, 32}, {F_LDB, 8}, {F_LDC, 32},
		{F_ALPHA, 2}, {F_BETA, 1}}},
	{ON_EX, 0, "compute-12345", {{F_COMPUTE, 12345}}},
	{ON_EX, 0, "atype-999", {{F_AT, 999}}},
	{ON_GEMM, RISKY, "null-alpha", {{F_NULL_ALPHA, 1}}},
	{ON_GEMM, RISKY, "null-beta", {{F_NULL_BETA, 1}}},
	{ON_CONV, 0, "valid-algo0", {}},
	{ON_CONV, 0, "valid-beta-0.5", {{F_BETA, 0.5}}},
	{ON_CONV, 0, "null-handle", {{F_NULL_HANDLE, 1}}},
	{ON_CONV, 0, "null-xdesc", {{F_NULL_X, 1}}},
	{ON_CONV, 0, "ydesc-1x4x7x7", {{F_BAD_Y, 1}}},
	{ON_CONV, 0, "algo-1234", {{F_ALGO, 1234}}},
	{ON_CONV, 0, "null-workspace", {{F_NO_WS, 1}}},
	{ON_CONV, RISKY, "null-alpha", {{F_NULL_ALPHA, 1}}},
	{ON_CONV, RISKY, "null-beta", {{F_NULL_BETA, 1}}},
};

typedef struct {
	int entry, flags;
	char id[64];       /* <entry short>/<slug> */
	const char *slug;  /* points into id */
	edit e[MAX_EDITS];
	long long algo;    /* the algo value of a sweep row */
	int vendor, ran;   /* the vendor's status, once run */
} row;

#define MAX_ROWS 1024
static row rows[MAX_ROWS];
static int nrows;

typedef struct {
	int vendor, shim;
	int c_bad, skipped;
	char c[128];
} outcome;

/* The vendor's functions, looked up in its own library. */
static decltype(&cublasSgemm_v2) v_cublasSgemm_v2;
static decltype(&cublasDgemm_v2) v_cublasDgemm_v2;
static decltype(&cublasHgemm) v_cublasHgemm;
/* cublas_api.h overloads cublasGemmEx and cublasGemmEx_64 in C++ (a
 * cudaDataType compute type, deprecated): name the prototype. */
typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const void *, const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
	cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*gemmex64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
	int64_t, const void *, const void *, cudaDataType, int64_t, const void *, cudaDataType, int64_t, const void *,
	void *, cudaDataType, int64_t, cublasComputeType_t, cublasGemmAlgo_t);
static gemmex_fn v_cublasGemmEx;
static decltype(&cublasSgemm_v2_64) v_cublasSgemm_v2_64;
static decltype(&cublasDgemm_v2_64) v_cublasDgemm_v2_64;
static decltype(&cublasHgemm_64) v_cublasHgemm_64;
static gemmex64_fn v_cublasGemmEx_64;
static decltype(&cudnnConvolutionForward) v_cudnnConvolutionForward;

/* F through the vendor (shim == 0) or the exported symbol (shim == 1). */
#define CALL(F, ...) (shim ? F(__VA_ARGS__) : v_##F(__VA_ARGS__))
#define LOAD(lib, F) do { \
	v_##F = (decltype(v_##F))dlsym(lib, #F); \
	if (v_##F == NULL) { printf("setup error: no %s in the vendor library\n", #F); exit(2); } \
} while (0)

static cublasHandle_t blas;
static cudnnHandle_t dnn;
static cudnnTensorDescriptor_t xdesc, ydesc, ydesc_bad;
static cudnnFilterDescriptor_t wdesc;
static cudnnConvolutionDescriptor_t cdesc;
static unsigned char *dA, *dB, *dCv, *dCs, *dS;   /* device: A (x), B (w), C (y) twice, scalars */
static unsigned char *hA, *hB, *hC0, *hCv, *hCs;  /* host: inputs, initial C, results */

static size_t elem_size(int t)
{
	switch (t) {
	case CUDA_R_16F: case CUDA_R_16BF: return 2;
	case CUDA_R_8I: return 1;
	case CUDA_R_64F: return 8;
	default: return 4;  /* CUDA_R_32F, CUDA_R_32I, and unknown types */
	}
}

static void put_elem(unsigned char *p, int t, double v)
{
	switch (t) {
	case CUDA_R_64F: memcpy(p, &v, 8); break;
	case CUDA_R_16F: { __half x = __float2half((float)v); memcpy(p, &x, 2); break; }
	case CUDA_R_16BF: { __nv_bfloat16 x = __float2bfloat16((float)v); memcpy(p, &x, 2); break; }
	case CUDA_R_8I: { int8_t x = (int8_t)v; memcpy(p, &x, 1); break; }
	case CUDA_R_32I: { int32_t x = (int32_t)v; memcpy(p, &x, 4); break; }
	default: { float x = (float)v; memcpy(p, &x, 4); break; }
	}
}

static double get_elem(const unsigned char *p, int t)
{
	switch (t) {
	case CUDA_R_64F: { double x; memcpy(&x, p, 8); return x; }
	case CUDA_R_16F: { __half x; memcpy(&x, p, 2); return __half2float(x); }
	case CUDA_R_16BF: { __nv_bfloat16 x; memcpy(&x, p, 2); return __bfloat162float(x); }
	case CUDA_R_8I: { int8_t x; memcpy(&x, p, 1); return x; }
	case CUDA_R_32I: { int32_t x; memcpy(&x, p, 4); return x; }
	default: { float x; memcpy(&x, p, 4); return x; }
	}
}

/* count values of type t: multiples of 1/8 in [-1, 1] (exact in every
 * format), integers in [-8, 8] for integer types, or NaN where poisoned. */
static void fill_buf(unsigned char *h, int t, size_t count, unsigned seed, int poison)
{
	int integer = t == CUDA_R_8I || t == CUDA_R_32I;
	size_t es = elem_size(t);
	srand(seed);
	for (size_t i = 0; i < count; i++) {
		int q = rand() % 17 - 8;
		put_elem(h + i * es, t, integer ? (double)q : poison ? (double)NAN : q / 8.0);
	}
}

/* The scalar type cuBLAS expects for a compute type. */
static int scalar_type(int compute)
{
	switch (compute) {
	case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC: return CUDA_R_16F;
	case CUBLAS_COMPUTE_64F: case CUBLAS_COMPUTE_64F_PEDANTIC: return CUDA_R_64F;
	case CUBLAS_COMPUTE_32I: case CUBLAS_COMPUTE_32I_PEDANTIC: return CUDA_R_32I;
	default: return CUDA_R_32F;
	}
}

/* Normwise relative tolerance: the looser of the output type's and the
 * compute type's (TF32 through the compute type or the handle's math mode). */
static double tolerance(const args *a)
{
	double t, p;
	switch (a->ctype) {
	case CUDA_R_64F: t = 1e-12; break;
	case CUDA_R_16F: t = 1e-2; break;
	case CUDA_R_16BF: t = 2e-2; break;
	case CUDA_R_32I: t = 0; break;
	default: t = 1e-5; break;
	}
	switch (a->compute) {
	case CUBLAS_COMPUTE_16F: case CUBLAS_COMPUTE_16F_PEDANTIC: p = 1e-2; break;
	case CUBLAS_COMPUTE_32F_FAST_TF32: p = 5e-3; break;
	case CUBLAS_COMPUTE_32F: case CUBLAS_COMPUTE_32F_PEDANTIC: p = 1e-5; break;
	default: p = 0; break;
	}
	if (a->math == CUBLAS_TF32_TENSOR_OP_MATH)
		p = fmax(p, 5e-3);
	return fmax(t, p);
}

static args baseline(int entry)
{
	args a;
	memset(&a, 0, sizeof a);
	a.transa = CUBLAS_OP_N;
	a.transb = CUBLAS_OP_N;
	a.m = M0; a.n = N0; a.k = K0;
	a.lda = M0; a.ldb = K0; a.ldc = M0;
	a.alpha = 1.25; a.beta = 0.5;
	a.algo = CUBLAS_GEMM_DEFAULT;
	a.math = -1;
	a.atype = a.btype = a.ctype = CUDA_R_32F;
	a.compute = CUBLAS_COMPUTE_32F;
	switch (entry) {
	case E_DGEMM: case E_DGEMM64:
		a.atype = a.btype = a.ctype = CUDA_R_64F;
		a.compute = CUBLAS_COMPUTE_64F;
		break;
	case E_HGEMM: case E_HGEMM64:
		a.atype = a.btype = a.ctype = CUDA_R_16F;
		a.compute = CUBLAS_COMPUTE_16F;
		break;
	case E_CONV:
		a.algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
		a.alpha = 1; a.beta = 0;
		break;
	}
	return a;
}

static args make_args(const row *r)
{
	args a = baseline(r->entry);
	for (int i = 0; i < MAX_EDITS && r->e[i].f != F_END; i++) {
		double v = r->e[i].v;
		switch (r->e[i].f) {
		case F_TA: a.transa = (int)v; break;
		case F_TB: a.transb = (int)v; break;
		case F_M: a.m = (int64_t)v; break;
		case F_N: a.n = (int64_t)v; break;
		case F_K: a.k = (int64_t)v; break;
		case F_LDA: a.lda = (int64_t)v; break;
		case F_LDB: a.ldb = (int64_t)v; break;
		case F_LDC: a.ldc = (int64_t)v; break;
		case F_ALPHA: a.alpha = v; break;
		case F_BETA: a.beta = v; break;
		case F_AT: a.atype = (int)v; break;
		case F_BT: a.btype = (int)v; break;
		case F_CT: a.ctype = (int)v; break;
		case F_COMPUTE: a.compute = (int)v; break;
		case F_ALGO: a.algo = (int)v; break;
		case F_NULL_HANDLE: a.null_handle = (int)v; break;
		case F_NULL_ALPHA: a.null_alpha = (int)v; break;
		case F_NULL_BETA: a.null_beta = (int)v; break;
		case F_DEVPTR: a.devptr = (int)v; break;
		case F_MATH: a.math = (int)v; break;
		case F_NAN_C: a.nan_c = (int)v; break;
		case F_NULL_X: a.null_x = (int)v; break;
		case F_BAD_Y: a.bad_y = (int)v; break;
		case F_NO_WS: a.no_ws = (int)v; break;
		}
	}
	return a;
}

static row *add_row(int entry, int flags, const char *slug, const edit *e, int ne)
{
	if (nrows == MAX_ROWS) {
		printf("setup error: more than %d rows\n", MAX_ROWS);
		exit(2);
	}
	row *r = &rows[nrows++];
	memset(r, 0, sizeof *r);
	r->entry = entry;
	r->flags = flags;
	snprintf(r->id, sizeof r->id, "%s/%s", entry_short[entry], slug);
	r->slug = r->id + strlen(entry_short[entry]) + 1;
	for (int i = 0; i < ne && i < MAX_EDITS; i++)
		r->e[i] = e[i];
	return r;
}

static void add_algo(int entry, int flags, const char *tag, int type, int compute, long long v)
{
	edit e[5] = {{F_AT, (double)type}, {F_BT, (double)type}, {F_CT, (double)type},
		{F_COMPUTE, (double)compute}, {F_ALGO, (double)v}};
	char slug[48];
	snprintf(slug, sizeof slug, "algo-%s=%lld", tag, v);
	add_row(entry, flags, slug, e, 5)->algo = v;
}

static int entry_on(int e)
{
	if (e == E_CONV)
		return ON_CONV;
	return ON_GEMM | (e == E_SGEMM || e == E_SGEMM64 ? ON_S32 : 0) |
		(e == E_GEMMEX || e == E_GEMMEX64 ? ON_EX : 0);
}

/* Per entry point: the table's rows, the algo rows (GemmEx), then the risky rows. */
static void build_rows(void)
{
	static const long long sweep_extra[] = {999, 1000, 12345, INT_MIN, INT_MAX};
	static const long long algo_few[] = {-2, -1, 0, 23, 24, 98, 99, 100, 115, 116, 12345};
	for (int e = 0; e < E_COUNT; e++) {
		int on = entry_on(e);
		for (int risky = 0; risky < 2; risky++) {
			for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
				const struct spec *s = &specs[i];
				if ((s->on & on) && ((s->flags & RISKY) != 0) == risky)
					add_row(e, s->flags, s->slug, s->e, MAX_EDITS);
			}
			if (risky || !(on & ON_EX))
				continue;
			for (long long v = -3; v <= 130; v++)
				add_algo(e, SWEEP, "f32", CUDA_R_32F, CUBLAS_COMPUTE_32F, v);
			for (size_t i = 0; i < sizeof sweep_extra / sizeof sweep_extra[0]; i++)
				add_algo(e, SWEEP, "f32", CUDA_R_32F, CUBLAS_COMPUTE_32F, sweep_extra[i]);
			for (size_t i = 0; i < sizeof algo_few / sizeof algo_few[0]; i++)
				add_algo(e, 0, "f16", CUDA_R_16F, CUBLAS_COMPUTE_32F, algo_few[i]);
			for (size_t i = 0; i < sizeof algo_few / sizeof algo_few[0]; i++)
				add_algo(e, 0, "f64", CUDA_R_64F, CUBLAS_COMPUTE_64F, algo_few[i]);
			rows[nrows - 1].flags |= ALGO_END;
		}
	}
}

static void *open_vendor(const char *name, const char *fallback)
{
	void *lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL)
		lib = dlopen(fallback, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		printf("setup error: dlopen %s: %s\n", name, dlerror());
		exit(2);
	}
	return lib;
}

static void init_buffers(void)
{
	if (dA)
		return;
	size_t bytes = (size_t)BUF_ELEMS * 8;
	MUST(cudaMalloc((void **)&dA, bytes));
	MUST(cudaMalloc((void **)&dB, bytes));
	MUST(cudaMalloc((void **)&dCv, bytes));
	MUST(cudaMalloc((void **)&dCs, bytes));
	MUST(cudaMalloc((void **)&dS, 32));
	hA = (unsigned char *)malloc(bytes);
	hB = (unsigned char *)malloc(bytes);
	hC0 = (unsigned char *)malloc(bytes);
	hCv = (unsigned char *)malloc(bytes);
	hCs = (unsigned char *)malloc(bytes);
	if (!hA || !hB || !hC0 || !hCv || !hCs) {
		printf("setup error: out of host memory\n");
		exit(2);
	}
}

static void init_cublas(void)
{
	if (blas)
		return;
	void *lib = open_vendor("libcublas.so.13", "libcublas.so");
	LOAD(lib, cublasSgemm_v2);
	LOAD(lib, cublasDgemm_v2);
	LOAD(lib, cublasHgemm);
	LOAD(lib, cublasGemmEx);
	LOAD(lib, cublasSgemm_v2_64);
	LOAD(lib, cublasDgemm_v2_64);
	LOAD(lib, cublasHgemm_64);
	LOAD(lib, cublasGemmEx_64);
	init_buffers();
	MUST(cublasCreate(&blas));
	MUST(cublasSetStream(blas, NULL));
	MUST(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
	MUST(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
}

static void init_cudnn(void)
{
	if (dnn)
		return;
	void *lib = open_vendor("libcudnn.so.9", "libcudnn.so");
	LOAD(lib, cudnnConvolutionForward);
	init_buffers();
	MUST(cudnnCreate(&dnn));
	MUST(cudnnCreateTensorDescriptor(&xdesc));
	MUST(cudnnCreateTensorDescriptor(&ydesc));
	MUST(cudnnCreateTensorDescriptor(&ydesc_bad));
	MUST(cudnnCreateFilterDescriptor(&wdesc));
	MUST(cudnnCreateConvolutionDescriptor(&cdesc));
	MUST(cudnnSetTensor4dDescriptor(xdesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 3, 8, 8));
	MUST(cudnnSetFilter4dDescriptor(wdesc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, 4, 3, 3, 3));
	MUST(cudnnSetConvolution2dDescriptor(cdesc, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	MUST(cudnnSetTensor4dDescriptor(ydesc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 8, 8));
	MUST(cudnnSetTensor4dDescriptor(ydesc_bad, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, 1, 4, 7, 7));
}

/* After one side's call: a sticky error stops the program, another is reported. */
static void sync_check(const row *r, const char *side)
{
	cudaError_t e = cudaDeviceSynchronize();
	cudaError_t last = cudaGetLastError();
	if (e == cudaSuccess)
		e = last;
	if (e == cudaSuccess)
		return;
	if (cudaDeviceSynchronize() != cudaSuccess || cudaGetLastError() != cudaSuccess) {
		printf("%s: sticky CUDA error %d (%s) after the %s call; stopping\n", r->id, (int)e,
			cudaGetErrorString(e), side);
		exit(2);
	}
	printf("note: %s: CUDA error %d (%s) after the %s call, not sticky\n", r->id, (int)e,
		cudaGetErrorString(e), side);
}

static int gemm(int shim, int entry, cublasHandle_t h, const args *a, const void *alpha,
	const void *beta, void *C)
{
	cublasOperation_t ta = (cublasOperation_t)a->transa, tb = (cublasOperation_t)a->transb;
	int m = (int)a->m, n = (int)a->n, k = (int)a->k;
	int lda = (int)a->lda, ldb = (int)a->ldb, ldc = (int)a->ldc;
	cudaDataType at = (cudaDataType)a->atype, bt = (cudaDataType)a->btype, ct = (cudaDataType)a->ctype;
	cublasComputeType_t compute = (cublasComputeType_t)a->compute;
	cublasGemmAlgo_t algo = (cublasGemmAlgo_t)a->algo;
	switch (entry) {
	case E_SGEMM:
		return CALL(cublasSgemm_v2, h, ta, tb, m, n, k, (const float *)alpha, (const float *)dA, lda,
			(const float *)dB, ldb, (const float *)beta, (float *)C, ldc);
	case E_DGEMM:
		return CALL(cublasDgemm_v2, h, ta, tb, m, n, k, (const double *)alpha, (const double *)dA, lda,
			(const double *)dB, ldb, (const double *)beta, (double *)C, ldc);
	case E_HGEMM:
		return CALL(cublasHgemm, h, ta, tb, m, n, k, (const __half *)alpha, (const __half *)dA, lda,
			(const __half *)dB, ldb, (const __half *)beta, (__half *)C, ldc);
	case E_GEMMEX:
		return CALL(cublasGemmEx, h, ta, tb, m, n, k, alpha, dA, at, lda, dB, bt, ldb, beta, C, ct, ldc,
			compute, algo);
	case E_SGEMM64:
		return CALL(cublasSgemm_v2_64, h, ta, tb, a->m, a->n, a->k, (const float *)alpha, (const float *)dA,
			a->lda, (const float *)dB, a->ldb, (const float *)beta, (float *)C, a->ldc);
	case E_DGEMM64:
		return CALL(cublasDgemm_v2_64, h, ta, tb, a->m, a->n, a->k, (const double *)alpha, (const double *)dA,
			a->lda, (const double *)dB, a->ldb, (const double *)beta, (double *)C, a->ldc);
	case E_HGEMM64:
		return CALL(cublasHgemm_64, h, ta, tb, a->m, a->n, a->k, (const __half *)alpha, (const __half *)dA,
			a->lda, (const __half *)dB, a->ldb, (const __half *)beta, (__half *)C, a->ldc);
	case E_GEMMEX64:
		return CALL(cublasGemmEx_64, h, ta, tb, a->m, a->n, a->k, alpha, dA, at, a->lda, dB, bt, a->ldb,
			beta, C, ct, a->ldc, compute, algo);
	}
	return -1;
}

static int conv(int shim, cudnnHandle_t h, const void *alpha, cudnnTensorDescriptor_t x,
	cudnnConvolutionFwdAlgo_t algo, void *work, size_t ws, const void *beta,
	cudnnTensorDescriptor_t y, void *out)
{
	return CALL(cudnnConvolutionForward, h, alpha, x, dA, wdesc, dB, cdesc, algo, work, ws, beta, y, out);
}

/* Whether element i lies in the ld-strided m×n region a call may write. */
static int in_region(size_t i, int64_t m, int64_t n, int64_t ld)
{
	if (m <= 0 || n <= 0)
		return 0;
	if (ld < m)
		return (int64_t)i < (n - 1) * ld + m;
	return (int64_t)i / ld < n && (int64_t)i % ld < m;
}

/* Compares the vendor's result (hCv) and the exported symbol's (hCs) with
 * each other and the initial bytes (hC0); says what in out, returns 1 on a
 * mismatch. */
static int check_c(int vendor_ok, int t, size_t count, int64_t m, int64_t n, int64_t ld, double tol,
	char *out, size_t len)
{
	size_t es = elem_size(t), bytes = count * es;
	if (!vendor_ok) {
		if (memcmp(hCs, hCv, bytes) != 0) {
			size_t nd = 0;
			for (size_t i = 0; i < count; i++)
				nd += memcmp(hCs + i * es, hCv + i * es, es) != 0;
			snprintf(out, len, "DIFFERENT (vendor failed; %zu elements differ from the vendor's)", nd);
			return 1;
		}
		snprintf(out, len, "%s", memcmp(hCv, hC0, bytes) ? "same (vendor touched C)" : "untouched");
		return 0;
	}
	size_t vout = 0, sout = 0, nan_bad = 0;
	double maxv = 0, maxd = 0;
	for (size_t i = 0; i < count; i++) {
		const unsigned char *c0 = hC0 + i * es, *cv = hCv + i * es, *cs = hCs + i * es;
		if (!in_region(i, m, n, ld)) {
			vout += memcmp(cv, c0, es) != 0;
			sout += memcmp(cs, c0, es) != 0;
			continue;
		}
		double v = get_elem(cv, t), s = get_elem(cs, t);
		if (isnan(v) || isnan(s)) {
			nan_bad += isnan(v) != isnan(s);
			continue;
		}
		maxv = fmax(maxv, fabs(v));
		if (v != s)
			maxd = fmax(maxd, fabs(s - v));
	}
	if (vout || sout) {
		snprintf(out, len, "TOUCHED-OUTSIDE (vendor %zu, shim %zu elements)", vout, sout);
		return 1;
	}
	if (memcmp(hCs, hCv, bytes) == 0) {
		snprintf(out, len, "%s", memcmp(hCv, hC0, bytes) ? "same" : "untouched");
		return 0;
	}
	if (nan_bad) {
		snprintf(out, len, "DIFFERENT (NaN on one side only, %zu elements)", nan_bad);
		return 1;
	}
	double err = maxd / fmax(maxv, 1e-30);
	if (err <= tol) {
		snprintf(out, len, "within tol (err=%.3g)", err);
		return 0;
	}
	snprintf(out, len, "DIFFERENT (err=%.3g, tol %.3g)", err, tol);
	return 1;
}

static void run_gemm(const row *r, const args *a, outcome *o)
{
	size_t ea = elem_size(a->atype), eb = elem_size(a->btype), ec = elem_size(a->ctype);
	fill_buf(hA, a->atype, BUF_ELEMS, 1, 0);
	fill_buf(hB, a->btype, BUF_ELEMS, 2, 0);
	fill_buf(hC0, a->ctype, BUF_ELEMS, 3, a->nan_c);
	MUST(cudaMemcpy(dA, hA, BUF_ELEMS * ea, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dB, hB, BUF_ELEMS * eb, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCv, hC0, BUF_ELEMS * ec, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCs, hC0, BUF_ELEMS * ec, cudaMemcpyHostToDevice));

	/* alpha at byte 0, beta at byte 16, in the compute type's scalar type */
	unsigned char scal[32];
	int st = scalar_type(a->compute);
	memset(scal, 0, sizeof scal);
	put_elem(scal, st, a->alpha);
	put_elem(scal + 16, st, a->beta);
	const void *alpha = scal, *beta = scal + 16;
	if (a->devptr) {
		MUST(cudaMemcpy(dS, scal, sizeof scal, cudaMemcpyHostToDevice));
		alpha = dS;
		beta = dS + 16;
		MUST(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE));
	}
	if (a->null_alpha)
		alpha = NULL;
	if (a->null_beta)
		beta = NULL;
	if (a->math >= 0)
		MUST(cublasSetMathMode(blas, (cublasMath_t)a->math));
	cublasHandle_t h = a->null_handle ? NULL : blas;

	o->vendor = gemm(0, r->entry, h, a, alpha, beta, dCv);
	sync_check(r, "vendor");
	o->shim = gemm(1, r->entry, h, a, alpha, beta, dCs);
	sync_check(r, "shim");

	if (a->devptr)
		MUST(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
	if (a->math >= 0)
		MUST(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
	MUST(cudaMemcpy(hCv, dCv, BUF_ELEMS * ec, cudaMemcpyDeviceToHost));
	MUST(cudaMemcpy(hCs, dCs, BUF_ELEMS * ec, cudaMemcpyDeviceToHost));
	o->c_bad = check_c(o->vendor == CUBLAS_STATUS_SUCCESS, a->ctype, BUF_ELEMS, a->m, a->n, a->ldc,
		tolerance(a), o->c, sizeof o->c);
}

static void run_conv(const row *r, const args *a, outcome *o)
{
	fill_buf(hA, CUDA_R_32F, X_ELEMS, 1, 0);
	fill_buf(hB, CUDA_R_32F, W_ELEMS, 2, 0);
	fill_buf(hC0, CUDA_R_32F, Y_ELEMS, 3, 0);
	MUST(cudaMemcpy(dA, hA, X_ELEMS * 4, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dB, hB, W_ELEMS * 4, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCv, hC0, Y_ELEMS * 4, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCs, hC0, Y_ELEMS * 4, cudaMemcpyHostToDevice));

	/* The workspace is sized on the valid descriptors for the row's algo. */
	cudnnConvolutionFwdAlgo_t algo = (cudnnConvolutionFwdAlgo_t)a->algo;
	size_t ws = 0;
	void *work = NULL;
	if (a->no_ws) {
		static const cudnnConvolutionFwdAlgo_t need[] = {
			CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM, CUDNN_CONVOLUTION_FWD_ALGO_GEMM,
			CUDNN_CONVOLUTION_FWD_ALGO_FFT, CUDNN_CONVOLUTION_FWD_ALGO_FFT_TILING,
			CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD_NONFUSED, CUDNN_CONVOLUTION_FWD_ALGO_WINOGRAD,
		};
		size_t want = 0;
		for (size_t i = 0; i < sizeof need / sizeof need[0] && want == 0; i++) {
			size_t s = 0;
			if (cudnnGetConvolutionForwardWorkspaceSize(dnn, xdesc, wdesc, cdesc, ydesc, need[i], &s) ==
					CUDNN_STATUS_SUCCESS && s > 0) {
				algo = need[i];
				want = s;
			}
		}
		if (want == 0) {
			o->skipped = 1;
			snprintf(o->c, sizeof o->c, "skipped: no algorithm queried needs a workspace here");
			return;
		}
		printf("note: %s: algo %d needs %zu bytes of workspace; passing NULL, 0\n", r->id, (int)algo, want);
	} else if (cudnnGetConvolutionForwardWorkspaceSize(dnn, xdesc, wdesc, cdesc, ydesc, algo, &ws) !=
			CUDNN_STATUS_SUCCESS) {
		ws = 0;
	}
	if (ws)
		MUST(cudaMalloc(&work, ws));
	float fa = (float)a->alpha, fb = (float)a->beta;
	const void *alpha = a->null_alpha ? NULL : &fa, *beta = a->null_beta ? NULL : &fb;
	cudnnHandle_t h = a->null_handle ? NULL : dnn;
	cudnnTensorDescriptor_t x = a->null_x ? NULL : xdesc, y = a->bad_y ? ydesc_bad : ydesc;

	o->vendor = conv(0, h, alpha, x, algo, work, ws, beta, y, dCv);
	sync_check(r, "vendor");
	o->shim = conv(1, h, alpha, x, algo, work, ws, beta, y, dCs);
	sync_check(r, "shim");

	if (work)
		MUST(cudaFree(work));
	MUST(cudaMemcpy(hCv, dCv, Y_ELEMS * 4, cudaMemcpyDeviceToHost));
	MUST(cudaMemcpy(hCs, dCs, Y_ELEMS * 4, cudaMemcpyDeviceToHost));
	int64_t region = a->bad_y ? Y_BAD_REGION : Y_REGION;
	o->c_bad = check_c(o->vendor == CUDNN_STATUS_SUCCESS, CUDA_R_32F, Y_ELEMS, region, 1, region, 1e-5,
		o->c, sizeof o->c);
}

static void run_row(row *r, outcome *o)
{
	args a = make_args(r);
	memset(o, 0, sizeof *o);
	if (r->entry == E_CONV) {
		init_cudnn();
		run_conv(r, &a, o);
	} else {
		init_cublas();
		run_gemm(r, &a, o);
	}
	r->vendor = o->vendor;
	r->ran = !o->skipped;
}

/* The algo values the vendor accepted on the entry's f32 sweep, as ranges. */
static void print_algos(int entry)
{
	long long val[MAX_ROWS];
	int ok[MAX_ROWS], cnt = 0;
	for (int i = 0; i < nrows; i++) {
		const row *r = &rows[i];
		if (r->entry != entry || !(r->flags & SWEEP) || !r->ran)
			continue;
		int j = cnt++;
		for (; j > 0 && val[j - 1] > r->algo; j--) {
			val[j] = val[j - 1];
			ok[j] = ok[j - 1];
		}
		val[j] = r->algo;
		ok[j] = r->vendor == CUBLAS_STATUS_SUCCESS;
	}
	char buf[4096];
	size_t len = 0;
	buf[0] = '\0';
	for (int i = 0; i < cnt && len < sizeof buf; ) {
		if (!ok[i]) {
			i++;
			continue;
		}
		int j = i;
		/* a range never starts below 0: -1,0-23 rather than -1-23 */
		while (val[i] >= 0 && j + 1 < cnt && ok[j + 1] && val[j + 1] == val[j] + 1)
			j++;
		len += snprintf(buf + len, sizeof buf - len, "%s%lld", len ? "," : "", val[i]);
		if (j > i && len < sizeof buf)
			len += snprintf(buf + len, sizeof buf - len, "-%lld", val[j]);
		i = j + 1;
	}
	printf("cuBLAS accepts cublasGemmAlgo_t values: %s (%s)\n", len ? buf : "none", entry_name[entry]);
}

/* Where the exported symbol and the vendor's function come from. */
static void print_origin(void)
{
	Dl_info shim, vendor;
	init_cublas();
	if (dladdr((void *)cublasSgemm_v2, &shim) && dladdr((void *)v_cublasSgemm_v2, &vendor))
		printf("# exported cublasSgemm_v2: %s; vendor: %s\n", shim.dli_fname, vendor.dli_fname);
}

static void usage(void)
{
	printf("usage: edge [--csv PATH] [--row ID] [--list] [--list-risky]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	const char *csv_path = NULL, *only = NULL;
	int list = 0, list_risky = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--csv") == 0 && i + 1 < argc)
			csv_path = argv[++i];
		else if (strcmp(argv[i], "--row") == 0 && i + 1 < argc)
			only = argv[++i];
		else if (strcmp(argv[i], "--list") == 0)
			list = 1;
		else if (strcmp(argv[i], "--list-risky") == 0)
			list_risky = 1;
		else
			usage();
	}
	setvbuf(stdout, NULL, _IOLBF, 0);  /* lines survive a crash in the vendor */
	build_rows();
	if (list || list_risky) {
		for (int i = 0; i < nrows; i++)
			if (list || (rows[i].flags & RISKY))
				printf("%s\n", rows[i].id);
		return 0;
	}
	FILE *csv = NULL;
	if (csv_path) {
		if ((csv = fopen(csv_path, "w")) == NULL) {
			perror(csv_path);
			return 2;
		}
		fprintf(csv, "entry,row,vendor_status,shim_status,c_check\n");
	}
	if (!only)
		print_origin();

	int n = 0, status_bad = 0, c_bad = 0, found = 0;
	for (int i = 0; i < nrows; i++) {
		row *r = &rows[i];
		if (only ? strcmp(r->id, only) != 0 : (r->flags & RISKY) != 0)
			continue;
		found = 1;
		outcome o;
		run_row(r, &o);
		if (o.skipped) {
			printf("%-24s  %-24s  %s\n", entry_name[r->entry], r->slug, o.c);
			continue;
		}
		n++;
		status_bad += o.vendor != o.shim;
		c_bad += o.c_bad;
		printf("%-24s  %-24s  vendor=%d  shim=%d  C=%s\n", entry_name[r->entry], r->slug, o.vendor, o.shim, o.c);
		if (csv) {
			fprintf(csv, "%s,\"%s\",%d,%d,\"%s\"\n", entry_name[r->entry], r->slug, o.vendor, o.shim, o.c);
			fflush(csv);
		}
		if ((r->flags & ALGO_END) && !only)
			print_algos(r->entry);
	}
	if (only && !found) {
		printf("no row %s (--list prints the ids)\n", only);
		return 2;
	}
	if (!only)
		printf("edge cases: %d rows, %d status mismatches, %d C mismatches\n", n, status_bad, c_bad);
	if (csv)
		fclose(csv);
	return status_bad || c_bad ? 1 : 0;
}
