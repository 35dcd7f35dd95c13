/*
 * A fake libcuda.so.1 for CPU-only tests of the driver loader: it serves
 * cuGetProcAddress_v2 for every entry point, checks the ABI version and flags
 * the loader asks for, and records what cuLaunchKernel receives.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;

static int last_version, last_flags_ok = 1;
static unsigned char last_params[256];
static int last_grid[3], last_block[3], last_shared;

static CUresult ok_void(void) { return 0; }
static CUresult fake_init(unsigned int flags) { return flags == 0 ? 0 : 1; }
static CUresult fake_version(int *v) { *v = 13000; return 0; }
static CUresult fake_count(int *n) { *n = 1; return 0; }
static CUresult fake_attr(int *v, int attr, int dev) { *v = attr * 10 + dev; return 0; }
static CUresult fake_error_name(CUresult r, const char **s) { *s = r == 1 ? "CUDA_ERROR_INVALID_VALUE" : "CUDA_ERROR_FAKE"; return 0; }
static CUresult fake_error_string(CUresult r, const char **s) { *s = "fake error"; return 0; }
/* One current context, 0xc0ffee0, of ID 77 on device 1. */
static CUresult fake_ctx_current(void **c) { *c = (void *)0xc0ffee0; return 0; }
static CUresult fake_ctx_id(void *c, unsigned long long *id) { if (c != (void *)0xc0ffee0) return 201; *id = 77; return 0; }
static CUresult fake_ctx_device(int *d) { *d = 1; return 0; }

/* Kernel "params" of the test: an s32, a 24-byte struct, a u64, an f32, a b16. */
static CUresult fake_launch(void *f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
	unsigned by, unsigned bz, unsigned shared, void *stream, void **params, void **extra)
{
	last_grid[0] = gx; last_grid[1] = gy; last_grid[2] = gz;
	last_block[0] = bx; last_block[1] = by; last_block[2] = bz;
	last_shared = shared;
	size_t off = 0;
	static const int sizes[] = {4, 24, 8, 4, 2};
	for (int i = 0; i < 5; i++) {
		memcpy(last_params + off, params[i], sizes[i]);
		off += sizes[i];
	}
	/* Report to the test through the file named by $FAKE_CUDA_LOG. */
	FILE *log = fopen(getenv("FAKE_CUDA_LOG"), "w");
	if (log == NULL)
		return 999;
	fprintf(log, "grid=%d,%d,%d block=%d,%d,%d shared=%d version=%d flags_ok=%d params=",
		last_grid[0], last_grid[1], last_grid[2], last_block[0], last_block[1],
		last_block[2], last_shared, last_version, last_flags_ok);
	for (size_t i = 0; i < off; i++)
		fprintf(log, "%02x", last_params[i]);
	fprintf(log, "\n");
	fclose(log);
	return extra == NULL ? 0 : 1;
}

/* cuTensorMapEncodeTiled: writes its arguments into the map, little-endian,
 * so that the test can read back what the loader passed; fails on a map
 * that is not 64-byte aligned, as the driver does. */
static void put(unsigned char *m, int off, unsigned long long v, int n)
{
	for (int i = 0; i < n; i++)
		m[off + i] = (unsigned char)(v >> (8 * i));
}

static CUresult fake_tensor_map(void *map, int type, unsigned rank, void *base,
	const unsigned long long *dims, const unsigned long long *strides, const unsigned *box,
	const unsigned *elem_strides, int interleave, int swizzle, int l2, int oob)
{
	unsigned char *m = map;
	if ((uintptr_t)map % 64 != 0)
		return 1;
	memset(m, 0, 128);
	put(m, 0, (uintptr_t)base, 8);
	put(m, 8, dims[0], 8);
	put(m, 16, dims[1], 8);
	put(m, 24, strides[0], 8);
	put(m, 32, box[0], 4);
	put(m, 36, box[1], 4);
	put(m, 40, elem_strides[0], 4);
	put(m, 44, elem_strides[1], 4);
	m[48] = (unsigned char)type;
	m[49] = (unsigned char)rank;
	m[50] = (unsigned char)interleave;
	m[51] = (unsigned char)swizzle;
	m[52] = (unsigned char)l2;
	m[53] = (unsigned char)oob;
	return 0;
}

/* cuTensorMapEncodeIm2col: writes its arguments into the map as
 * fake_tensor_map does (rank 4 only). */
static CUresult fake_tensor_map_im2col(void *map, int type, unsigned rank, void *base,
	const unsigned long long *dims, const unsigned long long *strides, const int *lower, const int *upper,
	unsigned channels, unsigned pixels, const unsigned *elem_strides, int interleave, int swizzle, int l2, int oob)
{
	unsigned char *m = map;
	if ((uintptr_t)map % 64 != 0 || rank != 4)
		return 1;
	memset(m, 0, 128);
	put(m, 0, (uintptr_t)base, 8);
	for (int i = 0; i < 4; i++)
		put(m, 8 + 4 * i, dims[i], 4);
	for (int i = 0; i < 3; i++)
		put(m, 24 + 4 * i, strides[i], 4);
	for (int i = 0; i < 2; i++) {
		put(m, 36 + 2 * i, (unsigned short)lower[i], 2);
		put(m, 40 + 2 * i, (unsigned short)upper[i], 2);
	}
	put(m, 44, channels, 2);
	put(m, 46, pixels, 2);
	for (int i = 0; i < 4; i++)
		m[48 + i] = (unsigned char)elem_strides[i];
	m[52] = (unsigned char)type;
	m[53] = (unsigned char)interleave;
	m[54] = (unsigned char)swizzle;
	m[55] = (unsigned char)l2;
	m[56] = (unsigned char)oob;
	return 0;
}

CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, unsigned long long flags, int *status)
{
	last_version = version;
	if (flags != 1)
		last_flags_ok = 0;
	if (status)
		*status = 0;
	if (strcmp(symbol, "cuInit") == 0) *pfn = (void *)fake_init;
	else if (strcmp(symbol, "cuDriverGetVersion") == 0) *pfn = (void *)fake_version;
	else if (strcmp(symbol, "cuDeviceGetCount") == 0) *pfn = (void *)fake_count;
	else if (strcmp(symbol, "cuDeviceGetAttribute") == 0) *pfn = (void *)fake_attr;
	else if (strcmp(symbol, "cuGetErrorName") == 0) *pfn = (void *)fake_error_name;
	else if (strcmp(symbol, "cuGetErrorString") == 0) *pfn = (void *)fake_error_string;
	else if (strcmp(symbol, "cuLaunchKernel") == 0) *pfn = (void *)fake_launch;
	else if (strcmp(symbol, "cuCtxGetCurrent") == 0) *pfn = (void *)fake_ctx_current;
	else if (strcmp(symbol, "cuCtxGetId") == 0) *pfn = (void *)fake_ctx_id;
	else if (strcmp(symbol, "cuCtxGetDevice") == 0) *pfn = (void *)fake_ctx_device;
	else if (strcmp(symbol, "cuTensorMapEncodeTiled") == 0) *pfn = (void *)fake_tensor_map;
	else if (strcmp(symbol, "cuTensorMapEncodeIm2col") == 0) *pfn = (void *)fake_tensor_map_im2col;
	else *pfn = (void *)ok_void;
	return 0;
}
