/*
 * driver.c: loading the CUDA driver at first use with dlopen and
 * cuGetProcAddress, so that libisaac.so builds anywhere, loads on machines
 * without a GPU and works in the caller's context.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calls.h"

isaac_cuda_api isaac_cu;
int isaac_relax_unsafe_calls = 1;

_Static_assert(sizeof(isaac_mem_pool_props) == 88, "CUmemPoolProps is 88 bytes");

typedef CUresult (*get_proc_v2_fn)(const char *, void **, int, unsigned long long, int *);
typedef CUresult (*get_proc_v1_fn)(const char *, void **, int, unsigned long long);

#define CU_GET_PROC_ADDRESS_LEGACY_STREAM 1ULL

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[256];

struct entry { const char *name; void **slot; };

#define E(fn) { #fn, (void **)&isaac_cu.fn }
static const struct entry entries[] = {
	E(cuInit), E(cuDriverGetVersion), E(cuGetErrorName), E(cuGetErrorString),
	E(cuDeviceGet), E(cuDeviceGetCount), E(cuDeviceGetName), E(cuDeviceGetAttribute),
	E(cuDeviceTotalMem), E(cuDevicePrimaryCtxRetain), E(cuDevicePrimaryCtxRelease),
	E(cuCtxGetCurrent), E(cuCtxSetCurrent), E(cuCtxGetDevice), E(cuCtxGetId),
	E(cuModuleLoadDataEx), E(cuModuleUnload), E(cuModuleGetFunction),
	E(cuFuncGetAttribute), E(cuFuncSetAttribute), E(cuLaunchKernel), E(cuLaunchKernelEx),
	E(cuStreamCreate), E(cuStreamDestroy), E(cuStreamSynchronize), E(cuStreamIsCapturing),
	E(cuStreamGetId),
	E(cuMemAlloc), E(cuMemFree), E(cuMemAllocAsync), E(cuMemFreeAsync),
	E(cuMemPoolCreate), E(cuMemPoolSetAttribute), E(cuMemAllocFromPoolAsync),
	E(cuMemsetD8Async), E(cuMemsetD32Async), E(cuMemcpyHtoD), E(cuMemcpyDtoH),
	E(cuEventCreate), E(cuEventRecord), E(cuEventSynchronize), E(cuEventQuery), E(cuEventElapsedTime),
	E(cuEventDestroy), E(cuLinkCreate), E(cuLinkAddData), E(cuLinkComplete), E(cuLinkDestroy),
	E(cuStreamBeginCapture), E(cuStreamEndCapture), E(cuThreadExchangeStreamCaptureMode), E(cuGraphInstantiateWithFlags), E(cuGraphLaunch),
	E(cuGraphExecDestroy), E(cuGraphDestroy), E(cuTensorMapEncodeTiled), E(cuTensorMapEncodeIm2col),
};
#undef E

static void load(void)
{
	const char *path = getenv("ISAAC_LIBCUDA");
	if (path == NULL || path[0] == '\0')
		path = "libcuda.so.1";
	void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (lib == NULL) {
		snprintf(load_error, sizeof load_error, "cannot load the CUDA driver: %s", dlerror());
		return;
	}
	get_proc_v2_fn get_v2 = (get_proc_v2_fn)dlsym(lib, "cuGetProcAddress_v2");
	get_proc_v1_fn get_v1 = (get_proc_v1_fn)dlsym(lib, "cuGetProcAddress");
	if (get_v2 == NULL && get_v1 == NULL) {
		snprintf(load_error, sizeof load_error, "%s has no cuGetProcAddress (driver older than CUDA 11.3)", path);
		return;
	}
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		void *fn = NULL;
		CUresult r;
		if (get_v2 != NULL) {
			int found = 0;
			r = get_v2(entries[i].name, &fn, ISAAC_CUDA_ABI, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &found);
		} else {
			r = get_v1(entries[i].name, &fn, ISAAC_CUDA_ABI, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
		}
		if (r != 0 || fn == NULL) {
			snprintf(load_error, sizeof load_error,
				"the CUDA driver has no %s for ABI %d (error %d): driver too old",
				entries[i].name, ISAAC_CUDA_ABI, r);
			memset(&isaac_cu, 0, sizeof isaac_cu);
			return;
		}
		*entries[i].slot = fn;
	}
	CUresult r = isaac_cu.cuInit(0);
	if (r != 0) {
		snprintf(load_error, sizeof load_error, "cuInit failed with CUDA error %d", r);
		return;
	}
	load_status = 0;
}

int isaac_cuda_load(char *err, size_t errlen)
{
	pthread_once(&once, load);
	if (load_status != 0 && err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", load_error);
	return load_status;
}

static int build_params(void **params, unsigned char *args, const int *offsets, int nargs)
{
	if (nargs < 0 || nargs > ISAAC_MAX_KERNEL_PARAMS)
		return -1;
	for (int i = 0; i < nargs; i++)
		params[i] = args + offsets[i];
	return 0;
}

#define CUDA_ERROR_INVALID_VALUE 1

#define CUDA_ERROR_NOT_INITIALIZED 3
#define CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION 4
#define CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION 6

CUresult isaac_cuda_launch(uintptr_t f, const unsigned int *grid, const unsigned int *block,
	unsigned int shared_bytes, uintptr_t stream, unsigned char *args, const int *offsets, int nargs)
{
	void *params[ISAAC_MAX_KERNEL_PARAMS];
	if (isaac_cu.cuLaunchKernel == NULL)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (build_params(params, args, offsets, nargs) != 0)
		return CUDA_ERROR_INVALID_VALUE;
	return isaac_cu.cuLaunchKernel((CUfunction)f, grid[0], grid[1], grid[2],
		block[0], block[1], block[2], shared_bytes, (CUstream)stream, params, NULL);
}

CUresult isaac_cuda_launch_ex(uintptr_t f, const unsigned int *grid, const unsigned int *block,
	const unsigned int *cluster, int dependent, unsigned int shared_bytes, uintptr_t stream,
	unsigned char *args, const int *offsets, int nargs)
{
	void *params[ISAAC_MAX_KERNEL_PARAMS];
	if (isaac_cu.cuLaunchKernelEx == NULL)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (build_params(params, args, offsets, nargs) != 0)
		return CUDA_ERROR_INVALID_VALUE;
	isaac_launch_attr attrs[2];
	unsigned int n = 0;
	memset(attrs, 0, sizeof attrs);
	if (cluster[0] * cluster[1] * cluster[2] > 0) {
		attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		attrs[n].value.u32[0] = cluster[0];
		attrs[n].value.u32[1] = cluster[1];
		attrs[n].value.u32[2] = cluster[2];
		n++;
	}
	if (dependent) {
		attrs[n].id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
		attrs[n].value.i32 = 1;
		n++;
	}
	isaac_launch_config cfg = {
		grid[0], grid[1], grid[2], block[0], block[1], block[2],
		shared_bytes, (CUstream)stream, attrs, n,
	};
	return isaac_cu.cuLaunchKernelEx(&cfg, (CUfunction)f, params, NULL);
}

CUresult isaac_cuda_current_id(unsigned long long *id)
{
	CUcontext ctx = NULL;
	CUresult r = ISAAC_CU_CALL(cuCtxGetCurrent, &ctx);
	if (r != 0)
		return r;
	if (ctx == NULL)
		return 201; /* CUDA_ERROR_INVALID_CONTEXT */
	return ISAAC_CU_CALL(cuCtxGetId, ctx, id);
}

CUresult isaac_cuda_capturing(uintptr_t stream, int *capturing)
{
	int status = 0;
	CUresult r = ISAAC_CU_CALL(cuStreamIsCapturing, (CUstream)stream, &status);
	*capturing = status != 0;
	return r;
}

/* CUjit_option values. */
#define CU_JIT_MAX_REGISTERS 0
#define CU_JIT_INFO_LOG_BUFFER 3
#define CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES 4
#define CU_JIT_ERROR_LOG_BUFFER 5
#define CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES 6
#define CU_JIT_LOG_VERBOSE 12

static int jit_log_options(int *opts, void **vals, char *error_log, size_t error_len,
	char *info_log, size_t info_len);

CUresult isaac_cuda_load_ptx(CUmodule *mod, const char *ptx, int max_registers,
	char *error_log, size_t error_len, char *info_log, size_t info_len)
{
	int opts[6];
	void *vals[6];
	if (isaac_cu.cuModuleLoadDataEx == NULL)
		return 3;
	int n = jit_log_options(opts, vals, error_log, error_len, info_log, info_len);
	if (max_registers > 0) {
		opts[n] = CU_JIT_MAX_REGISTERS;
		vals[n++] = (void *)(uintptr_t)max_registers;
	}
	return ISAAC_CU_RELAXED(cuModuleLoadDataEx, mod, ptx, (unsigned)n, opts, vals);
}

#define CU_JIT_INPUT_PTX 1

static int jit_log_options(int *opts, void **vals, char *error_log, size_t error_len,
	char *info_log, size_t info_len)
{
	int n = 0;
	opts[n] = CU_JIT_ERROR_LOG_BUFFER; vals[n++] = error_log;
	opts[n] = CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES; vals[n++] = (void *)(uintptr_t)error_len;
	opts[n] = CU_JIT_INFO_LOG_BUFFER; vals[n++] = info_log;
	opts[n] = CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES; vals[n++] = (void *)(uintptr_t)info_len;
	opts[n] = CU_JIT_LOG_VERBOSE; vals[n++] = (void *)(uintptr_t)1;
	if (error_len > 0)
		error_log[0] = '\0';
	if (info_len > 0)
		info_log[0] = '\0';
	return n;
}

CUresult isaac_cuda_compile_ptx(const char *ptx, size_t len, void **cubin, size_t *size,
	char *error_log, size_t error_len, char *info_log, size_t info_len)
{
	if (isaac_cu.cuLinkCreate == NULL)
		return 3;
	int opts[6];
	void *vals[6];
	int n = jit_log_options(opts, vals, error_log, error_len, info_log, info_len);
	CUlinkState state;
	int mode, swapped = isaac_relax_begin(&mode);
	CUresult r = isaac_cu.cuLinkCreate((unsigned)n, opts, vals, &state);
	if (r != 0) {
		isaac_relax_end(swapped, &mode);
		return r;
	}
	r = isaac_cu.cuLinkAddData(state, CU_JIT_INPUT_PTX, (void *)ptx, len, "isaac.ptx", 0, NULL, NULL);
	void *out = NULL;
	size_t out_size = 0;
	if (r == 0)
		r = isaac_cu.cuLinkComplete(state, &out, &out_size);
	if (r == 0) {
		*cubin = malloc(out_size);
		if (*cubin == NULL) {
			r = 2; /* CUDA_ERROR_OUT_OF_MEMORY */
		} else {
			memcpy(*cubin, out, out_size);
			*size = out_size;
		}
	}
	isaac_cu.cuLinkDestroy(state);
	isaac_relax_end(swapped, &mode);
	return r;
}

CUresult isaac_cuda_load_image(CUmodule *mod, const void *image)
{
	if (isaac_cu.cuModuleLoadDataEx == NULL)
		return 3;
	return ISAAC_CU_RELAXED(cuModuleLoadDataEx, mod, image, 0, NULL, NULL);
}

CUresult isaac_cuda_tensor_map_tiled(unsigned char *out, int data_type, int rank, CUdeviceptr base,
	const unsigned long long *dims, const unsigned long long *strides, const unsigned int *box,
	int swizzle, int l2_promotion)
{
	/* CUtensorMap: 128 bytes, 64-byte aligned. */
	unsigned char map[128] __attribute__((aligned(64)));
	const unsigned int elem_strides[3] = {1, 1, 1};
	if (isaac_cu.cuTensorMapEncodeTiled == NULL)
		return CUDA_ERROR_NOT_INITIALIZED;
	if (rank < 2 || rank > 3)
		return CUDA_ERROR_INVALID_VALUE;
	CUresult r = isaac_cu.cuTensorMapEncodeTiled(map, data_type, rank, (void *)(uintptr_t)base, dims,
		strides, box, elem_strides, 0 /* no interleave */, swizzle, l2_promotion,
		0 /* out of bounds: zeros */);
	if (r == 0)
		memcpy(out, map, sizeof map);
	return r;
}

CUresult isaac_cuda_tensor_map_im2col_4d(unsigned char *out, int data_type, CUdeviceptr base,
	const unsigned long long *dims, const unsigned long long *strides, const int *lower, const int *upper,
	unsigned int channels, unsigned int pixels, const unsigned int *elem_strides, int swizzle, int l2_promotion)
{
	unsigned char map[128] __attribute__((aligned(64)));
	if (isaac_cu.cuTensorMapEncodeIm2col == NULL)
		return CUDA_ERROR_NOT_INITIALIZED;
	CUresult r = isaac_cu.cuTensorMapEncodeIm2col(map, data_type, 4, (void *)(uintptr_t)base, dims, strides,
		lower, upper, channels, pixels, elem_strides, 0 /* no interleave */, swizzle, l2_promotion,
		0 /* out of bounds: zeros */);
	if (r == 0)
		memcpy(out, map, sizeof map);
	return r;
}
