/*
 * edge_cases.cu: invalid and edge-case arguments for every exported entry
 * point. Each row calls the vendor's own function (dlsym on libcublas's,
 * libcublasLt's or libcudnn's handle) on Cv and the exported symbol (the
 * shim under LD_PRELOAD, else the vendor again) on Cs, with the same handle
 * and inputs. The statuses must be equal; where the vendor failed Cs must
 * equal Cv byte for byte, where it computed Cs must match within tolerance
 * (byte for byte on rows marked EXACT: overlapping outputs the shim must
 * forward), and nothing outside the region a call may write (the
 * ldc-strided m×n matrix; every matrix of a strided batch; D of a
 * cublasLtMatmul) may change on either side: not the gaps between a
 * batch's matrices, nor the guard bands around them, nor an out-of-place
 * cublasLtMatmul's C.
 *
 *   nvcc -O2 -std=c++17 -o edge gputest/edge_cases.cu -I<dir of cudnn.h> -lcublasLt -lcublas -lcudnn -ldl -lpthread
 *   ./edge [--csv PATH]              every row except the risky ones
 *   ./edge --row ID                  one row, risky or not
 *   ./edge --list | --list-risky     the row ids
 *   LD_PRELOAD=build/device/libisaac.so ISAAC_POLICY=always ./edge
 *
 * Row ids are <entry>/<row>: sgemm, dgemm, hgemm, gemmex, sgemm64, dgemm64,
 * hgemm64, gemmex64, conv, the strided-batched sgemmsb, dgemmsb, hgemmsb,
 * gemmsbex, sgemmsb64, dgemmsb64, hgemmsb64, gemmsbex64, and lt
 * (cublasLtMatmul); e.g. sgemm/lda-lt-m, gemmex64/algo-f32=99,
 * conv/null-xdesc, gemmsbex/batch-0, lt/null-adesc. The GEMM table's rows
 * run on the strided-batched entry points too (a batch of 3 by default).
 * Risky rows (NULL alpha or beta, NULL cuBLASLt descriptors or operands,
 * which may crash the vendor) run only through --row, one process each.
 * Exit status: 0 all equal, 1 a mismatch, 2 a setup failure or a sticky CUDA
 * error.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <cublas_v2.h>
#include <cublasLt.h>
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
/* Strided batches and cuBLASLt: each operand's first matrix lies GUARD
 * elements or more into its buffer (16-element aligned), far enough that
 * every matrix of the batch (strides may be negative) fits with a guard
 * band of GUARD elements before and after; SB_ELEMS elements (8 bytes each
 * at most) per buffer in all. */
#define SB_ELEMS (1 << 18)
#define GUARD 64
#define HUGE_STRIDE (1LL << 40)
/* cuBLASLt's workspace */
#define LT_WS_BYTES ((size_t)32 << 20)
/* cuBLASLt orders by number (cublasLtOrder_t): ROW, and COL32 (for int8). */
#define ORDER_COL 0
#define ORDER_ROW 1
#define ORDER_COL32 2

enum { E_SGEMM, E_DGEMM, E_HGEMM, E_GEMMEX, E_SGEMM64, E_DGEMM64, E_HGEMM64, E_GEMMEX64,
	E_CONV,
	E_SGEMMSB, E_DGEMMSB, E_HGEMMSB, E_GEMMSBEX, E_SGEMMSB64, E_DGEMMSB64, E_HGEMMSB64, E_GEMMSBEX64,
	E_LT, E_COUNT };
static const char *entry_name[E_COUNT] = {
	"cublasSgemm_v2", "cublasDgemm_v2", "cublasHgemm", "cublasGemmEx",
	"cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasHgemm_64", "cublasGemmEx_64",
	"cudnnConvolutionForward",
	"cublasSgemmStridedBatched", "cublasDgemmStridedBatched", "cublasHgemmStridedBatched",
	"cublasGemmStridedBatchedEx", "cublasSgemmStridedBatched_64", "cublasDgemmStridedBatched_64",
	"cublasHgemmStridedBatched_64", "cublasGemmStridedBatchedEx_64",
	"cublasLtMatmul",
};
static const char *entry_short[E_COUNT] = {
	"sgemm", "dgemm", "hgemm", "gemmex", "sgemm64", "dgemm64", "hgemm64", "gemmex64", "conv",
	"sgemmsb", "dgemmsb", "hgemmsb", "gemmsbex", "sgemmsb64", "dgemmsb64", "hgemmsb64", "gemmsbex64",
	"lt",
};

static int is_sb(int e)
{
	return e >= E_SGEMMSB && e <= E_GEMMSBEX64;
}

/* Which entry points a row applies to. */
#define ON_GEMM 1   /* all sixteen cuBLAS GEMM entry points, plain and strided-batched */
#define ON_S32 2    /* cublasSgemm_v2, cublasSgemmStridedBatched and their _64 forms */
#define ON_EX 4     /* cublasGemmEx, cublasGemmStridedBatchedEx and their _64 forms */
#define ON_CONV 8
#define ON_SB 16    /* the eight strided-batched entry points */
#define ON_SBEX 32  /* cublasGemmStridedBatchedEx and cublasGemmStridedBatchedEx_64 */
#define ON_LT 64    /* cublasLtMatmul */

/* Row flags. */
#define RISKY 1     /* may crash the vendor: only through --row */
#define SWEEP 2     /* part of the f32 algo sweep summarized after the algo rows */
#define ALGO_END 4  /* the entry's last algo row: print the summary after it */
#define EXACT 8     /* where the vendor computed, Cs must equal Cv byte for byte */

/* cuBLASLt's matrices, and the attributes of a layout a row may edit. */
enum { L_A, L_B, L_C, L_D, L_COUNT };
enum { LA_ROWS, LA_COLS, LA_LD, LA_BATCH, LA_STRIDE, LA_ORDER, LA_TYPE, LA_COUNT };

/* One edit of the baseline call: field f takes value v. LAY(x, attr) edits
 * attribute attr of cuBLASLt layout x (after the defaults the other fields
 * give it). */
enum { F_END, F_TA, F_TB, F_M, F_N, F_K, F_LDA, F_LDB, F_LDC, F_ALPHA, F_BETA,
	F_AT, F_BT, F_CT, F_COMPUTE, F_ALGO, F_NULL_HANDLE, F_NULL_ALPHA, F_NULL_BETA,
	F_DEVPTR, F_MATH, F_NAN_C, F_NULL_X, F_BAD_Y, F_NO_WS,
	F_BATCH, F_SA, F_SB, F_SC, F_B_COLS_EQ,
	F_SCALE, F_EPI, F_BIAS, F_OUTPLACE, F_NULL_DESC, F_NULL_PTR,
	F_LAY /* last: F_LAY + x * LA_COUNT + attr */ };
#define LAY(x, attr) ((int)F_LAY + (int)(x) * (int)LA_COUNT + (int)(attr))
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
	int null_x, bad_y, no_ws;  /* convolution; no_ws: cuBLASLt's workspace NULL, 0 too */
	/* strided batches (cuBLASLt: every layout's batch count, A's, B's and
	 * C's and D's strides) */
	int64_t batch, stride_a, stride_b, stride_c;
	int set_sa, set_sb, set_sc;  /* stride given by the row, else packed (ld × columns) */
	int b_cols_eq;               /* every column of B (tb N) equal to its first */
	/* cuBLASLt */
	int scale;      /* scale type, -1: the compute type's */
	int epilogue;   /* cublasLtEpilogue_t */
	int bias;       /* 1 a bias vector, 2 the bias pointer set to NULL, 0 not set */
	int outplace;   /* D in a buffer of its own, apart from C */
	int null_desc;  /* 1 computeDesc, 2 Adesc, 3 Bdesc, 4 Cdesc, 5 Ddesc passed as NULL */
	int null_ptr;   /* 1 A, 2 B, 3 C, 4 D passed as NULL */
	double lay[L_COUNT][LA_COUNT];
	int lay_set[L_COUNT][LA_COUNT];
} args;

#define TYPES(A, B, C, P) {F_AT, A}, {F_BT, B}, {F_CT, C}, {F_COMPUTE, P}
/* A 1×1×1 product, every leading dimension 1 (strides default to 1). */
#define TINY {F_M, 1}, {F_N, 1}, {F_K, 1}, {F_LDA, 1}, {F_LDB, 1}, {F_LDC, 1}
/* cuBLASLt: all four matrices row-major, their leading dimensions the
 * baseline's column counts. */
#define ROW_MAJOR {LAY(L_A, LA_ORDER), ORDER_ROW}, {LAY(L_B, LA_ORDER), ORDER_ROW}, \
	{LAY(L_C, LA_ORDER), ORDER_ROW}, {LAY(L_D, LA_ORDER), ORDER_ROW}, \
	{LAY(L_A, LA_LD), K0}, {LAY(L_B, LA_LD), N0}, {LAY(L_C, LA_LD), N0}, {LAY(L_D, LA_LD), N0}

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
	/* Strided batches (a batch of 3, packed strides, unless edited). */
	{ON_SB, 0, "batch-0", {{F_BATCH, 0}}},
	{ON_SB, 0, "batch-0-lda-lt-m", {{F_BATCH, 0}, {F_LDA, M0 - 1}}},
	{ON_SB, 0, "batch-0-beta-0-nan-c", {{F_BATCH, 0}, {F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_SB, 0, "batch-neg1", {{F_BATCH, -1}}},
	{ON_SB, 0, "batch-neg1-m-zero", {{F_BATCH, -1}, {F_M, 0}}},
	{ON_SB, 0, "batch-1", {{F_BATCH, 1}}},
	{ON_SB, 0, "batch-1-huge-strides", {{F_BATCH, 1}, {F_SA, (double)HUGE_STRIDE},
		{F_SB, (double)HUGE_STRIDE}, {F_SC, (double)HUGE_STRIDE}}},
	{ON_SB, 0, "batch-1-huge-neg-strides", {{F_BATCH, 1}, {F_SA, -(double)HUGE_STRIDE},
		{F_SB, -(double)HUGE_STRIDE}, {F_SC, -(double)HUGE_STRIDE}}},
	{ON_SB, 0, "stride-a-neg", {{F_SA, -(M0 * K0)}}},
	{ON_SB, 0, "stride-b-neg", {{F_SB, -(K0 * N0)}}},
	{ON_SB, 0, "stride-c-neg", {{F_SC, -(M0 * N0)}}},
	{ON_SB, 0, "stride-a-0", {{F_SA, 0}}},
	{ON_SB, 0, "stride-b-0", {{F_SB, 0}}},
	{ON_SB, 0, "stride-ab-0", {{F_SA, 0}, {F_SB, 0}}},
	{ON_SB, 0, "stride-a-1", {{F_SA, 1}}},
	/* C's matrices overlapping (strideC < ldc·n): the shim forwards them, and
	 * each row is one whose result does not depend on the order of writes
	 * (every matrix writes the same values where they overlap, or they do
	 * not overlap element for element). */
	{ON_SB, EXACT, "stride-c-0-beta-0", {{F_SA, 0}, {F_SB, 0}, {F_SC, 0}, {F_BETA, 0}}},
	{ON_SB, EXACT, "c-overlap-col-beta-0", {{F_SA, 0}, {F_SB, 0}, {F_SC, M0}, {F_BETA, 0},
		{F_B_COLS_EQ, 1}}},
	{ON_SB, EXACT, "c-interleaved", {{F_BATCH, 2}, {F_LDC, 2 * M0}, {F_SC, M0}}},
	{ON_SB, EXACT, "c-tight", {{F_LDC, M0 + 4}, {F_SC, (M0 + 4) * N0 - 4}}},
	{ON_SB, 0, "odd-strides", {{F_SA, M0 * K0 + 1}, {F_SB, K0 * N0 + 1}, {F_SC, M0 * N0 + 1}}},
	{ON_SB, 0, "odd-stride-c", {{F_SC, M0 * N0 + 1}}},
	{ON_SB, 0, "gapped-strides", {{F_SA, M0 * K0 + 64}, {F_SB, K0 * N0 + 64}, {F_SC, M0 * N0 + 64}}},
	{ON_SB, 0, "beta-0-nan-c", {{F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_SB, 0, "batch-65535-1x1x1", {TINY, {F_BATCH, 65535}}},
	{ON_SB, 0, "batch-65536-1x1x1", {TINY, {F_BATCH, 65536}}},
	{ON_SB, 0, "batch-70001-1x1x1", {TINY, {F_BATCH, 70001}}},
	{ON_SB, 0, "batch-70001-1x1x1-stride-a-0", {TINY, {F_BATCH, 70001}, {F_SA, 0}}},
	{ON_SB, 0, "batch-70001-1x1x1-beta-0-nan-c", {TINY, {F_BATCH, 70001}, {F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_SBEX, 0, "batch-0-algo-12345", {{F_BATCH, 0}, {F_ALGO, 12345}}},
	{ON_SBEX, 0, "batch-0-atype-999", {{F_BATCH, 0}, {F_AT, 999}}},
	{ON_SBEX, 0, "batch-0-compute-12345", {{F_BATCH, 0}, {F_COMPUTE, 12345}}},
	{ON_SBEX, 0, "f16x3-c32f-odd-strides", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F),
		{F_SA, M0 * K0 + 1}, {F_SB, K0 * N0 + 1}, {F_SC, M0 * N0 + 1}}},
	{ON_SBEX, 0, "f16x3-c16f-odd-stride-c", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F),
		{F_SC, M0 * N0 + 1}}},
	{ON_SBEX, 0, "bf16x3-c32f-stride-b-0", {TYPES(CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F),
		{F_SB, 0}}},
	{ON_SBEX, 0, "bf16x3-c32f-stride-a-neg", {TYPES(CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F),
		{F_SA, -(M0 * K0)}}},
	{ON_SBEX, 0, "f64x3-c64f-stride-c-neg", {TYPES(CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F),
		{F_SC, -(M0 * N0)}}},
	{ON_SBEX, 0, "f32x3-c32f-fast-tf32-odd-strides", {TYPES(CUDA_R_32F, CUDA_R_32F, CUDA_R_32F,
		CUBLAS_COMPUTE_32F_FAST_TF32), {F_SA, M0 * K0 + 1}, {F_SB, K0 * N0 + 1}, {F_SC, M0 * N0 + 1}}},
	{ON_SBEX, 0, "f16.f16.f32-c32f-beta-0-nan-c", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F),
		{F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_SBEX, EXACT, "f16x3-c32f-stride-c-0-beta-0", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F,
		CUBLAS_COMPUTE_32F), {F_SA, 0}, {F_SB, 0}, {F_SC, 0}, {F_BETA, 0}}},
	{ON_SBEX, 0, "f16x3-c32f-batch-70001-1x1x1", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F),
		TINY, {F_BATCH, 70001}}},
	{ON_SBEX, 0, "bf16x3-c32f-batch-neg1", {TYPES(CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F),
		{F_BATCH, -1}}},
	/* cublasLtMatmul: D = alpha·op(A)·op(B) + beta·C (+ bias), C and D one
	 * matrix (in place) unless F_OUTPLACE; algo NULL, a workspace of 32 MiB. */
	{ON_LT, 0, "valid-nn", {}},
	{ON_LT, 0, "valid-tn", {{F_TA, CUBLAS_OP_T}, {F_LDA, K0}}},
	{ON_LT, 0, "valid-nt", {{F_TB, CUBLAS_OP_T}, {F_LDB, N0}}},
	{ON_LT, 0, "valid-tt", {{F_TA, CUBLAS_OP_T}, {F_LDA, K0}, {F_TB, CUBLAS_OP_T}, {F_LDB, N0}}},
	{ON_LT, 0, "valid-f16-c32f", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F)}},
	{ON_LT, 0, "valid-f16-c16f", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_16F)}},
	{ON_LT, 0, "valid-bf16-c32f", {TYPES(CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F)}},
	{ON_LT, 0, "valid-f64-c64f", {TYPES(CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F)}},
	{ON_LT, 0, "valid-f32-fast-tf32", {TYPES(CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F_FAST_TF32)}},
	{ON_LT, 0, "valid-f16.f16.f32-c32f", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_32F, CUBLAS_COMPUTE_32F)}},
	{ON_LT, 0, "row-major", {ROW_MAJOR}},
	{ON_LT, 0, "row-major-tn", {ROW_MAJOR, {F_TA, CUBLAS_OP_T}, {LAY(L_A, LA_LD), M0}}},
	{ON_LT, 0, "row-major-bias", {ROW_MAJOR, {F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "order-mixed-a-row", {{LAY(L_A, LA_ORDER), ORDER_ROW}, {LAY(L_A, LA_LD), K0}}},
	{ON_LT, 0, "order-mixed-d-row", {{LAY(L_D, LA_ORDER), ORDER_ROW}, {LAY(L_D, LA_LD), N0}}},
	{ON_LT, 0, "order-col32", {{LAY(L_A, LA_ORDER), ORDER_COL32}, {LAY(L_B, LA_ORDER), ORDER_COL32},
		{LAY(L_C, LA_ORDER), ORDER_COL32}, {LAY(L_D, LA_ORDER), ORDER_COL32}, {LAY(L_A, LA_LD), 32 * M0},
		{LAY(L_B, LA_LD), 32 * K0}, {LAY(L_C, LA_LD), 32 * M0}, {LAY(L_D, LA_LD), 32 * M0}}},
	{ON_LT, 0, "order-col32-a", {{LAY(L_A, LA_ORDER), ORDER_COL32}, {LAY(L_A, LA_LD), 32 * M0}}},
	{ON_LT, 0, "batch-3", {{F_BATCH, 3}}},
	{ON_LT, 0, "batch-3-stride-a-0", {{F_BATCH, 3}, {F_SA, 0}}},
	{ON_LT, 0, "batch-3-stride-b-0", {{F_BATCH, 3}, {F_SB, 0}}},
	{ON_LT, 0, "batch-3-odd-strides", {{F_BATCH, 3}, {F_SA, M0 * K0 + 1}, {F_SB, K0 * N0 + 1},
		{F_SC, M0 * N0 + 1}}},
	{ON_LT, 0, "batch-3-gapped-strides", {{F_BATCH, 3}, {F_SA, M0 * K0 + 64}, {F_SB, K0 * N0 + 64},
		{F_SC, M0 * N0 + 64}}},
	{ON_LT, 0, "batch-3-stride-a-neg", {{F_BATCH, 3}, {F_SA, -(M0 * K0)}}},
	{ON_LT, 0, "batch-3-stride-c-neg", {{F_BATCH, 3}, {F_SC, -(M0 * N0)}}},
	{ON_LT, EXACT, "batch-3-stride-c-0-beta-0", {{F_BATCH, 3}, {F_SA, 0}, {F_SB, 0}, {F_SC, 0}, {F_BETA, 0}}},
	{ON_LT, EXACT, "batch-2-c-interleaved", {{F_BATCH, 2}, {F_LDC, 2 * M0}, {F_SC, M0}}},
	{ON_LT, 0, "batch-3-row-major", {ROW_MAJOR, {F_BATCH, 3}}},
	{ON_LT, 0, "batch-1-huge-strides", {{F_SA, (double)HUGE_STRIDE}, {F_SB, (double)HUGE_STRIDE},
		{F_SC, (double)HUGE_STRIDE}}},
	{ON_LT, 0, "batch-70001-1x1x1", {TINY, {F_BATCH, 70001}}},
	{ON_LT, 0, "batch-70001-1x1x1-stride-a-0", {TINY, {F_BATCH, 70001}, {F_SA, 0}}},
	{ON_LT, 0, "batch-0", {{F_BATCH, 0}}},
	{ON_LT, 0, "batch-a-2", {{F_BATCH, 3}, {LAY(L_A, LA_BATCH), 2}}},
	{ON_LT, 0, "batch-a-1", {{F_BATCH, 3}, {LAY(L_A, LA_BATCH), 1}}},
	{ON_LT, 0, "batch-b-1", {{F_BATCH, 3}, {LAY(L_B, LA_BATCH), 1}}},
	{ON_LT, 0, "batch-c-2", {{F_BATCH, 3}, {LAY(L_C, LA_BATCH), 2}}},
	{ON_LT, 0, "batch-d-2", {{F_BATCH, 3}, {LAY(L_D, LA_BATCH), 2}}},
	{ON_LT, 0, "a-rows-ne-d-rows", {{LAY(L_A, LA_ROWS), M0 + 1}, {F_LDA, M0 + 1}}},
	{ON_LT, 0, "b-cols-ne-d-cols", {{LAY(L_B, LA_COLS), N0 + 1}}},
	{ON_LT, 0, "a-cols-ne-b-rows", {{LAY(L_A, LA_COLS), K0 + 1}}},
	{ON_LT, 0, "c-rows-ne-d-rows", {{LAY(L_C, LA_ROWS), M0 - 1}}},
	{ON_LT, 0, "c-cols-ne-d-cols-outplace", {{F_OUTPLACE, 1}, {LAY(L_C, LA_COLS), N0 - 1}}},
	{ON_LT, 0, "lda-lt-rows", {{F_LDA, M0 - 1}}},
	{ON_LT, 0, "lda-lt-rows-opT", {{F_TA, CUBLAS_OP_T}, {F_LDA, K0 - 1}}},
	{ON_LT, 0, "ldb-lt-rows", {{F_LDB, K0 - 1}}},
	{ON_LT, 0, "ldc-lt-rows", {{F_LDC, M0 - 1}}},
	{ON_LT, 0, "ldd-lt-rows-outplace", {{F_OUTPLACE, 1}, {LAY(L_D, LA_LD), M0 - 1}}},
	{ON_LT, 0, "inplace-ldd-lt-rows", {{LAY(L_D, LA_LD), M0 - 1}}},
	{ON_LT, 0, "inplace-ldd-gt-ldc", {{LAY(L_D, LA_LD), 2 * M0}}},
	{ON_LT, 0, "inplace-ldc-gt-ldd", {{LAY(L_C, LA_LD), 2 * M0}}},
	{ON_LT, 0, "inplace-d-stride-ne-c", {{F_BATCH, 3}, {LAY(L_D, LA_STRIDE), M0 * N0 + 7}}},
	{ON_LT, 0, "inplace-d-type-f16", {{LAY(L_D, LA_TYPE), CUDA_R_16F}}},
	{ON_LT, 0, "outplace", {{F_OUTPLACE, 1}}},
	{ON_LT, 0, "outplace-ldd-gt-ldc", {{F_OUTPLACE, 1}, {LAY(L_D, LA_LD), 2 * M0}}},
	{ON_LT, 0, "outplace-ldc-gt-ldd", {{F_OUTPLACE, 1}, {LAY(L_C, LA_LD), 2 * M0}}},
	{ON_LT, 0, "outplace-d-row-major", {{F_OUTPLACE, 1}, {LAY(L_D, LA_ORDER), ORDER_ROW}, {LAY(L_D, LA_LD), N0}}},
	{ON_LT, 0, "outplace-d-type-f16", {{F_OUTPLACE, 1}, {LAY(L_D, LA_TYPE), CUDA_R_16F}}},
	{ON_LT, 0, "outplace-batch-3-d-stride-ne-c", {{F_OUTPLACE, 1}, {F_BATCH, 3},
		{LAY(L_D, LA_STRIDE), M0 * N0 + 7}}},
	{ON_LT, 0, "outplace-beta-0-nan-c", {{F_OUTPLACE, 1}, {F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_LT, 0, "outplace-bias", {{F_OUTPLACE, 1}, {F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "ab-types-differ", {{F_BT, CUDA_R_16F}}},
	{ON_LT, 0, "scale-f64", {{F_SCALE, CUDA_R_64F}}},
	{ON_LT, 0, "scale-f16-c32f", {{F_SCALE, CUDA_R_16F}}},
	{ON_LT, 0, "compute-12345", {{F_COMPUTE, 12345}}},
	{ON_LT, 0, "transa-7", {{F_TA, 7}}},
	{ON_LT, 0, "transa-conjg", {{F_TA, 3}, {F_LDA, K0}}},
	{ON_LT, 0, "epilogue-relu", {{F_EPI, CUBLASLT_EPILOGUE_RELU}}},
	{ON_LT, 0, "epilogue-bias", {{F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "epilogue-relu-bias", {{F_EPI, CUBLASLT_EPILOGUE_RELU_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "epilogue-gelu", {{F_EPI, CUBLASLT_EPILOGUE_GELU}}},
	{ON_LT, 0, "epilogue-gelu-bias", {{F_EPI, CUBLASLT_EPILOGUE_GELU_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "epilogue-bias-f16", {TYPES(CUDA_R_16F, CUDA_R_16F, CUDA_R_16F, CUBLAS_COMPUTE_32F),
		{F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "epilogue-bias-batch-3", {{F_BATCH, 3}, {F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "epilogue-bias-null", {{F_EPI, CUBLASLT_EPILOGUE_BIAS}}},
	{ON_LT, 0, "epilogue-bias-null-set", {{F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 2}}},
	{ON_LT, 0, "epilogue-relu-bias-null", {{F_EPI, CUBLASLT_EPILOGUE_RELU_BIAS}}},
	{ON_LT, 0, "epilogue-3", {{F_EPI, 3}}},
	{ON_LT, 0, "epilogue-3-bias", {{F_EPI, 3}, {F_BIAS, 1}}},
	{ON_LT, 0, "k-zero", {{F_K, 0}}},
	{ON_LT, 0, "k-zero-bias", {{F_K, 0}, {F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "k-zero-beta-0-nan-c", {{F_K, 0}, {F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_LT, 0, "m-zero", {{F_M, 0}}},
	{ON_LT, 0, "n-zero", {{F_N, 0}}},
	{ON_LT, 0, "beta-0-nan-c", {{F_BETA, 0}, {F_NAN_C, 1}}},
	{ON_LT, 0, "beta-0-nan-c-relu", {{F_BETA, 0}, {F_NAN_C, 1}, {F_EPI, CUBLASLT_EPILOGUE_RELU}}},
	{ON_LT, 0, "alpha-0", {{F_ALPHA, 0}}},
	{ON_LT, 0, "device-ptr-mode", {{F_DEVPTR, 1}}},
	{ON_LT, 0, "device-ptr-mode-bias", {{F_DEVPTR, 1}, {F_EPI, CUBLASLT_EPILOGUE_BIAS}, {F_BIAS, 1}}},
	{ON_LT, 0, "no-workspace", {{F_NO_WS, 1}}},
	{ON_LT, 0, "null-handle", {{F_NULL_HANDLE, 1}}},  /* last: the vendor's answer is documented, not certain */
	{ON_LT, RISKY, "null-computedesc", {{F_NULL_DESC, 1}}},
	{ON_LT, RISKY, "null-adesc", {{F_NULL_DESC, 2}}},
	{ON_LT, RISKY, "null-bdesc", {{F_NULL_DESC, 3}}},
	{ON_LT, RISKY, "null-cdesc", {{F_NULL_DESC, 4}}},
	{ON_LT, RISKY, "null-ddesc", {{F_NULL_DESC, 5}}},
	{ON_LT, RISKY, "null-a", {{F_NULL_PTR, 1}}},
	{ON_LT, RISKY, "null-b", {{F_NULL_PTR, 2}}},
	{ON_LT, RISKY, "null-c", {{F_NULL_PTR, 3}}},
	{ON_LT, RISKY, "null-c-beta-0", {{F_NULL_PTR, 3}, {F_BETA, 0}}},
	{ON_LT, RISKY, "null-d", {{F_NULL_PTR, 4}}},
	{ON_LT, RISKY, "null-alpha", {{F_NULL_ALPHA, 1}}},
	{ON_LT, RISKY, "null-beta", {{F_NULL_BETA, 1}}},
};

typedef struct {
	int entry, flags;
	char id[64];       /* <entry short>/<slug> */
	const char *slug;  /* points into id */
	edit e[MAX_EDITS];
	long long algo;    /* the algo value of a sweep row */
	int vendor, ran;   /* the vendor's status, once run */
} row;

#define MAX_ROWS 4096
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
/* The strided-batched routines, prototypes named as shim/entry_points.h
 * gives them (cublas_api.h overloads cublasGemmStridedBatchedEx in C++). */
typedef cublasStatus_t (*sgemmsb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const float *, const float *, int, long long int, const float *, int, long long int, const float *,
	float *, int, long long int, int);
typedef cublasStatus_t (*dgemmsb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const double *, const double *, int, long long int, const double *, int, long long int, const double *,
	double *, int, long long int, int);
typedef cublasStatus_t (*hgemmsb_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const __half *, const __half *, int, long long int, const __half *, int, long long int, const __half *,
	__half *, int, long long int, int);
typedef cublasStatus_t (*gemmsbex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const void *, const void *, cudaDataType, int, long long int, const void *, cudaDataType, int,
	long long int, const void *, void *, cudaDataType, int, long long int, int, cublasComputeType_t,
	cublasGemmAlgo_t);
typedef cublasStatus_t (*sgemmsb64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
	int64_t, const float *, const float *, int64_t, long long int, const float *, int64_t, long long int,
	const float *, float *, int64_t, long long int, int64_t);
typedef cublasStatus_t (*dgemmsb64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
	int64_t, const double *, const double *, int64_t, long long int, const double *, int64_t, long long int,
	const double *, double *, int64_t, long long int, int64_t);
typedef cublasStatus_t (*hgemmsb64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
	int64_t, const __half *, const __half *, int64_t, long long int, const __half *, int64_t, long long int,
	const __half *, __half *, int64_t, long long int, int64_t);
typedef cublasStatus_t (*gemmsbex64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int64_t, int64_t,
	int64_t, const void *, const void *, cudaDataType, int64_t, long long int, const void *, cudaDataType,
	int64_t, long long int, const void *, void *, cudaDataType, int64_t, long long int, int64_t,
	cublasComputeType_t, cublasGemmAlgo_t);
static sgemmsb_fn v_cublasSgemmStridedBatched;
static dgemmsb_fn v_cublasDgemmStridedBatched;
static hgemmsb_fn v_cublasHgemmStridedBatched;
static gemmsbex_fn v_cublasGemmStridedBatchedEx;
static sgemmsb64_fn v_cublasSgemmStridedBatched_64;
static dgemmsb64_fn v_cublasDgemmStridedBatched_64;
static hgemmsb64_fn v_cublasHgemmStridedBatched_64;
static gemmsbex64_fn v_cublasGemmStridedBatchedEx_64;
typedef cublasStatus_t (*ltmatmul_fn)(cublasLtHandle_t, cublasLtMatmulDesc_t, const void *, const void *,
	cublasLtMatrixLayout_t, const void *, cublasLtMatrixLayout_t, const void *, const void *,
	cublasLtMatrixLayout_t, void *, cublasLtMatrixLayout_t, const cublasLtMatmulAlgo_t *, void *, size_t,
	cudaStream_t);
static ltmatmul_fn v_cublasLtMatmul;

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
static cublasLtHandle_t lt;
static void *lt_ws;                               /* cuBLASLt's workspace, LT_WS_BYTES */
static unsigned char *dLtCv, *dLtCs, *dBias;      /* device: an out-of-place C twice, a bias vector */
static unsigned char *hLtC0, *hLtCv, *hLtCs;      /* host: the out-of-place C, initial and after */
static unsigned char *hMask, *hBias;              /* host: the region a call may write; the bias */

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
	a.batch = is_sb(entry) ? 3 : 1;
	a.scale = -1;
	a.epilogue = CUBLASLT_EPILOGUE_DEFAULT;
	switch (entry) {
	case E_DGEMM: case E_DGEMM64: case E_DGEMMSB: case E_DGEMMSB64:
		a.atype = a.btype = a.ctype = CUDA_R_64F;
		a.compute = CUBLAS_COMPUTE_64F;
		break;
	case E_HGEMM: case E_HGEMM64: case E_HGEMMSB: case E_HGEMMSB64:
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
		case F_BATCH: a.batch = (int64_t)v; break;
		case F_SA: a.stride_a = (int64_t)v; a.set_sa = 1; break;
		case F_SB: a.stride_b = (int64_t)v; a.set_sb = 1; break;
		case F_SC: a.stride_c = (int64_t)v; a.set_sc = 1; break;
		case F_B_COLS_EQ: a.b_cols_eq = (int)v; break;
		case F_SCALE: a.scale = (int)v; break;
		case F_EPI: a.epilogue = (int)v; break;
		case F_BIAS: a.bias = (int)v; break;
		case F_OUTPLACE: a.outplace = (int)v; break;
		case F_NULL_DESC: a.null_desc = (int)v; break;
		case F_NULL_PTR: a.null_ptr = (int)v; break;
		default:
			if (r->e[i].f >= (int)F_LAY && r->e[i].f < LAY(L_COUNT, 0)) {
				int x = (r->e[i].f - F_LAY) / LA_COUNT, attr = (r->e[i].f - F_LAY) % LA_COUNT;
				a.lay[x][attr] = v;
				a.lay_set[x][attr] = 1;
			}
			break;
		}
	}
	/* Packed strides unless the row gives them: ld × the stored columns
	 * (cuBLASLt's layouts work theirs out from their own order). */
	int64_t acols = a.transa == CUBLAS_OP_N ? a.k : a.m, bcols = a.transb == CUBLAS_OP_N ? a.n : a.k;
	if (!a.set_sa)
		a.stride_a = a.lda * acols;
	if (!a.set_sb)
		a.stride_b = a.ldb * bcols;
	if (!a.set_sc)
		a.stride_c = a.ldc * a.n;
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
	if (e == E_LT)
		return ON_LT;
	int on = ON_GEMM;
	if (e == E_SGEMM || e == E_SGEMM64 || e == E_SGEMMSB || e == E_SGEMMSB64)
		on |= ON_S32;
	if (e == E_GEMMEX || e == E_GEMMEX64 || e == E_GEMMSBEX || e == E_GEMMSBEX64)
		on |= ON_EX;
	if (is_sb(e))
		on |= ON_SB;
	if (e == E_GEMMSBEX || e == E_GEMMSBEX64)
		on |= ON_SBEX;
	return on;
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
	size_t bytes = (size_t)(BUF_ELEMS > SB_ELEMS ? BUF_ELEMS : SB_ELEMS) * 8;
	MUST(cudaMalloc((void **)&dA, bytes));
	MUST(cudaMalloc((void **)&dB, bytes));
	MUST(cudaMalloc((void **)&dCv, bytes));
	MUST(cudaMalloc((void **)&dCs, bytes));
	MUST(cudaMalloc((void **)&dS, 32));
	MUST(cudaMalloc((void **)&dLtCv, bytes));
	MUST(cudaMalloc((void **)&dLtCs, bytes));
	MUST(cudaMalloc((void **)&dBias, 4096 * 8));
	hA = (unsigned char *)malloc(bytes);
	hB = (unsigned char *)malloc(bytes);
	hC0 = (unsigned char *)malloc(bytes);
	hCv = (unsigned char *)malloc(bytes);
	hCs = (unsigned char *)malloc(bytes);
	hLtC0 = (unsigned char *)malloc(bytes);
	hLtCv = (unsigned char *)malloc(bytes);
	hLtCs = (unsigned char *)malloc(bytes);
	hMask = (unsigned char *)malloc(SB_ELEMS);
	hBias = (unsigned char *)malloc(4096 * 8);
	if (!hA || !hB || !hC0 || !hCv || !hCs || !hLtC0 || !hLtCv || !hLtCs || !hMask || !hBias) {
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
	LOAD(lib, cublasSgemmStridedBatched);
	LOAD(lib, cublasDgemmStridedBatched);
	LOAD(lib, cublasHgemmStridedBatched);
	LOAD(lib, cublasGemmStridedBatchedEx);
	LOAD(lib, cublasSgemmStridedBatched_64);
	LOAD(lib, cublasDgemmStridedBatched_64);
	LOAD(lib, cublasHgemmStridedBatched_64);
	LOAD(lib, cublasGemmStridedBatchedEx_64);
	init_buffers();
	MUST(cublasCreate(&blas));
	MUST(cublasSetStream(blas, NULL));
	MUST(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
	MUST(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
}

/* cuBLASLt: the vendor's cublasLtMatmul from libcublasLt (already loaded:
 * this program links it), a handle, the workspace. */
static void init_lt(void)
{
	if (lt)
		return;
	void *lib = dlopen("libcublasLt.so.13", RTLD_NOW | RTLD_NOLOAD);
	if (lib == NULL)
		lib = open_vendor("libcublasLt.so.13", "libcublasLt.so");
	LOAD(lib, cublasLtMatmul);
	init_buffers();
	MUST(cublasLtCreate(&lt));
	MUST(cudaMalloc(&lt_ws, LT_WS_BYTES));
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

static int gemm_sb(int shim, int entry, cublasHandle_t h, const args *a, const void *alpha,
	const void *beta, const void *A, const void *B, void *C)
{
	cublasOperation_t ta = (cublasOperation_t)a->transa, tb = (cublasOperation_t)a->transb;
	int m = (int)a->m, n = (int)a->n, k = (int)a->k;
	int lda = (int)a->lda, ldb = (int)a->ldb, ldc = (int)a->ldc, batch = (int)a->batch;
	long long int sa = (long long int)a->stride_a, sb = (long long int)a->stride_b;
	long long int sc = (long long int)a->stride_c;
	cudaDataType at = (cudaDataType)a->atype, bt = (cudaDataType)a->btype, ct = (cudaDataType)a->ctype;
	cublasComputeType_t compute = (cublasComputeType_t)a->compute;
	cublasGemmAlgo_t algo = (cublasGemmAlgo_t)a->algo;
	switch (entry) {
	case E_SGEMMSB:
		return CALL(cublasSgemmStridedBatched, h, ta, tb, m, n, k, (const float *)alpha, (const float *)A, lda,
			sa, (const float *)B, ldb, sb, (const float *)beta, (float *)C, ldc, sc, batch);
	case E_DGEMMSB:
		return CALL(cublasDgemmStridedBatched, h, ta, tb, m, n, k, (const double *)alpha, (const double *)A,
			lda, sa, (const double *)B, ldb, sb, (const double *)beta, (double *)C, ldc, sc, batch);
	case E_HGEMMSB:
		return CALL(cublasHgemmStridedBatched, h, ta, tb, m, n, k, (const __half *)alpha, (const __half *)A,
			lda, sa, (const __half *)B, ldb, sb, (const __half *)beta, (__half *)C, ldc, sc, batch);
	case E_GEMMSBEX:
		return CALL(cublasGemmStridedBatchedEx, h, ta, tb, m, n, k, alpha, A, at, lda, sa, B, bt, ldb, sb,
			beta, C, ct, ldc, sc, batch, compute, algo);
	case E_SGEMMSB64:
		return CALL(cublasSgemmStridedBatched_64, h, ta, tb, a->m, a->n, a->k, (const float *)alpha,
			(const float *)A, a->lda, sa, (const float *)B, a->ldb, sb, (const float *)beta, (float *)C,
			a->ldc, sc, a->batch);
	case E_DGEMMSB64:
		return CALL(cublasDgemmStridedBatched_64, h, ta, tb, a->m, a->n, a->k, (const double *)alpha,
			(const double *)A, a->lda, sa, (const double *)B, a->ldb, sb, (const double *)beta, (double *)C,
			a->ldc, sc, a->batch);
	case E_HGEMMSB64:
		return CALL(cublasHgemmStridedBatched_64, h, ta, tb, a->m, a->n, a->k, (const __half *)alpha,
			(const __half *)A, a->lda, sa, (const __half *)B, a->ldb, sb, (const __half *)beta, (__half *)C,
			a->ldc, sc, a->batch);
	case E_GEMMSBEX64:
		return CALL(cublasGemmStridedBatchedEx_64, h, ta, tb, a->m, a->n, a->k, alpha, A, at, a->lda, sa, B, bt,
			a->ldb, sb, beta, C, ct, a->ldc, sc, a->batch, compute, algo);
	}
	return -1;
}

static int lt_matmul(int shim, cublasLtHandle_t h, cublasLtMatmulDesc_t desc, const void *alpha,
	const void *A, cublasLtMatrixLayout_t ad, const void *B, cublasLtMatrixLayout_t bd,
	const void *beta, const void *C, cublasLtMatrixLayout_t cd, void *D, cublasLtMatrixLayout_t dd,
	void *work, size_t ws)
{
	const cublasLtMatmulAlgo_t *algo = NULL;  /* cuBLASLt's heuristic chooses */
	return CALL(cublasLtMatmul, h, desc, alpha, A, ad, B, bd, beta, C, cd, D, dd, algo, work, ws,
		(cudaStream_t)0);
}

/* Where a batch of matrices lies in its buffer: its first matrix at element
 * off, count elements used in all (guard bands included). */
typedef struct {
	int64_t off, count;
} placement;

/* batch mr×mc column-major matrices at ld, stride elements apart (a
 * batch of one or none: one matrix, whatever the stride). */
static placement place(int64_t mr, int64_t mc, int64_t ld, int64_t batch, int64_t stride)
{
	int64_t r = mr > 0 ? mr : 0, c = mc > 0 ? mc : 0, l = ld > r ? ld : r;
	int64_t span = r > 0 && c > 0 ? (c - 1) * l + r : 0;
	int64_t lo = 0, hi = span;
	if (batch > 1) {
		int64_t last = (batch - 1) * stride;
		lo = last < 0 ? last : 0;
		hi = (last > 0 ? last : 0) + span;
	}
	placement p;
	p.off = (GUARD - lo + 15) / 16 * 16;
	p.count = p.off + hi + GUARD;
	return p;
}

/* Both of two batches at one offset (cuBLASLt's C and D in place). */
static placement place_both(placement p, placement q)
{
	placement b;
	b.off = p.off > q.off ? p.off : q.off;
	int64_t after = p.count - p.off > q.count - q.off ? p.count - p.off : q.count - q.off;
	b.count = b.off + after;
	return b;
}

static void need(const row *r, placement p)
{
	if (p.count > SB_ELEMS) {
		printf("setup error: %s needs %lld elements of a buffer, more than %d\n", r->id, (long long)p.count,
			SB_ELEMS);
		exit(2);
	}
}

/* hMask[0, count): 1 where an element of one of the batch's mr×mc
 * matrices (column-major at ld, the first at off, stride apart) lies. */
static void mark(int64_t count, int64_t off, int64_t mr, int64_t mc, int64_t ld, int64_t batch, int64_t stride)
{
	memset(hMask, 0, (size_t)count);
	if (mr <= 0 || mc <= 0)
		return;
	for (int64_t b = 0; b < batch; b++)
		for (int64_t j = 0; j < mc; j++) {
			int64_t first = off + b * stride + j * ld;
			for (int64_t i = 0; i < mr; i++)
				if (first + i >= 0 && first + i < count)
					hMask[first + i] = 1;
		}
}

/* Every column of the k×n matrix at h (ld, elements of es bytes) equal to its first. */
static void equal_cols(unsigned char *h, size_t es, int64_t k, int64_t n, int64_t ld)
{
	for (int64_t j = 1; j < n; j++)
		memcpy(h + (size_t)(j * ld) * es, h, (size_t)k * es);
}

/* alpha at byte 0 and beta at byte 16 of scal (32 bytes), of type st; in
 * device memory (dS) when the row says so; NULL where it says so. */
static void scalars(const args *a, int st, unsigned char *scal, const void **alpha, const void **beta)
{
	memset(scal, 0, 32);
	put_elem(scal, st, a->alpha);
	put_elem(scal + 16, st, a->beta);
	*alpha = scal;
	*beta = scal + 16;
	if (a->devptr) {
		MUST(cudaMemcpy(dS, scal, 32, cudaMemcpyHostToDevice));
		*alpha = dS;
		*beta = dS + 16;
	}
	if (a->null_alpha)
		*alpha = NULL;
	if (a->null_beta)
		*beta = NULL;
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
 * mismatch. The region a call may write is mask's 1s (count bytes), else
 * the ld-strided m×n matrix; exact: where the vendor computed, Cs must
 * still equal Cv byte for byte. */
static int check_c(int vendor_ok, int t, size_t count, int64_t m, int64_t n, int64_t ld, double tol,
	const unsigned char *mask, int exact, char *out, size_t len)
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
		if (mask ? !mask[i] : !in_region(i, m, n, ld)) {
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
	if (exact) {
		size_t nd = 0;
		for (size_t i = 0; i < count; i++)
			nd += memcmp(hCs + i * es, hCv + i * es, es) != 0;
		snprintf(out, len, "DIFFERENT (must equal the vendor's bytes; %zu elements differ)", nd);
		return 1;
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
		tolerance(a), NULL, r->flags & EXACT, o->c, sizeof o->c);
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
		NULL, 0, o->c, sizeof o->c);
}

/* A strided batch: every operand's matrices placed in its buffer (place),
 * the region check over every matrix of C's batch (mark). */
static void run_sb(const row *r, const args *a, outcome *o)
{
	size_t ea = elem_size(a->atype), eb = elem_size(a->btype), ec = elem_size(a->ctype);
	int ta_n = a->transa == CUBLAS_OP_N, tb_n = a->transb == CUBLAS_OP_N;
	placement pa = place(ta_n ? a->m : a->k, ta_n ? a->k : a->m, a->lda, a->batch, a->stride_a);
	placement pb = place(tb_n ? a->k : a->n, tb_n ? a->n : a->k, a->ldb, a->batch, a->stride_b);
	placement pc = place(a->m, a->n, a->ldc, a->batch, a->stride_c);
	need(r, pa);
	need(r, pb);
	need(r, pc);
	size_t na = (size_t)pa.count, nb = (size_t)pb.count, nc = (size_t)pc.count;
	fill_buf(hA, a->atype, na, 1, 0);
	fill_buf(hB, a->btype, nb, 2, 0);
	if (a->b_cols_eq && tb_n)
		equal_cols(hB + (size_t)pb.off * eb, eb, a->k, a->n, a->ldb);
	fill_buf(hC0, a->ctype, nc, 3, a->nan_c);
	MUST(cudaMemcpy(dA, hA, na * ea, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dB, hB, nb * eb, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCv, hC0, nc * ec, cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCs, hC0, nc * ec, cudaMemcpyHostToDevice));

	unsigned char scal[32];
	const void *alpha, *beta;
	scalars(a, scalar_type(a->compute), scal, &alpha, &beta);
	if (a->devptr)
		MUST(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_DEVICE));
	if (a->math >= 0)
		MUST(cublasSetMathMode(blas, (cublasMath_t)a->math));
	cublasHandle_t h = a->null_handle ? NULL : blas;
	const void *A = dA + (size_t)pa.off * ea, *B = dB + (size_t)pb.off * eb;

	o->vendor = gemm_sb(0, r->entry, h, a, alpha, beta, A, B, dCv + (size_t)pc.off * ec);
	sync_check(r, "vendor");
	o->shim = gemm_sb(1, r->entry, h, a, alpha, beta, A, B, dCs + (size_t)pc.off * ec);
	sync_check(r, "shim");

	if (a->devptr)
		MUST(cublasSetPointerMode(blas, CUBLAS_POINTER_MODE_HOST));
	if (a->math >= 0)
		MUST(cublasSetMathMode(blas, CUBLAS_DEFAULT_MATH));
	MUST(cudaMemcpy(hCv, dCv, nc * ec, cudaMemcpyDeviceToHost));
	MUST(cudaMemcpy(hCs, dCs, nc * ec, cudaMemcpyDeviceToHost));
	int ok = o->vendor == CUBLAS_STATUS_SUCCESS;
	if (ok)
		mark(pc.count, pc.off, a->m, a->n, a->ldc, a->batch, a->stride_c);
	o->c_bad = check_c(ok, a->ctype, nc, a->m, a->n, a->ldc, tolerance(a), hMask, r->flags & EXACT,
		o->c, sizeof o->c);
}

/* One cuBLASLt matrix layout, as the row sets it. */
typedef struct {
	int64_t rows, cols, ld, batch, stride;
	int order, type;
	int stride_given;  /* the row gives the stride: set even for a batch of one */
} lt_layout;

/* The row's four layouts: A and B stored as op(A) m×k and op(B) k×n need,
 * C and D m×n (D at C's leading dimension), at the row's types, batch
 * count and strides (packed where not given: ld × the columns, ld × the
 * rows row-major), column-major; then the row's LAY edits. */
static void lt_layouts(const args *a, lt_layout *l)
{
	int ta_n = a->transa == CUBLAS_OP_N, tb_n = a->transb == CUBLAS_OP_N;
	memset(l, 0, L_COUNT * sizeof *l);
	l[L_A].rows = ta_n ? a->m : a->k;
	l[L_A].cols = ta_n ? a->k : a->m;
	l[L_A].ld = a->lda;
	l[L_A].type = a->atype;
	l[L_B].rows = tb_n ? a->k : a->n;
	l[L_B].cols = tb_n ? a->n : a->k;
	l[L_B].ld = a->ldb;
	l[L_B].type = a->btype;
	l[L_C].rows = a->m;
	l[L_C].cols = a->n;
	l[L_C].ld = a->ldc;
	l[L_C].type = a->ctype;
	l[L_D] = l[L_C];
	const int set[L_COUNT] = {a->set_sa, a->set_sb, a->set_sc, a->set_sc};
	const int64_t given[L_COUNT] = {a->stride_a, a->stride_b, a->stride_c, a->stride_c};
	for (int x = 0; x < L_COUNT; x++) {
		lt_layout *p = &l[x];
		p->batch = a->batch;
		p->order = ORDER_COL;
		for (int attr = 0; attr < LA_COUNT; attr++) {
			if (!a->lay_set[x][attr])
				continue;
			double v = a->lay[x][attr];
			switch (attr) {
			case LA_ROWS: p->rows = (int64_t)v; break;
			case LA_COLS: p->cols = (int64_t)v; break;
			case LA_LD: p->ld = (int64_t)v; break;
			case LA_BATCH: p->batch = (int64_t)v; break;
			case LA_ORDER: p->order = (int)v; break;
			case LA_TYPE: p->type = (int)v; break;
			default: break;  /* LA_STRIDE, below */
			}
		}
		p->stride = set[x] ? given[x] : p->ld * (p->order == ORDER_ROW ? p->rows : p->cols);
		p->stride_given = set[x];
		if (a->lay_set[x][LA_STRIDE]) {
			p->stride = (int64_t)a->lay[x][LA_STRIDE];
			p->stride_given = 1;
		}
	}
}

/* A layout's batch in its buffer: row-major rows×cols at ld lies as
 * column-major cols×rows (other orders are taken as column-major: the rows
 * that use them are ones cuBLASLt refuses). */
static placement lt_place(const lt_layout *l)
{
	int rm = l->order == ORDER_ROW;
	return place(rm ? l->cols : l->rows, rm ? l->rows : l->cols, l->ld, l->batch, l->stride);
}

static int lt_refused;       /* the row's first descriptor call cuBLASLt refused: its status */
static char lt_refusal[96];  /* and which call */

static void lt_try(cublasStatus_t s, const char *call, const char *what)
{
	if (s != CUBLAS_STATUS_SUCCESS && lt_refused == 0) {
		lt_refused = (int)s;
		snprintf(lt_refusal, sizeof lt_refusal, "%s(%s)", call, what);
	}
}

/* cublasLtMatmul: D's buffers are dCv and dCs (C's too, in place), an
 * out-of-place C is dLtCv and dLtCs and must stay as it was. A row whose
 * descriptors cuBLASLt refuses to build is skipped (it says which call). */
static void run_lt(const row *r, const args *a, outcome *o)
{
	static const char *lay_name[L_COUNT] = {"Adesc", "Bdesc", "Cdesc", "Ddesc"};
	lt_layout l[L_COUNT];
	lt_layouts(a, l);
	size_t es[L_COUNT];
	for (int x = 0; x < L_COUNT; x++)
		es[x] = elem_size(l[x].type);
	placement pa = lt_place(&l[L_A]), pb = lt_place(&l[L_B]), pc = lt_place(&l[L_C]), pd = lt_place(&l[L_D]);
	if (!a->outplace)
		pc = pd = place_both(pc, pd);
	need(r, pa);
	need(r, pb);
	need(r, pc);
	need(r, pd);
	size_t na = (size_t)pa.count, nb = (size_t)pb.count, nc = (size_t)pc.count, nd = (size_t)pd.count;
	fill_buf(hA, l[L_A].type, na, 1, 0);
	fill_buf(hB, l[L_B].type, nb, 2, 0);
	/* D's buffer starts as hC0: in place it is C too, NaN where the row says */
	fill_buf(hC0, l[L_D].type, nd, 3, a->nan_c && !a->outplace);
	MUST(cudaMemcpy(dA, hA, na * es[L_A], cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dB, hB, nb * es[L_B], cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCv, hC0, nd * es[L_D], cudaMemcpyHostToDevice));
	MUST(cudaMemcpy(dCs, hC0, nd * es[L_D], cudaMemcpyHostToDevice));
	if (a->outplace) {
		fill_buf(hLtC0, l[L_C].type, nc, 5, a->nan_c);
		MUST(cudaMemcpy(dLtCv, hLtC0, nc * es[L_C], cudaMemcpyHostToDevice));
		MUST(cudaMemcpy(dLtCs, hLtC0, nc * es[L_C], cudaMemcpyHostToDevice));
	}
	if (a->bias == 1) {
		fill_buf(hBias, l[L_D].type, 4096, 6, 0);
		MUST(cudaMemcpy(dBias, hBias, 4096 * es[L_D], cudaMemcpyHostToDevice));
	}

	/* The descriptors. */
	int scale = a->scale >= 0 ? a->scale : scalar_type(a->compute);
	cublasLtMatmulDesc_t desc = NULL;
	cublasLtMatrixLayout_t lay[L_COUNT] = {NULL, NULL, NULL, NULL};
	lt_refused = 0;
	lt_refusal[0] = '\0';
	cublasStatus_t st = cublasLtMatmulDescCreate(&desc, (cublasComputeType_t)a->compute, (cudaDataType_t)scale);
	lt_try(st, "cublasLtMatmulDescCreate", "computeType, scaleType");
	if (st != CUBLAS_STATUS_SUCCESS)
		desc = NULL;
	if (desc != NULL) {
		int32_t ta = (int32_t)a->transa, tb = (int32_t)a->transb;
		lt_try(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta),
			"cublasLtMatmulDescSetAttribute", "TRANSA");
		lt_try(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb),
			"cublasLtMatmulDescSetAttribute", "TRANSB");
		if (a->epilogue != (int)CUBLASLT_EPILOGUE_DEFAULT) {
			uint32_t epi = (uint32_t)a->epilogue;
			lt_try(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi),
				"cublasLtMatmulDescSetAttribute", "EPILOGUE");
		}
		if (a->bias) {
			const void *bias = a->bias == 1 ? (const void *)dBias : NULL;
			lt_try(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
				"cublasLtMatmulDescSetAttribute", "BIAS_POINTER");
		}
		if (a->devptr) {
			int32_t mode = (int32_t)CUBLASLT_POINTER_MODE_DEVICE;
			lt_try(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &mode, sizeof mode),
				"cublasLtMatmulDescSetAttribute", "POINTER_MODE");
		}
	}
	for (int x = 0; x < L_COUNT; x++) {
		st = cublasLtMatrixLayoutCreate(&lay[x], (cudaDataType)l[x].type, (uint64_t)l[x].rows,
			(uint64_t)l[x].cols, (int64_t)l[x].ld);
		lt_try(st, "cublasLtMatrixLayoutCreate", lay_name[x]);
		if (st != CUBLAS_STATUS_SUCCESS) {
			lay[x] = NULL;
			continue;
		}
		if (l[x].order != ORDER_COL) {
			int32_t order = (int32_t)l[x].order;
			lt_try(cublasLtMatrixLayoutSetAttribute(lay[x], CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order),
				"cublasLtMatrixLayoutSetAttribute ORDER", lay_name[x]);
		}
		if (l[x].batch != 1) {
			int32_t count = (int32_t)l[x].batch;
			lt_try(cublasLtMatrixLayoutSetAttribute(lay[x], CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count,
				sizeof count), "cublasLtMatrixLayoutSetAttribute BATCH_COUNT", lay_name[x]);
		}
		if (l[x].batch != 1 || l[x].stride_given) {
			int64_t stride = l[x].stride;
			lt_try(cublasLtMatrixLayoutSetAttribute(lay[x], CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
				sizeof stride), "cublasLtMatrixLayoutSetAttribute STRIDED_BATCH_OFFSET", lay_name[x]);
		}
	}

	if (lt_refused == 0) {
		unsigned char scal[32];
		const void *alpha, *beta;
		scalars(a, scale, scal, &alpha, &beta);
		const void *A = dA + (size_t)pa.off * es[L_A], *B = dB + (size_t)pb.off * es[L_B];
		void *Dv = dCv + (size_t)pd.off * es[L_D], *Ds = dCs + (size_t)pd.off * es[L_D];
		const void *Cv = a->outplace ? (const void *)(dLtCv + (size_t)pc.off * es[L_C]) : (const void *)Dv;
		const void *Cs = a->outplace ? (const void *)(dLtCs + (size_t)pc.off * es[L_C]) : (const void *)Ds;
		switch (a->null_ptr) {
		case 1: A = NULL; break;
		case 2: B = NULL; break;
		case 3: Cv = Cs = NULL; break;
		case 4: Dv = Ds = NULL; break;
		}
		cublasLtMatmulDesc_t d = a->null_desc == 1 ? NULL : desc;
		cublasLtMatrixLayout_t ld[L_COUNT];
		for (int x = 0; x < L_COUNT; x++)
			ld[x] = a->null_desc == 2 + x ? NULL : lay[x];
		cublasLtHandle_t h = a->null_handle ? NULL : lt;
		void *work = a->no_ws ? NULL : lt_ws;
		size_t ws = a->no_ws ? 0 : LT_WS_BYTES;

		o->vendor = lt_matmul(0, h, d, alpha, A, ld[L_A], B, ld[L_B], beta, Cv, ld[L_C], Dv, ld[L_D], work, ws);
		sync_check(r, "vendor");
		o->shim = lt_matmul(1, h, d, alpha, A, ld[L_A], B, ld[L_B], beta, Cs, ld[L_C], Ds, ld[L_D], work, ws);
		sync_check(r, "shim");
	}

	if (desc != NULL)
		MUST(cublasLtMatmulDescDestroy(desc));
	for (int x = 0; x < L_COUNT; x++)
		if (lay[x] != NULL)
			MUST(cublasLtMatrixLayoutDestroy(lay[x]));
	if (lt_refused != 0) {
		o->skipped = 1;
		snprintf(o->c, sizeof o->c, "skipped: cuBLASLt refused %s (status %d)", lt_refusal, lt_refused);
		return;
	}

	MUST(cudaMemcpy(hCv, dCv, nd * es[L_D], cudaMemcpyDeviceToHost));
	MUST(cudaMemcpy(hCs, dCs, nd * es[L_D], cudaMemcpyDeviceToHost));
	int ok = o->vendor == CUBLAS_STATUS_SUCCESS;
	const lt_layout *dl = &l[L_D];
	if (ok) {
		int rm = dl->order == ORDER_ROW;
		mark(pd.count, pd.off, rm ? dl->cols : dl->rows, rm ? dl->rows : dl->cols, dl->ld, dl->batch,
			dl->stride);
	}
	args t = *a;
	t.ctype = dl->type;  /* the tolerance of D's type */
	o->c_bad = check_c(ok, dl->type, nd, 0, 0, 0, tolerance(&t), hMask, r->flags & EXACT, o->c, sizeof o->c);
	if (a->outplace) {
		size_t cb = nc * es[L_C];
		MUST(cudaMemcpy(hLtCv, dLtCv, cb, cudaMemcpyDeviceToHost));
		MUST(cudaMemcpy(hLtCs, dLtCs, cb, cudaMemcpyDeviceToHost));
		int vw = memcmp(hLtCv, hLtC0, cb) != 0, sw = memcmp(hLtCs, hLtC0, cb) != 0;
		if (vw || sw) {
			size_t len = strlen(o->c);
			snprintf(o->c + len, sizeof o->c - len, "; input C CHANGED (vendor %s, shim %s)",
				vw ? "wrote it" : "did not", sw ? "wrote it" : "did not");
			o->c_bad = 1;
		}
	}
}

static void run_row(row *r, outcome *o)
{
	args a = make_args(r);
	memset(o, 0, sizeof *o);
	if (r->entry == E_CONV) {
		init_cudnn();
		run_conv(r, &a, o);
	} else if (r->entry == E_LT) {
		init_lt();
		run_lt(r, &a, o);
	} else if (is_sb(r->entry)) {
		init_cublas();
		run_sb(r, &a, o);
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
	init_lt();
	if (dladdr((void *)cublasLtMatmul, &shim) && dladdr((void *)v_cublasLtMatmul, &vendor))
		printf("# exported cublasLtMatmul: %s; vendor: %s\n", shim.dli_fname, vendor.dli_fname);
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
