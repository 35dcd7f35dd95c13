/*
 * abi_main.c: calls every entry point of libisaac.so with distinctive
 * arguments and checks that the (fake) vendor received exactly those
 * arguments and that its status came back. Modes:
 *   calls STATUS     every entry point once, in this thread
 *   threads          8 threads x 2000 calls at once
 *   fork             a call, then every entry point in a forked child
 *   local            the vendor loaded with dlopen(RTLD_LOCAL), as PyTorch does
 *   novendor         no vendor library anywhere: NOT_INITIALIZED statuses
 *   invalid          arguments cuBLAS rejects that a served class could
 *                    otherwise carry: an unknown algorithm, a NULL scalar,
 *                    a negative batch count
 *   convs            a convolution cuDNN rejects (x NULL) twice, then one it
 *                    takes: the cuDNN getters called by each call printed
 * Built three ways: linked -lisaac -lcublas -lcudnn, linked to the fakes only
 * (run with LD_PRELOAD=libisaac.so), or linked -lisaac only (local, novendor).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fake_vendor.h"

static const fake_call *(*last_call)(void);
static long (*getter_calls)(void);
static void (*set_status)(int);
static int failures;

#define CHECK(cond, ...) do { if (!(cond)) { failures++; printf("FAIL %s:%d: ", __func__, __LINE__); \
	printf(__VA_ARGS__); printf("\n"); } } while (0)

static void hooks(void *lib)
{
	last_call = (const fake_call *(*)(void))dlsym(lib, "fake_last_call");
	getter_calls = (long (*)(void))dlsym(lib, "fake_getter_calls");
	set_status = (void (*)(int))dlsym(lib, "fake_set_status");
	if (!last_call || !getter_calls || !set_status) {
		printf("FAIL: fake vendor hooks not found\n");
		exit(2);
	}
}

static void check_gemm(const char *fn, int status, int want_status, void *handle, int ta, int tb,
	int64_t m, int64_t n, int64_t k, const void *alpha, const void *A, int64_t lda,
	const void *B, int64_t ldb, const void *beta, void *C, int64_t ldc,
	int at, int bt, int ct, int compute, int algo)
{
	const fake_call *c = last_call();
	CHECK(status == want_status, "%s returned %d, want %d", fn, status, want_status);
	CHECK(c->fn != NULL && strcmp(c->fn, fn) == 0, "vendor saw %s, want %s", c->fn ? c->fn : "nothing", fn);
	CHECK(c->handle == handle && c->transa == ta && c->transb == tb, "%s: handle/trans differ", fn);
	CHECK(c->m == m && c->n == n && c->k == k, "%s: m,n,k = %ld,%ld,%ld want %ld,%ld,%ld", fn,
		(long)c->m, (long)c->n, (long)c->k, (long)m, (long)n, (long)k);
	CHECK(c->lda == lda && c->ldb == ldb && c->ldc == ldc, "%s: leading dimensions differ", fn);
	CHECK(c->alpha == alpha && c->beta == beta && c->A == A && c->B == B && c->C == C,
		"%s: pointers differ", fn);
	CHECK(c->atype == at && c->btype == bt && c->ctype == ct && c->compute == compute && c->algo == algo,
		"%s: types %d %d %d %d %d, want %d %d %d %d %d", fn, c->atype, c->btype, c->ctype,
		c->compute, c->algo, at, bt, ct, compute, algo);
}

/* The strides and batch count the vendor received with the last call. */
static void check_batch(const char *fn, long long sa, long long sb, long long sc, int64_t batch)
{
	const fake_call *c = last_call();
	CHECK(c->stride_a == sa && c->stride_b == sb && c->stride_c == sc && c->batch == batch,
		"%s: strides %lld %lld %lld batch %lld, want %lld %lld %lld batch %lld", fn,
		c->stride_a, c->stride_b, c->stride_c, (long long)c->batch, sa, sb, sc, (long long)batch);
}

/* Every entry point once. seed varies the arguments; status is what the
 * fake returns. */
static void run_all(int seed, int status)
{
	float fa = 1.5f, fb = 0.25f;
	double da = 2.5, db = 0.5;
	__half ha = {0x3c00}, hb = {0x0000};
	void *h = (void *)(uintptr_t)(0x1000 + 16 * seed);
	char *p = (char *)(uintptr_t)(0x7f0000000000ULL + 4096 * seed);
	int m = 3 + seed, n = 5 + seed, k = 7 + seed;
	set_status(status);

	int s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &fa, (float *)p, m + 1,
		(float *)(p + 64), n + 2, &fb, (float *)(p + 128), m + 3);
	check_gemm("cublasSgemm_v2", s, status, h, 0, 1, m, n, k, &fa, p, m + 1, p + 64, n + 2, &fb,
		p + 128, m + 3, -1, -1, -1, -1, -1);
	s = cublasDgemm_v2(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, (double *)p, k, (double *)(p + 8),
		k, &db, (double *)(p + 16), m);
	check_gemm("cublasDgemm_v2", s, status, h, 1, 0, m, n, k, &da, p, k, p + 8, k, &db, p + 16, m,
		-1, -1, -1, -1, -1);
	s = cublasHgemm(h, CUBLAS_OP_C, CUBLAS_OP_C, m, n, k, &ha, (__half *)p, k, (__half *)(p + 2), n,
		&hb, (__half *)(p + 4), m);
	check_gemm("cublasHgemm", s, status, h, 2, 2, m, n, k, &ha, p, k, p + 2, n, &hb, p + 4, m,
		-1, -1, -1, -1, -1);
	s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, p, CUDA_R_16BF, m, p + 2, CUDA_R_16BF,
		k, &fb, p + 6, CUDA_R_16BF, m, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmEx", s, status, h, 0, 0, m, n, k, &fa, p, m, p + 2, k, &fb, p + 6, m,
		CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, -1);
	int64_t big = 3000000000LL;  /* a _64 size that does not fit an int */
	s = cublasSgemm_v2_64(h, CUBLAS_OP_N, CUBLAS_OP_N, big, n, k, &fa, (float *)p, big,
		(float *)p, k, &fb, (float *)p, big);
	check_gemm("cublasSgemm_v2_64", s, status, h, 0, 0, big, n, k, &fa, p, big, p, k, &fb, p, big,
		-1, -1, -1, -1, -1);
	s = cublasDgemm_v2_64(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, k, &da, (double *)p, k, (double *)p, n,
		&db, (double *)p, m);
	check_gemm("cublasDgemm_v2_64", s, status, h, 1, 1, m, n, k, &da, p, k, p, n, &db, p, m,
		-1, -1, -1, -1, -1);
	s = cublasHgemm_64(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &ha, (__half *)p, m, (__half *)p, n,
		&hb, (__half *)p, m);
	check_gemm("cublasHgemm_64", s, status, h, 0, 1, m, n, k, &ha, p, m, p, n, &hb, p, m,
		-1, -1, -1, -1, -1);
	s = cublasGemmEx_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, p, CUDA_R_64F, k, p, CUDA_R_64F, k,
		&db, p, CUDA_R_64F, m, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmEx_64", s, status, h, 1, 0, m, n, k, &da, p, k, p, k, &db, p, m,
		CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, -1);
	/* The strided-batched routines: batches of several matrices (one with
	 * a negative stride, one with 64-bit strides and batch count), of one
	 * matrix, and of none. */
	long long sa = (long long)(m + 1) * k, sb = (long long)(n + 2) * k + seed, sc = (long long)(m + 3) * n;
	s = cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &fa, (float *)p, m + 1, sa,
		(float *)(p + 64), n + 2, sb, &fb, (float *)(p + 128), m + 3, sc, 4 + seed);
	check_gemm("cublasSgemmStridedBatched", s, status, h, 0, 1, m, n, k, &fa, p, m + 1, p + 64, n + 2,
		&fb, p + 128, m + 3, -1, -1, -1, -1, -1);
	check_batch("cublasSgemmStridedBatched", sa, sb, sc, 4 + seed);
	s = cublasDgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, (double *)p, k, 0,
		(double *)(p + 8), k, sb, &db, (double *)(p + 16), m, sc, 2);
	check_gemm("cublasDgemmStridedBatched", s, status, h, 1, 0, m, n, k, &da, p, k, p + 8, k, &db,
		p + 16, m, -1, -1, -1, -1, -1);
	check_batch("cublasDgemmStridedBatched", 0, sb, sc, 2);
	s = cublasHgemmStridedBatched(h, CUBLAS_OP_C, CUBLAS_OP_N, m, n, k, &ha, (__half *)p, k, sa,
		(__half *)(p + 2), k, sb, &hb, (__half *)(p + 4), m, sc, 1);
	check_gemm("cublasHgemmStridedBatched", s, status, h, 2, 0, m, n, k, &ha, p, k, p + 2, k, &hb,
		p + 4, m, -1, -1, -1, -1, -1);
	check_batch("cublasHgemmStridedBatched", sa, sb, sc, 1);
	s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, p, CUDA_R_16BF, m, sa,
		p + 2, CUDA_R_16BF, k, sb, &fb, p + 6, CUDA_R_16BF, m, sc, 3, CUBLAS_COMPUTE_32F,
		CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmStridedBatchedEx", s, status, h, 0, 0, m, n, k, &fa, p, m, p + 2, k, &fb,
		p + 6, m, CUDA_R_16BF, CUDA_R_16BF, CUDA_R_16BF, CUBLAS_COMPUTE_32F, -1);
	check_batch("cublasGemmStridedBatchedEx", sa, sb, sc, 3);
	s = cublasSgemmStridedBatched_64(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, (float *)p, m, sa,
		(float *)p, k, sb, &fb, (float *)p, m, sc, 0);
	check_gemm("cublasSgemmStridedBatched_64", s, status, h, 0, 0, m, n, k, &fa, p, m, p, k, &fb, p, m,
		-1, -1, -1, -1, -1);
	check_batch("cublasSgemmStridedBatched_64", sa, sb, sc, 0);
	s = cublasDgemmStridedBatched_64(h, CUBLAS_OP_T, CUBLAS_OP_T, m, n, k, &da, (double *)p, k, -sa,
		(double *)p, n, sb, &db, (double *)p, m, sc, 5);
	check_gemm("cublasDgemmStridedBatched_64", s, status, h, 1, 1, m, n, k, &da, p, k, p, n, &db, p, m,
		-1, -1, -1, -1, -1);
	check_batch("cublasDgemmStridedBatched_64", -sa, sb, sc, 5);
	long long far = 5000000000LL;  /* strides and a batch count beyond 32 bits */
	s = cublasHgemmStridedBatched_64(h, CUBLAS_OP_N, CUBLAS_OP_T, m, n, k, &ha, (__half *)p, m, far + 1,
		(__half *)p, n, far + 2, &hb, (__half *)p, m, far + 3, big);
	check_gemm("cublasHgemmStridedBatched_64", s, status, h, 0, 1, m, n, k, &ha, p, m, p, n, &hb, p, m,
		-1, -1, -1, -1, -1);
	check_batch("cublasHgemmStridedBatched_64", far + 1, far + 2, far + 3, big);
	s = cublasGemmStridedBatchedEx_64(h, CUBLAS_OP_T, CUBLAS_OP_N, m, n, k, &da, p, CUDA_R_64F, k, sa,
		p, CUDA_R_64F, k, sb, &db, p, CUDA_R_64F, m, sc, 1, CUBLAS_COMPUTE_64F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmStridedBatchedEx_64", s, status, h, 1, 0, m, n, k, &da, p, k, p, k, &db, p, m,
		CUDA_R_64F, CUDA_R_64F, CUDA_R_64F, CUBLAS_COMPUTE_64F, -1);
	check_batch("cublasGemmStridedBatchedEx_64", sa, sb, sc, 1);
	/* Invalid (lda < m) and a NULL handle: the vendor must see them too. */
	s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, (float *)p, m - 1, (float *)p, k,
		&fb, (float *)p, m);
	check_gemm("cublasSgemm_v2", s, status, h, 0, 0, m, n, k, &fa, p, m - 1, p, k, &fb, p, m,
		-1, -1, -1, -1, -1);
	s = cublasSgemm_v2(NULL, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &fa, (float *)p, m, (float *)p, k,
		&fb, (float *)p, m);
	check_gemm("cublasSgemm_v2", s, status, NULL, 0, 0, m, n, k, &fa, p, m, p, k, &fb, p, m,
		-1, -1, -1, -1, -1);

	void *xd = (void *)0x2000, *wd = (void *)0x3000, *cd = (void *)0x4000, *yd = (void *)0x5000;
	s = cudnnConvolutionForward((cudnnHandle_t)h, &fa, xd, p, wd, p + 8, cd,
		CUDNN_CONVOLUTION_FWD_ALGO_GEMM, p + 16, 4096 + seed, &fb, yd, p + 24);
	const fake_call *c = last_call();
	int want = status == 0 ? 0 : status + 1000;
	CHECK(s == want, "cudnnConvolutionForward returned %d, want %d", s, want);
	CHECK(c->fn && strcmp(c->fn, "cudnnConvolutionForward") == 0, "vendor saw %s", c->fn ? c->fn : "nothing");
	CHECK(c->handle == h && c->alpha == &fa && c->beta == &fb && c->x_desc == xd && c->w_desc == wd &&
		c->conv_desc == cd && c->y_desc == yd && c->x == p && c->w == p + 8 && c->y == p + 24 &&
		c->workspace == p + 16 && c->workspace_bytes == (size_t)(4096 + seed) && c->algo == 2,
		"cudnnConvolutionForward: arguments differ");
}

/* Calls whose types and sizes ISAAC serves, with an argument cuBLAS
 * rejects: each must reach the vendor, decided from its arguments alone. */
static void run_invalid(void)
{
	float fa = 1.5f, fb = 0.25f;
	__half ha = {0x3c00};
	void *h = (void *)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	set_status(7);
	int s = cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &fa, p, CUDA_R_32F, 8, p, CUDA_R_32F, 8,
		&fb, p, CUDA_R_32F, 8, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)12345);
	check_gemm("cublasGemmEx", s, 7, h, 0, 0, 8, 8, 8, &fa, p, 8, p, 8, &fb, p, 8,
		CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 12345);
	s = cublasGemmEx_64(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &fa, p, CUDA_R_32F, 8, p, CUDA_R_32F, 8,
		&fb, p, CUDA_R_32F, 8, CUBLAS_COMPUTE_32F, (cublasGemmAlgo_t)24);
	check_gemm("cublasGemmEx_64", s, 7, h, 0, 0, 8, 8, 8, &fa, p, 8, p, 8, &fb, p, 8,
		CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, 24);
	s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, NULL, (float *)p, 8, (float *)p, 8,
		&fb, (float *)p, 8);
	check_gemm("cublasSgemm_v2", s, 7, h, 0, 0, 8, 8, 8, NULL, p, 8, p, 8, &fb, p, 8, -1, -1, -1, -1, -1);
	s = cublasHgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &ha, (__half *)p, 8, (__half *)p, 8,
		NULL, (__half *)p, 8);
	check_gemm("cublasHgemm", s, 7, h, 0, 0, 8, 8, 8, &ha, p, 8, p, 8, NULL, p, 8, -1, -1, -1, -1, -1);
	s = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &fa, p, CUDA_R_32F, 8, 64, p,
		CUDA_R_32F, 8, 64, &fb, p, CUDA_R_32F, 8, 64, -1, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
	check_gemm("cublasGemmStridedBatchedEx", s, 7, h, 0, 0, 8, 8, 8, &fa, p, 8, p, 8, &fb, p, 8,
		CUDA_R_32F, CUDA_R_32F, CUDA_R_32F, CUBLAS_COMPUTE_32F, -1);
	check_batch("cublasGemmStridedBatchedEx", 64, 64, 64, -1);
	s = cublasHgemmStridedBatched_64(h, CUBLAS_OP_N, CUBLAS_OP_N, 8, 8, 8, &ha, (__half *)p, 8, 64,
		(__half *)p, 8, 64, &ha, (__half *)p, 8, 64, -3);
	check_gemm("cublasHgemmStridedBatched_64", s, 7, h, 0, 0, 8, 8, 8, &ha, p, 8, p, 8, &ha, p, 8,
		-1, -1, -1, -1, -1);
	check_batch("cublasHgemmStridedBatched_64", 64, 64, 64, -3);
}

/* Convolutions: the second of two alike that cuDNN rejects is answered
 * from what the shim remembers of the first; each call's getters printed. */
static void run_convs(void)
{
	float fa = 1, fb = 0;
	void *h = (void *)(uintptr_t)0x1000;
	char *p = (char *)(uintptr_t)0x7f0000000000ULL;
	void *xd = (void *)0x2000, *wd = (void *)0x3000, *cd = (void *)0x4000, *yd = (void *)0x5000;
	set_status(0);
	for (int i = 0; i < 3; i++) {
		long before = getter_calls();
		const void *x = i < 2 ? NULL : p;
		int s = cudnnConvolutionForward((cudnnHandle_t)h, &fa, xd, x, wd, p + 8, cd,
			CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, 0, &fb, yd, p + 24);
		const fake_call *c = last_call();
		CHECK(s == 0 && c->x == x && c->handle == h && c->y == p + 24, "convolution %d: status %d or arguments differ", i, s);
		printf("conv%d getters=%ld\n", i, getter_calls() - before);
	}
}

static void *thread_main(void *arg)
{
	int id = (int)(intptr_t)arg;
	float fa = 1, fb = 0;
	for (int i = 0; i < 2000 && failures == 0; i++) {
		void *h = (void *)(uintptr_t)(0x100000 + id * 4096 + i);
		int m = 1 + (i + id) % 97;
		int s = cublasSgemm_v2(h, CUBLAS_OP_N, CUBLAS_OP_N, m, 9, 4, &fa, (float *)h, m,
			(float *)h, 4, &fb, (float *)h, m);
		check_gemm("cublasSgemm_v2", s, 13, h, 0, 0, m, 9, 4, &fa, h, m, h, 4, &fb, h, m,
			-1, -1, -1, -1, -1);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "calls";
	if (strcmp(mode, "novendor") == 0) {
		float a = 1, b = 0;
		int s = cublasSgemm_v2((cublasHandle_t)0x10, CUBLAS_OP_N, CUBLAS_OP_N, 2, 2, 2, &a, NULL, 2,
			NULL, 2, &b, NULL, 2);
		CHECK(s == CUBLAS_STATUS_NOT_INITIALIZED, "no cuBLAS: status %d", s);
		s = cudnnConvolutionForward((cudnnHandle_t)0x10, &a, NULL, NULL, NULL, NULL, NULL,
			CUDNN_CONVOLUTION_FWD_ALGO_GEMM, NULL, 0, &b, NULL, NULL);
		CHECK(s == CUDNN_STATUS_NOT_INITIALIZED, "no cuDNN: status %d", s);
		printf("%s\n", failures ? "FAILED" : "PASS novendor");
		return failures != 0;
	}
	if (strcmp(mode, "local") == 0) {
		void *lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
		void *dnn = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_LOCAL);
		if (!lib || !dnn) {
			printf("FAIL: dlopen: %s\n", dlerror());
			return 2;
		}
		if (dlsym(RTLD_DEFAULT, "fake_last_call") != NULL) {
			printf("FAIL: the vendor is in the global scope; this mode needs a local one\n");
			return 2;
		}
		hooks(lib);
	} else {
		hooks(RTLD_DEFAULT);
	}

	Dl_info info;
	if (!dladdr((void *)cublasSgemm_v2, &info) || !strstr(info.dli_fname, "libisaac")) {
		printf("FAIL: cublasSgemm_v2 resolves to %s, not libisaac\n", info.dli_fname);
		return 2;
	}

	if (strcmp(mode, "calls") == 0) {
		run_all(1, argc > 2 ? atoi(argv[2]) : 0);
	} else if (strcmp(mode, "local") == 0) {
		run_all(2, 14);
	} else if (strcmp(mode, "invalid") == 0) {
		run_invalid();
	} else if (strcmp(mode, "convs") == 0) {
		run_convs();
	} else if (strcmp(mode, "threads") == 0) {
		pthread_t t[8];
		set_status(13);
		for (int i = 0; i < 8; i++)
			pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i);
		for (int i = 0; i < 8; i++)
			pthread_join(t[i], NULL);
	} else if (strcmp(mode, "fork") == 0) {
		run_all(3, 0);
		long getters = getter_calls();
		pid_t pid = fork();
		if (pid == 0) {
			run_all(4, 7);
			CHECK(getter_calls() == getters, "the forked child ran Go: %ld getter calls, %ld before",
				getter_calls(), getters);
			printf("child %s\n", failures ? "FAILED" : "ok");
			fflush(stdout);
			exit(failures != 0);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0, "child exited with %d", st);
	} else {
		printf("unknown mode %s\n", mode);
		return 2;
	}
	printf("getters=%ld\n", getter_calls());
	printf("%s\n", failures ? "FAILED" : "PASS");
	return failures != 0;
}
