/*
 * driver.h: the part of the CUDA driver API that ISAAC uses, declared here so
 * that nothing needs cuda.h to build. Types and values follow the CUDA 12/13
 * ABI; every entry point is looked up at run time with cuGetProcAddress for
 * that ABI version (ISAAC_CUDA_ABI).
 */
#ifndef ISAAC_CUDA_DRIVER_H
#define ISAAC_CUDA_DRIVER_H

#include <stddef.h>
#include <stdint.h>

#define ISAAC_CUDA_ABI 12000

typedef int CUresult;
typedef int CUdevice;
typedef struct CUctx_st *CUcontext;
typedef struct CUmod_st *CUmodule;
typedef struct CUfunc_st *CUfunction;
typedef struct CUstream_st *CUstream;
typedef struct CUevent_st *CUevent;
typedef unsigned long long CUdeviceptr;
typedef struct CUlinkState_st *CUlinkState;
typedef struct CUgraph_st *CUgraph;
typedef struct CUgraphExec_st *CUgraphExec;
typedef struct CUmemPoolHandle_st *CUmemoryPool;

/* CUmemPoolProps (88 bytes in the CUDA 11.2–13 ABI). */
typedef struct isaac_mem_pool_props {
	int alloc_type;      /* CU_MEM_ALLOCATION_TYPE_PINNED = 1 */
	int handle_types;    /* CU_MEM_HANDLE_TYPE_NONE = 0 */
	int location_type;   /* CU_MEM_LOCATION_TYPE_DEVICE = 1 */
	int location_id;     /* device ordinal */
	void *win32_security_attributes;
	size_t max_size;     /* 0: the system default */
	unsigned short usage;
	unsigned char reserved[54];
} isaac_mem_pool_props;

typedef struct isaac_launch_attr {
	int id;
	char pad[4];
	union { char bytes[64]; unsigned int u32[3]; int i32; } value;
} isaac_launch_attr;

typedef struct isaac_launch_config {
	unsigned int grid_x, grid_y, grid_z;
	unsigned int block_x, block_y, block_z;
	unsigned int shared_bytes;
	CUstream stream;
	isaac_launch_attr *attrs;
	unsigned int num_attrs;
} isaac_launch_config;

/* Every entry point, as one table. */
typedef struct isaac_cuda_api {
	CUresult (*cuInit)(unsigned int);
	CUresult (*cuDriverGetVersion)(int *);
	CUresult (*cuGetErrorName)(CUresult, const char **);
	CUresult (*cuGetErrorString)(CUresult, const char **);
	CUresult (*cuDeviceGet)(CUdevice *, int);
	CUresult (*cuDeviceGetCount)(int *);
	CUresult (*cuDeviceGetName)(char *, int, CUdevice);
	CUresult (*cuDeviceGetAttribute)(int *, int, CUdevice);
	CUresult (*cuDeviceTotalMem)(size_t *, CUdevice);
	CUresult (*cuDevicePrimaryCtxRetain)(CUcontext *, CUdevice);
	CUresult (*cuDevicePrimaryCtxRelease)(CUdevice);
	CUresult (*cuCtxGetCurrent)(CUcontext *);
	CUresult (*cuCtxSetCurrent)(CUcontext);
	CUresult (*cuCtxGetDevice)(CUdevice *);
	CUresult (*cuCtxGetId)(CUcontext, unsigned long long *);
	CUresult (*cuModuleLoadDataEx)(CUmodule *, const void *, unsigned int, int *, void **);
	CUresult (*cuModuleUnload)(CUmodule);
	CUresult (*cuModuleGetFunction)(CUfunction *, CUmodule, const char *);
	CUresult (*cuFuncGetAttribute)(int *, int, CUfunction);
	CUresult (*cuFuncSetAttribute)(CUfunction, int, int);
	CUresult (*cuLaunchKernel)(CUfunction, unsigned int, unsigned int, unsigned int,
		unsigned int, unsigned int, unsigned int, unsigned int, CUstream, void **, void **);
	CUresult (*cuLaunchKernelEx)(const isaac_launch_config *, CUfunction, void **, void **);
	CUresult (*cuStreamCreate)(CUstream *, unsigned int);
	CUresult (*cuStreamDestroy)(CUstream);
	CUresult (*cuStreamSynchronize)(CUstream);
	CUresult (*cuStreamIsCapturing)(CUstream, int *);
	CUresult (*cuStreamGetId)(CUstream, unsigned long long *);
	CUresult (*cuMemAlloc)(CUdeviceptr *, size_t);
	CUresult (*cuMemFree)(CUdeviceptr);
	CUresult (*cuMemAllocAsync)(CUdeviceptr *, size_t, CUstream);
	CUresult (*cuMemFreeAsync)(CUdeviceptr, CUstream);
	CUresult (*cuMemPoolCreate)(CUmemoryPool *, const isaac_mem_pool_props *);
	CUresult (*cuMemPoolSetAttribute)(CUmemoryPool, int, void *);
	CUresult (*cuMemAllocFromPoolAsync)(CUdeviceptr *, size_t, CUmemoryPool, CUstream);
	CUresult (*cuMemsetD8Async)(CUdeviceptr, unsigned char, size_t, CUstream);
	CUresult (*cuMemsetD32Async)(CUdeviceptr, unsigned int, size_t, CUstream);
	CUresult (*cuMemcpyHtoD)(CUdeviceptr, const void *, size_t);
	CUresult (*cuMemcpyDtoH)(void *, CUdeviceptr, size_t);
	CUresult (*cuEventCreate)(CUevent *, unsigned int);
	CUresult (*cuEventRecord)(CUevent, CUstream);
	CUresult (*cuEventSynchronize)(CUevent);
	CUresult (*cuEventQuery)(CUevent);
	CUresult (*cuEventElapsedTime)(float *, CUevent, CUevent);
	CUresult (*cuEventDestroy)(CUevent);
	CUresult (*cuLinkCreate)(unsigned int, int *, void **, CUlinkState *);
	CUresult (*cuLinkAddData)(CUlinkState, int, void *, size_t, const char *, unsigned int, int *, void **);
	CUresult (*cuLinkComplete)(CUlinkState, void **, size_t *);
	CUresult (*cuLinkDestroy)(CUlinkState);
	CUresult (*cuStreamBeginCapture)(CUstream, int);
	CUresult (*cuThreadExchangeStreamCaptureMode)(int *);
	CUresult (*cuStreamEndCapture)(CUstream, CUgraph *);
	CUresult (*cuGraphInstantiateWithFlags)(CUgraphExec *, CUgraph, unsigned long long);
	CUresult (*cuGraphLaunch)(CUgraphExec, CUstream);
	CUresult (*cuGraphExecDestroy)(CUgraphExec);
	CUresult (*cuGraphDestroy)(CUgraph);
	CUresult (*cuTensorMapEncodeTiled)(void *, int, unsigned int, void *, const unsigned long long *,
		const unsigned long long *, const unsigned int *, const unsigned int *, int, int, int, int);
	CUresult (*cuTensorMapEncodeIm2col)(void *, int, unsigned int, void *, const unsigned long long *,
		const unsigned long long *, const int *, const int *, unsigned int, unsigned int,
		const unsigned int *, int, int, int, int);
} isaac_cuda_api;

extern isaac_cuda_api isaac_cu;

/* Loads libcuda.so.1 (or $ISAAC_LIBCUDA) once and resolves every entry point.
 * Returns 0, or -1 with a message in err. Thread-safe. */
int isaac_cuda_load(char *err, size_t errlen);

/* Launch helpers: build the void*[] of kernel parameters from a packed
 * buffer and offsets (so no Go pointer is stored in C memory). */
CUresult isaac_cuda_launch(uintptr_t f, const unsigned int *grid, const unsigned int *block,
	unsigned int shared_bytes, uintptr_t stream, unsigned char *args, const int *offsets, int nargs);
/* cuLaunchKernelEx with thread-block clusters (cluster all non-zero) and,
 * with dependent, as a programmatic dependent of the grid before it in the
 * stream (CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION: the kernel
 * must wait for it, griddepcontrol.wait, before it touches memory). */
CUresult isaac_cuda_launch_ex(uintptr_t f, const unsigned int *grid, const unsigned int *block,
	const unsigned int *cluster, int dependent, unsigned int shared_bytes, uintptr_t stream,
	unsigned char *args, const int *offsets, int nargs);
/* The calling thread's current context's ID (CUDA_ERROR_INVALID_CONTEXT,
 * 201, without one), and whether stream is being captured: for C code that
 * launches kernels of ours without Go (the shim's repeated convolutions). */
CUresult isaac_cuda_current_id(unsigned long long *id);
CUresult isaac_cuda_capturing(uintptr_t stream, int *capturing);

/* JIT: load a PTX image with the error and info logs captured. */
CUresult isaac_cuda_load_ptx(CUmodule *mod, const char *ptx, int max_registers,
	char *error_log, size_t error_len, char *info_log, size_t info_len);

/* JIT: compile a PTX image to a cubin for the current context's device
 * (cuLink*), so that it can be kept on disk; *cubin is malloc'd, the caller
 * frees it. */
CUresult isaac_cuda_compile_ptx(const char *ptx, size_t len, void **cubin, size_t *size,
	char *error_log, size_t error_len, char *info_log, size_t info_len);

/* Load a cubin (or PTX) image into the current context. */
CUresult isaac_cuda_load_image(CUmodule *mod, const void *image);

/* Encode a tiled tensor map (cuTensorMapEncodeTiled) of rank 2 or 3 into
 * out[128]: dims innermost first (the contiguous dimension's elements,
 * the other's, a batch's matrices), strides in bytes of every dimension
 * after the first, box extents per dimension, element strides 1, no
 * interleave, out-of-bounds elements read as zeros. */
CUresult isaac_cuda_tensor_map_tiled(unsigned char *out, int data_type, int rank, CUdeviceptr base,
	const unsigned long long *dims, const unsigned long long *strides, const unsigned int *box,
	int swizzle, int l2_promotion);

/* Encode a four-dimensional (N, H, W, C: C innermost) im2col tensor map
 * (cuTensorMapEncodeIm2col) into out (128 bytes): dims and strides
 * innermost first (strides in bytes of W, H and N), the pixel box's lower
 * and upper corners (W, H), channels per pixel and pixels per column, the
 * traversal strides (C, W, H, N), no interleave, out-of-bounds zeros. */
CUresult isaac_cuda_tensor_map_im2col_4d(unsigned char *out, int data_type, CUdeviceptr base,
	const unsigned long long *dims, const unsigned long long *strides, const int *lower, const int *upper,
	unsigned int channels, unsigned int pixels, const unsigned int *elem_strides, int swizzle, int l2_promotion);

#define ISAAC_MAX_KERNEL_PARAMS 96

#endif /* ISAAC_CUDA_DRIVER_H */
