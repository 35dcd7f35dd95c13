/*
 * gemm_forwards.c: the cuBLAS GEMM calls whose answer is settled, so that
 * the entry point forwards them to cuBLAS without a call into Go (settled
 * tables, settled.h).
 *
 * A call's key: the handle (cuBLAS binds it to one device), the entry point,
 * every argument but the matrices' and scalars' addresses, the alignment of
 * A, B and C, and whether alpha and beta are there. Two tables: one of the
 * reasons Go gave from those alone (an argument cuBLAS rejects, a class the
 * kernels do not serve, the policy), looked up with no getter called; one
 * of the reasons that depend on the handle's state too (its pointer, math
 * and atomics modes: the kernels' class and the model's decision), whose key
 * adds them, read through cuBLAS's getters for the lookup (and kept in the
 * call for Go, which then need not read them again).
 */
#include <string.h>

#include "settled.h"
#include "shim.h"

typedef struct gemm_key {
	void *handle;
	int entry, transa, transb, a_type, b_type, c_type, compute_type, algo;
	int64_t m, n, k, lda, ldb, ldc, stride_a, stride_b, stride_c, batch;
	unsigned char align[3];      /* A, B, C (isaac_settled_align) */
	unsigned char scalars;       /* alpha, beta not NULL: bits 0, 1 */
	int pointer_mode, math_mode, atomics_mode;  /* the state's table alone; 0 in the other */
} gemm_key;

_Static_assert(sizeof(gemm_key) <= ISAAC_SETTLED_KEY, "a GEMM's key fits a settled table's slot");

static isaac_settled by_arguments, by_state;

static void key_of(const isaac_gemm_call *call, int with_state, gemm_key *k)
{
	memset(k, 0, sizeof *k);  /* padding included: keys compare as bytes */
	k->handle = call->handle;
	k->entry = call->entry;
	k->transa = call->transa;
	k->transb = call->transb;
	k->a_type = call->a_type;
	k->b_type = call->b_type;
	k->c_type = call->c_type;
	k->compute_type = call->compute_type;
	k->algo = call->algo;
	k->m = call->m;
	k->n = call->n;
	k->k = call->k;
	k->lda = call->lda;
	k->ldb = call->ldb;
	k->ldc = call->ldc;
	k->stride_a = call->stride_a;
	k->stride_b = call->stride_b;
	k->stride_c = call->stride_c;
	k->batch = call->batch;
	k->align[0] = isaac_settled_align(call->A);
	k->align[1] = isaac_settled_align(call->B);
	k->align[2] = isaac_settled_align(call->C);
	k->scalars = (call->alpha != NULL) | (call->beta != NULL) << 1;
	if (with_state) {
		k->pointer_mode = call->state.pointer_mode;
		k->math_mode = call->state.math_mode;
		k->atomics_mode = call->state.atomics_mode;
	}
}

int isaac_gemm_forwarded(isaac_gemm_call *call, int *reason)
{
	int args = !isaac_settled_empty(&by_arguments), state = !isaac_settled_empty(&by_state);
	if (!args && !state)
		return 0;
	gemm_key k;
	key_of(call, 0, &k);
	int found = args && isaac_settled_find(&by_arguments, &k, sizeof k, reason);
	if (!found && state) {
		if (!call->state_read) {
			isaac_read_cublas_state(call->handle, &call->state);
			call->state_read = 1;
		}
		if (call->state.status == 0) {
			key_of(call, 1, &k);
			found = isaac_settled_find(&by_state, &k, sizeof k, reason);
		}
	}
	if (found && isaac_log)
		__atomic_fetch_add(&by_arguments.answered, 1, __ATOMIC_RELAXED);
	return found;
}

void isaac_gemm_remember(const isaac_gemm_call *call, int reason)
{
	gemm_key k;
	if (!call->state_used) {
		key_of(call, 0, &k);
		isaac_settled_remember(&by_arguments, &k, sizeof k, reason);
	} else if (call->state_read && call->state.status == 0) {
		key_of(call, 1, &k);
		isaac_settled_remember(&by_state, &k, sizeof k, reason);
	}
}

unsigned long isaac_gemm_settled_calls(void) { return __atomic_load_n(&by_arguments.answered, __ATOMIC_RELAXED); }

void isaac_gemm_forget(void)
{
	isaac_settled_forget(&by_arguments);
	isaac_settled_forget(&by_state);
}
