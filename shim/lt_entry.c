/*
 * lt_entry.c: the exported cublasLtMatmul, with cuBLASLt's exact prototype.
 * It records the call, reads its descriptors, lets Go decide, and calls
 * cuBLASLt's own cublasLtMatmul with the original arguments whenever Go does
 * not serve it. The caller's algo and workspace go to cuBLASLt unchanged;
 * ISAAC's kernels need neither.
 */
#include "entry.h"

ISAAC_EXPORT cublasStatus_t cublasLtMatmul(cublasLtHandle_t lightHandle,
	cublasLtMatmulDesc_t computeDesc, const void *alpha, const void *A,
	cublasLtMatrixLayout_t Adesc, const void *B, cublasLtMatrixLayout_t Bdesc,
	const void *beta, const void *C, cublasLtMatrixLayout_t Cdesc, void *D,
	cublasLtMatrixLayout_t Ddesc, const cublasLtMatmulAlgo_t *algo,
	void *workspace, size_t workspaceSizeInBytes, cudaStream_t stream)
{
	isaac_lt_call call = {
		.handle = (void *)lightHandle, .desc = (void *)computeDesc,
		.alpha = alpha, .beta = beta, .A = A, .B = B, .C = C, .D = D,
		.a_desc = (void *)Adesc, .b_desc = (void *)Bdesc,
		.c_desc = (void *)Cdesc, .d_desc = (void *)Ddesc,
		.algo = algo, .workspace = workspace,
		.workspace_bytes = workspaceSizeInBytes, .stream = (void *)stream,
	};
	int reason = isaac_decide_lt(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUBLAS_STATUS_SUCCESS;
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLASLT, __typeof__(&cublasLtMatmul), "cublasLtMatmul", vendor)
	if (vendor == NULL)
		return ISAAC_CUBLAS_STATUS_NOT_INITIALIZED;
	cublasStatus_t status;
	CALL_VENDOR(status, vendor(lightHandle, computeDesc, alpha, A, Adesc, B, Bdesc,
		beta, C, Cdesc, D, Ddesc, algo, workspace, workspaceSizeInBytes, stream));
	isaac_after_lt(&call, reason);
	return status;
}
