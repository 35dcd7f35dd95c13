/*
 * capture.cu: GEMMs captured into CUDA graphs, as an application makes them,
 * through whatever cublas*gemm* symbols the process resolves (libisaac.so
 * when it is preloaded or linked first, cuBLAS otherwise). gputest/capture.sh
 * runs it without the shim and under each policy.
 *
 *   1. sixteen threads, each with its own handle and non-blocking stream, run
 *      every served kind of GEMM (the legacy and _64 entry points, FP32 with
 *      and without TF32, FP64, FP16 with FP16 and FP32 compute, BF16) over a
 *      shared pool of ten shapes, twice, then once more after a pause (the
 *      default policy's decisions made, its checks begun); every result is
 *      compared with cuBLAS's own (called through dlopen'd libcublas)
 *   2. on a fresh handle with cublasSetWorkspace and a fresh non-blocking
 *      stream, one call of each kind on four shapes is captured in each
 *      capture mode (global, thread-local, relaxed); the capture must end
 *      without error and the graph, replayed twice, must compute cuBLAS's
 *      result
 *   3. shapes the threads never ran, each called three times (the first
 *      call makes the default policy's decision in the background; the
 *      next two, a second later, begin the check of a decision to serve),
 *      then captured: the state in which the check broke captures
 *   4. captures while the sixteen threads keep running on the shared
 *      shapes: one capture of every kind per mode, spread over 300 ms
 *
 * Inputs are multiples of 1/8 in [-1, 1], exact in every format, so FP32
 * and FP64 sums are exact and only the rounding of 16-bit outputs (and
 * FP16 accumulation) may differ from cuBLAS. Prints one line per phase and
 * "capture: ... failures"; exits 1 on any failure.
 */
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <signal.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>

#include "check.h"

enum Elem { F32, F64, F16, BF16 };
static const int elem_size[] = {4, 8, 2, 2};
static const cudaDataType elem_type[] = {CUDA_R_32F, CUDA_R_64F, CUDA_R_16F, CUDA_R_16BF};

enum Entry { SGEMM, DGEMM, HGEMM, GEMMEX };

struct Kind {
	const char *name;
	Entry entry;
	bool is64;
	Elem elem;
	cublasComputeType_t compute; /* GemmEx */
	cublasMath_t math;
	double tol; /* normwise, against cuBLAS */
};

/* Every served kind, through the 32-bit and the _64 entry points. */
static const Kind kinds[] = {
	{"sgemm", SGEMM, false, F32, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 1e-6},
	{"sgemm_tf32", SGEMM, false, F32, CUBLAS_COMPUTE_32F, CUBLAS_TF32_TENSOR_OP_MATH, 1e-6},
	{"dgemm", DGEMM, false, F64, CUBLAS_COMPUTE_64F, CUBLAS_DEFAULT_MATH, 1e-12},
	{"hgemm", HGEMM, false, F16, CUBLAS_COMPUTE_16F, CUBLAS_DEFAULT_MATH, 5e-2},
	{"gemmex_f16_32f", GEMMEX, false, F16, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 1e-2},
	{"gemmex_bf16_32f", GEMMEX, false, BF16, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 2e-2},
	{"gemmex_fast_tf32", GEMMEX, false, F32, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH, 1e-6},
	{"sgemm_64", SGEMM, true, F32, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 1e-6},
	{"sgemm_64_tf32", SGEMM, true, F32, CUBLAS_COMPUTE_32F, CUBLAS_TF32_TENSOR_OP_MATH, 1e-6},
	{"dgemm_64", DGEMM, true, F64, CUBLAS_COMPUTE_64F, CUBLAS_DEFAULT_MATH, 1e-12},
	{"hgemm_64", HGEMM, true, F16, CUBLAS_COMPUTE_16F, CUBLAS_DEFAULT_MATH, 5e-2},
	{"gemmex_64_f16_32f", GEMMEX, true, F16, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 1e-2},
	{"gemmex_64_bf16_32f", GEMMEX, true, BF16, CUBLAS_COMPUTE_32F, CUBLAS_DEFAULT_MATH, 2e-2},
	{"gemmex_64_fast_tf32", GEMMEX, true, F32, CUBLAS_COMPUTE_32F_FAST_TF32, CUBLAS_DEFAULT_MATH, 1e-6},
};
static const int nkinds = sizeof kinds / sizeof kinds[0];

struct Shape {
	int m, n, k;
	cublasOperation_t ta, tb;
};

/* The shared pool: small, odd, skinny (DeepBench), square, split-K. */
static const Shape shapes[] = {
	{64, 64, 64, CUBLAS_OP_N, CUBLAS_OP_N},
	{333, 257, 129, CUBLAS_OP_T, CUBLAS_OP_N},
	{2560, 16, 2560, CUBLAS_OP_T, CUBLAS_OP_N},
	{1024, 1024, 1024, CUBLAS_OP_N, CUBLAS_OP_T},
	{512, 512, 2048, CUBLAS_OP_N, CUBLAS_OP_N},
	{128, 4096, 64, CUBLAS_OP_N, CUBLAS_OP_N},
	{33, 17, 4099, CUBLAS_OP_T, CUBLAS_OP_N},
	{896, 896, 32, CUBLAS_OP_N, CUBLAS_OP_N},
	{256, 256, 256, CUBLAS_OP_T, CUBLAS_OP_T},
	{1760, 32, 1760, CUBLAS_OP_N, CUBLAS_OP_N},
	/* Fresh shapes, for phase 3 only. */
	{333, 249, 129, CUBLAS_OP_T, CUBLAS_OP_N},
	{2560, 24, 2560, CUBLAS_OP_T, CUBLAS_OP_N},
	{1760, 40, 1760, CUBLAS_OP_N, CUBLAS_OP_N},
	{512, 504, 2048, CUBLAS_OP_N, CUBLAS_OP_N},
};
static const int nshapes = sizeof shapes / sizeof shapes[0];
static const int npool = 10; /* the shared pool: the first ten */
static const int captured_shapes[] = {1, 2, 6, 0}; /* odd, skinny, split-K, small */

static const int THREADS = 16;

/* ---- the vendor, for references ---- */

typedef cublasStatus_t (*create_fn)(cublasHandle_t *);
typedef cublasStatus_t (*gemmex_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const void *, const void *, cudaDataType, int, const void *, cudaDataType, int, const void *, void *,
	cudaDataType, int, cublasComputeType_t, cublasGemmAlgo_t);
typedef cublasStatus_t (*sgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const float *, const float *, int, const float *, int, const float *, float *, int);
typedef cublasStatus_t (*dgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const double *, const double *, int, const double *, int, const double *, double *, int);
typedef cublasStatus_t (*hgemm_fn)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,
	const __half *, const __half *, int, const __half *, int, const __half *, __half *, int);
typedef cublasStatus_t (*set_math_fn)(cublasHandle_t, cublasMath_t);

static struct {
	sgemm_fn sgemm;
	dgemm_fn dgemm;
	hgemm_fn hgemm;
	gemmex_fn gemmex;
	set_math_fn set_math;
} vendor;

static void load_vendor(void)
{
	void *lib = dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL);
	if (!lib)
		lib = dlopen("libcublas.so", RTLD_NOW | RTLD_LOCAL);
	if (!lib) {
		printf("cannot dlopen libcublas: %s\n", dlerror());
		exit(2);
	}
	vendor.sgemm = (sgemm_fn)dlsym(lib, "cublasSgemm_v2");
	vendor.dgemm = (dgemm_fn)dlsym(lib, "cublasDgemm_v2");
	vendor.hgemm = (hgemm_fn)dlsym(lib, "cublasHgemm");
	vendor.gemmex = (gemmex_fn)dlsym(lib, "cublasGemmEx");
	vendor.set_math = (set_math_fn)dlsym(lib, "cublasSetMathMode");
	if (!vendor.sgemm || !vendor.dgemm || !vendor.hgemm || !vendor.gemmex || !vendor.set_math) {
		printf("libcublas lacks an entry point\n");
		exit(2);
	}
}

/* ---- data ---- */

static double eighth(uint64_t *s)
{
	*s = *s * 6364136223846793005ULL + 1442695040888963407ULL;
	return (double)((int)((*s >> 33) % 17) - 8) / 8.0;
}

static void encode(Elem e, const std::vector<double> &v, std::vector<unsigned char> &out)
{
	out.resize(v.size() * elem_size[e]);
	for (size_t i = 0; i < v.size(); i++) {
		switch (e) {
		case F32: { float f = (float)v[i]; memcpy(&out[4 * i], &f, 4); break; }
		case F64: memcpy(&out[8 * i], &v[i], 8); break;
		case F16: { __half h = __float2half((float)v[i]); memcpy(&out[2 * i], &h, 2); break; }
		case BF16: { __nv_bfloat16 b = __float2bfloat16((float)v[i]); memcpy(&out[2 * i], &b, 2); break; }
		}
	}
}

static double decode1(Elem e, const unsigned char *p)
{
	switch (e) {
	case F32: { float f; memcpy(&f, p, 4); return f; }
	case F64: { double d; memcpy(&d, p, 8); return d; }
	case F16: { __half h; memcpy(&h, p, 2); return __half2float(h); }
	case BF16: { __nv_bfloat16 b; memcpy(&b, p, 2); return __bfloat162float(b); }
	}
	return 0;
}

/* One shape's shared inputs in every element type, and its initial C. */
struct Operands {
	void *A[4], *B[4], *C0[4];
	size_t cbytes[4];
};
static Operands ops[nshapes];

static void upload(Elem e, const std::vector<double> &v, void **d, size_t *bytes)
{
	std::vector<unsigned char> h;
	encode(e, v, h);
	CK(cudaMalloc(d, h.size()));
	CK(cudaMemcpy(*d, h.data(), h.size(), cudaMemcpyHostToDevice));
	if (bytes)
		*bytes = h.size();
}

static void make_operands(void)
{
	for (int s = 0; s < nshapes; s++) {
		const Shape &sh = shapes[s];
		uint64_t seed = 1000 + s;
		std::vector<double> a((size_t)sh.m * sh.k), b((size_t)sh.k * sh.n), c((size_t)sh.m * sh.n);
		for (auto &x : a) x = eighth(&seed);
		for (auto &x : b) x = eighth(&seed);
		for (auto &x : c) x = eighth(&seed);
		for (int e = 0; e < 4; e++) {
			upload((Elem)e, a, &ops[s].A[e], NULL);
			upload((Elem)e, b, &ops[s].B[e], NULL);
			upload((Elem)e, c, &ops[s].C0[e], &ops[s].cbytes[e]);
		}
	}
}

/* ---- one call ---- */

struct Scalars {
	float f[2];
	double d[2];
	__half h[2];
};

static Scalars scalars(double alpha, double beta)
{
	Scalars s;
	s.f[0] = (float)alpha, s.f[1] = (float)beta;
	s.d[0] = alpha, s.d[1] = beta;
	s.h[0] = __float2half((float)alpha), s.h[1] = __float2half((float)beta);
	return s;
}

/* gemm makes kind's call on shape s into C: through the exported symbols
 * (the shim, when present), or through the vendor's. */
static cublasStatus_t gemm(bool through_vendor, cublasHandle_t h, const Kind &kd, int s, void *C, double beta)
{
	const Shape &sh = shapes[s];
	int lda = sh.ta == CUBLAS_OP_N ? sh.m : sh.k;
	int ldb = sh.tb == CUBLAS_OP_N ? sh.k : sh.n;
	int e = kd.elem;
	const void *A = ops[s].A[e], *B = ops[s].B[e];
	Scalars sc = scalars(1.25, beta);
	cublasStatus_t st;
	if (kd.math != CUBLAS_DEFAULT_MATH)
		CK(vendor.set_math(h, kd.math));
	if (through_vendor) {
		switch (kd.entry) {
		case SGEMM: st = vendor.sgemm(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.f[0], (const float *)A, lda,
			(const float *)B, ldb, &sc.f[1], (float *)C, sh.m); break;
		case DGEMM: st = vendor.dgemm(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.d[0], (const double *)A, lda,
			(const double *)B, ldb, &sc.d[1], (double *)C, sh.m); break;
		case HGEMM: st = vendor.hgemm(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.h[0], (const __half *)A, lda,
			(const __half *)B, ldb, &sc.h[1], (__half *)C, sh.m); break;
		default: st = vendor.gemmex(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.f[0], A, elem_type[e], lda, B,
			elem_type[e], ldb, &sc.f[1], C, elem_type[e], sh.m, kd.compute, CUBLAS_GEMM_DEFAULT); break;
		}
	} else if (!kd.is64) {
		switch (kd.entry) {
		case SGEMM: st = cublasSgemm(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.f[0], (const float *)A, lda,
			(const float *)B, ldb, &sc.f[1], (float *)C, sh.m); break;
		case DGEMM: st = cublasDgemm(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.d[0], (const double *)A, lda,
			(const double *)B, ldb, &sc.d[1], (double *)C, sh.m); break;
		case HGEMM: st = cublasHgemm(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.h[0], (const __half *)A, lda,
			(const __half *)B, ldb, &sc.h[1], (__half *)C, sh.m); break;
		default: st = cublasGemmEx(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.f[0], A, elem_type[e], lda, B,
			elem_type[e], ldb, &sc.f[1], C, elem_type[e], sh.m, kd.compute, CUBLAS_GEMM_DEFAULT); break;
		}
	} else {
		switch (kd.entry) {
		case SGEMM: st = cublasSgemm_v2_64(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.f[0], (const float *)A, lda,
			(const float *)B, ldb, &sc.f[1], (float *)C, sh.m); break;
		case DGEMM: st = cublasDgemm_v2_64(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.d[0], (const double *)A, lda,
			(const double *)B, ldb, &sc.d[1], (double *)C, sh.m); break;
		case HGEMM: st = cublasHgemm_64(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.h[0], (const __half *)A, lda,
			(const __half *)B, ldb, &sc.h[1], (__half *)C, sh.m); break;
		default: st = cublasGemmEx_64(h, sh.ta, sh.tb, sh.m, sh.n, sh.k, &sc.f[0], A, elem_type[e], lda, B,
			elem_type[e], ldb, &sc.f[1], C, elem_type[e], sh.m, kd.compute, CUBLAS_GEMM_DEFAULT); break;
		}
	}
	if (kd.math != CUBLAS_DEFAULT_MATH)
		CK(vendor.set_math(h, CUBLAS_DEFAULT_MATH));
	return st;
}

/* ---- references: cuBLAS's own result of each (kind, shape, beta) ---- */

static std::vector<unsigned char> refs[nkinds][nshapes][2]; /* beta 0.5, beta 0 */

static void make_references(void)
{
	cublasHandle_t h;
	create_fn create = (create_fn)dlsym(dlopen("libcublas.so.13", RTLD_NOW | RTLD_LOCAL), "cublasCreate_v2");
	CK(create ? create(&h) : cublasCreate(&h));
	for (int k = 0; k < nkinds; k++)
		for (int s = 0; s < nshapes; s++)
			for (int b = 0; b < 2; b++) {
				int e = kinds[k].elem;
				void *C;
				CK(cudaMalloc(&C, ops[s].cbytes[e]));
				CK(cudaMemcpy(C, ops[s].C0[e], ops[s].cbytes[e], cudaMemcpyDeviceToDevice));
				CK(gemm(true, h, kinds[k], s, C, b ? 0.0 : 0.5));
				refs[k][s][b].resize(ops[s].cbytes[e]);
				CK(cudaMemcpy(refs[k][s][b].data(), C, ops[s].cbytes[e], cudaMemcpyDeviceToHost));
				CK(cudaFree(C));
			}
	cublasDestroy(h);
}

/* compare returns the normwise error of C against the reference, or -1 when
 * one has a NaN the other has not. It copies C on stream st (never a
 * synchronous copy: that is an unsafe call while another thread captures). */
static double compare(int k, int s, int b, const void *C, cudaStream_t st)
{
	int e = kinds[k].elem;
	size_t n = ops[s].cbytes[e] / elem_size[e];
	std::vector<unsigned char> h(ops[s].cbytes[e]);
	CK(cudaMemcpyAsync(h.data(), C, h.size(), cudaMemcpyDeviceToHost, st));
	CK(cudaStreamSynchronize(st));
	double diff = 0, mag = 1e-300;
	for (size_t i = 0; i < n; i++) {
		double got = decode1((Elem)e, &h[i * elem_size[e]]);
		double want = decode1((Elem)e, &refs[k][s][b][i * elem_size[e]]);
		if (std::isnan(got) != std::isnan(want))
			return -1;
		diff = fmax(diff, fabs(got - want));
		mag = fmax(mag, fabs(want));
	}
	return diff / mag;
}

static std::atomic<int> failures{0};
static std::mutex print_mu;

static void fail(const char *fmt, const char *a, const char *b, double v)
{
	std::lock_guard<std::mutex> lock(print_mu);
	if (failures.fetch_add(1) < 40) {
		printf("FAIL ");
		printf(fmt, a, b, v);
		printf("\n");
	}
}

/* ---- phase 1: threads ---- */

struct Worker {
	cublasHandle_t h;
	cudaStream_t st;
	void *C[nshapes]; /* room for the widest element */
	long calls = 0;
};

static void worker_init(Worker &w)
{
	CK(cublasCreate(&w.h));
	CK(cudaStreamCreateWithFlags(&w.st, cudaStreamNonBlocking));
	CK(cublasSetStream(w.h, w.st));
	for (int s = 0; s < npool; s++)
		CK(cudaMalloc(&w.C[s], ops[s].cbytes[F64]));
}

static void worker_free(Worker &w)
{
	for (int s = 0; s < npool; s++)
		cudaFree(w.C[s]);
	cublasDestroy(w.h);
	cudaStreamDestroy(w.st);
}

/* One call of kind k on shape s in w, checked against cuBLAS. */
static void checked_call(Worker &w, int k, int s)
{
	int e = kinds[k].elem;
	CK(cudaMemcpyAsync(w.C[s], ops[s].C0[e], ops[s].cbytes[e], cudaMemcpyDeviceToDevice, w.st));
	cublasStatus_t st = gemm(false, w.h, kinds[k], s, w.C[s], 0.5);
	if (st != CUBLAS_STATUS_SUCCESS) {
		fail("%s %s: status %g", kinds[k].name, "call", st);
		return;
	}
	CK(cudaStreamSynchronize(w.st));
	double err = compare(k, s, 0, w.C[s], w.st);
	if (err < 0 || err > kinds[k].tol) {
		char where[64];
		snprintf(where, sizeof where, "shape %d×%d×%d", shapes[s].m, shapes[s].n, shapes[s].k);
		fail("%s %s: error %g against cuBLAS", kinds[k].name, where, err);
	}
	w.calls++;
}

static void run_threads(int passes, int offset)
{
	std::vector<std::thread> ts;
	for (int t = 0; t < THREADS; t++)
		ts.emplace_back([=] {
			Worker w;
			worker_init(w);
			for (int p = 0; p < passes; p++)
				for (int i = 0; i < nkinds * npool; i++) {
					int j = (i + t * 7 + offset) % (nkinds * npool);
					checked_call(w, j % nkinds, j / nkinds);
				}
			worker_free(w);
		});
	for (auto &t : ts)
		t.join();
}

/* ---- phase 2: captures ---- */

static const cudaStreamCaptureMode modes[] = {
	cudaStreamCaptureModeGlobal, cudaStreamCaptureModeThreadLocal, cudaStreamCaptureModeRelaxed};
static const char *mode_names[] = {"global", "thread_local", "relaxed"};

/* capture_one captures kind k on shape s (beta b) on a fresh handle (its own
 * workspace) and stream in mode, replays the graph twice and checks it. */
static void capture_one(int mode, int k, int s, int b, int *captures)
{
	int e = kinds[k].elem;
	cublasHandle_t h;
	cudaStream_t st;
	void *C, *ws;
	CK(cublasCreate(&h));
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CK(cublasSetStream(h, st));
	CK(cudaMalloc(&ws, 32 << 20));
	CK(cublasSetWorkspace(h, ws, 32 << 20));
	CK(cudaMalloc(&C, ops[s].cbytes[e]));
	char what[128];
	snprintf(what, sizeof what, "%s capture of %d×%d×%d", mode_names[mode], shapes[s].m, shapes[s].n, shapes[s].k);
	CK(cudaStreamBeginCapture(st, modes[mode]));
	cublasStatus_t cst = gemm(false, h, kinds[k], s, C, b ? 0.0 : 0.5);
	cudaGraph_t g = NULL;
	cudaError_t end = cudaStreamEndCapture(st, &g);
	if (cst != CUBLAS_STATUS_SUCCESS || end != cudaSuccess) {
		fail("%s %s: call or end of capture failed (%g)", kinds[k].name, what,
			cst != CUBLAS_STATUS_SUCCESS ? (double)cst : (double)end);
		cudaGetLastError();
	} else {
		cudaGraphExec_t x;
		CK(cudaGraphInstantiate(&x, g, 0));
		for (int r = 0; r < 2; r++) {
			CK(cudaMemcpy(C, ops[s].C0[e], ops[s].cbytes[e], cudaMemcpyDeviceToDevice));
			CK(cudaGraphLaunch(x, st));
			CK(cudaStreamSynchronize(st));
			double err = compare(k, s, b, C, st);
			if (err < 0 || err > kinds[k].tol)
				fail("%s %s: replay error %g", kinds[k].name, what, err);
		}
		CK(cudaGraphExecDestroy(x));
		(*captures)++;
	}
	if (g)
		cudaGraphDestroy(g);
	CK(cudaFree(C));
	CK(cudaFree(ws));
	cublasDestroy(h);
	CK(cudaStreamDestroy(st));
}

/* ---- phase 3: captures of shapes under their check ---- */

static void capture_checked(int *captures, int *tried)
{
	cublasHandle_t h;
	cudaStream_t st;
	CK(cublasCreate(&h));
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CK(cublasSetStream(h, st));
	std::vector<void *> C(nkinds * nshapes, nullptr);
	for (int k = 0; k < nkinds; k++)
		for (int s = npool; s < nshapes; s++) {
			CK(cudaMalloc(&C[k * nshapes + s], ops[s].cbytes[kinds[k].elem]));
			CK(gemm(false, h, kinds[k], s, C[k * nshapes + s], 0.5)); /* the first call */
		}
	CK(cudaStreamSynchronize(st));
	std::this_thread::sleep_for(std::chrono::seconds(2)); /* decisions made in the background */
	for (int k = 0; k < nkinds; k++)
		for (int s = npool; s < nshapes; s++) {
			for (int i = 0; i < 2; i++) /* the check begins, its events in flight */
				CK(gemm(false, h, kinds[k], s, C[k * nshapes + s], 0.5));
			capture_one((k + s) % 3, k, s, 0, captures);
			(*tried)++;
		}
	CK(cudaStreamSynchronize(st));
	for (void *c : C)
		cudaFree(c);
	cublasDestroy(h);
	cudaStreamDestroy(st);
}

/* ---- phase 4: captures while the threads run ---- */

static std::atomic<bool> stop_workers;

static void capture_while_running(int mode, int *captures)
{
	stop_workers = false;
	std::vector<std::thread> ts;
	std::atomic<long> calls{0};
	std::atomic<int> ready{0};
	for (int t = 0; t < THREADS; t++)
		ts.emplace_back([&, t] {
			/* Allocations, handles and a checked call before the
			 * capture (the application's own unsafe calls: a
			 * synchronization, or a copy to pageable memory, made
			 * during another thread's global capture invalidates
			 * it); during it, calls enqueued only; after it, the
			 * last result on each shape's buffer checked. */
			Worker w;
			worker_init(w);
			checked_call(w, t % nkinds, 0);
			int last[npool];
			for (int s = 0; s < npool; s++)
				last[s] = -1;
			ready++;
			/* At most 20,000 calls: the GPU is busy all the same. */
			for (int i = 0; !stop_workers && i < 20000; i++) {
				int j = (i + t * 11) % (nkinds * npool);
				int k = j % nkinds, s = j / nkinds, e = kinds[k].elem;
				cudaError_t ce = cudaMemcpyAsync(w.C[s], ops[s].C0[e], ops[s].cbytes[e],
					cudaMemcpyDeviceToDevice, w.st);
				cublasStatus_t st = gemm(false, w.h, kinds[k], s, w.C[s], 0.5);
				if (ce != cudaSuccess || st != CUBLAS_STATUS_SUCCESS) {
					fail("%s %s: a worker's call failed (%g)", kinds[k].name, mode_names[mode],
						ce != cudaSuccess ? (double)ce : (double)st);
					break;
				}
				last[s] = k;
				w.calls++;
			}
			while (!stop_workers)
				std::this_thread::sleep_for(std::chrono::milliseconds(1));
			for (int s = 0; s < npool; s++) {
				if (last[s] < 0)
					continue;
				double err = compare(last[s], s, 0, w.C[s], w.st);
				if (err < 0 || err > kinds[last[s]].tol)
					fail("%s %s: a worker's result after the capture: error %g", kinds[last[s]].name,
						mode_names[mode], err);
			}
			calls += w.calls;
			worker_free(w);
		});
	while (ready < THREADS)
		std::this_thread::sleep_for(std::chrono::milliseconds(1));
	/* One capture of every kind, spread over 300 ms: beta 0, a repeat-safe result. */
	cublasHandle_t h;
	cudaStream_t st;
	void *ws;
	CK(cublasCreate(&h));
	CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
	CK(cublasSetStream(h, st));
	CK(cudaMalloc(&ws, 32 << 20));
	CK(cublasSetWorkspace(h, ws, 32 << 20));
	std::vector<void *> Cs(nkinds);
	int s = 1 + mode; /* a different shape per mode */
	for (int k = 0; k < nkinds; k++)
		CK(cudaMalloc(&Cs[k], ops[s].cbytes[kinds[k].elem]));
	char what[96];
	snprintf(what, sizeof what, "%s capture while 16 threads run", mode_names[mode]);
	CK(cudaStreamBeginCapture(st, modes[mode]));
	int bad = 0;
	for (int k = 0; k < nkinds; k++) {
		if (gemm(false, h, kinds[k], s, Cs[k], 0.0) != CUBLAS_STATUS_SUCCESS)
			bad++;
		std::this_thread::sleep_for(std::chrono::milliseconds(300 / nkinds));
	}
	cudaGraph_t g = NULL;
	cudaError_t end = cudaStreamEndCapture(st, &g);
	stop_workers = true;
	for (auto &t : ts)
		t.join();
	if (bad || end != cudaSuccess) {
		fail("%s %s: %g calls or the end of capture failed", what, cudaGetErrorString(end), bad);
		cudaGetLastError();
	} else {
		cudaGraphExec_t x;
		CK(cudaGraphInstantiate(&x, g, 0));
		CK(cudaGraphLaunch(x, st));
		CK(cudaStreamSynchronize(st));
		for (int k = 0; k < nkinds; k++) {
			double err = compare(k, s, 1, Cs[k], st);
			if (err < 0 || err > kinds[k].tol)
				fail("%s %s: replay error %g", kinds[k].name, what, err);
		}
		CK(cudaGraphExecDestroy(x));
		(*captures)++;
	}
	if (g)
		cudaGraphDestroy(g);
	for (auto C : Cs)
		cudaFree(C);
	cudaFree(ws);
	cublasDestroy(h);
	cudaStreamDestroy(st);
	std::lock_guard<std::mutex> lock(print_mu);
	printf("phase 4 %s: %ld calls on 16 threads during and around the capture\n", mode_names[mode], calls.load());
}

/* A crash prints where it happened (build with -g -rdynamic for names). */
static void on_crash(int sig)
{
	void *frames[64];
	int n = backtrace(frames, 64);
	fprintf(stderr, "capture: signal %d\n", sig);
	backtrace_symbols_fd(frames, n, 2);
	_exit(3);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	signal(SIGSEGV, on_crash);
	signal(SIGABRT, on_crash);
	load_vendor();
	CK(cudaSetDevice(0));
	make_operands();
	make_references();
	printf("references made: %d kinds × %d shapes\n", nkinds, nshapes);

	run_threads(2, 0);
	std::this_thread::sleep_for(std::chrono::seconds(1));
	run_threads(1, 3);
	printf("phase 1: 16 threads × %d kinds × %d shapes × 3 passes checked against cuBLAS, failures so far %d\n",
		nkinds, npool, failures.load());

	int captures = 0, tried = 0;
	for (int m = 0; m < 3; m++)
		for (int k = 0; k < nkinds; k++)
			for (int s : captured_shapes) {
				capture_one(m, k, s, 0, &captures);
				tried++;
			}
	printf("phase 2: %d of %d captures valid (3 modes × %d kinds × 4 shapes, each replayed twice)\n",
		captures, tried, nkinds);

	captures = tried = 0;
	capture_checked(&captures, &tried);
	printf("phase 3: %d of %d captures valid (%d kinds × %d new shapes, each called 3 times first)\n",
		captures, tried, nkinds, nshapes - npool);

	int concurrent = 0;
	for (int m = 0; m < 3; m++)
		capture_while_running(m, &concurrent);
	printf("phase 4: %d of 3 captures of %d kinds valid while 16 threads ran\n", concurrent, nkinds);

	printf("capture: %d failures\n", failures.load());
	return failures.load() ? 1 : 0;
}
