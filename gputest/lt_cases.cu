/*
 * lt_cases.cu: random cublasLtMatmul cases against an FP64 reference.
 *
 * Each case draws a type (f32 with 32F or 32F_FAST_TF32 compute, f16 in and
 * out with 32F or 16F compute, bf16 in and out with 32F compute, f64, and
 * f16 or bf16 in with f32 out and 32F compute), transposes of A and B, the
 * matrices' orders (all column-major, all row-major, or mixed: cuBLASLt
 * computes the mixed ones, the shim forwards them), an epilogue (DEFAULT,
 * RELU, BIAS, RELU_BIAS, GELU, GELU_BIAS; a bias of D's type, one element per
 * row of D; with row-major matrices mostly dropped, kept in some cases,
 * which the shim forwards), sizes 1..700, padded leading dimensions, a strided
 * batch (1..64, up to 512 of small matrices; strides padded, tight, or 0 for
 * a broadcast A or B), D in place (C == D) or apart from C, alpha and beta
 * (beta = 0 with C full of NaN in some cases: host scalars only, since
 * cuBLASLt does not promise to skip C on a zero beta it reads on the device),
 * scalars on the host or the device, pointers offset from their allocation. cuBLASLt's heuristic picks
 * the algorithm (32 MiB of workspace). D is compared with an FP64 reference
 * computed on the GPU by referenceKernel (a compensated dot product of the
 * same stored inputs, beta·C, the bias and the activation in double), every
 * element within the bound of internal/gemmcheck (doc.go, epilogue.go):
 *
 *   |d - ref| <= 2·((k+2)·u_acc·S + u_out·|pre|) + tiny,  S = |alpha|·Σ|a||b| + |beta·c| + |bias|
 *
 * u_acc the unit roundoff of the accumulation (2^-24 f32, 2^-53 f64, 2^-11
 * for 16F compute, and 2^-11 for TF32, whose inputs are rounded to 11
 * significant bits), u_out that of D's type, pre the exact value before the
 * activation, tiny the output's (and for 16F compute the accumulation's)
 * underflow; for GELU (slope below 1.13) 1.2 times that plus the
 * activation's own error, 2^-17·(|pre|+1) (cuBLASLt's GELU is less exact
 * than gemmcheck's 1e-6 allows; 2^-9·|pre| + 2^-20 for 16F compute). With
 * a bias, the output rounding counts twice: cuBLASLt rounds
 * alpha·op(A)·op(B) + beta·C to D's type before it adds the bias (seen with
 * f16 and bf16 outputs), so u_out·|pre - bias| joins u_out·|pre|. Elements
 * of D's buffer outside the result (padding, between matrices) must be
 * untouched, and out of place C must be untouched whole.
 * For 16-bit outputs the heuristic is kept from reductions in the output
 * type (CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE), which the bound does not
 * cover.
 *
 *   nvcc -O2 -std=c++17 -o lt_cases gputest/lt_cases.cu -lcublasLt -lcublas
 *   ./lt_cases [N [SEED]] [--case I] [-v]       N cases (3000), seed (1)
 *   LD_PRELOAD=build/device/libisaac.so ISAAC_POLICY=always ISAAC_LOG=1 ./lt_cases
 *
 * --case I runs case I alone (the same case as in a full run of that seed);
 * -v prints every case. Cases cuBLASLt does not compute (its heuristic
 * returns no algorithm, or cublasLtMatmul answers NOT_SUPPORTED) are counted
 * as unsupported and skipped. Exit status: 0 every case within the bound, 1
 * a case outside it (or a status other than success or NOT_SUPPORTED), 2 a
 * setup failure or a CUDA error.
 */
#include <cublasLt.h>
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmath>
#include <string>
#include <vector>

/* The case under way, for the message of a fatal error. */
static std::string gCurrent;

#define CUDA_MUST(x)                                                                                   \
	do {                                                                                           \
		cudaError_t e_ = (x);                                                                  \
		if (e_ != cudaSuccess) {                                                               \
			printf("lt_cases: CUDA error %d (%s) at %s:%d: %s; during %s\n", (int)e_,             \
				cudaGetErrorString(e_), __FILE__, __LINE__, #x, gCurrent.c_str());     \
			exit(2);                                                                       \
		}                                                                                      \
	} while (0)
#define LT_MUST(x)                                                                                     \
	do {                                                                                           \
		cublasStatus_t s_ = (x);                                                               \
		if (s_ != CUBLAS_STATUS_SUCCESS) {                                                     \
			printf("lt_cases: cuBLASLt status %d at %s:%d: %s; during %s\n", (int)s_, __FILE__,  \
				__LINE__, #x, gCurrent.c_str());                                       \
			exit(2);                                                                       \
		}                                                                                      \
	} while (0)
/* Releases: reported, not fatal. */
#define CUDA_WARN(x)                                                                                   \
	do {                                                                                           \
		cudaError_t e_ = (x);                                                                  \
		if (e_ != cudaSuccess)                                                                 \
			printf("lt_cases: CUDA error %d at %s:%d: %s\n", (int)e_, __FILE__, __LINE__, #x); \
	} while (0)
#define LT_WARN(x)                                                                                     \
	do {                                                                                           \
		cublasStatus_t s_ = (x);                                                               \
		if (s_ != CUBLAS_STATUS_SUCCESS)                                                       \
			printf("lt_cases: cuBLASLt status %d at %s:%d: %s\n", (int)s_, __FILE__, __LINE__, #x); \
	} while (0)

static const size_t kWorkspace = 32u << 20;     /* 32 MiB, cuBLAS's recommendation for Hopper */
static const int64_t kTail = 8;                 /* elements after every buffer's last matrix */
static const int64_t kWorkCap = 1LL << 27;      /* m·n·k·batch of a batch of several matrices */
static const int64_t kResultCap = 1LL << 21;    /* m·n·batch */
static const int64_t kBufferCap = 1LL << 21;    /* elements of a buffer */
/* The f32 GELU's own error, per |x| + 1: internal/gemmcheck's 1e-6 is
 * ISAAC's; cuBLASLt's is larger (its GELU epilogue on x in [-12, 12], f32:
 * at most 2.3e-6·(|x| + 1), 5.5e-6 near x = 1.4; CUDA 13.0, cuBLASLt 13.1,
 * H200), so the bound takes 2^-17. */
static const double kGeluErr = 7.62939453125e-06;

/* ---- element types ---- */

enum Elem { E_F32, E_F64, E_F16, E_BF16 };

static size_t elemSize(Elem t)
{
	switch (t) {
	case E_F32: return 4;
	case E_F64: return 8;
	default: return 2;
	}
}

static cudaDataType cudaTypeOf(Elem t)
{
	switch (t) {
	case E_F32: return CUDA_R_32F;
	case E_F64: return CUDA_R_64F;
	case E_F16: return CUDA_R_16F;
	default: return CUDA_R_16BF;
	}
}

/* f32 to f16 bits, rounded to nearest even. */
static uint16_t f16FromFloat(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
	uint32_t ax = x & 0x7fffffffu;
	if (ax > 0x7f800000u)
		return (uint16_t)(sign | 0x7e00u); /* NaN */
	if (ax >= 0x477ff000u)
		return (uint16_t)(sign | 0x7c00u); /* 65520 and above round to infinity */
	if (ax < 0x38800000u) {                     /* below 2^-14: a subnormal or zero */
		float a;
		memcpy(&a, &ax, 4);
		return (uint16_t)(sign | (uint16_t)nearbyintf(a * 16777216.0f)); /* in units of 2^-24 */
	}
	uint32_t h = (((ax >> 23) - 112u) << 10) | ((ax >> 13) & 0x3ffu);
	uint32_t rest = ax & 0x1fffu;
	if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
		h++; /* a carry into the exponent is right */
	return (uint16_t)(sign | h);
}

static double f16ToDouble(uint16_t h)
{
	int e = (h >> 10) & 0x1f, m = h & 0x3ff;
	double s = (h & 0x8000u) ? -1.0 : 1.0;
	if (e == 0)
		return s * ldexp((double)m, -24);
	if (e == 31)
		return m ? (double)NAN : s * (double)INFINITY;
	uint32_t x = ((uint32_t)(h & 0x8000u) << 16) | ((uint32_t)(e + 112) << 23) | ((uint32_t)m << 13);
	float f;
	memcpy(&f, &x, 4);
	return f;
}

/* f32 to bf16 bits, rounded to nearest even. */
static uint16_t bf16FromFloat(float f)
{
	uint32_t x;
	memcpy(&x, &f, 4);
	if ((x & 0x7fffffffu) > 0x7f800000u)
		return (uint16_t)((x >> 16) | 0x40u);
	x += 0x7fffu + ((x >> 16) & 1u);
	return (uint16_t)(x >> 16);
}

static double bf16ToDouble(uint16_t h)
{
	uint32_t x = (uint32_t)h << 16;
	float f;
	memcpy(&f, &x, 4);
	return f;
}

/* Stores v rounded to t at element i of raw; returns the stored value. */
static double store(Elem t, unsigned char *raw, size_t i, double v)
{
	switch (t) {
	case E_F32: {
		float f = (float)v;
		memcpy(raw + 4 * i, &f, 4);
		return f;
	}
	case E_F64:
		memcpy(raw + 8 * i, &v, 8);
		return v;
	case E_F16: {
		uint16_t h = f16FromFloat((float)v);
		memcpy(raw + 2 * i, &h, 2);
		return f16ToDouble(h);
	}
	default: {
		uint16_t h = bf16FromFloat((float)v);
		memcpy(raw + 2 * i, &h, 2);
		return bf16ToDouble(h);
	}
	}
}

static void storeNaN(Elem t, unsigned char *raw, size_t i)
{
	switch (t) {
	case E_F32: {
		uint32_t u = 0x7fc00000u;
		memcpy(raw + 4 * i, &u, 4);
		break;
	}
	case E_F64: {
		uint64_t u = 0x7ff8000000000000ull;
		memcpy(raw + 8 * i, &u, 8);
		break;
	}
	case E_F16: {
		uint16_t u = 0x7e00u;
		memcpy(raw + 2 * i, &u, 2);
		break;
	}
	default: {
		uint16_t u = 0x7fc0u;
		memcpy(raw + 2 * i, &u, 2);
		break;
	}
	}
}

static double load(Elem t, const unsigned char *raw, size_t i)
{
	switch (t) {
	case E_F32: {
		float f;
		memcpy(&f, raw + 4 * i, 4);
		return f;
	}
	case E_F64: {
		double d;
		memcpy(&d, raw + 8 * i, 8);
		return d;
	}
	case E_F16: {
		uint16_t h;
		memcpy(&h, raw + 2 * i, 2);
		return f16ToDouble(h);
	}
	default: {
		uint16_t h;
		memcpy(&h, raw + 2 * i, 2);
		return bf16ToDouble(h);
	}
	}
}

/* ---- the types of a case ---- */

struct TypeCfg {
	const char *name;
	Elem ab, cd;                 /* A and B; C, D and the bias */
	cublasComputeType_t compute;
	Elem scale;                  /* alpha and beta */
	int uAccExp, uOutExp;        /* unit roundoffs, as powers of 2 */
	bool acc16;                  /* 16F compute: the accumulation can underflow */
};

static const TypeCfg kTypes[] = {
	{"f32", E_F32, E_F32, CUBLAS_COMPUTE_32F, E_F32, -24, -24, false},
	{"tf32", E_F32, E_F32, CUBLAS_COMPUTE_32F_FAST_TF32, E_F32, -11, -24, false},
	{"f16.c32f", E_F16, E_F16, CUBLAS_COMPUTE_32F, E_F32, -24, -11, false},
	{"f16.c16f", E_F16, E_F16, CUBLAS_COMPUTE_16F, E_F16, -11, -11, true},
	{"bf16.c32f", E_BF16, E_BF16, CUBLAS_COMPUTE_32F, E_F32, -24, -8, false},
	{"f64", E_F64, E_F64, CUBLAS_COMPUTE_64F, E_F64, -53, -53, false},
	{"f16.f32out", E_F16, E_F32, CUBLAS_COMPUTE_32F, E_F32, -24, -24, false},
	{"bf16.f32out", E_BF16, E_F32, CUBLAS_COMPUTE_32F, E_F32, -24, -24, false},
};
static const int kNumTypes = (int)(sizeof kTypes / sizeof kTypes[0]);

/* The spacing of the subnormals of an output type (0 for f64: negligible). */
static double underflowOf(Elem t)
{
	switch (t) {
	case E_F16: return ldexp(1.0, -24);
	case E_BF16: return ldexp(1.0, -133);
	case E_F32: return ldexp(1.0, -149);
	default: return 0;
	}
}

/* ---- layouts ---- */

enum { COL = 0, ROW = 1 };

/* A matrix of a strided batch as its layout says: element (i, j) of matrix b
 * at off + b·stride + (i + j·ld column-major, i·ld + j row-major). */
struct Layout {
	int64_t rows, cols, ld, stride, off;
	int order;
};

static __host__ __device__ inline int64_t at(const Layout &L, int64_t b, int64_t i, int64_t j)
{
	return L.off + b * L.stride + (L.order == ROW ? i * L.ld + j : i + j * L.ld);
}

/* The elements one matrix spans, from its first to its last. */
static int64_t extent(const Layout &L)
{
	return L.order == ROW ? L.ld * (L.rows - 1) + L.cols : L.ld * (L.cols - 1) + L.rows;
}

/* ld times the rows (row-major) or columns (column-major). */
static int64_t fullSize(const Layout &L) { return L.order == ROW ? L.ld * L.rows : L.ld * L.cols; }

static int64_t bufferElems(const Layout &L, int batch)
{
	return L.off + (int64_t)(batch - 1) * L.stride + extent(L) + kTail;
}

/* ---- random numbers ---- */

struct Rng {
	uint64_t s;
	uint64_t next()
	{
		uint64_t z = (s += 0x9E3779B97F4A7C15ull);
		z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
		z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
		return z ^ (z >> 31);
	}
	int64_t range(int64_t lo, int64_t hi) { return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1)); }
	bool chance(int percent) { return range(0, 99) < percent; }
	double uniform() { return (double)(next() >> 11) * (1.0 / 9007199254740992.0); } /* [0, 1) */
};

/* ---- cases ---- */

struct Case {
	int type;
	int ta, tb;  /* 0: N, 1: T */
	int epi;     /* cublasLtEpilogue_t */
	int64_t m, n, k;
	int batch;
	bool setBatch; /* set BATCH_COUNT and the strides even for a batch of one */
	Layout A, B, C, D;
	bool outOfPlace, dOwnLayout, nanC, nanD, devPtr, setBiasType;
	double alpha, beta;
};

static const char *epiName(int e)
{
	switch (e) {
	case 1: return "DEFAULT";
	case 2: return "RELU";
	case 4: return "BIAS";
	case 6: return "RELU_BIAS";
	case 32: return "GELU";
	case 36: return "GELU_BIAS";
	}
	return "?";
}

static bool hasBias(int epi) { return (epi & 4) != 0; }
static int actOf(int epi) { return (epi & 2) ? 1 : (epi & 32) ? 2 : 0; } /* 1 ReLU, 2 GELU */

static int64_t drawDim(Rng &r)
{
	int p = (int)r.range(0, 99);
	if (p < 25)
		return r.range(1, 16);
	if (p < 60)
		return r.range(17, 160);
	return r.range(161, 700);
}

static int64_t drawPad(Rng &r)
{
	int p = (int)r.range(0, 99);
	if (p < 50)
		return 0;
	if (p < 80)
		return r.range(1, 16);
	return r.range(17, 300);
}

static int64_t drawOffset(Rng &r) { return r.chance(15) ? r.range(1, 7) : 0; }

static Layout makeLayout(Rng &r, int64_t rows, int64_t cols, int order)
{
	Layout L;
	L.rows = rows;
	L.cols = cols;
	L.order = order;
	L.ld = (order == ROW ? cols : rows) + drawPad(r);
	L.stride = 0;
	L.off = drawOffset(r);
	return L;
}

/* A batch's stride: the matrix's full size, padded, tight (the next matrix
 * starts right after the last element), or 0 (a broadcast A or B). */
static void drawStride(Rng &r, Layout &L, bool mayBroadcast)
{
	int q = (int)r.range(0, 99);
	if (mayBroadcast && q < 10)
		L.stride = 0;
	else if (q < 20)
		L.stride = extent(L);
	else if (q < 45)
		L.stride = fullSize(L) + r.range(1, 100);
	else
		L.stride = fullSize(L);
}

static double drawScalar(Rng &r) /* a multiple of 1/8 in [-2, 2]: exact in every scale type */
{
	return (double)r.range(-16, 16) / 8;
}

static Case drawCase(Rng &r)
{
	Case c;
	memset(&c, 0, sizeof c);
	c.type = (int)r.range(0, kNumTypes - 1);
	c.ta = (int)r.range(0, 1);
	c.tb = (int)r.range(0, 1);
	int oa = COL, ob = COL, oc = COL;
	int p = (int)r.range(0, 99);
	if (p >= 55 && p < 80) {
		oa = ob = oc = ROW;
	} else if (p >= 80) { /* mixed orders: cuBLASLt's own */
		oa = (int)r.range(0, 1);
		ob = (int)r.range(0, 1);
		oc = (int)r.range(0, 1);
		if (oa == ob && ob == oc)
			oc = 1 - oc;
	}
	static const int epis[] = {1, 1, 2, 4, 6, 32, 36};
	c.epi = epis[r.range(0, 6)];
	bool anyRow = oa == ROW || ob == ROW || oc == ROW;
	if (hasBias(c.epi) && anyRow && !r.chance(30)) {
		c.epi &= ~4; /* a bias mostly with column-major matrices */
		if (c.epi == 0)
			c.epi = 1;
	}
	bool manySmall = r.chance(10);
	if (manySmall) {
		c.m = r.range(1, 64);
		c.n = r.range(1, 64);
		c.k = r.range(1, 64);
		c.batch = (int)r.range(65, 512);
	} else {
		c.m = drawDim(r);
		c.n = drawDim(r);
		c.k = drawDim(r);
		c.batch = r.chance(50) ? 1 : (int)r.range(2, 64);
	}
	c.A = c.ta ? makeLayout(r, c.k, c.m, oa) : makeLayout(r, c.m, c.k, oa);
	c.B = c.tb ? makeLayout(r, c.n, c.k, ob) : makeLayout(r, c.k, c.n, ob);
	c.C = makeLayout(r, c.m, c.n, oc);
	for (;;) {
		int64_t b = c.batch;
		bool fits = c.m * c.n * c.k * b <= kWorkCap && c.m * c.n * b <= kResultCap &&
			(fullSize(c.A) + 128) * b <= kBufferCap && (fullSize(c.B) + 128) * b <= kBufferCap &&
			(fullSize(c.C) + 128) * b <= kBufferCap;
		if (c.batch == 1 || fits)
			break;
		c.batch /= 2;
	}
	if (c.batch > 1) {
		drawStride(r, c.A, true);
		drawStride(r, c.B, true);
		drawStride(r, c.C, false);
	} else {
		c.A.stride = fullSize(c.A);
		c.B.stride = fullSize(c.B);
		c.C.stride = fullSize(c.C);
	}
	c.setBatch = c.batch == 1 && r.chance(20);
	c.outOfPlace = r.range(0, 2) == 0;
	c.D = c.C;
	if (c.outOfPlace) {
		c.D.off = drawOffset(r);
		if (r.chance(15)) { /* D of its own layout: cuBLASLt's (the shim forwards it) */
			c.dOwnLayout = true;
			c.D.ld = c.C.ld + r.range(1, 40);
			c.D.stride = fullSize(c.D) + ((c.batch > 1 && r.chance(30)) ? r.range(1, 50) : 0);
		}
	}
	int a = (int)r.range(0, 99);
	c.alpha = a < 40 ? 1.0 : a < 42 ? 0.0 : drawScalar(r);
	if (c.alpha == 0 && a >= 42)
		c.alpha = 0.5;
	int bq = (int)r.range(0, 99);
	c.beta = bq < 35 ? 0.0 : bq < 55 ? 1.0 : drawScalar(r);
	c.devPtr = r.chance(20);
	/* C full of NaN where beta is zero: with host scalars only, where the
	 * library sees the zero before it launches. */
	c.nanC = c.beta == 0 && !c.devPtr && r.chance(60);
	c.nanD = c.outOfPlace && r.chance(25);
	c.setBiasType = hasBias(c.epi) && r.chance(30);
	return c;
}

static std::string describe(int idx, const Case &c)
{
	static const char *ord[] = {"col", "row"};
	char buf[1024];
	snprintf(buf, sizeof buf,
		"case %d: %s op=%c%c order=%s/%s/%s epi=%s m=%lld n=%lld k=%lld lda=%lld ldb=%lld ldc=%lld ldd=%lld "
		"batch=%d strides=%lld/%lld/%lld/%lld offsets=%lld/%lld/%lld/%lld alpha=%g beta=%g %s%s%s%s%s%s%s",
		idx, kTypes[c.type].name, c.ta ? 'T' : 'N', c.tb ? 'T' : 'N', ord[c.A.order], ord[c.B.order],
		ord[c.C.order], epiName(c.epi), (long long)c.m, (long long)c.n, (long long)c.k, (long long)c.A.ld,
		(long long)c.B.ld, (long long)c.C.ld, (long long)c.D.ld, c.batch, (long long)c.A.stride,
		(long long)c.B.stride, (long long)c.C.stride, (long long)c.D.stride, (long long)c.A.off,
		(long long)c.B.off, (long long)c.C.off, (long long)c.D.off, c.alpha, c.beta,
		c.outOfPlace ? "out-of-place" : "in-place", c.dOwnLayout ? " D-own-layout" : "",
		c.devPtr ? " device-scalars" : " host-scalars", c.nanC ? " NaN-C" : "", c.nanD ? " NaN-D" : "",
		c.setBiasType ? " bias-type-set" : "", c.setBatch ? " batch-attrs-set" : "");
	return buf;
}

/* ---- the reference ---- */

static __device__ inline void twoSum(double a, double b, double &s, double &e)
{
	s = __dadd_rn(a, b);
	double bb = __dsub_rn(s, a);
	e = __dadd_rn(__dsub_rn(a, __dsub_rn(s, bb)), __dsub_rn(b, bb));
}

/* One thread per element of D: pre = alpha·Σ op(A)·op(B) + beta·C + bias
 * (a compensated sum of exact products), post = the activation of pre,
 * scale = |alpha|·Σ|a·b| + |beta·c| + |bias|. Index b·m·n + i + j·m. */
__global__ void referenceKernel(const double *A, Layout la, const double *B, Layout lb, const double *C, Layout lc,
	const double *bias, int ta, int tb, int64_t m, int64_t n, int64_t k, int64_t batch, double alpha, double beta,
	int act, double *pre, double *post, double *scale)
{
	int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (t >= m * n * batch)
		return;
	int64_t i = t % m, j = (t / m) % n, b = t / (m * n);
	double s = 0, comp = 0, abs = 0;
	for (int64_t l = 0; l < k; l++) {
		double a = ta ? A[at(la, b, l, i)] : A[at(la, b, i, l)];
		double w = tb ? B[at(lb, b, j, l)] : B[at(lb, b, l, j)];
		double p = __dmul_rn(a, w);
		double pe = fma(a, w, -p);
		double e;
		twoSum(s, p, s, e);
		comp += e + pe;
		abs += fabs(p);
	}
	double r = alpha * (s + comp);
	double sc = fabs(alpha) * abs;
	if (beta != 0) {
		double c = C[at(lc, b, i, j)];
		r += beta * c;
		sc += fabs(beta * c);
	}
	if (bias != NULL) {
		r += bias[i];
		sc += fabs(bias[i]);
	}
	double y = r;
	if (act == 1)
		y = r > 0 ? r : 0.0;
	else if (act == 2)
		y = 0.5 * r * (1.0 + tanh(0.7978845608028654 * (r + 0.044715 * r * r * r)));
	pre[t] = r;
	post[t] = y;
	scale[t] = sc;
}

/* ---- one case ---- */

struct HostBuf {
	Elem t;
	size_t n;
	std::vector<unsigned char> raw;
	std::vector<double> val;
	HostBuf(Elem t_, size_t n_) : t(t_), n(n_), raw(n_ * elemSize(t_)), val(n_) {}
};

static void fillRandom(HostBuf &h, Rng &r)
{
	for (size_t i = 0; i < h.n; i++)
		h.val[i] = store(h.t, h.raw.data(), i, 2 * r.uniform() - 1);
}

static void fillNaN(HostBuf &h)
{
	for (size_t i = 0; i < h.n; i++) {
		storeNaN(h.t, h.raw.data(), i);
		h.val[i] = NAN;
	}
}

/* Everything a case allocates and creates, released when it ends. */
struct Resources {
	std::vector<void *> dev;
	cublasLtMatmulDesc_t desc;
	cublasLtMatrixLayout_t la, lb, lc, ld;
	cublasLtMatmulPreference_t pref;
	Resources() : desc(NULL), la(NULL), lb(NULL), lc(NULL), ld(NULL), pref(NULL) {}
	void *alloc(size_t bytes)
	{
		void *p = NULL;
		CUDA_MUST(cudaMalloc(&p, bytes > 0 ? bytes : 16));
		dev.push_back(p);
		return p;
	}
	void *upload(const void *src, size_t bytes)
	{
		void *p = alloc(bytes);
		if (bytes > 0)
			CUDA_MUST(cudaMemcpy(p, src, bytes, cudaMemcpyHostToDevice));
		return p;
	}
	~Resources()
	{
		if (pref != NULL)
			LT_WARN(cublasLtMatmulPreferenceDestroy(pref));
		if (ld != NULL && ld != lc)
			LT_WARN(cublasLtMatrixLayoutDestroy(ld));
		if (lc != NULL)
			LT_WARN(cublasLtMatrixLayoutDestroy(lc));
		if (lb != NULL)
			LT_WARN(cublasLtMatrixLayoutDestroy(lb));
		if (la != NULL)
			LT_WARN(cublasLtMatrixLayoutDestroy(la));
		if (desc != NULL)
			LT_WARN(cublasLtMatmulDescDestroy(desc));
		for (size_t i = 0; i < dev.size(); i++)
			CUDA_WARN(cudaFree(dev[i]));
	}
};

static cublasLtMatrixLayout_t ltLayout(Elem t, const Layout &L, int batch, bool setBatch)
{
	cublasLtMatrixLayout_t l = NULL;
	LT_MUST(cublasLtMatrixLayoutCreate(&l, cudaTypeOf(t), (uint64_t)L.rows, (uint64_t)L.cols, (int64_t)L.ld));
	int32_t order = L.order == ROW ? CUBLASLT_ORDER_ROW : CUBLASLT_ORDER_COL;
	LT_MUST(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_ORDER, &order, sizeof order));
	if (batch > 1 || setBatch) {
		int32_t count = batch;
		int64_t stride = L.stride;
		LT_MUST(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &count, sizeof count));
		LT_MUST(cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &stride,
			sizeof stride));
	}
	return l;
}

/* The largest power of two up to 256 dividing p's address. */
static uint32_t alignmentOf(const void *p)
{
	uintptr_t a = (uintptr_t)p;
	uint32_t al = 256;
	while (al > 1 && a % al != 0)
		al /= 2;
	return al;
}

struct Context {
	cublasLtHandle_t lt;
	cudaStream_t stream;
	void *workspace;
	bool verbose;
	int heuristicStatus[32]; /* heuristic refusals by status (the last: others) */
	int heuristicNone;       /* success with no algorithm */
	int matmulNotSupported;
};

enum Outcome { PASS, UNSUPPORTED, FAILED };

static Outcome runCase(Context &ctx, int idx, const Case &c, uint64_t dataSeed, double *worst)
{
	const TypeCfg &T = kTypes[c.type];
	const size_t ea = elemSize(T.ab), ec = elemSize(T.cd);
	const bool bias = hasBias(c.epi);
	const int act = actOf(c.epi);
	*worst = 0;

	/* Inputs on the host: the stored values, and the same as doubles. */
	Rng dr = {dataSeed};
	HostBuf hA(T.ab, (size_t)bufferElems(c.A, c.batch)), hB(T.ab, (size_t)bufferElems(c.B, c.batch));
	HostBuf hC(T.cd, (size_t)bufferElems(c.C, c.batch));
	HostBuf hD(T.cd, c.outOfPlace ? (size_t)bufferElems(c.D, c.batch) : 0);
	HostBuf hBias(T.cd, bias ? (size_t)c.m : 0);
	fillRandom(hA, dr);
	fillRandom(hB, dr);
	if (c.nanC)
		fillNaN(hC);
	else
		fillRandom(hC, dr);
	if (c.nanD)
		fillNaN(hD);
	else
		fillRandom(hD, dr);
	fillRandom(hBias, dr);

	Resources R;
	char *dA = (char *)R.upload(hA.raw.data(), hA.raw.size());
	char *dB = (char *)R.upload(hB.raw.data(), hB.raw.size());
	char *dC = (char *)R.upload(hC.raw.data(), hC.raw.size());
	char *dD = c.outOfPlace ? (char *)R.upload(hD.raw.data(), hD.raw.size()) : dC;
	void *dBias = bias ? R.upload(hBias.raw.data(), hBias.raw.size()) : NULL;
	const void *pA = dA + c.A.off * ea, *pB = dB + c.B.off * ea, *pC = dC + c.C.off * ec;
	void *pD = c.outOfPlace ? (void *)(dD + c.D.off * ec) : (void *)(dC + c.C.off * ec);
	/* alpha and beta in the scale type, on the host or the device. */
	unsigned char scal[16];
	memset(scal, 0, sizeof scal);
	store(T.scale, scal, 0, c.alpha);
	store(T.scale, scal + 8, 0, c.beta);
	const void *alpha = scal, *beta = scal + 8;
	if (c.devPtr) {
		char *d = (char *)R.upload(scal, sizeof scal);
		alpha = d;
		beta = d + 8;
	}

	/* The operation. */
	LT_MUST(cublasLtMatmulDescCreate(&R.desc, T.compute, cudaTypeOf(T.scale)));
	int32_t opA = c.ta ? CUBLAS_OP_T : CUBLAS_OP_N, opB = c.tb ? CUBLAS_OP_T : CUBLAS_OP_N;
	LT_MUST(cublasLtMatmulDescSetAttribute(R.desc, CUBLASLT_MATMUL_DESC_TRANSA, &opA, sizeof opA));
	LT_MUST(cublasLtMatmulDescSetAttribute(R.desc, CUBLASLT_MATMUL_DESC_TRANSB, &opB, sizeof opB));
	int32_t pm = c.devPtr ? CUBLASLT_POINTER_MODE_DEVICE : CUBLASLT_POINTER_MODE_HOST;
	LT_MUST(cublasLtMatmulDescSetAttribute(R.desc, CUBLASLT_MATMUL_DESC_POINTER_MODE, &pm, sizeof pm));
	uint32_t epi = (uint32_t)c.epi;
	LT_MUST(cublasLtMatmulDescSetAttribute(R.desc, CUBLASLT_MATMUL_DESC_EPILOGUE, &epi, sizeof epi));
	if (bias) {
		const void *bp = dBias;
		LT_MUST(cublasLtMatmulDescSetAttribute(R.desc, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bp, sizeof bp));
		if (c.setBiasType) {
			int32_t bt = (int32_t)cudaTypeOf(T.cd);
			LT_MUST(cublasLtMatmulDescSetAttribute(R.desc, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bt, sizeof bt));
		}
	}
	R.la = ltLayout(T.ab, c.A, c.batch, c.setBatch);
	R.lb = ltLayout(T.ab, c.B, c.batch, c.setBatch);
	R.lc = ltLayout(T.cd, c.C, c.batch, c.setBatch);
	R.ld = c.outOfPlace ? ltLayout(T.cd, c.D, c.batch, c.setBatch) : R.lc;

	/* cuBLASLt's choice, for these pointers' alignments. */
	LT_MUST(cublasLtMatmulPreferenceCreate(&R.pref));
	uint64_t ws = kWorkspace;
	LT_MUST(cublasLtMatmulPreferenceSetAttribute(R.pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
	if (T.cd == E_F16 || T.cd == E_BF16) {
		uint32_t mask = CUBLASLT_REDUCTION_SCHEME_INPLACE | CUBLASLT_REDUCTION_SCHEME_COMPUTE_TYPE;
		LT_MUST(cublasLtMatmulPreferenceSetAttribute(R.pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &mask,
			sizeof mask));
	}
	uint32_t alA = alignmentOf(pA), alB = alignmentOf(pB), alC = alignmentOf(pC), alD = alignmentOf(pD);
	LT_MUST(cublasLtMatmulPreferenceSetAttribute(R.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, &alA, sizeof alA));
	LT_MUST(cublasLtMatmulPreferenceSetAttribute(R.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, &alB, sizeof alB));
	LT_MUST(cublasLtMatmulPreferenceSetAttribute(R.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, &alC, sizeof alC));
	LT_MUST(cublasLtMatmulPreferenceSetAttribute(R.pref, CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, &alD, sizeof alD));
	cublasLtMatmulHeuristicResult_t heur;
	memset(&heur, 0, sizeof heur);
	int found = 0;
	cublasStatus_t hs = cublasLtMatmulAlgoGetHeuristic(ctx.lt, R.desc, R.la, R.lb, R.lc, R.ld, R.pref, 1, &heur,
		&found);
	if (hs != CUBLAS_STATUS_SUCCESS || found == 0) {
		if (hs != CUBLAS_STATUS_SUCCESS)
			ctx.heuristicStatus[(int)hs >= 0 && (int)hs < 31 ? (int)hs : 31]++;
		else
			ctx.heuristicNone++;
		if (ctx.verbose)
			printf("unsupported %s: heuristic status %d, %d algorithms\n", describe(idx, c).c_str(), (int)hs,
				found);
		return UNSUPPORTED;
	}

	cublasStatus_t ms = cublasLtMatmul(ctx.lt, R.desc, alpha, pA, R.la, pB, R.lb, beta, pC, R.lc, pD, R.ld,
		&heur.algo, ctx.workspace, kWorkspace, ctx.stream);
	if (ms == CUBLAS_STATUS_NOT_SUPPORTED) {
		ctx.matmulNotSupported++;
		if (ctx.verbose)
			printf("unsupported %s: cublasLtMatmul NOT_SUPPORTED\n", describe(idx, c).c_str());
		return UNSUPPORTED;
	}
	if (ms != CUBLAS_STATUS_SUCCESS) {
		printf("FAIL %s: cublasLtMatmul returned status %d\n", describe(idx, c).c_str(), (int)ms);
		CUDA_MUST(cudaStreamSynchronize(ctx.stream));
		return FAILED;
	}

	/* The reference, from the same stored values. */
	const int64_t total = c.m * c.n * c.batch;
	double *vA = (double *)R.upload(hA.val.data(), hA.n * sizeof(double));
	double *vB = (double *)R.upload(hB.val.data(), hB.n * sizeof(double));
	double *vC = (double *)R.upload(hC.val.data(), hC.n * sizeof(double));
	double *vBias = bias ? (double *)R.upload(hBias.val.data(), hBias.n * sizeof(double)) : NULL;
	double *dPre = (double *)R.alloc(total * sizeof(double));
	double *dPost = (double *)R.alloc(total * sizeof(double));
	double *dScale = (double *)R.alloc(total * sizeof(double));
	/* The reference indexes the double copies from the buffers' starts,
	 * offsets included, as the check indexes the results. */
	unsigned blocks = (unsigned)((total + 255) / 256);
	referenceKernel<<<blocks, 256, 0, ctx.stream>>>(vA, c.A, vB, c.B, vC, c.C, vBias, c.ta, c.tb, c.m, c.n, c.k,
		(int64_t)c.batch, c.alpha, c.beta, act, dPre, dPost, dScale);
	CUDA_MUST(cudaGetLastError());
	CUDA_MUST(cudaStreamSynchronize(ctx.stream));

	std::vector<double> pre(total), post(total), scale(total);
	CUDA_MUST(cudaMemcpy(pre.data(), dPre, total * sizeof(double), cudaMemcpyDeviceToHost));
	CUDA_MUST(cudaMemcpy(post.data(), dPost, total * sizeof(double), cudaMemcpyDeviceToHost));
	CUDA_MUST(cudaMemcpy(scale.data(), dScale, total * sizeof(double), cudaMemcpyDeviceToHost));
	const HostBuf &initD = c.outOfPlace ? hD : hC;
	const Layout &LD = c.outOfPlace ? c.D : c.C; /* offsets from the buffer's start */
	std::vector<unsigned char> gotD(initD.raw.size()), gotC;
	CUDA_MUST(cudaMemcpy(gotD.data(), dD, gotD.size(), cudaMemcpyDeviceToHost));
	if (c.outOfPlace) {
		gotC.resize(hC.raw.size());
		CUDA_MUST(cudaMemcpy(gotC.data(), dC, gotC.size(), cudaMemcpyDeviceToHost));
	}
	/* Every element of the result within its bound. */
	const double uAcc = ldexp(1.0, T.uAccExp), uOut = ldexp(1.0, T.uOutExp);
	const double tiny = 2 * ((double)(c.k + 2) * (T.acc16 ? ldexp(1.0, -24) : 0.0) * (1 + fabs(c.alpha)) +
				   underflowOf(T.cd)) + 1e-300;
	std::vector<unsigned char> covered(initD.n, 0);
	int64_t bad = 0;
	std::string first;
	for (int64_t b = 0; b < c.batch; b++)
		for (int64_t j = 0; j < c.n; j++)
			for (int64_t i = 0; i < c.m; i++) {
				int64_t e = at(LD, b, i, j);
				int64_t t = b * c.m * c.n + i + j * c.m;
				covered[e] = 1;
				double got = load(T.cd, gotD.data(), (size_t)e);
				/* cuBLASLt rounds alpha·op(A)·op(B) + beta·C to D's type before it
				 * adds the bias (16-bit outputs): the output rounding of that too. */
				double unbiased = bias ? fabs(pre[t] - hBias.val[i]) : 0.0;
				double bound = 2 * ((double)(c.k + 2) * uAcc * scale[t] + uOut * (fabs(pre[t]) + unbiased)) + tiny;
				if (act == 2)
					bound = 1.2 * bound + (T.acc16 ? ldexp(1.0, -9) * fabs(pre[t]) + ldexp(1.0, -20)
									: kGeluErr * (fabs(pre[t]) + 1));
				double err = fabs(got - post[t]);
				if (std::isnan(got) || std::isinf(got))
					err = INFINITY;
				double ratio = err / bound;
				if (ratio > *worst)
					*worst = ratio;
				if (!(err <= bound)) {
					if (bad++ == 0) {
						char buf[256];
						snprintf(buf, sizeof buf, "D[%lld](%lld,%lld) = %.9g, want %.9g ± %.3g (pre %.9g)",
							(long long)b, (long long)i, (long long)j, got, post[t], bound, pre[t]);
						first = buf;
					}
				}
			}
	/* Nothing else written: D's padding and gaps, and C out of place. */
	int64_t outside = 0;
	int64_t firstOutside = -1;
	for (size_t e = 0; e < initD.n; e++)
		if (!covered[e] && memcmp(gotD.data() + e * ec, initD.raw.data() + e * ec, ec) != 0) {
			if (outside++ == 0)
				firstOutside = (int64_t)e;
		}
	bool cChanged = c.outOfPlace && memcmp(gotC.data(), hC.raw.data(), gotC.size()) != 0;
	if (bad > 0 || outside > 0 || cChanged) {
		printf("FAIL %s:", describe(idx, c).c_str());
		if (bad > 0)
			printf(" %lld of %lld elements outside the bound (worst err/bound %.3g; NaN counts as outside); first %s;",
				(long long)bad, (long long)total, *worst, first.c_str());
		if (outside > 0)
			printf(" %lld elements written outside the result, first at element %lld of D's buffer;",
				(long long)outside, (long long)firstOutside);
		if (cChanged)
			printf(" C changed by an out-of-place call;");
		printf("\n");
		return FAILED;
	}
	if (ctx.verbose)
		printf("ok %s: worst err/bound %.3g\n", describe(idx, c).c_str(), *worst);
	return PASS;
}

static uint64_t mix(uint64_t x)
{
	Rng r = {x};
	return r.next();
}

int main(int argc, char **argv)
{
	int n = 3000, only = -1, positional = 0;
	uint64_t seed = 1;
	bool verbose = false;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-v") == 0) {
			verbose = true;
		} else if (strcmp(argv[i], "--case") == 0 && i + 1 < argc) {
			only = atoi(argv[++i]);
		} else if (argv[i][0] != '-' && positional == 0) {
			n = atoi(argv[i]);
			positional++;
		} else if (argv[i][0] != '-' && positional == 1) {
			seed = strtoull(argv[i], NULL, 10);
			positional++;
		} else {
			printf("usage: %s [N [SEED]] [--case I] [-v]\n", argv[0]);
			return 2;
		}
	}

	setvbuf(stdout, NULL, _IOLBF, 0);
	gCurrent = "setup";
	Context ctx;
	memset(&ctx, 0, sizeof ctx);
	ctx.verbose = verbose;
	CUDA_MUST(cudaSetDevice(0));
	LT_MUST(cublasLtCreate(&ctx.lt));
	CUDA_MUST(cudaStreamCreate(&ctx.stream));
	CUDA_MUST(cudaMalloc(&ctx.workspace, kWorkspace));
	printf("lt_cases: cuBLASLt %zu, %d cases, seed %llu\n", cublasLtGetVersion(), only >= 0 ? 1 : n,
		(unsigned long long)seed);

	int cases = 0, unsupported = 0, failed = 0;
	double worst = 0;
	int tCases[kNumTypes], tUnsup[kNumTypes], tFailed[kNumTypes];
	double tWorst[kNumTypes];
	for (int t = 0; t < kNumTypes; t++) {
		tCases[t] = tUnsup[t] = tFailed[t] = 0;
		tWorst[t] = 0;
	}
	for (int i = 0; i < n || (only >= 0 && i <= only); i++) {
		if (only >= 0 && i != only)
			continue;
		uint64_t caseSeed = mix(seed * 0x100000001B3ull + (uint64_t)i);
		Rng r = {caseSeed};
		Case c = drawCase(r);
		gCurrent = describe(i, c);
		double w = 0;
		Outcome o = runCase(ctx, i, c, mix(caseSeed ^ 0xD1B54A32D192ED03ull), &w);
		CUDA_MUST(cudaGetLastError());
		cases++;
		tCases[c.type]++;
		if (o == UNSUPPORTED) {
			unsupported++;
			tUnsup[c.type]++;
			continue;
		}
		if (o == FAILED) {
			failed++;
			tFailed[c.type]++;
		}
		if (w > worst)
			worst = w;
		if (w > tWorst[c.type])
			tWorst[c.type] = w;
	}

	for (int t = 0; t < kNumTypes; t++)
		printf("  %-12s %5d cases, %4d unsupported by cuBLASLt, %d outside the bound, worst err/bound %.3g\n",
			kTypes[t].name, tCases[t], tUnsup[t], tFailed[t], tWorst[t]);
	printf("  unsupported: heuristic found no algorithm %d", ctx.heuristicNone);
	for (int s = 0; s < 32; s++)
		if (ctx.heuristicStatus[s] > 0)
			printf(", heuristic status %d%s: %d", s, s == 31 ? "+" : "", ctx.heuristicStatus[s]);
	printf(", cublasLtMatmul NOT_SUPPORTED %d\n", ctx.matmulNotSupported);

	gCurrent = "teardown";
	CUDA_WARN(cudaFree(ctx.workspace));
	CUDA_WARN(cudaStreamDestroy(ctx.stream));
	LT_WARN(cublasLtDestroy(ctx.lt));
	printf("lt_cases: %d cases (%d unsupported by cuBLASLt); worst err/bound %.3g; %d outside the bound\n", cases,
		unsupported, worst, failed);
	return failed > 0 ? 1 : 0;
}
