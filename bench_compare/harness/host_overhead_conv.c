/*
 * host_overhead_conv.c: host-side cost of libisaac.so's cudnnConvolutionForward,
 * measured against cuDNN's own side by side in one process. Built and run by
 * `bench_compare -overhead` on a GPU machine, linked -lisaac -lcudart: the
 * shim's cudnnConvolutionForward is looked up in libisaac.so itself (the
 * library that defines isaac_go_conv), cuDNN is opened with dlopen
 * (RTLD_GLOBAL, so that the shim finds it loaded) and its own functions
 * are looked up there. cuDNN's prototypes are declared here with
 * opaque handles, so that the harness needs no cuDNN headers.
 *
 *   host_overhead_conv calls N C HW K R [fma|tf32]
 *                            host time per call of one FLOAT NCHW
 *                            convolution (N×C×HW×HW, K filters of R×R,
 *                            "same" padding, FMA math or TF32 allowed, with
 *                            the algorithm cudnnGetConvolutionForwardAlgorithm_v7
 *                            picks and its workspace): batches of 100 calls
 *                            alternate between the shim and cuDNN (10,000
 *                            calls each, same handle, descriptors, algorithm
 *                            and buffers), after 3,000 calls and 1.5 s of
 *                            warm-up; each batch's issue time is
 *                            measured, then an untimed synchronization.
 */
#define _GNU_SOURCE
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"

typedef void *handle_t;
typedef int (*conv_fwd_fn)(handle_t, const void *, handle_t, const void *, handle_t, const void *, handle_t, int,
	void *, size_t, const void *, handle_t, void *);

/* A function only libisaac.so defines: where it lies names the library
 * whose own cudnnConvolutionForward is the shim's. */
extern int isaac_go_conv(void *);

/* conv_args are the timed convolution's arguments, for time_calls. */
struct conv_args {
	conv_fwd_fn fns[2]; /* cuDNN's, the shim's */
	handle_t h, x, y, w, cv;
	float *xp, *wp, *yp, alpha, beta;
	int algo;
	void *ws;
	size_t ws_bytes;
};

/* cudnnConvolutionFwdAlgoPerf_t, as cuDNN 9 lays it out. */
struct algo_perf {
	int algo, status;
	float time;
	size_t memory;
	int determinism, math_type, reserved[3];
};

/* conv_call runs the convolution with the v7 pick and its workspace. */
static int conv_call(int which, void *ctx)
{
	struct conv_args *c = ctx;
	return c->fns[which](c->h, &c->alpha, c->x, c->xp, c->w, c->wp, c->cv, c->algo, c->ws, c->ws_bytes, &c->beta, c->y, c->yp);
}

/* time_getters prints the host time of each cuDNN getter the shim's
 * decoding calls once a convolution (isaac_read_conv_state), on the timed
 * convolution's handle and descriptors: the mean of 20,000 calls each. */
static int time_getters(void *dnn, const struct conv_args *c)
{
	static const char *names[] = {"cudnnGetStream", "cudnnGetTensorNdDescriptor", "cudnnGetFilterNdDescriptor",
		"cudnnGetConvolutionNdDescriptor", "cudnnGetConvolutionGroupCount", "cudnnGetConvolutionMathType"};
	void *fn[6];
	for (int i = 0; i < 6; i++)
		if (!(fn[i] = dlsym(dnn, names[i]))) {
			fprintf(stderr, "host_overhead_conv: no %s\n", names[i]);
			return 1;
		}
	enum { CALLS = 20000 };
	int type, dims, dim[8], stride[8], format, pad[6], str[6], dil[6], mode, compute, v;
	void *stream;
	printf("getters");
	for (int g = 0; g < 6; g++) {
		int st = 0;
		double t0 = now_ns();
		for (int i = 0; i < CALLS; i++) {
			switch (g) {
			case 0: st |= ((int (*)(handle_t, void **))fn[g])(c->h, &stream); break;
			case 1: st |= ((int (*)(handle_t, int, int *, int *, int *, int *))fn[g])(c->x, 8, &type, &dims, dim, stride); break;
			case 2: st |= ((int (*)(handle_t, int, int *, int *, int *, int *))fn[g])(c->w, 8, &type, &format, &dims, dim); break;
			case 3: st |= ((int (*)(handle_t, int, int *, int *, int *, int *, int *, int *))fn[g])(c->cv, 6, &dims, pad, str, dil, &mode, &compute); break;
			default: st |= ((int (*)(handle_t, int *))fn[g])(c->cv, &v); break;
			}
		}
		double t1 = now_ns();
		if (st) {
			fprintf(stderr, "host_overhead_conv: %s: status %d\n", names[g], st);
			return 2;
		}
		printf(" %s=%.0f", names[g] + 5, (t1 - t0) / CALLS);
	}
	printf(" (ns a call)\n");
	return 0;
}

#define SYM(name) void *name = dlsym(dnn, #name); if (!name) { fprintf(stderr, "host_overhead_conv: no %s\n", #name); return 1; }
#define CHECK(call) do { int st_ = (call); if (st_) { fprintf(stderr, "host_overhead_conv: %s: status %d\n", #call, st_); return 2; } } while (0)

int main(int argc, char **argv)
{
	if (argc < 7 || strcmp(argv[1], "calls") != 0) {
		fprintf(stderr, "usage: host_overhead_conv calls N C HW K R [fma|tf32]\n");
		return 2;
	}
	int n = atoi(argv[2]), c = atoi(argv[3]), hw = atoi(argv[4]), k = atoi(argv[5]), r = atoi(argv[6]);
	int tf32 = argc > 7 && strcmp(argv[7], "tf32") == 0;
	void *dnn = dlopen("libcudnn.so.9", RTLD_NOW | RTLD_GLOBAL);
	if (!dnn) {
		fprintf(stderr, "host_overhead_conv: %s\n", dlerror());
		return 1;
	}
	SYM(cudnnCreate) SYM(cudnnCreateTensorDescriptor) SYM(cudnnSetTensor4dDescriptor) SYM(cudnnCreateFilterDescriptor)
	SYM(cudnnSetFilter4dDescriptor) SYM(cudnnCreateConvolutionDescriptor) SYM(cudnnSetConvolution2dDescriptor)
	SYM(cudnnSetConvolutionMathType) SYM(cudnnConvolutionForward) SYM(cudnnGetConvolutionForwardAlgorithm_v7)
	SYM(cudnnGetConvolutionForwardWorkspaceSize)
	Dl_info li = {0}, vi = {0}, si = {0};
	void *isaac = dladdr((void *)isaac_go_conv, &li) ? dlopen(li.dli_fname, RTLD_NOW | RTLD_NOLOAD) : NULL;
	conv_fwd_fn vendor = (conv_fwd_fn)cudnnConvolutionForward,
		shim = isaac ? (conv_fwd_fn)dlsym(isaac, "cudnnConvolutionForward") : NULL;
	dladdr((void *)vendor, &vi);
	if (shim)
		dladdr((void *)shim, &si);
	if (!shim || vendor == shim) {
		fprintf(stderr, "host_overhead_conv: cuDNN's and the program's cudnnConvolutionForward are one (%s)\n",
			si.dli_fname ? si.dli_fname : "?");
		return 1;
	}
	fprintf(stderr, "host_overhead_conv: the program's cudnnConvolutionForward in %s, cuDNN's in %s\n",
		si.dli_fname ? si.dli_fname : "?", vi.dli_fname ? vi.dli_fname : "?");
	handle_t h, x, y, w, cv;
	CHECK(((int (*)(handle_t *))cudnnCreate)(&h));
	CHECK(((int (*)(handle_t *))cudnnCreateTensorDescriptor)(&x));
	CHECK(((int (*)(handle_t *))cudnnCreateTensorDescriptor)(&y));
	CHECK(((int (*)(handle_t *))cudnnCreateFilterDescriptor)(&w));
	CHECK(((int (*)(handle_t *))cudnnCreateConvolutionDescriptor)(&cv));
	/* CUDNN_TENSOR_NCHW = 0, CUDNN_DATA_FLOAT = 0, CUDNN_CROSS_CORRELATION = 1, CUDNN_FMA_MATH = 3,
	 * CUDNN_TENSOR_OP_MATH = 1 (TF32 allowed) */
	int (*set_tensor)(handle_t, int, int, int, int, int, int) = (int (*)(handle_t, int, int, int, int, int, int))cudnnSetTensor4dDescriptor;
	CHECK(set_tensor(x, 0, 0, n, c, hw, hw));
	CHECK(set_tensor(y, 0, 0, n, k, hw, hw));
	CHECK(((int (*)(handle_t, int, int, int, int, int, int))cudnnSetFilter4dDescriptor)(w, 0, 0, k, c, r, r));
	CHECK(((int (*)(handle_t, int, int, int, int, int, int, int, int))cudnnSetConvolution2dDescriptor)(cv, r / 2, r / 2, 1, 1, 1, 1, 1, 0));
	CHECK(((int (*)(handle_t, int))cudnnSetConvolutionMathType)(cv, tf32 ? 1 : 3));
	struct algo_perf perf[16];
	int found = 0;
	CHECK(((int (*)(handle_t, handle_t, handle_t, handle_t, handle_t, int, int *, struct algo_perf *))
		cudnnGetConvolutionForwardAlgorithm_v7)(h, x, w, cv, y, 16, &found, perf));
	if (found < 1) {
		fprintf(stderr, "host_overhead_conv: no algorithm\n");
		return 2;
	}
	size_t ws_bytes = 0;
	CHECK(((int (*)(handle_t, handle_t, handle_t, handle_t, handle_t, int, size_t *))cudnnGetConvolutionForwardWorkspaceSize)(
		h, x, w, cv, y, perf[0].algo, &ws_bytes));
	void *ws = NULL;
	if (ws_bytes && cudaMalloc(&ws, ws_bytes))
		return 1;
	float *xp, *wp, *yp, alpha = 1, beta = 0;
	if (cudaMalloc((void **)&xp, 4 * (size_t)n * c * hw * hw) || cudaMalloc((void **)&wp, 4 * (size_t)k * c * r * r) ||
		cudaMalloc((void **)&yp, 4 * (size_t)n * k * hw * hw))
		return 1;
	cudaMemset(xp, 0, 4 * (size_t)n * c * hw * hw);
	cudaMemset(wp, 0, 4 * (size_t)k * c * r * r);
	struct conv_args args = {{vendor, shim}, h, x, y, w, cv, xp, wp, yp, alpha, beta, perf[0].algo, ws, ws_bytes};
	fprintf(stderr, "host_overhead_conv: %s math, algorithm %d, workspace %zu bytes\n", tf32 ? "TF32" : "FMA", args.algo, ws_bytes);
	/* Warm up: the shim's decision (made in the background under auto,
	 * then checked on its first calls) is settled before the timing. */
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 1000; i++)
			CHECK(conv_call(i & 1, &args));
		cudaDeviceSynchronize();
		struct timespec pause = {0, 500000000};
		nanosleep(&pause, NULL);
	}
	if (time_calls(conv_call, &args, n))
		return 2;
	return time_getters(dnn, &args);
}
