/*
 * lt_forwards.c: the cublasLtMatmul calls whose answer is settled, so that
 * the entry point forwards them to cuBLASLt without a call into Go (a
 * settled table, settled.h).
 *
 * A call's key: the cuBLASLt handle, everything its descriptors say (the
 * bias and auxiliary pointers as their alignment: a model's decision does
 * not depend on where a layer's bias lies), the alignment of A, B, C and D,
 * whether D is C, and whether alpha and beta are there. The descriptors are
 * read for the key (the getters' calls remain); the call into Go, its
 * decoding and its decision do not.
 */
#include <string.h>

#include "settled.h"
#include "shim.h"

typedef struct lt_key {
	void *handle;
	unsigned char align[6];      /* A, B, C, D, bias, aux (isaac_settled_align) */
	unsigned char flags;         /* alpha, beta not NULL: bits 0, 1; D is C: bit 2 */
	isaac_lt_state state;        /* status 0; bias and aux NULL */
} lt_key;

_Static_assert(sizeof(lt_key) <= ISAAC_SETTLED_KEY, "a cublasLtMatmul key fits a settled table's slot");

static isaac_settled table;

static void key_of(const isaac_lt_call *call, lt_key *k)
{
	memset(k, 0, sizeof *k);  /* padding included: keys compare as bytes */
	k->handle = call->handle;
	k->align[0] = isaac_settled_align(call->A);
	k->align[1] = isaac_settled_align(call->B);
	k->align[2] = isaac_settled_align(call->C);
	k->align[3] = isaac_settled_align(call->D);
	k->align[4] = isaac_settled_align(call->state.bias);
	k->align[5] = isaac_settled_align(call->state.aux);
	k->flags = (call->alpha != NULL) | (call->beta != NULL) << 1 | (call->C == call->D) << 2;
	k->state = call->state;
	k->state.bias = NULL;
	k->state.aux = NULL;
}

int isaac_lt_forwarded(const isaac_lt_call *call, int *reason)
{
	if (isaac_settled_empty(&table) || call->state.status != 0)
		return 0;
	lt_key k;
	key_of(call, &k);
	if (!isaac_settled_find(&table, &k, sizeof k, reason))
		return 0;
	if (isaac_log)
		__atomic_fetch_add(&table.answered, 1, __ATOMIC_RELAXED);
	return 1;
}

void isaac_lt_remember(const isaac_lt_call *call, int reason)
{
	if (call->state.status != 0)
		return;
	lt_key k;
	key_of(call, &k);
	isaac_settled_remember(&table, &k, sizeof k, reason);
}

unsigned long isaac_lt_settled_calls(void) { return __atomic_load_n(&table.answered, __ATOMIC_RELAXED); }

void isaac_lt_forget(void) { isaac_settled_forget(&table); }
