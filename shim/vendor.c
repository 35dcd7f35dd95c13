/*
 * vendor.c: finding the real cuBLAS and cuDNN functions.
 *
 * Order, per symbol: dlsym(RTLD_NEXT) (the library after us in the global
 * search order: preloading, or linking -lisaac -lcublas); then the vendor
 * library already loaded in the process, by soname with RTLD_NOLOAD or by
 * walking the loaded objects with dl_iterate_phdr (PyTorch loads cuBLAS in a
 * local scope, where RTLD_NEXT cannot see it); then dlopen by soname.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shim.h"

typedef struct vendor_lib {
	const char *label;        /* for messages */
	const char *basename;     /* "libcublas.so": prefix of the file's name */
	const char *sonames[5];
	void *handle;             /* set once found */
	char path[512];           /* the file it came from, for ISAAC_LOG */
	int reported;             /* the "not found" line was printed */
} vendor_lib;

static vendor_lib libs[] = {
	[ISAAC_VENDOR_CUBLAS] = {"cuBLAS", "libcublas.so",
		{"libcublas.so.13", "libcublas.so.12", "libcublas.so.11", "libcublas.so", NULL}},
	[ISAAC_VENDOR_CUDNN] = {"cuDNN", "libcudnn.so",
		{"libcudnn.so.9", "libcudnn.so.8", "libcudnn.so", NULL}},
	[ISAAC_VENDOR_CUBLASLT] = {"cuBLASLt", "libcublasLt.so",
		{"libcublasLt.so.13", "libcublasLt.so.12", "libcublasLt.so.11", "libcublasLt.so", NULL}},
};

/* dl_iterate_phdr callback: the first loaded object whose file name starts
 * with the vendor's base name ("libcublas.so", not "libcublasLt.so"). */
static int find_loaded(struct dl_phdr_info *info, size_t size, void *data)
{
	vendor_lib *lib = data;
	(void)size;
	if (info->dlpi_name == NULL || info->dlpi_name[0] == '\0')
		return 0;
	const char *base = strrchr(info->dlpi_name, '/');
	base = base ? base + 1 : info->dlpi_name;
	if (strncmp(base, lib->basename, strlen(lib->basename)) != 0)
		return 0;
	void *h = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
	if (h == NULL)
		return 0;
	lib->handle = h;
	snprintf(lib->path, sizeof lib->path, "%s", info->dlpi_name);
	return 1;
}

static void *open_library(vendor_lib *lib)
{
	void *h = __atomic_load_n(&lib->handle, __ATOMIC_ACQUIRE);
	if (h != NULL)
		return h;
	for (int i = 0; lib->sonames[i] != NULL && h == NULL; i++) {
		h = dlopen(lib->sonames[i], RTLD_LAZY | RTLD_NOLOAD);
		if (h != NULL)
			snprintf(lib->path, sizeof lib->path, "%s (already loaded)", lib->sonames[i]);
	}
	if (h == NULL) {
		vendor_lib probe = *lib;
		probe.handle = NULL;
		if (dl_iterate_phdr(find_loaded, &probe)) {
			h = probe.handle;
			memcpy(lib->path, probe.path, sizeof lib->path);
		}
	}
	for (int i = 0; lib->sonames[i] != NULL && h == NULL; i++) {
		h = dlopen(lib->sonames[i], RTLD_NOW | RTLD_LOCAL);
		if (h != NULL)
			snprintf(lib->path, sizeof lib->path, "%s (opened)", lib->sonames[i]);
	}
	if (h != NULL) {
		void *expected = NULL;
		if (!__atomic_compare_exchange_n(&lib->handle, &expected, h, 0,
				__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			dlclose(h);  /* another thread won; drop our extra reference */
			h = expected;
		}
	}
	return h;
}

void *isaac_vendor_symbol(int vendor, const char *name)
{
	vendor_lib *lib = &libs[vendor];
	void *fn = dlsym(RTLD_NEXT, name);
	if (fn != NULL) {
		if (lib->path[0] == '\0') {
			Dl_info info;
			if (dladdr(fn, &info) && info.dli_fname != NULL)
				snprintf(lib->path, sizeof lib->path, "%s (next in search order)", info.dli_fname);
		}
		return fn;
	}
	void *h = open_library(lib);
	if (h != NULL)
		fn = dlsym(h, name);
	if (fn == NULL && !__atomic_exchange_n(&lib->reported, 1, __ATOMIC_ACQ_REL)) {
		if (h == NULL)
			fprintf(stderr, "isaac: %s not found (tried %s, %s, %s): %s returns NOT_INITIALIZED\n",
				lib->label, lib->sonames[0], lib->sonames[1], lib->sonames[2], name);
		else
			fprintf(stderr, "isaac: %s in %s has no %s: returning NOT_INITIALIZED\n",
				lib->label, lib->path, name);
	}
	return fn;
}

const char *isaac_vendor_path(int vendor)
{
	return libs[vendor].path[0] ? libs[vendor].path : "not resolved";
}
