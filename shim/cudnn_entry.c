/*
 * cudnn_entry.c: the exported cudnnConvolutionForward, with the vendor's
 * exact prototype.
 */
#include "entry.h"

typedef cudnnStatus_t (*conv_fwd_fn)(cudnnHandle_t, const void *,
	const cudnnTensorDescriptor_t, const void *, const cudnnFilterDescriptor_t,
	const void *, const cudnnConvolutionDescriptor_t, cudnnConvolutionFwdAlgo_t,
	void *, size_t, const void *, const cudnnTensorDescriptor_t, void *);

ISAAC_EXPORT cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
	const cudnnTensorDescriptor_t xDesc, const void *x,
	const cudnnFilterDescriptor_t wDesc, const void *w,
	const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
	void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
	const cudnnTensorDescriptor_t yDesc, void *y)
{
	isaac_conv_call call = {
		.handle = (void *)handle, .alpha = alpha, .beta = beta,
		.x_desc = (void *)xDesc, .w_desc = (void *)wDesc,
		.conv_desc = (void *)convDesc, .y_desc = (void *)yDesc,
		.x = x, .w = w, .y = y, .algo = (int)algo,
		.workspace = workSpace, .workspace_bytes = workSpaceSizeInBytes,
	};
	int reason = isaac_decide_conv(&call);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUDNN_STATUS_SUCCESS;
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, conv_fwd_fn, "cudnnConvolutionForward", vendor)
	if (vendor == NULL)
		return ISAAC_CUDNN_STATUS_NOT_INITIALIZED;
	cudnnStatus_t status;
	CALL_VENDOR(status, vendor(handle, alpha, xDesc, x, wDesc, w, convDesc, algo, workSpace,
		workSpaceSizeInBytes, beta, yDesc, y));
	isaac_after_conv(&call, reason);
	return status;
}
