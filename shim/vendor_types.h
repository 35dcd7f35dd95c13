/*
 * vendor_types.h: the cuBLAS, cuDNN and CUDA runtime types that the shim's
 * exported entry points use, ABI-identical to the vendor's headers.
 *
 * The shim builds without any CUDA header. Defining ISAAC_VENDOR_HEADERS
 * (e.g. -DISAAC_VENDOR_HEADERS='"vendor_api.h"', or on a CUDA machine
 * '<cublas_v2.h>' plus <cudnn.h> and <cublasLt.h> through ISAAC_VENDOR_HEADERS2
 * and ISAAC_VENDOR_HEADERS3) makes the
 * shim compile against the vendor's own declarations instead, so that any
 * prototype that differs from the vendor's is a compile error: that is how
 * the tests check the exported prototypes.
 */
#ifndef ISAAC_VENDOR_TYPES_H
#define ISAAC_VENDOR_TYPES_H

#include <stddef.h>
#include <stdint.h>

#if defined(ISAAC_VENDOR_HEADERS)
#include ISAAC_VENDOR_HEADERS
#if defined(ISAAC_VENDOR_HEADERS2)
#include ISAAC_VENDOR_HEADERS2
#endif
#if defined(ISAAC_VENDOR_HEADERS3)
#include ISAAC_VENDOR_HEADERS3
#endif
#if !defined(__cplusplus) && !defined(__CUDA_FP16_TYPES_EXIST__) && !defined(VENDOR_API_H)
/* cuBLAS declares cublasHgemm, and cuda_fp16.h defines __half, for C++ only. */
typedef struct __half __half;
#endif
#else

typedef struct CUstream_st *cudaStream_t;

typedef struct cublasContext *cublasHandle_t;
typedef int cublasStatus_t;
typedef int cublasOperation_t;
typedef int cublasPointerMode_t;
typedef int cublasAtomicsMode_t;
typedef int cublasMath_t;
typedef int cublasComputeType_t;
typedef int cublasGemmAlgo_t;
typedef int cudaDataType;
typedef struct __half __half;

typedef struct cublasLtContext *cublasLtHandle_t;
typedef struct isaac_lt_matmul_desc *cublasLtMatmulDesc_t;
typedef struct isaac_lt_matrix_layout *cublasLtMatrixLayout_t;
typedef struct { uint64_t data[8]; } cublasLtMatmulAlgo_t;

typedef struct cudnnContext *cudnnHandle_t;
typedef struct cudnnTensorStruct *cudnnTensorDescriptor_t;
typedef struct cudnnFilterStruct *cudnnFilterDescriptor_t;
typedef struct cudnnConvolutionStruct *cudnnConvolutionDescriptor_t;
typedef int cudnnStatus_t;
typedef int cudnnDataType_t;
typedef int cudnnTensorFormat_t;
typedef int cudnnConvolutionMode_t;
typedef int cudnnConvolutionFwdAlgo_t;
typedef int cudnnMathType_t;
typedef void *cudnnBackendDescriptor_t;
typedef int cudnnBackendAttributeName_t;
typedef int cudnnBackendAttributeType_t;
typedef int cudnnBackendDescriptorType_t;

#endif /* ISAAC_VENDOR_HEADERS */

/* Status values the shim itself returns (cuBLAS 13, cuDNN 9). */
#define ISAAC_CUBLAS_STATUS_SUCCESS 0
#define ISAAC_CUBLAS_STATUS_NOT_INITIALIZED 1
#define ISAAC_CUBLAS_STATUS_INVALID_VALUE 7
#define ISAAC_CUDNN_STATUS_SUCCESS 0
#define ISAAC_CUDNN_STATUS_NOT_INITIALIZED 1001

#endif /* ISAAC_VENDOR_TYPES_H */
