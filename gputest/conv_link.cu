/*
 * conv_link.cu: a plain cuDNN client calling the legacy
 * cudnnConvolutionForward, built twice by gputest/run.sh: linked -lisaac
 * -lcudnn, and -lcudnn alone. Both must print the same result hashes; with
 * ISAAC_LOG=1 the first shows the calls intercepted and the descriptors read.
 */
#include <cudnn.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"


static void *upload(size_t count, int half, unsigned seed)
{
	size_t elem = half ? 2 : 4;
	unsigned char *h = (unsigned char *)malloc(count * elem);
	srand(seed);
	for (size_t i = 0; i < count; i++) {
		float v = (float)(rand() % 17 - 8) / 8.0f;
		if (half) {
			__half x = __float2half(v);
			memcpy(h + 2 * i, &x, 2);
		} else {
			memcpy(h + 4 * i, &v, 4);
		}
	}
	void *d;
	CK(cudaMalloc(&d, count * elem));
	CK(cudaMemcpy(d, h, count * elem, cudaMemcpyHostToDevice));
	free(h);
	return d;
}

static void conv(cudnnHandle_t h, int half, int n, int c, int hh, int w, int k, int r, int stride,
	cudnnConvolutionFwdAlgo_t algo)
{
	cudnnDataType_t t = half ? CUDNN_DATA_HALF : CUDNN_DATA_FLOAT;
	cudnnTensorDescriptor_t xd, yd;
	cudnnFilterDescriptor_t wd;
	cudnnConvolutionDescriptor_t cd;
	CK(cudnnCreateTensorDescriptor(&xd));
	CK(cudnnCreateTensorDescriptor(&yd));
	CK(cudnnCreateFilterDescriptor(&wd));
	CK(cudnnCreateConvolutionDescriptor(&cd));
	CK(cudnnSetTensor4dDescriptor(xd, CUDNN_TENSOR_NCHW, t, n, c, hh, w));
	CK(cudnnSetFilter4dDescriptor(wd, t, CUDNN_TENSOR_NCHW, k, c, r, r));
	CK(cudnnSetConvolution2dDescriptor(cd, r / 2, r / 2, stride, stride, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
	int on, oc, oh, ow;
	CK(cudnnGetConvolution2dForwardOutputDim(cd, xd, wd, &on, &oc, &oh, &ow));
	CK(cudnnSetTensor4dDescriptor(yd, CUDNN_TENSOR_NCHW, t, on, oc, oh, ow));
	void *x = upload((size_t)n * c * hh * w, half, 1), *wt = upload((size_t)k * c * r * r, half, 2);
	void *y = upload((size_t)on * oc * oh * ow, half, 3);
	size_t ws = 0;
	CK(cudnnGetConvolutionForwardWorkspaceSize(h, xd, wd, cd, yd, algo, &ws));
	void *work = NULL;
	if (ws)
		CK(cudaMalloc(&work, ws));
	float alpha = 1.0f, beta = 0.5f;
	CK(cudnnConvolutionForward(h, &alpha, xd, x, wd, wt, cd, algo, work, ws, &beta, yd, y));
	size_t bytes = (size_t)on * oc * oh * ow * (half ? 2 : 4);
	void *hy = malloc(bytes);
	CK(cudaMemcpy(hy, y, bytes, cudaMemcpyDeviceToHost));
	printf("conv %s n%d c%d %dx%d k%d r%d s%d algo%d %016llx\n", half ? "f16" : "f32", n, c, hh, w, k, r,
		stride, (int)algo, (unsigned long long)fnv(hy, bytes));
	free(hy);
	cudaFree(x); cudaFree(wt); cudaFree(y); cudaFree(work);
	cudnnDestroyTensorDescriptor(xd); cudnnDestroyTensorDescriptor(yd);
	cudnnDestroyFilterDescriptor(wd); cudnnDestroyConvolutionDescriptor(cd);
}

int main(void)
{
	cudnnHandle_t h;
	CK(cudnnCreate(&h));
	for (int half = 0; half < 2; half++) {
		conv(h, half, 8, 3, 32, 32, 16, 3, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
		conv(h, half, 4, 64, 28, 28, 32, 1, 1, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM);
		conv(h, half, 2, 16, 17, 19, 8, 5, 2, CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM);
	}
	/* an invalid call (NULL descriptor) must give cuDNN's own status */
	float a = 1, b = 0;
	int st = cudnnConvolutionForward(h, &a, NULL, NULL, NULL, NULL, NULL,
		CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM, NULL, 0, &b, NULL, NULL);
	printf("invalid call status %d\n", st);
	CK(cudnnDestroy(h));
	return 0;
}
