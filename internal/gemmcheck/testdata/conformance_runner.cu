/*
 * conformance_runner.cu: the C ABI implementation of the GEMM conformance
 * table (TestGPUConformance). It reads calls from standard input, makes
 * each through the cuBLAS entry point the call names — libisaac.so's when
 * it is preloaded — and writes C back to standard output. It knows nothing
 * of ISAAC: it is a plain cuBLAS client.
 *
 * A call is NFIELDS little-endian int64 fields (the enum below), then the
 * bytes of A, B and C (the stored buffers, offsets and padding included).
 * The answer is the cuBLAS status and the CUDA error as two int32, then,
 * when both are 0, C's bytes after the call. End of input ends the program.
 */
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum {
	F_ENTRY,   /* 0 Sgemm_v2, 1 Dgemm_v2, 2 Hgemm, 3 GemmEx, +4: the _64 variants */
	F_TRANSA, F_TRANSB,
	F_M, F_N, F_K, F_LDA, F_LDB, F_LDC,
	F_ATYPE, F_BTYPE, F_CTYPE, F_COMPUTE, F_ALGO,
	F_MATH,    /* cublasMath_t of the handle */
	F_PTRMODE, /* 0 host, 1 device scalars */
	F_OFFA, F_OFFB, F_OFFC, /* bytes from the buffer's start to the operand */
	F_LENA, F_LENB, F_LENC, /* buffer bytes */
	F_ALPHA, F_BETA,        /* the scalars' bits in the scaling type */
	F_SCALAR,               /* bytes of the scaling type */
	NFIELDS
};

static int read_full(void *p, size_t n)
{
	return n == 0 || fread(p, 1, n, stdin) == n;
}

static void write_full(const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, stdout) != n) {
		perror("conformance_runner: write");
		exit(1);
	}
}

static void *upload(size_t n, int *cerr)
{
	void *h = malloc(n ? n : 1), *d = NULL;
	if (!h || !read_full(h, n)) {
		fprintf(stderr, "conformance_runner: short input\n");
		exit(1);
	}
	if (!*cerr)
		*cerr = cudaMalloc(&d, n ? n : 1);
	if (!*cerr)
		*cerr = cudaMemcpy(d, h, n, cudaMemcpyHostToDevice);
	free(h);
	return d;
}

static cublasStatus_t call(cublasHandle_t h, const int64_t *f, const void *alpha, const void *beta,
	const char *A, const char *B, char *C)
{
	cublasOperation_t ta = (cublasOperation_t)f[F_TRANSA], tb = (cublasOperation_t)f[F_TRANSB];
	const void *a = A + f[F_OFFA], *b = B + f[F_OFFB];
	void *c = C + f[F_OFFC];
	int64_t m = f[F_M], n = f[F_N], k = f[F_K], lda = f[F_LDA], ldb = f[F_LDB], ldc = f[F_LDC];
	switch (f[F_ENTRY]) {
	case 0:
		return cublasSgemm_v2(h, ta, tb, (int)m, (int)n, (int)k, (const float *)alpha, (const float *)a, (int)lda,
			(const float *)b, (int)ldb, (const float *)beta, (float *)c, (int)ldc);
	case 1:
		return cublasDgemm_v2(h, ta, tb, (int)m, (int)n, (int)k, (const double *)alpha, (const double *)a, (int)lda,
			(const double *)b, (int)ldb, (const double *)beta, (double *)c, (int)ldc);
	case 2:
		return cublasHgemm(h, ta, tb, (int)m, (int)n, (int)k, (const __half *)alpha, (const __half *)a, (int)lda,
			(const __half *)b, (int)ldb, (const __half *)beta, (__half *)c, (int)ldc);
	case 3:
		return cublasGemmEx(h, ta, tb, (int)m, (int)n, (int)k, alpha, a, (cudaDataType)f[F_ATYPE], (int)lda,
			b, (cudaDataType)f[F_BTYPE], (int)ldb, beta, c, (cudaDataType)f[F_CTYPE], (int)ldc,
			(cublasComputeType_t)f[F_COMPUTE], (cublasGemmAlgo_t)f[F_ALGO]);
	case 4:
		return cublasSgemm_v2_64(h, ta, tb, m, n, k, (const float *)alpha, (const float *)a, lda,
			(const float *)b, ldb, (const float *)beta, (float *)c, ldc);
	case 5:
		return cublasDgemm_v2_64(h, ta, tb, m, n, k, (const double *)alpha, (const double *)a, lda,
			(const double *)b, ldb, (const double *)beta, (double *)c, ldc);
	case 6:
		return cublasHgemm_64(h, ta, tb, m, n, k, (const __half *)alpha, (const __half *)a, lda,
			(const __half *)b, ldb, (const __half *)beta, (__half *)c, ldc);
	case 7:
		return cublasGemmEx_64(h, ta, tb, m, n, k, alpha, a, (cudaDataType)f[F_ATYPE], lda,
			b, (cudaDataType)f[F_BTYPE], ldb, beta, c, (cudaDataType)f[F_CTYPE], ldc,
			(cublasComputeType_t)f[F_COMPUTE], (cublasGemmAlgo_t)f[F_ALGO]);
	}
	return CUBLAS_STATUS_INVALID_VALUE;
}

int main(void)
{
	cublasHandle_t h;
	cudaStream_t s;
	if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess ||
		cublasSetStream(h, s) != CUBLAS_STATUS_SUCCESS) {
		fprintf(stderr, "conformance_runner: no cuBLAS handle\n");
		return 1;
	}
	int64_t f[NFIELDS];
	while (read_full(f, sizeof f)) {
		int cerr = 0;
		char *A = (char *)upload(f[F_LENA], &cerr), *B = (char *)upload(f[F_LENB], &cerr), *C = (char *)upload(f[F_LENC], &cerr);
		uint64_t host[2] = {(uint64_t)f[F_ALPHA], (uint64_t)f[F_BETA]};
		const void *alpha = &host[0], *beta = &host[1];
		char *scalars = NULL;
		if (f[F_PTRMODE] == 1) {
			char packed[16] = {0};
			memcpy(packed, &host[0], f[F_SCALAR]);
			memcpy(packed + f[F_SCALAR], &host[1], f[F_SCALAR]);
			if (!cerr)
				cerr = cudaMalloc((void **)&scalars, 16);
			if (!cerr)
				cerr = cudaMemcpy(scalars, packed, 16, cudaMemcpyHostToDevice);
			alpha = scalars;
			beta = scalars + f[F_SCALAR];
		}
		/* cudaMemcpy from pageable memory may return before its DMA ends,
		 * and the call's stream does not wait for the legacy stream. */
		if (!cerr)
			cerr = cudaDeviceSynchronize();
		int32_t st = cublasSetMathMode(h, (cublasMath_t)f[F_MATH]);
		if (!st)
			st = cublasSetPointerMode(h, f[F_PTRMODE] ? CUBLAS_POINTER_MODE_DEVICE : CUBLAS_POINTER_MODE_HOST);
		if (!st && !cerr)
			st = call(h, f, alpha, beta, A, B, C);
		if (!cerr)
			cerr = cudaStreamSynchronize(s);
		char *out = (char *)malloc(f[F_LENC] ? f[F_LENC] : 1);
		if (!st && !cerr)
			cerr = cudaMemcpy(out, C, f[F_LENC], cudaMemcpyDeviceToHost);
		int32_t answer[2] = {st, cerr};
		write_full(answer, sizeof answer);
		if (!st && !cerr)
			write_full(out, f[F_LENC]);
		fflush(stdout);
		free(out);
		cudaFree(A);
		cudaFree(B);
		cudaFree(C);
		cudaFree(scalars);
	}
	cublasDestroy(h);
	cudaStreamDestroy(s);
	return 0;
}
