/*
 * lt_state.c: reading a cublasLtMatmul call's matmul descriptor and matrix
 * layouts through cuBLASLt's own getters, before Go is asked.
 */
#include <string.h>

#include "entry.h"
#include "lt_attributes.h"

int isaac_lt_all_forwarded; /* atomic */

void isaac_lt_forward_all(void)
{
	__atomic_store_n(&isaac_lt_all_forwarded, 1, __ATOMIC_RELEASE);
}

typedef cublasStatus_t (*lt_get_fn)(void *desc, int attr, void *buf, size_t size, size_t *written);

/* get reads attribute attr, of size bytes, into buf: the getter's status. */
static int get(lt_get_fn fn, void *desc, int attr, void *buf, size_t size)
{
	size_t written = 0;
	return fn(desc, attr, buf, size, &written);
}

/* optional reads an attribute that older libraries do not have: left 0
 * where the getter refuses it. */
static void optional(lt_get_fn fn, void *desc, int attr, void *buf, size_t size)
{
	if (get(fn, desc, attr, buf, size) != 0)
		memset(buf, 0, size);
}

static int read_layout(lt_get_fn fn, void *desc, isaac_lt_layout *l)
{
	int s;
	uint32_t type = 0;
	int32_t order = 0, batch = 0;
	if ((s = get(fn, desc, ISAAC_LT_LAYOUT_TYPE, &type, sizeof type)) != 0 ||
	    (s = get(fn, desc, ISAAC_LT_LAYOUT_ORDER, &order, sizeof order)) != 0 ||
	    (s = get(fn, desc, ISAAC_LT_LAYOUT_ROWS, &l->rows, sizeof l->rows)) != 0 ||
	    (s = get(fn, desc, ISAAC_LT_LAYOUT_COLS, &l->cols, sizeof l->cols)) != 0 ||
	    (s = get(fn, desc, ISAAC_LT_LAYOUT_LD, &l->ld, sizeof l->ld)) != 0 ||
	    (s = get(fn, desc, ISAAC_LT_LAYOUT_BATCH_COUNT, &batch, sizeof batch)) != 0 ||
	    (s = get(fn, desc, ISAAC_LT_LAYOUT_STRIDED_BATCH_OFFSET, &l->stride, sizeof l->stride)) != 0 ||
	    (s = get(fn, desc, ISAAC_LT_LAYOUT_PLANE_OFFSET, &l->plane_offset, sizeof l->plane_offset)) != 0)
		return s;
	int32_t mode = 0;
	optional(fn, desc, ISAAC_LT_LAYOUT_BATCH_MODE, &mode, sizeof mode);
	l->type = (int)type;
	l->order = order;
	l->batch = batch;
	l->batch_mode = mode;
	return 0;
}

void isaac_read_lt_state(const isaac_lt_call *call, isaac_lt_state *st)
{
	memset(st, 0, sizeof *st);
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLASLT, lt_get_fn, "cublasLtMatmulDescGetAttribute", get_desc)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUBLASLT, lt_get_fn, "cublasLtMatrixLayoutGetAttribute", get_layout)
	if (get_desc == NULL || get_layout == NULL) {
		st->status = ISAAC_CUBLAS_STATUS_NOT_INITIALIZED;
		return;
	}
	if (call->handle == NULL) {
		st->status = ISAAC_CUBLAS_STATUS_NOT_INITIALIZED; /* cuBLASLt's answer, given by cuBLASLt */
		return;
	}
	if (call->desc == NULL || call->a_desc == NULL || call->b_desc == NULL ||
	    call->c_desc == NULL || call->d_desc == NULL) {
		st->status = ISAAC_CUBLAS_STATUS_INVALID_VALUE;
		return;
	}
	void *d = call->desc;
	int32_t i32[7];
	uint32_t epilogue = 0;
	int32_t bias_type = -1;
	int s;
	if ((s = get(get_desc, d, ISAAC_LT_DESC_COMPUTE_TYPE, &i32[0], 4)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_SCALE_TYPE, &i32[1], 4)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_POINTER_MODE, &i32[2], 4)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_TRANSA, &i32[3], 4)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_TRANSB, &i32[4], 4)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_TRANSC, &i32[5], 4)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_FILL_MODE, &i32[6], 4)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_EPILOGUE, &epilogue, sizeof epilogue)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_BIAS_POINTER, &st->bias, sizeof st->bias)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_BIAS_BATCH_STRIDE, &st->bias_batch_stride, 8)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_EPILOGUE_AUX_POINTER, &st->aux, sizeof st->aux)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_ALPHA_VECTOR_BATCH_STRIDE, &st->alpha_vector_batch_stride, 8)) != 0 ||
	    (s = get(get_desc, d, ISAAC_LT_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type)) != 0) {
		st->status = s;
		return;
	}
	st->compute_type = i32[0];
	st->scale_type = i32[1];
	st->pointer_mode = i32[2];
	st->transa = i32[3];
	st->transb = i32[4];
	st->transc = i32[5];
	st->fill_mode = i32[6];
	st->epilogue = epilogue;
	st->bias_type = bias_type;
	/* Scaling (FP8), amax and atomic-synchronization pointers: any set
	 * makes the call one the vendor takes. */
	static const int pointers[] = {
		ISAAC_LT_DESC_A_SCALE_POINTER, ISAAC_LT_DESC_B_SCALE_POINTER,
		ISAAC_LT_DESC_C_SCALE_POINTER, ISAAC_LT_DESC_D_SCALE_POINTER,
		ISAAC_LT_DESC_AMAX_D_POINTER, ISAAC_LT_DESC_EPILOGUE_AUX_SCALE_POINTER,
		ISAAC_LT_DESC_EPILOGUE_AUX_AMAX_POINTER,
		ISAAC_LT_DESC_ATOMIC_SYNC_IN_COUNTERS_POINTER,
		ISAAC_LT_DESC_ATOMIC_SYNC_OUT_COUNTERS_POINTER,
	};
	for (size_t i = 0; i < sizeof pointers / sizeof pointers[0]; i++) {
		void *p = NULL;
		optional(get_desc, d, pointers[i], &p, sizeof p);
		st->scaled |= p != NULL;
	}
	if ((s = read_layout(get_layout, call->a_desc, &st->a)) != 0 ||
	    (s = read_layout(get_layout, call->b_desc, &st->b)) != 0 ||
	    (s = read_layout(get_layout, call->c_desc, &st->c)) != 0 ||
	    (s = read_layout(get_layout, call->d_desc, &st->d)) != 0)
		st->status = s;
}
