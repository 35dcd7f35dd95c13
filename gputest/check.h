/*
 * check.h: what gputest's nvcc-built client programs share: a CUDA/cuBLAS/
 * cuDNN status check and the hash that compares results between runs.
 */
#ifndef GPUTEST_CHECK_H
#define GPUTEST_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x) do { int e_ = (int)(x); if (e_) { printf("error %d at %s:%d\n", e_, __FILE__, __LINE__); exit(1); } } while (0)

/* FNV-1a over the bytes of a result. */
static inline uint64_t fnv(const void *p, size_t n)
{
	const unsigned char *b = (const unsigned char *)p;
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ULL;
	return h;
}

#endif
