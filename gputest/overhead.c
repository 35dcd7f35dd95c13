/*
 * overhead.c: host time per cublasSgemm_v2 call through libisaac.so against
 * the same call made directly to cuBLAS, side by side in one process.
 *
 * The program is linked -lisaac -lcublas: `cublasSgemm_v2` is the shim's; the
 * vendor's own function is looked up in the loaded libcublas with dlsym. Batches
 * of 100 calls alternate between the two (10,000 calls each, same handle, same
 * buffers); each batch's issue time is measured on the host and followed by an
 * untimed synchronization, so the launch queue never fills and the figure is
 * the host's own cost per call.
 */
#define _GNU_SOURCE
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const float *, const float *, int, const float *, int, const float *, float *, int);

static double now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

#define BATCHES 100
#define PER 100

int main(int argc, char **argv)
{
	const int n = argc > 1 ? atoi(argv[1]) : 16;
	void *lib = dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD);
	sgemm_fn vendor = lib ? (sgemm_fn)dlsym(lib, "cublasSgemm_v2") : NULL;
	sgemm_fn shim = cublasSgemm_v2;
	Dl_info info;
	if (!vendor || vendor == shim || !dladdr((void *)shim, &info) || !strstr(info.dli_fname, "isaac")) {
		printf("setup: the shim's and the vendor's cublasSgemm_v2 were not both found\n");
		return 1;
	}
	cublasHandle_t h;
	float *a, *b, *c, alpha = 1, beta = 0;
	if (cublasCreate(&h) || cudaMalloc((void **)&a, 4 * n * n) || cudaMalloc((void **)&b, 4 * n * n) ||
		cudaMalloc((void **)&c, 4 * n * n))
		return 1;
	cudaMemset(a, 0, 4 * n * n);
	cudaMemset(b, 0, 4 * n * n);
	sgemm_fn fns[2] = {vendor, shim};
	for (int i = 0; i < 2000; i++)
		fns[i & 1](h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n);
	cudaDeviceSynchronize();
	double t[2][BATCHES], diff[BATCHES], total[2] = {0, 0};
	for (int batch = 0; batch < BATCHES; batch++) {
		for (int which = 0; which < 2; which++) {
			int w = (batch & 1) ? 1 - which : which;  /* alternate who goes first */
			double t0 = now_ns();
			for (int i = 0; i < PER; i++)
				if (fns[w](h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, a, n, b, n, &beta, c, n))
					return 2;
			double t1 = now_ns();
			cudaDeviceSynchronize();
			t[w][batch] = (t1 - t0) / PER;
			total[w] += t1 - t0;
		}
		diff[batch] = t[1][batch] - t[0][batch];
	}
	qsort(t[0], BATCHES, sizeof(double), cmp);
	qsort(t[1], BATCHES, sizeof(double), cmp);
	qsort(diff, BATCHES, sizeof(double), cmp);
	printf("sgemm %dx%dx%d, %d calls each: vendor median %.0f ns/call (mean %.0f), shim median %.0f ns/call "
		"(mean %.0f); added per call: median of paired batches %+.0f ns, difference of means %+.0f ns\n",
		n, n, n, BATCHES * PER, t[0][BATCHES / 2], total[0] / (BATCHES * PER), t[1][BATCHES / 2],
		total[1] / (BATCHES * PER), diff[BATCHES / 2], (total[1] - total[0]) / (BATCHES * PER));
	return 0;
}
