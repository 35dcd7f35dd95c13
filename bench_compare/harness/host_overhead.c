/*
 * host_overhead.c: host-side costs of libisaac.so, measured against cuBLAS
 * side by side in one process. Built and run by `bench_compare -overhead`
 * (and gputest/run.sh) on a GPU machine, linked -lisaac -lcublas: the
 * program's cublasSgemm_v2 is the shim's; the vendor's own function is
 * looked up in the loaded libcublas with dlsym.
 *
 *   host_overhead calls N    host time per cublasSgemm_v2 call, N×N×N:
 *                            batches of 100 calls alternate between the shim
 *                            and cuBLAS (10,000 calls each, same handle and
 *                            buffers); each batch's issue time is measured,
 *                            then an untimed synchronization, so the launch
 *                            queue never fills.
 *   host_overhead first M N K  wall time of the first call on a new shape
 *                            (issue + completion), then of the second,
 *                            after a warm-up on another shape through both
 *                            the shim and cuBLAS's own function: served by
 *                            ISAAC, the shim's warm-up call would leave
 *                            cuBLAS's initialization (tens of milliseconds)
 *                            to the timed call.
 */
#define _GNU_SOURCE
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const float *, const float *, int, const float *, int, const float *, float *, int);

/* vendor_sgemm is cuBLAS's own cublasSgemm_v2, or NULL (with a message)
 * when it and the shim's were not both found. */
static sgemm_fn vendor_sgemm(void)
{
	void *lib = dlopen("libcublas.so.13", RTLD_LAZY | RTLD_NOLOAD);
	if (!lib)
		lib = dlopen("libcublas.so.12", RTLD_LAZY | RTLD_NOLOAD);
	sgemm_fn vendor = lib ? (sgemm_fn)dlsym(lib, "cublasSgemm_v2") : NULL;
	sgemm_fn shim = cublasSgemm_v2;
	Dl_info info;
	if (!vendor || vendor == shim || !dladdr((void *)shim, &info) || !strstr(info.dli_fname, "isaac")) {
		fprintf(stderr, "host_overhead: the shim's and the vendor's cublasSgemm_v2 were not both found\n");
		return NULL;
	}
	return vendor;
}

/* sgemm_args are the timed SGEMM's arguments, for time_calls. */
struct sgemm_args {
	sgemm_fn fns[2]; /* the vendor's, the shim's */
	cublasHandle_t h;
	int n;
	float *a, *b, *c, alpha, beta;
};

static int sgemm_call(int which, void *ctx)
{
	struct sgemm_args *g = ctx;
	return g->fns[which](g->h, CUBLAS_OP_N, CUBLAS_OP_N, g->n, g->n, g->n, &g->alpha, g->a, g->n, g->b, g->n, &g->beta, g->c, g->n);
}

static int calls(cublasHandle_t h, int n)
{
	sgemm_fn vendor = vendor_sgemm(), shim = cublasSgemm_v2;
	if (!vendor)
		return 1;
	float *a, *b, *c, alpha = 1, beta = 0;
	if (cudaMalloc((void **)&a, 4 * n * n) || cudaMalloc((void **)&b, 4 * n * n) || cudaMalloc((void **)&c, 4 * n * n))
		return 1;
	cudaMemset(a, 0x3c, 4 * n * n);
	cudaMemset(b, 0x3c, 4 * n * n);
	struct sgemm_args args = {{vendor, shim}, h, n, a, b, c, alpha, beta};
	for (int i = 0; i < 2000; i++)
		sgemm_call(i & 1, &args);
	cudaDeviceSynchronize();
	return time_calls(sgemm_call, &args, n);
}

static int first(cublasHandle_t h, int m, int n, int k)
{
	float *a, *b, *c, alpha = 1, beta = 0;
	if (cudaMalloc((void **)&a, 4 * (size_t)m * k) || cudaMalloc((void **)&b, 4 * (size_t)k * n) ||
		cudaMalloc((void **)&c, 4 * (size_t)m * n))
		return 1;
	/* warm the runtime, the handle, the shim and cuBLAS on another shape */
	sgemm_fn vendor = vendor_sgemm();
	if (!vendor)
		return 1;
	cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, a, 8, b, 8, &beta, c, 8);
	vendor(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &alpha, a, 8, b, 8, &beta, c, 8);
	cudaDeviceSynchronize();
	double us[2];
	for (int i = 0; i < 2; i++) {
		double t0 = now_ns();
		if (cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, m, b, k, &beta, c, m))
			return 2;
		cudaDeviceSynchronize();
		us[i] = (now_ns() - t0) / 1e3;
	}
	printf("m=%d n=%d k=%d first_us=%.1f second_us=%.1f\n", m, n, k, us[0], us[1]);
	return 0;
}

int main(int argc, char **argv)
{
	cublasHandle_t h;
	if (cublasCreate(&h)) {
		fprintf(stderr, "host_overhead: cublasCreate failed\n");
		return 1;
	}
	if (argc >= 3 && strcmp(argv[1], "calls") == 0)
		return calls(h, atoi(argv[2]));
	if (argc >= 5 && strcmp(argv[1], "first") == 0)
		return first(h, atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
	fprintf(stderr, "usage: host_overhead calls N | first M N K\n");
	return 2;
}
