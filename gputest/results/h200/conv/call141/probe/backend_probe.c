/*
 * backend_probe.c: an LD_PRELOAD probe of cuDNN's graph API as PyTorch
 * drives it: cudnnBackendExecute forwarded, and for the first calls of
 * each plan what the plan, its engine, its operation graph, its
 * convolution and the variant pack say through cudnnBackendGetAttribute.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pthread.h>

#include <cudnn.h>

typedef cudnnStatus_t (*exec_fn)(cudnnHandle_t, cudnnBackendDescriptor_t, cudnnBackendDescriptor_t);
typedef cudnnStatus_t (*get_fn)(cudnnBackendDescriptor_t, cudnnBackendAttributeName_t, cudnnBackendAttributeType_t, int64_t, int64_t *, void *);
typedef cudnnStatus_t (*create_fn)(cudnnBackendDescriptorType_t, cudnnBackendDescriptor_t *);
typedef cudnnStatus_t (*destroy_fn)(cudnnBackendDescriptor_t);

static void *lib;
static get_fn get;
static create_fn create;
static destroy_fn destroy;
static FILE *out;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

static void *sym(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);
	if (f == NULL) {
		if (lib == NULL)
			lib = dlopen("libcudnn.so.9", RTLD_LAZY | RTLD_NOLOAD);
		if (lib == NULL)
			lib = dlopen("libcudnn.so.9", RTLD_LAZY);
		if (lib != NULL)
			f = dlsym(lib, name);
	}
	return f;
}

static double now_us(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static void ints(const char *label, cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a)
{
	int64_t v[16], n = 0;
	cudnnStatus_t s = get(d, a, CUDNN_TYPE_INT64, 16, &n, v);
	fprintf(out, " %s(st%d n%ld)=[", label, (int)s, (long)n);
	for (int i = 0; s == 0 && i < n && i < 16; i++)
		fprintf(out, "%s%ld", i ? "," : "", (long)v[i]);
	fprintf(out, "]");
}

static cudnnBackendDescriptor_t sub(cudnnBackendDescriptor_t d, cudnnBackendAttributeName_t a, cudnnBackendDescriptorType_t t, const char *label)
{
	cudnnBackendDescriptor_t s = NULL;
	cudnnStatus_t st = create(t, &s);
	int64_t n = 0;
	cudnnStatus_t g = get(d, a, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &s);
	fprintf(out, " %s(create %d get %d n %ld)", label, (int)st, (int)g, (long)n);
	if (g != 0) {
		destroy(s);
		return NULL;
	}
	return s;
}

static void tensor(const char *label, cudnnBackendDescriptor_t op, cudnnBackendAttributeName_t a)
{
	fprintf(out, "\n  ");
	cudnnBackendDescriptor_t t = sub(op, a, CUDNN_BACKEND_TENSOR_DESCRIPTOR, label);
	if (t == NULL)
		return;
	cudnnDataType_t dt = 0;
	int64_t n = 0;
	cudnnStatus_t s = get(t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &n, &dt);
	fprintf(out, " type(st%d)=%d", (int)s, (int)dt);
	ints("dims", t, CUDNN_ATTR_TENSOR_DIMENSIONS);
	ints("strides", t, CUDNN_ATTR_TENSOR_STRIDES);
	ints("uid", t, CUDNN_ATTR_TENSOR_UNIQUE_ID);
	ints("align", t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT);
	ints("veccount", t, CUDNN_ATTR_TENSOR_VECTOR_COUNT);
	ints("vecdim", t, CUDNN_ATTR_TENSOR_VECTORIZED_DIMENSION);
	bool virt = 0, byval = 0;
	s = get(t, CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_TYPE_BOOLEAN, 1, &n, &virt);
	fprintf(out, " virtual(st%d)=%d", (int)s, (int)virt);
	s = get(t, CUDNN_ATTR_TENSOR_IS_BY_VALUE, CUDNN_TYPE_BOOLEAN, 1, &n, &byval);
	fprintf(out, " byvalue(st%d)=%d", (int)s, (int)byval);
	destroy(t);
}

static void probe(cudnnHandle_t h, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t vp, int call)
{
	double t0 = now_us();
	fprintf(out, "call %d plan %p vp %p handle %p\n ", call, (void *)plan, (void *)vp, (void *)h);
	ints("workspace_size", plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE);
	int64_t jn = 0;
	cudnnStatus_t js = get(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, 0, &jn, NULL);
	fprintf(out, " json(st%d n%ld)", (int)js, (long)jn);
	if (js == 0 && jn > 0 && jn < (1 << 22)) {
		char *j = calloc(jn + 1, 1);
		js = get(plan, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_TYPE_CHAR, jn, &jn, j);
		fprintf(out, "\n  JSON(st%d): %.4000s\n ", (int)js, j);
		free(j);
	}
	cudnnBackendDescriptor_t cfg = sub(plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, "engcfg");
	cudnnBackendDescriptor_t eng = cfg ? sub(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_BACKEND_ENGINE_DESCRIPTOR, "engine") : NULL;
	if (eng) {
		ints("global_index", eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX);
		cudnnBackendNumericalNote_t notes[16];
		int64_t n = 0;
		cudnnStatus_t s = get(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE, 16, &n, notes);
		fprintf(out, " numerical_notes(st%d n%ld)=[", (int)s, (long)n);
		for (int i = 0; s == 0 && i < n && i < 16; i++)
			fprintf(out, "%s%d", i ? "," : "", (int)notes[i]);
		fprintf(out, "]");
		cudnnBackendBehaviorNote_t bn[16];
		s = get(eng, CUDNN_ATTR_ENGINE_BEHAVIOR_NOTE, CUDNN_TYPE_BEHAVIOR_NOTE, 16, &n, bn);
		fprintf(out, " behavior_notes(st%d n%ld)=[", (int)s, (long)n);
		for (int i = 0; s == 0 && i < n && i < 16; i++)
			fprintf(out, "%s%d", i ? "," : "", (int)bn[i]);
		fprintf(out, "]");
	}
	cudnnBackendDescriptor_t graph = eng ? sub(eng, CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, "graph") : NULL;
	if (graph) {
		int64_t nops = -1;
		cudnnStatus_t s = get(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &nops, NULL);
		fprintf(out, " ops(st%d n%ld)", (int)s, (long)nops);
		cudnnBackendDescriptor_t op = NULL;
		create(CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, &op);
		int64_t n = 0;
		s = get(graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &n, &op);
		fprintf(out, " op_as_convfwd(st%d n%ld)", (int)s, (long)n);
		if (s == 0) {
			double a = 0, b = 0;
			float af = 0, bf = 0;
			cudnnStatus_t s1 = get(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_DOUBLE, 1, &n, &a);
			cudnnStatus_t s2 = get(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_TYPE_FLOAT, 1, &n, &af);
			cudnnStatus_t s3 = get(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_DOUBLE, 1, &n, &b);
			cudnnStatus_t s4 = get(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA, CUDNN_TYPE_FLOAT, 1, &n, &bf);
			fprintf(out, "\n  alpha double(st%d)=%g float(st%d)=%g beta double(st%d)=%g float(st%d)=%g", (int)s1, a, (int)s2, af, (int)s3, b, (int)s4, bf);
			tensor("X", op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X);
			tensor("W", op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W);
			tensor("Y", op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y);
			fprintf(out, "\n  ");
			cudnnBackendDescriptor_t cd = sub(op, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC, CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, "conv");
			if (cd) {
				cudnnDataType_t ct = 0;
				cudnnConvolutionMode_t mode = 0;
				s = get(cd, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &n, &ct);
				fprintf(out, " comp_type(st%d)=%d", (int)s, (int)ct);
				s = get(cd, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &n, &mode);
				fprintf(out, " mode(st%d)=%d", (int)s, (int)mode);
				ints("spatial_dims", cd, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS);
				ints("dilations", cd, CUDNN_ATTR_CONVOLUTION_DILATIONS);
				ints("strides", cd, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES);
				ints("pre", cd, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS);
				ints("post", cd, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS);
				destroy(cd);
			}
		}
		destroy(op);
		destroy(graph);
	}
	if (eng)
		destroy(eng);
	if (cfg)
		destroy(cfg);
	double t1 = now_us();
	fprintf(out, "\n  vp:");
	ints("uids", vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS);
	void *ptrs[16];
	int64_t n = 0;
	cudnnStatus_t s = get(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 16, &n, ptrs);
	fprintf(out, " ptrs(st%d n%ld)=[", (int)s, (long)n);
	for (int i = 0; s == 0 && i < n && i < 16; i++)
		fprintf(out, "%s%p", i ? "," : "", ptrs[i]);
	void *ws = NULL;
	s = get(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &n, &ws);
	fprintf(out, "] workspace(st%d)=%p", (int)s, ws);
	double t2 = now_us();
	fprintf(out, "\n  decode %.1f us, variant pack %.1f us\n", t1 - t0, t2 - t1);
	fflush(out);
}

#define MAXPLANS 512
static void *seen[MAXPLANS];
static int nseen, ncalls;

cudnnStatus_t cudnnBackendExecute(cudnnHandle_t h, cudnnBackendDescriptor_t plan, cudnnBackendDescriptor_t vp)
{
	static exec_fn real;
	if (real == NULL) {
		real = (exec_fn)sym("cudnnBackendExecute");
		get = (get_fn)sym("cudnnBackendGetAttribute");
		create = (create_fn)sym("cudnnBackendCreateDescriptor");
		destroy = (destroy_fn)sym("cudnnBackendDestroyDescriptor");
	}
	pthread_mutex_lock(&mu);
	if (out == NULL) {
		const char *p = getenv("PROBE_OUT");
		out = fopen(p ? p : "/tmp/probe.txt", "a");
		fprintf(out, "enums: ATTR_OPERATIONGRAPH_OPS=%d ATTR_EXECUTION_PLAN_ENGINE_CONFIG=%d JSON=%d ENGINECFG_ENGINE=%d ENGINE_OPERATION_GRAPH=%d "
			"CONV_FWD_ALPHA=%d X=%d W=%d Y=%d CONV_DESC=%d TENSOR_DIMS=%d STRIDES=%d UID=%d VP_UIDS=%d VP_PTRS=%d VP_WS=%d "
			"TYPE_BACKEND_DESCRIPTOR=%d TYPE_INT64=%d TYPE_DOUBLE=%d TYPE_FLOAT=%d TYPE_VOID_PTR=%d TYPE_DATA_TYPE=%d TYPE_CONV_MODE=%d TYPE_NUMERICAL_NOTE=%d TYPE_CHAR=%d TYPE_BOOLEAN=%d "
			"DESC_CONV=%d DESC_ENGINE=%d DESC_ENGINECFG=%d DESC_PLAN=%d DESC_OP_CONVFWD=%d DESC_GRAPH=%d DESC_VP=%d DESC_TENSOR=%d NOTE_TENSOR_CORE=%d "
			"COMP_TYPE=%d CONV_MODE=%d DILATIONS=%d FILTER_STRIDES=%d POST=%d PRE=%d SPATIAL=%d ENGINE_NOTE=%d IS_VIRTUAL=%d BYTE_ALIGN=%d DATA_TYPE=%d VECTOR_COUNT=%d\n",
			CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, CUDNN_ATTR_ENGINECFG_ENGINE,
			CUDNN_ATTR_ENGINE_OPERATION_GRAPH, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X,
			CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
			CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS,
			CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_BACKEND_DESCRIPTOR, CUDNN_TYPE_INT64,
			CUDNN_TYPE_DOUBLE, CUDNN_TYPE_FLOAT, CUDNN_TYPE_VOID_PTR, CUDNN_TYPE_DATA_TYPE, CUDNN_TYPE_CONVOLUTION_MODE, CUDNN_TYPE_NUMERICAL_NOTE, CUDNN_TYPE_CHAR, CUDNN_TYPE_BOOLEAN,
			CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, CUDNN_BACKEND_ENGINE_DESCRIPTOR, CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR,
			CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR, CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR,
			CUDNN_BACKEND_TENSOR_DESCRIPTOR, CUDNN_NUMERICAL_NOTE_TENSOR_CORE,
			CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES,
			CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE,
			CUDNN_ATTR_TENSOR_IS_VIRTUAL, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_ATTR_TENSOR_VECTOR_COUNT);
	}
	ncalls++;
	int known = 0;
	for (int i = 0; i < nseen; i++)
		known |= seen[i] == plan;
	if (!known && nseen < MAXPLANS) {
		seen[nseen++] = plan;
		probe(h, plan, vp, ncalls);
	}
	pthread_mutex_unlock(&mu);
	return real(h, plan, vp);
}

__attribute__((destructor)) static void done(void)
{
	if (out)
		fprintf(out, "total cudnnBackendExecute calls %d, distinct plans %d\n", ncalls, nseen);
}
