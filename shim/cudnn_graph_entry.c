/*
 * cudnn_graph_entry.c: the exported calls of cuDNN's graph API, with the
 * vendor's exact prototypes: cudnnBackendExecute, served where its plan is
 * one convolution the shim serves (as cudnnConvolutionForward is), and
 * cudnnBackendSetAttribute and cudnnBackendDestroyDescriptor, always
 * cuDNN's own calls, which the shim watches (graph_plans.c). PyTorch runs
 * its convolutions through this API unless TORCH_CUDNN_V8_API_DISABLED=1.
 */
#include "entry.h"

ISAAC_EXPORT cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle,
	cudnnBackendDescriptor_t executionPlan, cudnnBackendDescriptor_t variantPack)
{
	isaac_conv_call call = {0};
	isaac_graph_scalars scalars;
	int reason = isaac_decide_graph((void *)handle, (void *)executionPlan, (void *)variantPack, &call, &scalars);
	if (reason == ISAAC_SERVED)
		return ISAAC_CUDNN_STATUS_SUCCESS;
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, __typeof__(&cudnnBackendExecute), "cudnnBackendExecute", vendor)
	if (vendor == NULL)
		return ISAAC_CUDNN_STATUS_NOT_INITIALIZED;
	cudnnStatus_t status;
	CALL_VENDOR(status, vendor(handle, executionPlan, variantPack));
	isaac_after_conv(&call, reason);
	return status;
}

ISAAC_EXPORT cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t descriptor,
	cudnnBackendAttributeName_t attributeName, cudnnBackendAttributeType_t attributeType,
	int64_t elementCount, const void *arrayOfElements)
{
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, __typeof__(&cudnnBackendSetAttribute), "cudnnBackendSetAttribute", vendor)
	if (vendor == NULL)
		return ISAAC_CUDNN_STATUS_NOT_INITIALIZED;
	cudnnStatus_t status;
	CALL_VENDOR(status, vendor(descriptor, attributeName, attributeType, elementCount, arrayOfElements));
	if (status == ISAAC_CUDNN_STATUS_SUCCESS)
		isaac_graph_record((void *)descriptor, (int)attributeName, (int)attributeType, elementCount, arrayOfElements);
	return status;
}

ISAAC_EXPORT cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t descriptor)
{
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, __typeof__(&cudnnBackendDestroyDescriptor), "cudnnBackendDestroyDescriptor", vendor)
	if (vendor == NULL)
		return ISAAC_CUDNN_STATUS_NOT_INITIALIZED;
	isaac_graph_forget((void *)descriptor);  /* before: a new descriptor may take its address at once */
	cudnnStatus_t status;
	CALL_VENDOR(status, vendor(descriptor));
	return status;
}
