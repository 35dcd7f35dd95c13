/*
 * lt_attributes.h: the cuBLASLt descriptor attributes the shim reads
 * (cublasLtMatmulDescAttributes_t, cublasLtMatrixLayoutAttribute_t) and the
 * size of each one's value, as cublasLt.h of CUDA 13 numbers them. The shim
 * builds without that header; on a CUDA machine gputest/lt_attributes.c
 * checks every number here against it.
 */
#ifndef ISAAC_LT_ATTRIBUTES_H
#define ISAAC_LT_ATTRIBUTES_H

/* cublasLtMatmulDescAttributes_t */
#define ISAAC_LT_DESC_COMPUTE_TYPE 0                     /* int32 */
#define ISAAC_LT_DESC_SCALE_TYPE 1                       /* int32 */
#define ISAAC_LT_DESC_POINTER_MODE 2                     /* int32 */
#define ISAAC_LT_DESC_TRANSA 3                           /* int32 */
#define ISAAC_LT_DESC_TRANSB 4                           /* int32 */
#define ISAAC_LT_DESC_TRANSC 5                           /* int32 */
#define ISAAC_LT_DESC_FILL_MODE 6                        /* int32 */
#define ISAAC_LT_DESC_EPILOGUE 7                         /* uint32 */
#define ISAAC_LT_DESC_BIAS_POINTER 8                     /* pointer */
#define ISAAC_LT_DESC_BIAS_BATCH_STRIDE 10               /* int64 */
#define ISAAC_LT_DESC_EPILOGUE_AUX_POINTER 11            /* pointer */
#define ISAAC_LT_DESC_ALPHA_VECTOR_BATCH_STRIDE 14       /* int64 */
#define ISAAC_LT_DESC_A_SCALE_POINTER 17                 /* pointer */
#define ISAAC_LT_DESC_B_SCALE_POINTER 18                 /* pointer */
#define ISAAC_LT_DESC_C_SCALE_POINTER 19                 /* pointer */
#define ISAAC_LT_DESC_D_SCALE_POINTER 20                 /* pointer */
#define ISAAC_LT_DESC_AMAX_D_POINTER 21                  /* pointer */
#define ISAAC_LT_DESC_EPILOGUE_AUX_SCALE_POINTER 23      /* pointer */
#define ISAAC_LT_DESC_EPILOGUE_AUX_AMAX_POINTER 24       /* pointer */
#define ISAAC_LT_DESC_BIAS_DATA_TYPE 26                  /* int32 */
/* CUDA 12.2-12.9's atomic-synchronization counters, gone from CUDA 13's
 * header: read as optional pointers (a refusal reads as unset; a value set
 * sends the call to cuBLASLt). */
#define ISAAC_LT_DESC_ATOMIC_SYNC_IN_COUNTERS_POINTER 29 /* pointer */
#define ISAAC_LT_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER 30 /* pointer */

/* cublasLtMatrixLayoutAttribute_t */
#define ISAAC_LT_LAYOUT_TYPE 0                 /* uint32 */
#define ISAAC_LT_LAYOUT_ORDER 1                /* int32 */
#define ISAAC_LT_LAYOUT_ROWS 2                 /* uint64 */
#define ISAAC_LT_LAYOUT_COLS 3                 /* uint64 */
#define ISAAC_LT_LAYOUT_LD 4                   /* int64 */
#define ISAAC_LT_LAYOUT_BATCH_COUNT 5          /* int32 */
#define ISAAC_LT_LAYOUT_STRIDED_BATCH_OFFSET 6 /* int64 */
#define ISAAC_LT_LAYOUT_PLANE_OFFSET 7         /* int64 */
#define ISAAC_LT_LAYOUT_BATCH_MODE 8           /* int32 (CUDA 13) */

#endif /* ISAAC_LT_ATTRIBUTES_H */
