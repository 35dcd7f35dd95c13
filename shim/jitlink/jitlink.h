/*
 * jitlink.h: NVIDIA's nvJitLink library, loaded at first use with dlopen,
 * compiling PTX into a cubin without the CUDA driver.
 */
#ifndef ISAAC_JITLINK_H
#define ISAAC_JITLINK_H

#include <stddef.h>

/* 0 when nvJitLink is loaded; otherwise -1 and the reason in err. */
int isaac_jitlink_load(char *err, size_t err_len);

/* nvJitLink's version (0 when it is not loaded). */
int isaac_jitlink_version(unsigned *major, unsigned *minor);

/* Compiles one PTX text (len bytes, NUL included) for arch ("sm_90a") into
 * a malloc'ed cubin. Returns 0 (NVJITLINK_SUCCESS), nvJitLink's result, or
 * -1 when the library is not loaded; the error log goes to log. */
int isaac_jitlink_compile(const char *ptx, size_t len, const char *arch, void **cubin, size_t *size,
	char *log, size_t log_len);

#endif
