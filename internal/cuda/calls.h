/*
 * calls.h: one static wrapper per driver entry point, because cgo cannot
 * call through a C function pointer. Each returns CUDA_ERROR_NOT_INITIALIZED
 * (3) when the driver is not loaded.
 */
#ifndef ISAAC_CUDA_CALLS_H
#define ISAAC_CUDA_CALLS_H

#include "driver.h"

#define ISAAC_CU_CALL(fn, ...) \
	(isaac_cu.fn == NULL ? (CUresult)3 : isaac_cu.fn(__VA_ARGS__))

/*
 * ISAAC_CU_RELAXED makes one driver call with the calling thread's
 * stream-capture interaction mode set to relaxed, and restores the mode
 * after it. Some calls are "potentially unsafe" while a stream is captured
 * into a graph: loading or unloading a module (with lazy loading, the
 * driver loads a kernel when it is first looked up, and may then allocate
 * device memory for its code), querying an event, creating a memory pool,
 * and a stream-ordered allocation or free on a stream that is not being
 * captured. In the default (global) mode such a call made on
 * any thread while another thread captures invalidates that capture, and in
 * thread-local mode one made on the capturing thread does (the driver's
 * answers, call by call: TestGPUCaptureUnsafeCalls). The shim makes them on
 * the application's threads and on its own, at any time, for work of its
 * own: relaxed, the driver makes them without touching anyone's capture. A
 * stream-ordered allocation on a stream that is being captured is captured
 * all the same (an allocation node), whatever the thread's mode.
 */
#define ISAAC_CU_RELAXED(fn, ...) ({                                              \
	int isaac_mode_;                                                          \
	int isaac_swapped_ = isaac_relax_begin(&isaac_mode_);                      \
	CUresult isaac_r_ = ISAAC_CU_CALL(fn, __VA_ARGS__);                       \
	isaac_relax_end(isaac_swapped_, &isaac_mode_);                            \
	isaac_r_;                                                                 \
})

/* isaac_relax_begin sets the calling thread's mode to relaxed and keeps the
 * previous one in *mode; it returns whether isaac_relax_end must restore it.
 * isaac_relax_unsafe_calls = 0 (tests only) leaves the mode alone. */
extern int isaac_relax_unsafe_calls;

static inline int isaac_relax_begin(int *mode)
{
	*mode = 2; /* CU_STREAM_CAPTURE_MODE_RELAXED */
	return __atomic_load_n(&isaac_relax_unsafe_calls, __ATOMIC_RELAXED) &&
		isaac_cu.cuThreadExchangeStreamCaptureMode != NULL &&
		isaac_cu.cuThreadExchangeStreamCaptureMode(mode) == 0;
}

static inline void isaac_relax_end(int swapped, int *mode)
{
	if (swapped)
		isaac_cu.cuThreadExchangeStreamCaptureMode(mode);
}

static inline int isaac_set_relax_unsafe_calls(int on)
{
	return __atomic_exchange_n(&isaac_relax_unsafe_calls, on, __ATOMIC_RELAXED);
}

static inline CUresult isaac_cu_driver_get_version(int *v) { return ISAAC_CU_CALL(cuDriverGetVersion, v); }
static inline CUresult isaac_cu_get_error_name(CUresult r, const char **s) { return ISAAC_CU_CALL(cuGetErrorName, r, s); }
static inline CUresult isaac_cu_get_error_string(CUresult r, const char **s) { return ISAAC_CU_CALL(cuGetErrorString, r, s); }
static inline CUresult isaac_cu_device_get(CUdevice *d, int ordinal) { return ISAAC_CU_CALL(cuDeviceGet, d, ordinal); }
static inline CUresult isaac_cu_device_get_count(int *n) { return ISAAC_CU_CALL(cuDeviceGetCount, n); }
static inline CUresult isaac_cu_device_get_name(char *s, int len, CUdevice d) { return ISAAC_CU_CALL(cuDeviceGetName, s, len, d); }
static inline CUresult isaac_cu_device_get_attribute(int *v, int a, CUdevice d) { return ISAAC_CU_CALL(cuDeviceGetAttribute, v, a, d); }
static inline CUresult isaac_cu_device_total_mem(size_t *b, CUdevice d) { return ISAAC_CU_CALL(cuDeviceTotalMem, b, d); }
static inline CUresult isaac_cu_primary_ctx_retain(CUcontext *c, CUdevice d) { return ISAAC_CU_CALL(cuDevicePrimaryCtxRetain, c, d); }
static inline CUresult isaac_cu_primary_ctx_release(CUdevice d) { return ISAAC_CU_CALL(cuDevicePrimaryCtxRelease, d); }
static inline CUresult isaac_cu_ctx_get_current(CUcontext *c) { return ISAAC_CU_CALL(cuCtxGetCurrent, c); }
static inline CUresult isaac_cu_ctx_set_current(uintptr_t c) { return ISAAC_CU_CALL(cuCtxSetCurrent, (CUcontext)c); }
static inline CUresult isaac_cu_ctx_get_device(CUdevice *d) { return ISAAC_CU_CALL(cuCtxGetDevice, d); }
static inline CUresult isaac_cu_ctx_get_id(uintptr_t c, unsigned long long *id) { return ISAAC_CU_CALL(cuCtxGetId, (CUcontext)c, id); }

/*
 * isaac_cu_current reads the calling thread's current context, its unique
 * ID and its device in one call from Go (one cgo transition, no Go memory
 * passed: nothing escapes to Go's heap), what every served call asks first.
 * r is the first failing driver call's result, which its index (0
 * cuCtxGetCurrent, 1 cuCtxGetId, 2 cuCtxGetDevice); a thread without a
 * current context gets ctx 0 and r 0.
 */
typedef struct {
	CUresult r;
	int which;
	uintptr_t ctx;
	unsigned long long id;
	CUdevice dev;
} isaac_cu_current_t;

static inline isaac_cu_current_t isaac_cu_current(void)
{
	isaac_cu_current_t c = {0};
	CUcontext ctx = NULL;
	if ((c.r = ISAAC_CU_CALL(cuCtxGetCurrent, &ctx)) != 0 || ctx == NULL)
		return c;
	c.ctx = (uintptr_t)ctx;
	if ((c.r = ISAAC_CU_CALL(cuCtxGetId, ctx, &c.id)) != 0) {
		c.which = 1;
		return c;
	}
	if ((c.r = ISAAC_CU_CALL(cuCtxGetDevice, &c.dev)) != 0)
		c.which = 2;
	return c;
}
static inline CUresult isaac_cu_module_unload(uintptr_t m) { return ISAAC_CU_RELAXED(cuModuleUnload, (CUmodule)m); }
static inline CUresult isaac_cu_module_get_function(CUfunction *f, uintptr_t m, const char *name) { return ISAAC_CU_RELAXED(cuModuleGetFunction, f, (CUmodule)m, name); }
static inline CUresult isaac_cu_func_get_attribute(int *v, int a, uintptr_t f) { return ISAAC_CU_RELAXED(cuFuncGetAttribute, v, a, (CUfunction)f); }
static inline CUresult isaac_cu_func_set_attribute(uintptr_t f, int a, int v) { return ISAAC_CU_RELAXED(cuFuncSetAttribute, (CUfunction)f, a, v); }
static inline CUresult isaac_cu_stream_create(CUstream *s, unsigned int flags) { return ISAAC_CU_CALL(cuStreamCreate, s, flags); }
static inline CUresult isaac_cu_stream_destroy(uintptr_t s) { return ISAAC_CU_CALL(cuStreamDestroy, (CUstream)s); }
static inline CUresult isaac_cu_stream_synchronize(uintptr_t s) { return ISAAC_CU_CALL(cuStreamSynchronize, (CUstream)s); }
static inline CUresult isaac_cu_stream_is_capturing(uintptr_t s, int *status) { return ISAAC_CU_CALL(cuStreamIsCapturing, (CUstream)s, status); }
static inline CUresult isaac_cu_stream_get_id(uintptr_t s, unsigned long long *id) { return ISAAC_CU_CALL(cuStreamGetId, (CUstream)s, id); }
static inline CUresult isaac_cu_mem_alloc(CUdeviceptr *p, size_t n) { return ISAAC_CU_CALL(cuMemAlloc, p, n); }
static inline CUresult isaac_cu_mem_free(CUdeviceptr p) { return ISAAC_CU_CALL(cuMemFree, p); }
static inline CUresult isaac_cu_mem_alloc_async(CUdeviceptr *p, size_t n, uintptr_t s) { return ISAAC_CU_RELAXED(cuMemAllocAsync, p, n, (CUstream)s); }
static inline CUresult isaac_cu_mem_free_async(CUdeviceptr p, uintptr_t s) { return ISAAC_CU_RELAXED(cuMemFreeAsync, p, (CUstream)s); }
static inline CUresult isaac_cu_mem_pool_create(CUmemoryPool *pool, const isaac_mem_pool_props *props) { return ISAAC_CU_RELAXED(cuMemPoolCreate, pool, props); }
static inline CUresult isaac_cu_mem_pool_set_attribute(uintptr_t pool, int attr, void *v) { return ISAAC_CU_RELAXED(cuMemPoolSetAttribute, (CUmemoryPool)pool, attr, v); }
static inline CUresult isaac_cu_mem_alloc_from_pool_async(CUdeviceptr *p, size_t n, uintptr_t pool, uintptr_t s) { return ISAAC_CU_RELAXED(cuMemAllocFromPoolAsync, p, n, (CUmemoryPool)pool, (CUstream)s); }
static inline CUresult isaac_cu_memset_d8_async(CUdeviceptr p, unsigned char v, size_t n, uintptr_t s) { return ISAAC_CU_CALL(cuMemsetD8Async, p, v, n, (CUstream)s); }
static inline CUresult isaac_cu_memset_d32_async(CUdeviceptr p, unsigned int v, size_t n, uintptr_t s) { return ISAAC_CU_CALL(cuMemsetD32Async, p, v, n, (CUstream)s); }
static inline CUresult isaac_cu_memcpy_htod(CUdeviceptr d, const void *h, size_t n) { return ISAAC_CU_CALL(cuMemcpyHtoD, d, h, n); }
static inline CUresult isaac_cu_memcpy_dtoh(void *h, CUdeviceptr d, size_t n) { return ISAAC_CU_CALL(cuMemcpyDtoH, h, d, n); }
static inline CUresult isaac_cu_event_create(CUevent *e, unsigned int flags) { return ISAAC_CU_RELAXED(cuEventCreate, e, flags); }
static inline CUresult isaac_cu_event_record(uintptr_t e, uintptr_t s) { return ISAAC_CU_CALL(cuEventRecord, (CUevent)e, (CUstream)s); }
static inline CUresult isaac_cu_event_synchronize(uintptr_t e) { return ISAAC_CU_CALL(cuEventSynchronize, (CUevent)e); }
static inline CUresult isaac_cu_event_query(uintptr_t e) { return ISAAC_CU_RELAXED(cuEventQuery, (CUevent)e); }
static inline CUresult isaac_cu_event_elapsed(float *ms, uintptr_t a, uintptr_t b) { return ISAAC_CU_RELAXED(cuEventElapsedTime, ms, (CUevent)a, (CUevent)b); }
static inline CUresult isaac_cu_event_destroy(uintptr_t e) { return ISAAC_CU_RELAXED(cuEventDestroy, (CUevent)e); }

static inline CUresult isaac_cu_begin_capture(uintptr_t s, int mode) { return ISAAC_CU_CALL(cuStreamBeginCapture, (CUstream)s, mode); }
static inline CUresult isaac_cu_end_capture(uintptr_t s, CUgraph *g) { return ISAAC_CU_CALL(cuStreamEndCapture, (CUstream)s, g); }
static inline CUresult isaac_cu_graph_instantiate(CUgraphExec *e, uintptr_t g) { return ISAAC_CU_CALL(cuGraphInstantiateWithFlags, e, (CUgraph)g, 0); }
static inline CUresult isaac_cu_graph_launch(uintptr_t e, uintptr_t s) { return ISAAC_CU_CALL(cuGraphLaunch, (CUgraphExec)e, (CUstream)s); }
static inline CUresult isaac_cu_graph_exec_destroy(uintptr_t e) { return ISAAC_CU_CALL(cuGraphExecDestroy, (CUgraphExec)e); }
static inline CUresult isaac_cu_graph_destroy(uintptr_t g) { return ISAAC_CU_CALL(cuGraphDestroy, (CUgraph)g); }

#endif /* ISAAC_CUDA_CALLS_H */
