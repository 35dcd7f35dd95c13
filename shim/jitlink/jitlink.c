/*
 * jitlink.c: loading nvJitLink at first use. Where the process has already
 * loaded it (PyTorch's and CuPy's wheels bring it for cuSPARSE and cuFFT),
 * that copy is used; else ISAAC_LIBNVJITLINK, else the sonames of CUDA 13
 * and 12. The entry points are the library's unversioned exports.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jitlink.h"

typedef void *nvjl_handle;
enum { NVJITLINK_INPUT_PTX = 2 };

static struct {
	int (*create)(nvjl_handle *, uint32_t, const char **);
	int (*destroy)(nvjl_handle *);
	int (*add_data)(nvjl_handle, int, const void *, size_t, const char *);
	int (*complete)(nvjl_handle);
	int (*cubin_size)(nvjl_handle, size_t *);
	int (*cubin)(nvjl_handle, void *);
	int (*error_log_size)(nvjl_handle, size_t *);
	int (*error_log)(nvjl_handle, char *);
	int (*version)(unsigned *, unsigned *);
} nvjl;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static char load_error[256];

static void *open_library(void)
{
	static const char *sonames[] = {"libnvJitLink.so.13", "libnvJitLink.so.12"};
	const char *path = getenv("ISAAC_LIBNVJITLINK");
	if (path != NULL && path[0] != '\0')
		return dlopen(path, RTLD_NOW | RTLD_LOCAL);
	for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++) {
		void *lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL | RTLD_NOLOAD);
		if (lib != NULL)
			return lib;
	}
	for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++) {
		void *lib = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (lib != NULL)
			return lib;
	}
	return NULL;
}

static void load(void)
{
	void *lib = open_library();
	if (lib == NULL) {
		const char *why = dlerror();
		snprintf(load_error, sizeof load_error, "nvJitLink not found: %s", why ? why : "no library");
		return;
	}
	struct { const char *name; void **slot; } entries[] = {
		{"nvJitLinkCreate", (void **)&nvjl.create},
		{"nvJitLinkDestroy", (void **)&nvjl.destroy},
		{"nvJitLinkAddData", (void **)&nvjl.add_data},
		{"nvJitLinkComplete", (void **)&nvjl.complete},
		{"nvJitLinkGetLinkedCubinSize", (void **)&nvjl.cubin_size},
		{"nvJitLinkGetLinkedCubin", (void **)&nvjl.cubin},
		{"nvJitLinkGetErrorLogSize", (void **)&nvjl.error_log_size},
		{"nvJitLinkGetErrorLog", (void **)&nvjl.error_log},
		{"nvJitLinkVersion", (void **)&nvjl.version},
	};
	for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
		*entries[i].slot = dlsym(lib, entries[i].name);
		if (*entries[i].slot == NULL) {
			snprintf(load_error, sizeof load_error, "nvJitLink lacks %s", entries[i].name);
			memset(&nvjl, 0, sizeof nvjl);
			return;
		}
	}
	load_status = 0;
}

int isaac_jitlink_load(char *err, size_t err_len)
{
	pthread_once(&once, load);
	if (load_status != 0 && err != NULL && err_len > 0)
		snprintf(err, err_len, "%s", load_error);
	return load_status;
}

int isaac_jitlink_version(unsigned *major, unsigned *minor)
{
	*major = *minor = 0;
	if (isaac_jitlink_load(NULL, 0) != 0)
		return -1;
	return nvjl.version(major, minor);
}

int isaac_jitlink_compile(const char *ptx, size_t len, const char *arch, void **cubin, size_t *size,
	char *log, size_t log_len)
{
	*cubin = NULL;
	*size = 0;
	if (log_len > 0)
		log[0] = '\0';
	if (isaac_jitlink_load(NULL, 0) != 0)
		return -1;
	char opt[64];
	snprintf(opt, sizeof opt, "-arch=%s", arch);
	const char *opts[] = {opt};
	nvjl_handle h = NULL;
	int r = nvjl.create(&h, 1, opts);
	if (r != 0)
		return r;
	r = nvjl.add_data(h, NVJITLINK_INPUT_PTX, ptx, len, "isaac.ptx");
	if (r == 0)
		r = nvjl.complete(h);
	if (r == 0)
		r = nvjl.cubin_size(h, size);
	if (r == 0) {
		*cubin = malloc(*size);
		if (*cubin == NULL)
			r = 6; /* NVJITLINK_ERROR_INTERNAL */
		else
			r = nvjl.cubin(h, *cubin);
	}
	if (r != 0) {
		free(*cubin);
		*cubin = NULL;
		*size = 0;
		size_t n = 0;
		if (log_len > 0 && nvjl.error_log_size(h, &n) == 0 && n > 0) {
			char *full = malloc(n);
			if (full != NULL && nvjl.error_log(h, full) == 0)
				snprintf(log, log_len, "%s", full);
			free(full);
		}
	}
	nvjl.destroy(&h);
	return r;
}
