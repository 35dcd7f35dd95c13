/*
 * conv_forwards.c: the convolutions whose answer is settled, so that the
 * entry point forwards them to cuDNN without a call into Go (a settled
 * table, settled.h), known by their key (conv_key.h).
 */
#include "conv_key.h"

typedef isaac_conv_key conv_key;

_Static_assert(sizeof(conv_key) <= ISAAC_SETTLED_KEY, "a convolution's key fits a settled table's slot");

static isaac_settled table;
int isaac_conv_all_forwarded;       /* every convolution goes to cuDNN (the policy), atomic */

int isaac_conv_find(const isaac_conv_call *call, int *reason)
{
	if (isaac_settled_empty(&table) || !call->state_read || call->state.status != 0)
		return 0;
	conv_key k;
	isaac_conv_key_of(call, &k);
	if (!isaac_settled_find(&table, &k, sizeof k, reason))
		return 0;
	if (isaac_log)
		__atomic_fetch_add(&table.answered, 1, __ATOMIC_RELAXED);
	return 1;
}

int isaac_conv_forwarded(isaac_conv_call *call, int *reason)
{
	if (isaac_settled_empty(&table))
		return 0;
	isaac_read_conv_descriptors(call, &call->state);  /* the stream is not part of the key */
	call->state_read = ISAAC_CONV_DESCRIPTORS;
	return isaac_conv_find(call, reason);
}

unsigned long isaac_conv_settled_calls(void) { return __atomic_load_n(&table.answered, __ATOMIC_RELAXED); }

void isaac_conv_remember(const isaac_conv_call *call, int reason)
{
	if (!call->state_read || call->state.status != 0)
		return;
	conv_key k;
	isaac_conv_key_of(call, &k);
	isaac_settled_remember(&table, &k, sizeof k, reason);
}

void isaac_conv_forward_all(void)
{
	__atomic_store_n(&isaac_conv_all_forwarded, 1, __ATOMIC_RELEASE);
}

void isaac_conv_forget(void)
{
	isaac_settled_forget(&table);
	__atomic_store_n(&isaac_conv_all_forwarded, 0, __ATOMIC_RELEASE);
}
