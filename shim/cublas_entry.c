/*
 * cublas_entry.c: the exported cuBLAS GEMM entry points, with the vendor's
 * exact prototypes. Each one records the call, lets Go decide, and calls the
 * vendor with the original arguments whenever Go does not serve it.
 */
#include "entry.h"

/* Legacy routines take their compute type from the data type. */
#define ISAAC_R_16F 2
#define ISAAC_R_32F 0
#define ISAAC_R_64F 1
#define ISAAC_COMPUTE_16F 64
#define ISAAC_COMPUTE_32F 68
#define ISAAC_COMPUTE_64F 70

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int, int, int, const float *, const float *, int, const float *, int,
	const float *, float *, int);
typedef cublasStatus_t (*dgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int, int, int, const double *, const double *, int, const double *, int,
	const double *, double *, int);
typedef cublasStatus_t (*hgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int, int, int, const __half *, const __half *, int, const __half *, int,
	const __half *, __half *, int);
typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int, int, int, const void *, const void *, cudaDataType, int,
	const void *, cudaDataType, int, const void *, void *, cudaDataType, int,
	cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*sgemm64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int64_t, int64_t, int64_t, const float *, const float *, int64_t, const float *, int64_t,
	const float *, float *, int64_t);
typedef cublasStatus_t (*dgemm64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int64_t, int64_t, int64_t, const double *, const double *, int64_t, const double *, int64_t,
	const double *, double *, int64_t);
typedef cublasStatus_t (*hgemm64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int64_t, int64_t, int64_t, const __half *, const __half *, int64_t, const __half *, int64_t,
	const __half *, __half *, int64_t);
typedef cublasStatus_t (*gemmex64_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t,
	int64_t, int64_t, int64_t, const void *, const void *, cudaDataType, int64_t,
	const void *, cudaDataType, int64_t, const void *, void *, cudaDataType, int64_t,
	cublasComputeType_t, cublasGemmAlgo_t);

#define GEMM_CALL(ENTRY, AT, BT, CT, COMPUTE, ALGO) {                          \
	.entry = ENTRY, .transa = (int)transa, .transb = (int)transb,          \
	.a_type = AT, .b_type = BT, .c_type = CT, .compute_type = (int)COMPUTE, \
	.algo = (int)ALGO, .handle = (void *)handle, .m = m, .n = n, .k = k,  \
	.lda = lda, .ldb = ldb, .ldc = ldc, .alpha = alpha, .beta = beta,      \
	.A = A, .B = B, .C = C }

/* Calls the vendor with the original arguments, after a forward `reason`
 * (ISAAC_FWD_MEASURING: Go times the vendor's call, see isaac_after_gemm). */
#define FORWARD(TYPE, NAME, ...) do {                                             \
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLAS, TYPE, NAME, vendor)                  \
	if (vendor == NULL)                                                       \
		return ISAAC_CUBLAS_STATUS_NOT_INITIALIZED;                       \
	if (reason != ISAAC_FWD_MEASURING)                                        \
		return vendor(__VA_ARGS__);                                       \
	cublasStatus_t status = vendor(__VA_ARGS__);                              \
	isaac_after_gemm(&call, reason);                                          \
	return status;                                                            \
} while (0)

ISAAC_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, const float *B, int ldb, const float *beta,
	float *C, int ldc)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_SGEMM, ISAAC_R_32F, ISAAC_R_32F,
		ISAAC_R_32F, ISAAC_COMPUTE_32F, -1);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(sgemm_fn, "cublasSgemm_v2", handle, transa, transb, m, n, k,
		alpha, A, lda, B, ldb, beta, C, ldc);
}

ISAAC_EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, const double *B, int ldb, const double *beta,
	double *C, int ldc)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_DGEMM, ISAAC_R_64F, ISAAC_R_64F,
		ISAAC_R_64F, ISAAC_COMPUTE_64F, -1);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(dgemm_fn, "cublasDgemm_v2", handle, transa, transb, m, n, k,
		alpha, A, lda, B, ldb, beta, C, ldc);
}

ISAAC_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, const __half *B, int ldb, const __half *beta,
	__half *C, int ldc)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_HGEMM, ISAAC_R_16F, ISAAC_R_16F,
		ISAAC_R_16F, ISAAC_COMPUTE_16F, -1);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(hgemm_fn, "cublasHgemm", handle, transa, transb, m, n, k,
		alpha, A, lda, B, ldb, beta, C, ldc);
}

ISAAC_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, const void *B,
	cudaDataType Btype, int ldb, const void *beta, void *C,
	cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_GEMMEX, (int)Atype, (int)Btype,
		(int)Ctype, computeType, algo);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(gemmex_fn, "cublasGemmEx", handle, transa, transb, m, n, k,
		alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
		computeType, algo);
}

ISAAC_EXPORT cublasStatus_t cublasSgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, const float *B,
	int64_t ldb, const float *beta, float *C, int64_t ldc)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_SGEMM_64, ISAAC_R_32F, ISAAC_R_32F,
		ISAAC_R_32F, ISAAC_COMPUTE_32F, -1);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(sgemm64_fn, "cublasSgemm_v2_64", handle, transa, transb, m, n, k,
		alpha, A, lda, B, ldb, beta, C, ldc);
}

ISAAC_EXPORT cublasStatus_t cublasDgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, const double *B,
	int64_t ldb, const double *beta, double *C, int64_t ldc)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_DGEMM_64, ISAAC_R_64F, ISAAC_R_64F,
		ISAAC_R_64F, ISAAC_COMPUTE_64F, -1);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(dgemm64_fn, "cublasDgemm_v2_64", handle, transa, transb, m, n, k,
		alpha, A, lda, B, ldb, beta, C, ldc);
}

ISAAC_EXPORT cublasStatus_t cublasHgemm_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, const __half *B,
	int64_t ldb, const __half *beta, __half *C, int64_t ldc)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_HGEMM_64, ISAAC_R_16F, ISAAC_R_16F,
		ISAAC_R_16F, ISAAC_COMPUTE_16F, -1);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(hgemm64_fn, "cublasHgemm_64", handle, transa, transb, m, n, k,
		alpha, A, lda, B, ldb, beta, C, ldc);
}

ISAAC_EXPORT cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
	void *C, cudaDataType Ctype, int64_t ldc,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	isaac_gemm_call call = GEMM_CALL(ISAAC_ENTRY_GEMMEX_64, (int)Atype, (int)Btype,
		(int)Ctype, computeType, algo);
	int reason = isaac_decide_gemm(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	FORWARD(gemmex64_fn, "cublasGemmEx_64", handle, transa, transb, m, n, k,
		alpha, A, Atype, lda, B, Btype, ldb, beta, C, Ctype, ldc,
		computeType, algo);
}
