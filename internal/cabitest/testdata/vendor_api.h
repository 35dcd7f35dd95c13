/*
 * vendor_api.h: the cuBLAS 13, cuBLASLt 13 and cuDNN 9 declarations the tests need,
 * written from the vendors' documentation (types as enums, as in
 * cublas_api.h, cublasLt.h and cudnn_*.h). The fake vendor libraries implement them, the
 * test programs call them, and the shim's entry points are compiled against
 * them to prove their prototypes are the vendor's.
 */
#ifndef VENDOR_API_H
#define VENDOR_API_H

#include <stddef.h>
#include <stdint.h>

typedef struct CUstream_st *cudaStream_t;
typedef struct { unsigned short x; } __half;

typedef enum {
	CUBLAS_STATUS_SUCCESS = 0, CUBLAS_STATUS_NOT_INITIALIZED = 1,
	CUBLAS_STATUS_ALLOC_FAILED = 3, CUBLAS_STATUS_INVALID_VALUE = 7,
	CUBLAS_STATUS_ARCH_MISMATCH = 8, CUBLAS_STATUS_MAPPING_ERROR = 11,
	CUBLAS_STATUS_EXECUTION_FAILED = 13, CUBLAS_STATUS_INTERNAL_ERROR = 14,
	CUBLAS_STATUS_NOT_SUPPORTED = 15, CUBLAS_STATUS_LICENSE_ERROR = 16
} cublasStatus_t;
typedef enum { CUBLAS_OP_N = 0, CUBLAS_OP_T = 1, CUBLAS_OP_C = 2 } cublasOperation_t;
typedef enum { CUBLAS_POINTER_MODE_HOST = 0, CUBLAS_POINTER_MODE_DEVICE = 1 } cublasPointerMode_t;
typedef enum { CUBLAS_ATOMICS_NOT_ALLOWED = 0, CUBLAS_ATOMICS_ALLOWED = 1 } cublasAtomicsMode_t;
typedef enum { CUBLAS_DEFAULT_MATH = 0, CUBLAS_PEDANTIC_MATH = 2, CUBLAS_TF32_TENSOR_OP_MATH = 3 } cublasMath_t;
typedef enum {
	CUBLAS_COMPUTE_16F = 64, CUBLAS_COMPUTE_32F = 68, CUBLAS_COMPUTE_64F = 70,
	CUBLAS_COMPUTE_32F_FAST_TF32 = 77, CUBLAS_COMPUTE_32I = 72
} cublasComputeType_t;
typedef enum { CUBLAS_GEMM_DEFAULT = -1 } cublasGemmAlgo_t;
typedef enum { CUDA_R_32F = 0, CUDA_R_64F = 1, CUDA_R_16F = 2, CUDA_R_8I = 3, CUDA_R_32I = 10, CUDA_R_16BF = 14 } cudaDataType;
/* library_types.h names the enum cudaDataType_t too; cublasLt.h uses both. */
typedef cudaDataType cudaDataType_t;
typedef struct cublasContext *cublasHandle_t;

cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId);
cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, cublasPointerMode_t *mode);
cublasStatus_t cublasGetMathMode(cublasHandle_t handle, cublasMath_t *mode);
cublasStatus_t cublasGetAtomicsMode(cublasHandle_t handle, cublasAtomicsMode_t *mode);

cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, const float *B, int ldb, const float *beta,
	float *C, int ldc);
cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, const double *B, int ldb, const double *beta,
	double *C, int ldc);
cublasStatus_t cublasHgemm(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, const __half *B, int ldb, const __half *beta,
	__half *C, int ldc);
cublasStatus_t cublasGemmEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, const void *B,
	cudaDataType Btype, int ldb, const void *beta, void *C,
	cudaDataType Ctype, int ldc, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo);
cublasStatus_t cublasSgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, const float *B,
	int64_t ldb, const float *beta, float *C, int64_t ldc);
cublasStatus_t cublasDgemm_v2_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, const double *B,
	int64_t ldb, const double *beta, double *C, int64_t ldc);
cublasStatus_t cublasHgemm_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, const __half *B,
	int64_t ldb, const __half *beta, __half *C, int64_t ldc);
cublasStatus_t cublasGemmEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	const void *B, cudaDataType Btype, int64_t ldb, const void *beta,
	void *C, cudaDataType Ctype, int64_t ldc,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo);
cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const float *alpha,
	const float *A, int lda, long long int strideA, const float *B, int ldb,
	long long int strideB, const float *beta, float *C, int ldc,
	long long int strideC, int batchCount);
cublasStatus_t cublasDgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const double *alpha,
	const double *A, int lda, long long int strideA, const double *B, int ldb,
	long long int strideB, const double *beta, double *C, int ldc,
	long long int strideC, int batchCount);
cublasStatus_t cublasHgemmStridedBatched(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const __half *alpha,
	const __half *A, int lda, long long int strideA, const __half *B, int ldb,
	long long int strideB, const __half *beta, __half *C, int ldc,
	long long int strideC, int batchCount);
cublasStatus_t cublasGemmStridedBatchedEx(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int m, int n, int k, const void *alpha,
	const void *A, cudaDataType Atype, int lda, long long int strideA,
	const void *B, cudaDataType Btype, int ldb, long long int strideB,
	const void *beta, void *C, cudaDataType Ctype, int ldc,
	long long int strideC, int batchCount, cublasComputeType_t computeType,
	cublasGemmAlgo_t algo);
cublasStatus_t cublasSgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const float *alpha, const float *A, int64_t lda, long long int strideA,
	const float *B, int64_t ldb, long long int strideB, const float *beta,
	float *C, int64_t ldc, long long int strideC, int64_t batchCount);
cublasStatus_t cublasDgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const double *alpha, const double *A, int64_t lda, long long int strideA,
	const double *B, int64_t ldb, long long int strideB, const double *beta,
	double *C, int64_t ldc, long long int strideC, int64_t batchCount);
cublasStatus_t cublasHgemmStridedBatched_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const __half *alpha, const __half *A, int64_t lda, long long int strideA,
	const __half *B, int64_t ldb, long long int strideB, const __half *beta,
	__half *C, int64_t ldc, long long int strideC, int64_t batchCount);
cublasStatus_t cublasGemmStridedBatchedEx_64(cublasHandle_t handle, cublasOperation_t transa,
	cublasOperation_t transb, int64_t m, int64_t n, int64_t k,
	const void *alpha, const void *A, cudaDataType Atype, int64_t lda,
	long long int strideA, const void *B, cudaDataType Btype, int64_t ldb,
	long long int strideB, const void *beta, void *C, cudaDataType Ctype,
	int64_t ldc, long long int strideC, int64_t batchCount,
	cublasComputeType_t computeType, cublasGemmAlgo_t algo);

/* cuBLASLt (cublasLt.h of CUDA 13). */
typedef struct cublasLtContext *cublasLtHandle_t;
/* The semi-opaque descriptors' sizes matter only to a caller that keeps one
 * itself (cublasLtMatmulDescInit): 32 words since CUDA 12.9, 23 before. */
typedef struct { uint64_t data[32]; } cublasLtMatmulDescOpaque_t;
typedef cublasLtMatmulDescOpaque_t *cublasLtMatmulDesc_t;
typedef struct { uint64_t data[8]; } cublasLtMatrixLayoutOpaque_t;
typedef cublasLtMatrixLayoutOpaque_t *cublasLtMatrixLayout_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;

typedef enum {
	CUBLASLT_MATMUL_DESC_COMPUTE_TYPE = 0,                     /* int32_t, cublasComputeType_t */
	CUBLASLT_MATMUL_DESC_SCALE_TYPE = 1,                       /* int32_t, cudaDataType_t */
	CUBLASLT_MATMUL_DESC_POINTER_MODE = 2,                     /* int32_t, cublasLtPointerMode_t */
	CUBLASLT_MATMUL_DESC_TRANSA = 3,                           /* int32_t, cublasOperation_t */
	CUBLASLT_MATMUL_DESC_TRANSB = 4,                           /* int32_t */
	CUBLASLT_MATMUL_DESC_TRANSC = 5,                           /* int32_t */
	CUBLASLT_MATMUL_DESC_FILL_MODE = 6,                        /* int32_t, cublasFillMode_t */
	CUBLASLT_MATMUL_DESC_EPILOGUE = 7,                         /* uint32_t, cublasLtEpilogue_t */
	CUBLASLT_MATMUL_DESC_BIAS_POINTER = 8,                     /* void * / const void * */
	CUBLASLT_MATMUL_DESC_BIAS_BATCH_STRIDE = 10,               /* int64_t */
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_POINTER = 11,            /* void * / const void * */
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_LD = 12,                 /* int64_t */
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_BATCH_STRIDE = 13,       /* int64_t */
	CUBLASLT_MATMUL_DESC_ALPHA_VECTOR_BATCH_STRIDE = 14,       /* int64_t */
	CUBLASLT_MATMUL_DESC_SM_COUNT_TARGET = 15,                 /* int32_t */
	CUBLASLT_MATMUL_DESC_A_SCALE_POINTER = 17,                 /* const void * */
	CUBLASLT_MATMUL_DESC_B_SCALE_POINTER = 18,                 /* const void * */
	CUBLASLT_MATMUL_DESC_C_SCALE_POINTER = 19,                 /* const void * */
	CUBLASLT_MATMUL_DESC_D_SCALE_POINTER = 20,                 /* const void * */
	CUBLASLT_MATMUL_DESC_AMAX_D_POINTER = 21,                  /* void * */
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_DATA_TYPE = 22,          /* int32_t, cudaDataType_t */
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_SCALE_POINTER = 23,      /* void * */
	CUBLASLT_MATMUL_DESC_EPILOGUE_AUX_AMAX_POINTER = 24,       /* void * */
	CUBLASLT_MATMUL_DESC_FAST_ACCUM = 25,                      /* int8_t */
	CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE = 26,                  /* int32_t, cudaDataType_t */
	CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_ROWS = 27,   /* int32_t */
	CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_NUM_CHUNKS_D_COLS = 28,   /* int32_t */
	CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_IN_COUNTERS_POINTER = 29, /* int32_t * */
	CUBLASLT_MATMUL_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER = 30 /* int32_t * */
} cublasLtMatmulDescAttributes_t;

typedef enum {
	CUBLASLT_MATRIX_LAYOUT_TYPE = 0,                 /* uint32_t, cudaDataType */
	CUBLASLT_MATRIX_LAYOUT_ORDER = 1,                /* int32_t, cublasLtOrder_t */
	CUBLASLT_MATRIX_LAYOUT_ROWS = 2,                 /* uint64_t */
	CUBLASLT_MATRIX_LAYOUT_COLS = 3,                 /* uint64_t */
	CUBLASLT_MATRIX_LAYOUT_LD = 4,                   /* int64_t */
	CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT = 5,          /* int32_t */
	CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET = 6, /* int64_t */
	CUBLASLT_MATRIX_LAYOUT_PLANE_OFFSET = 7,         /* int64_t */
	CUBLASLT_MATRIX_LAYOUT_BATCH_MODE = 8            /* int32_t, cublasLtBatchMode_t */
} cublasLtMatrixLayoutAttribute_t;

typedef enum {
	CUBLASLT_ORDER_COL = 0, CUBLASLT_ORDER_ROW = 1, CUBLASLT_ORDER_COL32 = 2,
	CUBLASLT_ORDER_COL4_4R2_8C = 3, CUBLASLT_ORDER_COL32_2R_4R4 = 4
} cublasLtOrder_t;
typedef enum { CUBLASLT_BATCH_MODE_STRIDED = 0, CUBLASLT_BATCH_MODE_POINTER_ARRAY = 1 } cublasLtBatchMode_t;
typedef enum {
	CUBLASLT_POINTER_MODE_HOST = 0, CUBLASLT_POINTER_MODE_DEVICE = 1,
	CUBLASLT_POINTER_MODE_DEVICE_VECTOR = 2, CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_ZERO = 3,
	CUBLASLT_POINTER_MODE_ALPHA_DEVICE_VECTOR_BETA_HOST = 4
} cublasLtPointerMode_t;
typedef enum {
	CUBLASLT_EPILOGUE_DEFAULT = 1, CUBLASLT_EPILOGUE_RELU = 2, CUBLASLT_EPILOGUE_RELU_AUX = 130,
	CUBLASLT_EPILOGUE_BIAS = 4, CUBLASLT_EPILOGUE_RELU_BIAS = 6, CUBLASLT_EPILOGUE_RELU_AUX_BIAS = 134,
	CUBLASLT_EPILOGUE_DRELU = 136, CUBLASLT_EPILOGUE_DRELU_BGRAD = 152,
	CUBLASLT_EPILOGUE_GELU = 32, CUBLASLT_EPILOGUE_GELU_AUX = 160, CUBLASLT_EPILOGUE_GELU_BIAS = 36,
	CUBLASLT_EPILOGUE_GELU_AUX_BIAS = 164, CUBLASLT_EPILOGUE_DGELU = 192,
	CUBLASLT_EPILOGUE_DGELU_BGRAD = 208, CUBLASLT_EPILOGUE_BGRADA = 256, CUBLASLT_EPILOGUE_BGRADB = 512
} cublasLtEpilogue_t;

cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
cublasStatus_t cublasLtMatmulDescCreate(cublasLtMatmulDesc_t *matmulDesc,
	cublasComputeType_t computeType, cudaDataType_t scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(cublasLtMatmulDesc_t matmulDesc);
cublasStatus_t cublasLtMatmulDescSetAttribute(cublasLtMatmulDesc_t matmulDesc,
	cublasLtMatmulDescAttributes_t attr, const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatmulDescGetAttribute(cublasLtMatmulDesc_t matmulDesc,
	cublasLtMatmulDescAttributes_t attr, void *buf, size_t sizeInBytes, size_t *sizeWritten);
cublasStatus_t cublasLtMatrixLayoutCreate(cublasLtMatrixLayout_t *matLayout, cudaDataType type,
	uint64_t rows, uint64_t cols, int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(const cublasLtMatrixLayout_t matLayout);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(cublasLtMatrixLayout_t matLayout,
	cublasLtMatrixLayoutAttribute_t attr, const void *buf, size_t sizeInBytes);
cublasStatus_t cublasLtMatrixLayoutGetAttribute(cublasLtMatrixLayout_t matLayout,
	cublasLtMatrixLayoutAttribute_t attr, void *buf, size_t sizeInBytes, size_t *sizeWritten);
cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle, cublasLtMatmulDesc_t computeDesc,
	const void *alpha, const void *A, cublasLtMatrixLayout_t Adesc, const void *B,
	cublasLtMatrixLayout_t Bdesc, const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc,
	void *D, cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo, void *workspace,
	size_t workspaceSizeInBytes, cudaStream_t stream);

typedef enum {
	CUDNN_STATUS_SUCCESS = 0, CUDNN_STATUS_NOT_INITIALIZED = 1001,
	CUDNN_STATUS_BAD_PARAM = 2000, CUDNN_STATUS_NOT_SUPPORTED = 3000,
	CUDNN_STATUS_INTERNAL_ERROR = 4000, CUDNN_STATUS_EXECUTION_FAILED = 5000
} cudnnStatus_t;
typedef enum { CUDNN_DATA_FLOAT = 0, CUDNN_DATA_DOUBLE = 1, CUDNN_DATA_HALF = 2, CUDNN_DATA_BFLOAT16 = 9 } cudnnDataType_t;
typedef enum { CUDNN_TENSOR_NCHW = 0, CUDNN_TENSOR_NHWC = 1 } cudnnTensorFormat_t;
typedef enum { CUDNN_CONVOLUTION = 0, CUDNN_CROSS_CORRELATION = 1 } cudnnConvolutionMode_t;
typedef enum { CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM = 0, CUDNN_CONVOLUTION_FWD_ALGO_GEMM = 2 } cudnnConvolutionFwdAlgo_t;
typedef enum { CUDNN_DEFAULT_MATH = 0, CUDNN_TENSOR_OP_MATH = 1 } cudnnMathType_t;
typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;

cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *streamId);
cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t tensorDesc,
	int nbDimsRequested, cudnnDataType_t *dataType, int *nbDims, int dimA[], int strideA[]);
cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t filterDesc,
	int nbDimsRequested, cudnnDataType_t *dataType, cudnnTensorFormat_t *format,
	int *nbDims, int filterDimA[]);
cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t convDesc,
	int arrayLengthRequested, int *arrayLength, int padA[], int strideA[], int dilationA[],
	cudnnConvolutionMode_t *mode, cudnnDataType_t *computeType);
cudnnStatus_t cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t convDesc, int *groupCount);
cudnnStatus_t cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t convDesc, cudnnMathType_t *mathType);
cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
	const cudnnTensorDescriptor_t xDesc, const void *x,
	const cudnnFilterDescriptor_t wDesc, const void *w,
	const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
	void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
	const cudnnTensorDescriptor_t yDesc, void *y);

/* cuDNN's graph API (cudnn_graph.h): the names and values the shim and the
 * fake use. */
typedef void *cudnnBackendDescriptor_t;
typedef enum {
	CUDNN_BACKEND_ENGINE_DESCRIPTOR = 2, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR = 3,
	CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR = 5, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR = 16
} cudnnBackendDescriptorType_t;
typedef enum {
	CUDNN_ATTR_ENGINECFG_ENGINE = 300, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
	CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION = 405, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS = 1000,
	CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS = 1001, CUDNN_ATTR_VARIANT_PACK_WORKSPACE = 1003,
	CUDNN_ATTR_ENGINE_NUMERICAL_NOTE = 1303
} cudnnBackendAttributeName_t;
typedef enum {
	CUDNN_TYPE_INT64 = 3, CUDNN_TYPE_VOID_PTR = 6, CUDNN_TYPE_NUMERICAL_NOTE = 11,
	CUDNN_TYPE_BACKEND_DESCRIPTOR = 15, CUDNN_TYPE_CHAR = 24
} cudnnBackendAttributeType_t;
typedef enum { CUDNN_NUMERICAL_NOTE_TENSOR_CORE = 0 } cudnnBackendNumericalNote_t;

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t descriptorType,
	cudnnBackendDescriptor_t *descriptor);
cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor);
cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
	cudnnBackendAttributeName_t attributeName, cudnnBackendAttributeType_t attributeType,
	int64_t elementCount, const void *arrayOfElements);
cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const descriptor,
	cudnnBackendAttributeName_t attributeName, cudnnBackendAttributeType_t attributeType,
	int64_t requestedElementCount, int64_t *elementCount, void *arrayOfElements);
cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t executionPlan,
	cudnnBackendDescriptor_t variantPack);

#endif /* VENDOR_API_H */
