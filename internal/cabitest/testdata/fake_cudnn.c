/*
 * A fake libcudnn.so.9: records cudnnConvolutionForward and describes a 2-D
 * convolution through the descriptor getters (it links against the fake
 * cuBLAS for the shared recorder).
 */
#include <string.h>

#include "fake_vendor.h"

void fake_count_getter(void);
void fake_record(const fake_call *c);
int fake_status(void);

cudnnStatus_t cudnnGetStream(cudnnHandle_t handle, cudaStream_t *s)
{
	fake_count_getter();
	if (handle == NULL)
		return CUDNN_STATUS_BAD_PARAM;
	*s = (cudaStream_t)((char *)handle + 2);
	return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetTensorNdDescriptor(const cudnnTensorDescriptor_t d,
	int req, cudnnDataType_t *t, int *nb, int dimA[], int strideA[])
{
	/* x is 8×3×32×32; y (the descriptor abi_main.c passes as y, 0x5000) the
	 * output of the 16 filters of 3×3 with padding 1: 8×16×32×32. */
	int dims[4] = {8, 3, 32, 32};
	fake_count_getter();
	if (d == NULL || req < 4)
		return CUDNN_STATUS_BAD_PARAM;
	if (d == (cudnnTensorDescriptor_t)0x5000)
		dims[1] = 16;
	*t = CUDNN_DATA_HALF;
	*nb = 4;
	int stride = 1;
	for (int i = 3; i >= 0; i--) {
		dimA[i] = dims[i];
		strideA[i] = stride;
		stride *= dims[i];
	}
	return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetFilterNdDescriptor(const cudnnFilterDescriptor_t d,
	int req, cudnnDataType_t *t, cudnnTensorFormat_t *format, int *nb, int dimA[])
{
	fake_count_getter();
	if (d == NULL || req < 4)
		return CUDNN_STATUS_BAD_PARAM;
	*t = CUDNN_DATA_HALF;
	*format = CUDNN_TENSOR_NCHW;
	*nb = 4;
	dimA[0] = 16; dimA[1] = 3; dimA[2] = 3; dimA[3] = 3;
	return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionNdDescriptor(const cudnnConvolutionDescriptor_t d,
	int req, int *len, int padA[], int strideA[], int dilationA[],
	cudnnConvolutionMode_t *mode, cudnnDataType_t *compute)
{
	fake_count_getter();
	if (d == NULL || req < 2)
		return CUDNN_STATUS_BAD_PARAM;
	*len = 2;
	for (int i = 0; i < 2; i++) {
		padA[i] = 1; strideA[i] = 1; dilationA[i] = 1;
	}
	*mode = CUDNN_CROSS_CORRELATION;
	*compute = CUDNN_DATA_FLOAT;
	return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnGetConvolutionGroupCount(cudnnConvolutionDescriptor_t d, int *g)
{
	fake_count_getter();
	*g = 1;
	return d ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t cudnnGetConvolutionMathType(cudnnConvolutionDescriptor_t d, cudnnMathType_t *m)
{
	fake_count_getter();
	*m = CUDNN_DEFAULT_MATH;
	return d ? CUDNN_STATUS_SUCCESS : CUDNN_STATUS_BAD_PARAM;
}

cudnnStatus_t cudnnConvolutionForward(cudnnHandle_t handle, const void *alpha,
	const cudnnTensorDescriptor_t xDesc, const void *x,
	const cudnnFilterDescriptor_t wDesc, const void *w,
	const cudnnConvolutionDescriptor_t convDesc, cudnnConvolutionFwdAlgo_t algo,
	void *workSpace, size_t workSpaceSizeInBytes, const void *beta,
	const cudnnTensorDescriptor_t yDesc, void *y)
{
	fake_call c;
	memset(&c, 0, sizeof c);
	c.fn = "cudnnConvolutionForward";
	c.handle = handle; c.alpha = alpha; c.beta = beta;
	c.x_desc = xDesc; c.w_desc = wDesc; c.conv_desc = convDesc; c.y_desc = yDesc;
	c.x = x; c.w = w; c.y = y; c.algo = algo;
	c.workspace = workSpace; c.workspace_bytes = workSpaceSizeInBytes;
	fake_record(&c);
	return (cudnnStatus_t)(fake_status() == 0 ? 0 : fake_status() + 1000);
}

/* cuDNN's graph API, as cuDNN 9 answers it: descriptors made and freed, a
 * plan's JSON representation (that of the convolution the getters above
 * describe, with PyTorch's unique ids) and its engine's numerical notes
 * read back, a variant pack's ids and pointers not (NOT_SUPPORTED). */
#include <stdlib.h>

typedef struct fake_desc {
	int type;
} fake_desc;

static long json_reads, destroys, sets;

long fake_graph_json_reads(void) { return __atomic_load_n(&json_reads, __ATOMIC_RELAXED); }
long fake_graph_destroys(void) { return __atomic_load_n(&destroys, __ATOMIC_RELAXED); }
long fake_graph_sets(void) { return __atomic_load_n(&sets, __ATOMIC_RELAXED); }

static const char plan_json[] =
	"{\"cudnnVersion\":91900,\"schemaVersion\":4,\"operationGraph\":{\"finalizeMode\":\"CONV_FORWARD\",\"tensors\":["
	"{\"name\":\"119\",\"dataType\":\"CUDNN_DATA_HALF\",\"dim\":[16,3,3,3],\"stride\":[27,9,3,1],\"isVirtual\":false,\"isByValue\":false,\"vectCount\":1,\"vectDim\":-1,\"ptrAlignment\":16,\"reordering\":\"CUDNN_TENSOR_REORDERING_NONE\"},"
	"{\"name\":\"120\",\"dataType\":\"CUDNN_DATA_HALF\",\"dim\":[8,3,32,32],\"stride\":[3072,1024,32,1],\"isVirtual\":false,\"isByValue\":false,\"vectCount\":1,\"vectDim\":-1,\"ptrAlignment\":16,\"reordering\":\"CUDNN_TENSOR_REORDERING_NONE\"},"
	"{\"name\":\"121\",\"dataType\":\"CUDNN_DATA_HALF\",\"dim\":[8,16,32,32],\"stride\":[16384,1024,32,1],\"isVirtual\":false,\"isByValue\":false,\"vectCount\":1,\"vectDim\":-1,\"ptrAlignment\":16,\"reordering\":\"CUDNN_TENSOR_REORDERING_NONE\"}],"
	"\"nodes\":[{\"operation\":\"CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR\",\"mode\":\"CUDNN_CROSS_CORRELATION\",\"mathPrec\":\"CUDNN_DATA_FLOAT\","
	"\"alpha\":1.0,\"beta\":0.0,\"pad\":[1,1],\"stride\":[1,1],\"dilation\":[1,1],\"X\":\"120\",\"W\":\"119\",\"Y\":\"121\"}]},"
	"\"engine\":{\"engineId\":45,\"smVersion\":900,\"knobChoices\":{}}}";

cudnnStatus_t cudnnBackendCreateDescriptor(cudnnBackendDescriptorType_t type, cudnnBackendDescriptor_t *d)
{
	if (d == NULL)
		return CUDNN_STATUS_BAD_PARAM;
	fake_desc *f = calloc(1, sizeof *f);
	f->type = (int)type;
	*d = f;
	return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendDestroyDescriptor(cudnnBackendDescriptor_t d)
{
	if (d == NULL)
		return CUDNN_STATUS_BAD_PARAM;
	__atomic_fetch_add(&destroys, 1, __ATOMIC_RELAXED);
	free(d);
	return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendSetAttribute(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t name,
	cudnnBackendAttributeType_t type, int64_t count, const void *elements)
{
	(void)name; (void)type;
	__atomic_fetch_add(&sets, 1, __ATOMIC_RELAXED);
	if (d == NULL || count < 0 || (count > 0 && elements == NULL))
		return CUDNN_STATUS_BAD_PARAM;
	return CUDNN_STATUS_SUCCESS;
}

cudnnStatus_t cudnnBackendGetAttribute(cudnnBackendDescriptor_t const d, cudnnBackendAttributeName_t name,
	cudnnBackendAttributeType_t type, int64_t requested, int64_t *count, void *elements)
{
	const fake_desc *f = d;
	if (f == NULL || count == NULL)
		return CUDNN_STATUS_BAD_PARAM;
	switch (name) {
	case CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION:
		if (f->type != CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR || type != CUDNN_TYPE_CHAR)
			return CUDNN_STATUS_BAD_PARAM;
		*count = sizeof plan_json;  /* the terminating NUL too, as cuDNN counts it */
		if (requested > 0) {
			__atomic_fetch_add(&json_reads, 1, __ATOMIC_RELAXED);
			memcpy(elements, plan_json, requested < (int64_t)sizeof plan_json ? requested : (int64_t)sizeof plan_json);
		}
		return CUDNN_STATUS_SUCCESS;
	case CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG:
	case CUDNN_ATTR_ENGINECFG_ENGINE:
		if (type != CUDNN_TYPE_BACKEND_DESCRIPTOR || requested != 1 || elements == NULL)
			return CUDNN_STATUS_BAD_PARAM;
		*count = 1;
		return CUDNN_STATUS_SUCCESS;
	case CUDNN_ATTR_ENGINE_NUMERICAL_NOTE:
		if (type != CUDNN_TYPE_NUMERICAL_NOTE)
			return CUDNN_STATUS_BAD_PARAM;
		*count = 1;
		if (requested >= 1)
			*(cudnnBackendNumericalNote_t *)elements = CUDNN_NUMERICAL_NOTE_TENSOR_CORE;
		return CUDNN_STATUS_SUCCESS;
	default:
		return CUDNN_STATUS_NOT_SUPPORTED;  /* a variant pack's ids and pointers among them */
	}
}

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t handle, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t vp)
{
	fake_call c;
	memset(&c, 0, sizeof c);
	c.fn = "cudnnBackendExecute";
	c.handle = handle;
	c.x_desc = plan;
	c.w_desc = vp;
	fake_record(&c);
	if (handle == NULL || plan == NULL || vp == NULL)
		return CUDNN_STATUS_BAD_PARAM;
	return (cudnnStatus_t)(fake_status() == 0 ? 0 : fake_status() + 1000);
}
