/*
 * fake_vendor.h: what the fake cuBLAS, cuBLASLt and cuDNN record, for the test
 * programs to compare with what they passed.
 */
#ifndef FAKE_VENDOR_H
#define FAKE_VENDOR_H

#include "vendor_api.h"

typedef struct fake_call {
	const char *fn;
	void *handle;
	int transa, transb, atype, btype, ctype, compute, algo;
	int64_t m, n, k, lda, ldb, ldc;
	const void *alpha, *beta, *A, *B;
	void *C;
	/* the strided-batched GEMMs (0 for the others) */
	long long stride_a, stride_b, stride_c;
	int64_t batch;
	/* cudnnConvolutionForward */
	const void *x_desc, *w_desc, *conv_desc, *y_desc, *x, *w;
	void *y, *workspace;                /* workspace: cuDNN's and cuBLASLt's */
	size_t workspace_bytes;
	/* cublasLtMatmul (its C, a const void *, in the field C above) */
	const void *lt_desc, *a_layout, *b_layout, *c_layout, *d_layout, *lt_algo;
	void *D, *stream;
} fake_call;

/* The last GEMM, cublasLtMatmul or convolution call the fake received. */
const fake_call *fake_last_call(void);
/* Getter calls so far (cuBLAS's four and cuDNN's six together). */
long fake_getter_calls(void);
/* Main-function calls so far. */
long fake_calls(void);
/* Status the next calls return. */
void fake_set_status(int status);

/* The fake cuBLASLt (libcublasLt.so.13, which records through the fake
 * cuBLAS): calls of its two descriptor getters so far; and the attributes
 * its getters refuse from now on (bit n: attribute n, as a library that has
 * no such attribute), 0 for none. */
long fake_lt_getter_calls(void);
void fake_lt_refuse(uint64_t desc_attributes, uint64_t layout_attributes);

#endif
