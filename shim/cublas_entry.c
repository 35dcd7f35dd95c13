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

/*
 * GEMM_ENTRY is the body of every entry point below, written once:
 *
 *   1. pack the arguments, unchanged, into an isaac_gemm_call record (ENTRY,
 *      the data types, the compute type and ALGO, -1 for the legacy routines,
 *      are the entry's own; the rest are its parameters, by name; BATCH is
 *      more designated initializers: `.batch = 1` for a single GEMM,
 *      ISAAC_STRIDED_BATCH for the strided-batched routines);
 *   2. let Go decide (isaac_decide_gemm): ISAAC_SERVED returns SUCCESS;
 *   3. otherwise call the vendor's function NAME, resolved once, with the
 *      original arguments ARGS and return its status (NOT_INITIALIZED when no
 *      vendor library is found), the thread marked as inside the vendor
 *      (CALL_VENDOR); after a forward with reason
 *      ISAAC_FWD_MEASURING, Go times the vendor's call (isaac_after_gemm).
 *
 * The vendor's function has the entry's own prototype (the tests check it
 * against cublas_api.h), so its pointer type is __typeof__(&NAME).
 */
#define GEMM_ENTRY(NAME, ENTRY, AT, BT, CT, COMPUTE, ALGO, BATCH, ARGS) do {     \
	isaac_gemm_call call = {                                                  \
		.entry = ENTRY, .transa = (int)transa, .transb = (int)transb,    \
		.a_type = (int)(AT), .b_type = (int)(BT), .c_type = (int)(CT),   \
		.compute_type = (int)(COMPUTE), .algo = (int)(ALGO),              \
		.handle = (void *)handle, .m = m, .n = n, .k = k,                 \
		.lda = lda, .ldb = ldb, .ldc = ldc, .alpha = alpha, .beta = beta, \
		.A = A, .B = B, .C = C, BATCH };                                  \
	int reason = isaac_decide_gemm(&call);                                    \
	if (reason == ISAAC_SERVED)                                               \
		return ISAAC_CUBLAS_STATUS_SUCCESS;                               \
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLAS, __typeof__(&NAME), #NAME, vendor)    \
	if (vendor == NULL)                                                       \
		return ISAAC_CUBLAS_STATUS_NOT_INITIALIZED;                       \
	cublasStatus_t status;                                                    \
	CALL_VENDOR(status, vendor ARGS);                                         \
	isaac_after_gemm(&call, reason);                                          \
	return status;                                                            \
} while (0)

/* The strided-batched routines' strides and batch count, by name. */
#define ISAAC_STRIDED_BATCH .stride_a = strideA, .stride_b = strideB,           \
	.stride_c = strideC, .batch = batchCount

ISAAC_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, const float *B, int ldb, const float *beta,
	float *C, int ldc)
{
	GEMM_ENTRY(cublasSgemm_v2, ISAAC_ENTRY_SGEMM,
		ISAAC_R_32F, ISAAC_R_32F, ISAAC_R_32F, ISAAC_COMPUTE_32F, -1, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

ISAAC_EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, const double *B, int ldb, const double *beta,
	double *C, int ldc)
{
	GEMM_ENTRY(cublasDgemm_v2, ISAAC_ENTRY_DGEMM,
		ISAAC_R_64F, ISAAC_R_64F, ISAAC_R_64F, ISAAC_COMPUTE_64F, -1, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

ISAAC_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, const __half *B, int ldb, const __half *beta,
	__half *C, int ldc)
{
	GEMM_ENTRY(cublasHgemm, ISAAC_ENTRY_HGEMM,
		ISAAC_R_16F, ISAAC_R_16F, ISAAC_R_16F, ISAAC_COMPUTE_16F, -1, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

ISAAC_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, const void *B,
	cudaDataType Btype, int ldb, const void *beta, void *C,
	cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo)
{
	GEMM_ENTRY(cublasGemmEx, ISAAC_ENTRY_GEMMEX,
		Atype, Btype, Ctype, computeType, algo, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
		 beta, C, Ctype, ldc, computeType, algo));
}

ISAAC_EXPORT cublasStatus_t cublasSgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, const float *B,
	int64_t ldb, const float *beta, float *C, int64_t ldc)
{
	GEMM_ENTRY(cublasSgemm_v2_64, ISAAC_ENTRY_SGEMM_64,
		ISAAC_R_32F, ISAAC_R_32F, ISAAC_R_32F, ISAAC_COMPUTE_32F, -1, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

ISAAC_EXPORT cublasStatus_t cublasDgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, const double *B,
	int64_t ldb, const double *beta, double *C, int64_t ldc)
{
	GEMM_ENTRY(cublasDgemm_v2_64, ISAAC_ENTRY_DGEMM_64,
		ISAAC_R_64F, ISAAC_R_64F, ISAAC_R_64F, ISAAC_COMPUTE_64F, -1, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

ISAAC_EXPORT cublasStatus_t cublasHgemm_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, const __half *B,
	int64_t ldb, const __half *beta, __half *C, int64_t ldc)
{
	GEMM_ENTRY(cublasHgemm_64, ISAAC_ENTRY_HGEMM_64,
		ISAAC_R_16F, ISAAC_R_16F, ISAAC_R_16F, ISAAC_COMPUTE_16F, -1, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc));
}

ISAAC_EXPORT cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
	void *C, cudaDataType Ctype, int64_t ldc,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	GEMM_ENTRY(cublasGemmEx_64, ISAAC_ENTRY_GEMMEX_64,
		Atype, Btype, Ctype, computeType, algo, .batch = 1,
		(handle, transa, transb, m, n, k, alpha, A, Atype, lda, B, Btype, ldb,
		 beta, C, Ctype, ldc, computeType, algo));
}

ISAAC_EXPORT cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, long long int strideA, const float *B, int ldb,
	long long int strideB, const float *beta, float *C, int ldc,
	long long int strideC, int batchCount)
{
	GEMM_ENTRY(cublasSgemmStridedBatched, ISAAC_ENTRY_SGEMM_STRIDED_BATCHED,
		ISAAC_R_32F, ISAAC_R_32F, ISAAC_R_32F, ISAAC_COMPUTE_32F, -1, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
		 beta, C, ldc, strideC, batchCount));
}

ISAAC_EXPORT cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, long long int strideA, const double *B, int ldb,
	long long int strideB, const double *beta, double *C, int ldc,
	long long int strideC, int batchCount)
{
	GEMM_ENTRY(cublasDgemmStridedBatched, ISAAC_ENTRY_DGEMM_STRIDED_BATCHED,
		ISAAC_R_64F, ISAAC_R_64F, ISAAC_R_64F, ISAAC_COMPUTE_64F, -1, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
		 beta, C, ldc, strideC, batchCount));
}

ISAAC_EXPORT cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, long long int strideA, const __half *B, int ldb,
	long long int strideB, const __half *beta, __half *C, int ldc,
	long long int strideC, int batchCount)
{
	GEMM_ENTRY(cublasHgemmStridedBatched, ISAAC_ENTRY_HGEMM_STRIDED_BATCHED,
		ISAAC_R_16F, ISAAC_R_16F, ISAAC_R_16F, ISAAC_COMPUTE_16F, -1, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
		 beta, C, ldc, strideC, batchCount));
}

ISAAC_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, long long int strideA,
	const void *B, cudaDataType Btype, int ldb, long long int strideB,
	const void *beta, void *C, cudaDataType Ctype, int ldc,
	long long int strideC, int batchCount, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo)
{
	GEMM_ENTRY(cublasGemmStridedBatchedEx, ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX,
		Atype, Btype, Ctype, computeType, algo, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype,
		 ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo));
}

ISAAC_EXPORT cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, long long int strideA,
	const float *B, int64_t ldb, long long int strideB, const float *beta,
	float *C, int64_t ldc, long long int strideC, int64_t batchCount)
{
	GEMM_ENTRY(cublasSgemmStridedBatched_64, ISAAC_ENTRY_SGEMM_STRIDED_BATCHED_64,
		ISAAC_R_32F, ISAAC_R_32F, ISAAC_R_32F, ISAAC_COMPUTE_32F, -1, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
		 beta, C, ldc, strideC, batchCount));
}

ISAAC_EXPORT cublasStatus_t cublasDgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, long long int strideA,
	const double *B, int64_t ldb, long long int strideB, const double *beta,
	double *C, int64_t ldc, long long int strideC, int64_t batchCount)
{
	GEMM_ENTRY(cublasDgemmStridedBatched_64, ISAAC_ENTRY_DGEMM_STRIDED_BATCHED_64,
		ISAAC_R_64F, ISAAC_R_64F, ISAAC_R_64F, ISAAC_COMPUTE_64F, -1, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
		 beta, C, ldc, strideC, batchCount));
}

ISAAC_EXPORT cublasStatus_t cublasHgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, long long int strideA,
	const __half *B, int64_t ldb, long long int strideB, const __half *beta,
	__half *C, int64_t ldc, long long int strideC, int64_t batchCount)
{
	GEMM_ENTRY(cublasHgemmStridedBatched_64, ISAAC_ENTRY_HGEMM_STRIDED_BATCHED_64,
		ISAAC_R_16F, ISAAC_R_16F, ISAAC_R_16F, ISAAC_COMPUTE_16F, -1, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, lda, strideA, B, ldb, strideB,
		 beta, C, ldc, strideC, batchCount));
}

ISAAC_EXPORT cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	long long int strideA, const void *B, cudaDataType Btype, int64_t ldb,
	long long int strideB, const void *beta, void *C, cudaDataType Ctype,
	int64_t ldc, long long int strideC, int64_t batchCount,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo)
{
	GEMM_ENTRY(cublasGemmStridedBatchedEx_64, ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX_64,
		Atype, Btype, Ctype, computeType, algo, ISAAC_STRIDED_BATCH,
		(handle, transa, transb, m, n, k, alpha, A, Atype, lda, strideA, B, Btype,
		 ldb, strideB, beta, C, Ctype, ldc, strideC, batchCount, computeType, algo));
}
