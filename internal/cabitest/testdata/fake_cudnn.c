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
