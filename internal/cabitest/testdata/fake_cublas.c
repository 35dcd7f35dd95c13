/*
 * A fake libcublas.so.13: records every GEMM call and returns the status the
 * test asks for; its getters describe the handle (NULL handles are rejected
 * with CUBLAS_STATUS_NOT_INITIALIZED, as cuBLAS does).
 */
#include <string.h>

#include "fake_vendor.h"

static __thread fake_call last;
static long calls, getter_calls;
static int status;

const fake_call *fake_last_call(void) { return &last; }
long fake_getter_calls(void) { return __atomic_load_n(&getter_calls, __ATOMIC_RELAXED); }
long fake_calls(void) { return __atomic_load_n(&calls, __ATOMIC_RELAXED); }
void fake_set_status(int s) { status = s; }
void fake_count_getter(void) { __atomic_fetch_add(&getter_calls, 1, __ATOMIC_RELAXED); }
void fake_record(const fake_call *c) { last = *c; __atomic_fetch_add(&calls, 1, __ATOMIC_RELAXED); }
int fake_status(void) { return status; }

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *s)
{
	fake_count_getter();
	if (handle == NULL)
		return CUBLAS_STATUS_NOT_INITIALIZED;
	*s = (cudaStream_t)((char *)handle + 1);
	return CUBLAS_STATUS_SUCCESS;
}

cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode)
{
	fake_count_getter();
	*mode = CUBLAS_POINTER_MODE_HOST;
	return handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode)
{
	fake_count_getter();
	*mode = CUBLAS_DEFAULT_MATH;
	return handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode)
{
	fake_count_getter();
	*mode = CUBLAS_ATOMICS_NOT_ALLOWED;
	return handle ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED;
}

#define FILL(NAME, AT, BT, CT, COMPUTE, ALGO)                                          \
	memset(&c, 0, sizeof c);                                                       \
	c.fn = NAME; c.handle = handle; c.transa = transa; c.transb = transb;          \
	c.atype = AT; c.btype = BT; c.ctype = CT; c.compute = COMPUTE; c.algo = ALGO;  \
	c.m = m; c.n = n; c.k = k; c.lda = lda; c.ldb = ldb; c.ldc = ldc;              \
	c.alpha = alpha; c.beta = beta; c.A = A; c.B = B; c.C = C

#define RECORD(NAME, AT, BT, CT, COMPUTE, ALGO) do {                                  \
	fake_call c;                                                                   \
	FILL(NAME, AT, BT, CT, COMPUTE, ALGO);                                         \
	fake_record(&c);                                                               \
	return (cublasStatus_t)status;                                                 \
} while (0)

/* A strided-batched call: the GEMM's arguments, its strides and batch count. */
#define RECORD_BATCHED(NAME, AT, BT, CT, COMPUTE, ALGO) do {                          \
	fake_call c;                                                                   \
	FILL(NAME, AT, BT, CT, COMPUTE, ALGO);                                         \
	c.stride_a = strideA; c.stride_b = strideB; c.stride_c = strideC;              \
	c.batch = batchCount;                                                          \
	fake_record(&c);                                                               \
	return (cublasStatus_t)status;                                                 \
} while (0)

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, const float *B, int ldb, const float *beta,
	float *C, int ldc)
{ RECORD("cublasSgemm_v2", -1, -1, -1, -1, -1); }

cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, const double *B, int ldb, const double *beta,
	double *C, int ldc)
{ RECORD("cublasDgemm_v2", -1, -1, -1, -1, -1); }

cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, const __half *B, int ldb, const __half *beta,
	__half *C, int ldc)
{ RECORD("cublasHgemm", -1, -1, -1, -1, -1); }

cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, const void *B,
	cudaDataType Btype, int ldb, const void *beta, void *C,
	cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo)
{ RECORD("cublasGemmEx", Atype, Btype, Ctype, computeType, algo); }

cublasStatus_t cublasSgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, const float *B,
	int64_t ldb, const float *beta, float *C, int64_t ldc)
{ RECORD("cublasSgemm_v2_64", -1, -1, -1, -1, -1); }

cublasStatus_t cublasDgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, const double *B,
	int64_t ldb, const double *beta, double *C, int64_t ldc)
{ RECORD("cublasDgemm_v2_64", -1, -1, -1, -1, -1); }

cublasStatus_t cublasHgemm_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, const __half *B,
	int64_t ldb, const __half *beta, __half *C, int64_t ldc)
{ RECORD("cublasHgemm_64", -1, -1, -1, -1, -1); }

cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
	void *C, cudaDataType Ctype, int64_t ldc,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{ RECORD("cublasGemmEx_64", Atype, Btype, Ctype, computeType, algo); }

cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, long long int strideA, const float *B, int ldb,
	long long int strideB, const float *beta, float *C, int ldc,
	long long int strideC, int batchCount)
{ RECORD_BATCHED("cublasSgemmStridedBatched", -1, -1, -1, -1, -1); }

cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, long long int strideA, const double *B, int ldb,
	long long int strideB, const double *beta, double *C, int ldc,
	long long int strideC, int batchCount)
{ RECORD_BATCHED("cublasDgemmStridedBatched", -1, -1, -1, -1, -1); }

cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, long long int strideA, const __half *B, int ldb,
	long long int strideB, const __half *beta, __half *C, int ldc,
	long long int strideC, int batchCount)
{ RECORD_BATCHED("cublasHgemmStridedBatched", -1, -1, -1, -1, -1); }

cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, long long int strideA,
	const void *B, cudaDataType Btype, int ldb, long long int strideB,
	const void *beta, void *C, cudaDataType Ctype, int ldc,
	long long int strideC, int batchCount, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo)
{ RECORD_BATCHED("cublasGemmStridedBatchedEx", Atype, Btype, Ctype, computeType, algo); }

cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, long long int strideA,
	const float *B, int64_t ldb, long long int strideB, const float *beta,
	float *C, int64_t ldc, long long int strideC, int64_t batchCount)
{ RECORD_BATCHED("cublasSgemmStridedBatched_64", -1, -1, -1, -1, -1); }

cublasStatus_t cublasDgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, long long int strideA,
	const double *B, int64_t ldb, long long int strideB, const double *beta,
	double *C, int64_t ldc, long long int strideC, int64_t batchCount)
{ RECORD_BATCHED("cublasDgemmStridedBatched_64", -1, -1, -1, -1, -1); }

cublasStatus_t cublasHgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, long long int strideA,
	const __half *B, int64_t ldb, long long int strideB, const __half *beta,
	__half *C, int64_t ldc, long long int strideC, int64_t batchCount)
{ RECORD_BATCHED("cublasHgemmStridedBatched_64", -1, -1, -1, -1, -1); }

cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	long long int strideA, const void *B, cudaDataType Btype, int64_t ldb,
	long long int strideB, const void *beta, void *C, cudaDataType Ctype,
	int64_t ldc, long long int strideC, int64_t batchCount,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{ RECORD_BATCHED("cublasGemmStridedBatchedEx_64", Atype, Btype, Ctype, computeType, algo); }
