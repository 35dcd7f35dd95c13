/*
 * gemm_link.cu: a plain cuBLAS client, built twice by gputest/run.sh with nvcc:
 * linked -lisaac -lcublas, and linked -lcublas alone. Both must print the same
 * result hashes; with ISAAC_LOG=1 the first shows the calls intercepted.
 */
#include <cublas_v2.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"


/* Device buffer of `count` values in [-1, 1] (multiples of 1/8, exact in
 * every format) of the given element size: 2 (fp16 or bf16 bits), 4, 8. */
static void *upload(size_t count, int elem, int bf16, unsigned seed)
{
	unsigned char *h = (unsigned char *)malloc(count * elem);
	srand(seed);
	for (size_t i = 0; i < count; i++) {
		float v = (float)(rand() % 17 - 8) / 8.0f;
		if (elem == 8) {
			double d = v;
			memcpy(h + 8 * i, &d, 8);
		} else if (elem == 4) {
			memcpy(h + 4 * i, &v, 4);
		} else if (bf16) {
			__nv_bfloat16 b = __float2bfloat16(v);
			memcpy(h + 2 * i, &b, 2);
		} else {
			__half x = __float2half(v);
			memcpy(h + 2 * i, &x, 2);
		}
	}
	void *d;
	CK(cudaMalloc(&d, count * elem));
	CK(cudaMemcpy(d, h, count * elem, cudaMemcpyHostToDevice));
	free(h);
	return d;
}

static void report(const char *name, void *d, size_t bytes)
{
	void *h = malloc(bytes);
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(h, d, bytes, cudaMemcpyDeviceToHost));
	printf("%-34s %016llx\n", name, (unsigned long long)fnv(h, bytes));
	free(h);
}

int main(void)
{
	const int m = 333, n = 257, k = 129;
	cublasHandle_t handle;
	CK(cublasCreate(&handle));
	size_t cnt = (size_t)m * k + (size_t)k * n + (size_t)m * n + 4096;
	float *fa = (float *)upload(cnt, 4, 0, 1), *fb = (float *)upload(cnt, 4, 0, 2), *fc = (float *)upload(cnt, 4, 0, 3);
	double *da = (double *)upload(cnt, 8, 0, 4), *db = (double *)upload(cnt, 8, 0, 5), *dc = (double *)upload(cnt, 8, 0, 6);
	__half *ha = (__half *)upload(cnt, 2, 0, 7), *hb = (__half *)upload(cnt, 2, 0, 8), *hc = (__half *)upload(cnt, 2, 0, 9);
	__nv_bfloat16 *ba = (__nv_bfloat16 *)upload(cnt, 2, 1, 10), *bb = (__nv_bfloat16 *)upload(cnt, 2, 1, 11), *bc = (__nv_bfloat16 *)upload(cnt, 2, 1, 12);
	float a32 = 1.25f, b32 = 0.5f;
	double a64 = 1.25, b64 = 0.5;
	__half a16 = __float2half(1.25f), b16 = __float2half(0.5f);

	CK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a32, fa, m, fb, k, &b32, fc, m));
	report("cublasSgemm_v2 NN", fc, sizeof(float) * m * n);
	CK(cublasSgemm(handle, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &a32, fa, k, fb, k, &b32, fc, m));
	report("cublasSgemm_v2 TN", fc, sizeof(float) * m * n);
	CK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &a64, da, m, db, n, &b64, dc, m));
	report("cublasDgemm_v2 NT", dc, sizeof(double) * m * n);
	CK(cublasHgemm(handle, CUBLAS_OP_T, CUBLAS_OP_T, m, n, k, &a16, ha, k, hb, n, &b16, hc, m));
	report("cublasHgemm TT", hc, 2 * m * n);
	CK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a32, ba, CUDA_R_16BF, m, bb, CUDA_R_16BF, k,
		&b32, bc, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
	report("cublasGemmEx bf16/32F", bc, 2 * m * n);
	CK(cublasGemmEx(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a32, ha, CUDA_R_16F, m, hb, CUDA_R_16F, k,
		&b32, hc, CUDA_R_16F, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
	report("cublasGemmEx f16/32F", hc, 2 * m * n);
	CK(cublasSgemm_v2_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a32, fa, m, fb, k, &b32, fc, m));
	report("cublasSgemm_v2_64 NN", fc, sizeof(float) * m * n);
	/* device pointer mode */
	float *dscal;
	CK(cudaMalloc((void **)&dscal, 8));
	float scal[2] = {0.75f, 0.0f};
	CK(cudaMemcpy(dscal, scal, 8, cudaMemcpyHostToDevice));
	CK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_DEVICE));
	CK(cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, dscal, fa, m, fb, k, dscal + 1, fc, m));
	report("cublasSgemm_v2 device scalars", fc, sizeof(float) * m * n);
	/* an invalid call must give the vendor's status */
	CK(cublasSetPointerMode(handle, CUBLAS_POINTER_MODE_HOST));
	int st = cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &a32, fa, m - 1, fb, k, &b32, fc, m);
	printf("%-34s %d\n", "invalid lda status", st);
	CK(cublasDestroy(handle));
	return 0;
}
