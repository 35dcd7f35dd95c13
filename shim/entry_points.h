/*
 * entry_points.h: the exported entry points, with the vendor's exact
 * prototypes (cuBLAS 13 cublas_api.h and cublasLt.h, cuDNN 9 cudnn_cnn.h). The tests compile
 * this header next to the vendor's declarations, in C and in C++ (where two
 * extern "C" declarations with different parameters are an error), so any
 * difference fails the build of the check.
 */
#ifndef ISAAC_ENTRY_POINTS_H
#define ISAAC_ENTRY_POINTS_H

#include "vendor_types.h"

#ifndef ISAAC_EXPORT
#define ISAAC_EXPORT __attribute__((visibility("default")))
#endif

ISAAC_EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, const float *B, int ldb, const float *beta,
	float *C, int ldc);

ISAAC_EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, const double *B, int ldb, const double *beta,
	double *C, int ldc);

ISAAC_EXPORT cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, const __half *B, int ldb, const __half *beta,
	__half *C, int ldc);

ISAAC_EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, const void *B,
	cudaDataType Btype, int ldb, const void *beta, void *C,
	cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo);

ISAAC_EXPORT cublasStatus_t cublasSgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, const float *B,
	int64_t ldb, const float *beta, float *C, int64_t ldc);

ISAAC_EXPORT cublasStatus_t cublasDgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, const double *B,
	int64_t ldb, const double *beta, double *C, int64_t ldc);

ISAAC_EXPORT cublasStatus_t cublasHgemm_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, const __half *B,
	int64_t ldb, const __half *beta, __half *C, int64_t ldc);

ISAAC_EXPORT cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
	void *C, cudaDataType Ctype, int64_t ldc,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo);

ISAAC_EXPORT cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, long long int strideA, const float *B, int ldb,
	long long int strideB, const float *beta, float *C, int ldc,
	long long int strideC, int batchCount);

ISAAC_EXPORT cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, long long int strideA, const double *B, int ldb,
	long long int strideB, const double *beta, double *C, int ldc,
	long long int strideC, int batchCount);

ISAAC_EXPORT cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, long long int strideA, const __half *B, int ldb,
	long long int strideB, const __half *beta, __half *C, int ldc,
	long long int strideC, int batchCount);

ISAAC_EXPORT cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, long long int strideA,
	const void *B, cudaDataType Btype, int ldb, long long int strideB,
	const void *beta, void *C, cudaDataType Ctype, int ldc,
	long long int strideC, int batchCount, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo);

ISAAC_EXPORT cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, long long int strideA,
	const float *B, int64_t ldb, long long int strideB, const float *beta,
	float *C, int64_t ldc, long long int strideC, int64_t batchCount);

ISAAC_EXPORT cublasStatus_t cublasDgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, long long int strideA,
	const double *B, int64_t ldb, long long int strideB, const double *beta,
	double *C, int64_t ldc, long long int strideC, int64_t batchCount);

ISAAC_EXPORT cublasStatus_t cublasHgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, long long int strideA,
	const __half *B, int64_t ldb, long long int strideB, const __half *beta,
	__half *C, int64_t ldc, long long int strideC, int64_t batchCount);

ISAAC_EXPORT cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	long long int strideA, const void *B, cudaDataType Btype, int64_t ldb,
	long long int strideB, const void *beta, void *C, cudaDataType Ctype,
	int64_t ldc, long long int strideC, int64_t batchCount,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo);

ISAAC_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle,
	cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
	cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,
	const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
	cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
	void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream);

ISAAC_EXPORT cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
	const cudnnTensorDescriptor_t xDesc, const void *x,
	const cudnnFilterDescriptor_t wDesc, const void *w,
	const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
	void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
	const cudnnTensorDescriptor_t yDesc, void *y);

/* cuDNN's graph API: an execution plan run on a variant pack's pointers
 * (cudnnBackendExecute), and the two calls whose arguments the shim must see
 * to know a variant pack's pointers and a descriptor's end. */
ISAAC_EXPORT cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle,
	cudnnBackendDescriptor_t executionPlan, cudnnBackendDescriptor_t variantPack);

ISAAC_EXPORT cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
	cudnnBackendAttributeName_t attributeName, cudnnBackendAttributeType_t attributeType,
	int64_t elementCount, const void *arrayOfElements);

ISAAC_EXPORT cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor);

#endif /* ISAAC_ENTRY_POINTS_H */
