/*
 * conv_forwards.c: the convolutions whose answer is settled, so that the
 * entry point forwards them to cuDNN without a call into Go.
 *
 * A call is known by its key: the handle (cuDNN binds it to one device),
 * everything the descriptors say (the stream aside), and the alignment of
 * x, w and y (the kernels' input class depends on it; NULL pointers are
 * cuDNN's BAD_PARAM). Go remembers a key with a reason that holds for every
 * later call of that key (request.Reason.Settled). A remembered key whose
 * handle was destroyed and whose address came back for another device is
 * still forwarded: cuDNN computes every call, so the worst a stale key does
 * is forgo serving one.
 *
 * The table is open-addressed and written once per slot: a writer claims an
 * empty slot, fills it and publishes it (release); readers see a slot only
 * once it is published (acquire). Nothing is removed. When the table is
 * three-quarters full, nothing more is remembered and those calls ask Go
 * as before.
 */
#include <stdint.h>
#include <string.h>

#include "shim.h"

enum { SLOTS = 1024, SLOT_EMPTY = 0, SLOT_WRITING = 1, SLOT_READY = 2 };

typedef struct conv_key {
	void *handle;
	unsigned char align[3];      /* x, w, y: trailing zero bits (at most 8), 255 for NULL */
	unsigned char scalars;       /* alpha, beta not NULL: bits 0, 1 */
	isaac_conv_state state;      /* status 0, stream NULL */
} conv_key;

typedef struct conv_slot {
	int state;                   /* SLOT_*, atomic */
	int reason;
	conv_key key;
} conv_slot;

static conv_slot slots[SLOTS];
static int remembered;              /* slots claimed, atomic */
static unsigned long answered;      /* calls answered from the table (counted under ISAAC_LOG), atomic */
int isaac_conv_all_forwarded;       /* every convolution goes to cuDNN (the policy), atomic */

static unsigned char align_of(const void *p)
{
	if (p == NULL)
		return 255;
	int z = __builtin_ctzll((unsigned long long)(uintptr_t)p);
	return (unsigned char)(z > 8 ? 8 : z);
}

static void key_of(const isaac_conv_call *call, conv_key *k)
{
	memset(k, 0, sizeof *k);  /* padding included: keys compare as bytes */
	k->handle = call->handle;
	k->align[0] = align_of(call->x);
	k->align[1] = align_of(call->w);
	k->align[2] = align_of(call->y);
	k->scalars = (call->alpha != NULL) | (call->beta != NULL) << 1;
	k->state = call->state;
	k->state.status = 0;
	k->state.stream = NULL;
}

/* FNV-1a over the key's 8-byte words. */
static uint64_t hash_of(const conv_key *k)
{
	uint64_t h = 14695981039346656037ull, w;
	const unsigned char *b = (const unsigned char *)k;
	size_t n = sizeof *k;
	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	for (; n > 0; b++, n--)
		h = (h ^ *b) * 1099511628211ull;
	return h ^ h >> 29;
}

/* The call's key and its hash. */
static uint64_t keyed(const isaac_conv_call *call, conv_key *k)
{
	key_of(call, k);
	return hash_of(k);
}

/* The i-th slot of hash h's probe sequence, and its state (acquired). */
static conv_slot *probe(uint64_t h, int i, int *state)
{
	conv_slot *s = &slots[(h + (uint64_t)i) & (SLOTS - 1)];
	*state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	return s;
}

/* Whether slot s, in state state, holds key k, published. */
static int holds(const conv_slot *s, int state, const conv_key *k)
{
	return state == SLOT_READY && memcmp(&s->key, k, sizeof *k) == 0;
}

int isaac_conv_find(const isaac_conv_call *call, int *reason)
{
	if (__atomic_load_n(&remembered, __ATOMIC_ACQUIRE) == 0 || !call->state_read || call->state.status != 0)
		return 0;
	conv_key k;
	uint64_t h = keyed(call, &k);
	for (int i = 0; i < SLOTS; i++) {
		int st;
		conv_slot *s = probe(h, i, &st);
		if (st == SLOT_EMPTY)
			return 0;
		if (holds(s, st, &k)) {
			*reason = s->reason;
			return 1;
		}
	}
	return 0;
}

int isaac_conv_forwarded(isaac_conv_call *call, int *reason)
{
	if (__atomic_load_n(&remembered, __ATOMIC_ACQUIRE) == 0)
		return 0;
	isaac_read_conv_descriptors(call, &call->state);  /* the stream is not part of the key */
	call->state_read = ISAAC_CONV_DESCRIPTORS;
	if (!isaac_conv_find(call, reason))
		return 0;
	if (isaac_log)
		__atomic_fetch_add(&answered, 1, __ATOMIC_RELAXED);
	return 1;
}

unsigned long isaac_conv_settled_calls(void) { return __atomic_load_n(&answered, __ATOMIC_RELAXED); }

void isaac_conv_remember(const isaac_conv_call *call, int reason)
{
	if (!call->state_read || call->state.status != 0)
		return;
	conv_key k;
	uint64_t h = keyed(call, &k);
	for (int i = 0; i < SLOTS; i++) {
		int st;
		conv_slot *s = probe(h, i, &st);
		if (holds(s, st, &k))
			return;
		if (st != SLOT_EMPTY)
			continue;  /* another key, or one being written (a twin of this one is harmless) */
		if (__atomic_fetch_add(&remembered, 1, __ATOMIC_RELAXED) >= SLOTS * 3 / 4) {
			__atomic_fetch_sub(&remembered, 1, __ATOMIC_RELAXED);
			return;  /* full: later calls of this key ask Go */
		}
		int empty = SLOT_EMPTY;
		if (!__atomic_compare_exchange_n(&s->state, &empty, SLOT_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			__atomic_fetch_sub(&remembered, 1, __ATOMIC_RELAXED);
			i--;  /* taken meanwhile: look at it again */
			continue;
		}
		s->key = k;
		s->reason = reason;
		__atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE);
		return;
	}
}

void isaac_conv_forward_all(void)
{
	__atomic_store_n(&isaac_conv_all_forwarded, 1, __ATOMIC_RELEASE);
}

void isaac_conv_forget(void)
{
	memset(slots, 0, sizeof slots);
	__atomic_store_n(&answered, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&remembered, 0, __ATOMIC_RELEASE);
	__atomic_store_n(&isaac_conv_all_forwarded, 0, __ATOMIC_RELEASE);
}
