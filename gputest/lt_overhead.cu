/*
 * lt_overhead.cu: host time per cublasLtMatmul call, enqueued back to back
 * (one small FP16 GEMM with a bias epilogue, as nn.Linear issues it), so
 * that the shim's cost on a call it forwards or serves can be read against
 * cuBLASLt alone: run it plain, then under LD_PRELOAD with ISAAC_DISABLE=1,
 * ISAAC_POLICY=never (descriptors read and decoded, then forwarded) and the
 * default policy.
 *
 *   nvcc -O2 -o lt_overhead gputest/lt_overhead.cu -lcublasLt
 *   ./lt_overhead [calls] [m n k]
 *
 * Prints the median over 9 rounds of the host microseconds per call (the
 * GPU work of each call is shorter than its enqueue: the queue never
 * fills).
 */
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <cublasLt.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#define MUST(x) do { long e_ = (long)(x); if (e_) { printf("error %ld at %s:%d\n", e_, __FILE__, __LINE__); exit(2); } } while (0)

int main(int argc, char **argv)
{
	int calls = argc > 1 ? atoi(argv[1]) : 20000;
	long m = argc > 4 ? atol(argv[2]) : 64, n = argc > 4 ? atol(argv[3]) : 16, k = argc > 4 ? atol(argv[4]) : 64;
	cublasLtHandle_t h;
	MUST(cublasLtCreate(&h));
	cudaStream_t stream;
	MUST(cudaStreamCreate(&stream));
	void *a, *b, *c, *bias, *ws;
	size_t wsBytes = 32 << 20;
	MUST(cudaMalloc(&a, m * k * 2));
	MUST(cudaMalloc(&b, k * n * 2));
	MUST(cudaMalloc(&c, m * n * 2));
	MUST(cudaMalloc(&bias, m * 2));
	MUST(cudaMalloc(&ws, wsBytes));
	MUST(cudaMemset(a, 0, m * k * 2));
	MUST(cudaMemset(b, 0, k * n * 2));
	MUST(cudaMemset(bias, 0, m * 2));
	cublasLtMatmulDesc_t desc;
	MUST(cublasLtMatmulDescCreate(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F));
	cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
	MUST(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta));
	MUST(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb));
	cublasLtEpilogue_t epi = CUBLASLT_EPILOGUE_BIAS;
	MUST(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
	MUST(cublasLtMatmulDescSetAttribute(desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias));
	cublasLtMatrixLayout_t la, lb, lc;
	MUST(cublasLtMatrixLayoutCreate(&la, CUDA_R_16F, k, m, k));
	MUST(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16F, k, n, k));
	MUST(cublasLtMatrixLayoutCreate(&lc, CUDA_R_16F, m, n, m));
	cublasLtMatmulPreference_t pref;
	MUST(cublasLtMatmulPreferenceCreate(&pref));
	MUST(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &wsBytes, sizeof wsBytes));
	cublasLtMatmulHeuristicResult_t res;
	int found = 0;
	MUST(cublasLtMatmulAlgoGetHeuristic(h, desc, la, lb, lc, lc, pref, 1, &res, &found));
	if (found < 1) {
		printf("no algorithm\n");
		return 2;
	}
	float alpha = 1, beta = 0;
	std::vector<double> per;
	for (int round = 0; round < 10; round++) {
		MUST(cudaStreamSynchronize(stream));
		auto t0 = std::chrono::steady_clock::now();
		for (int i = 0; i < calls / 10; i++)
			MUST(cublasLtMatmul(h, desc, &alpha, a, la, b, lb, &beta, c, lc, c, lc, &res.algo, ws, wsBytes, stream));
		auto t1 = std::chrono::steady_clock::now();
		MUST(cudaStreamSynchronize(stream));
		if (round > 0) // the first round decides, compiles, checks
			per.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / (calls / 10));
	}
	std::sort(per.begin(), per.end());
	printf("lt_overhead: %ldx%ldx%ld f16 bias: %.3f us per call (median of %zu rounds of %d calls; min %.3f, max %.3f)\n",
		m, n, k, per[per.size() / 2], per.size(), calls / 10, per.front(), per.back());
	return 0;
}
