/*
 * settled.c: the tables of settled calls (settled.h).
 *
 * A table is open-addressed and written once per slot: a writer claims an
 * empty slot, fills it and publishes it (release); readers see a slot only
 * once it is published (acquire). Nothing is removed.
 */
#include <string.h>

#include "settled.h"

enum { SLOT_EMPTY = 0, SLOT_WRITING = 1, SLOT_READY = 2 };

unsigned char isaac_settled_align(const void *p)
{
	if (p == NULL)
		return 255;
	int z = __builtin_ctzll((unsigned long long)(uintptr_t)p);
	return (unsigned char)(z > 8 ? 8 : z);
}

/* FNV-1a over the key's 8-byte words. */
static uint64_t hash_of(const unsigned char *b, size_t n)
{
	uint64_t h = 14695981039346656037ull, w;
	for (; n >= 8; b += 8, n -= 8) {
		memcpy(&w, b, 8);
		h = (h ^ w) * 1099511628211ull;
	}
	for (; n > 0; b++, n--)
		h = (h ^ *b) * 1099511628211ull;
	return h ^ h >> 29;
}

/* The i-th slot of hash h's probe sequence, and its state (acquired). */
static isaac_settled_slot *probe(isaac_settled *t, uint64_t h, int i, int *state)
{
	isaac_settled_slot *s = &t->slots[(h + (uint64_t)i) & (ISAAC_SETTLED_SLOTS - 1)];
	*state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	return s;
}

/* Whether slot s, in state state, holds the key, published. */
static int holds(const isaac_settled_slot *s, int state, const void *key, size_t len)
{
	return state == SLOT_READY && s->len == len && memcmp(s->key, key, len) == 0;
}

int isaac_settled_empty(isaac_settled *t)
{
	return __atomic_load_n(&t->remembered, __ATOMIC_ACQUIRE) == 0;
}

int isaac_settled_find(isaac_settled *t, const void *key, size_t len, int *reason)
{
	if (len > ISAAC_SETTLED_KEY || isaac_settled_empty(t))
		return 0;
	uint64_t h = hash_of(key, len);
	for (int i = 0; i < ISAAC_SETTLED_SLOTS; i++) {
		int st;
		isaac_settled_slot *s = probe(t, h, i, &st);
		if (st == SLOT_EMPTY)
			return 0;
		if (holds(s, st, key, len)) {
			*reason = s->reason;
			return 1;
		}
	}
	return 0;
}

void isaac_settled_remember(isaac_settled *t, const void *key, size_t len, int reason)
{
	if (len > ISAAC_SETTLED_KEY)
		return;
	uint64_t h = hash_of(key, len);
	for (int i = 0; i < ISAAC_SETTLED_SLOTS; i++) {
		int st;
		isaac_settled_slot *s = probe(t, h, i, &st);
		if (holds(s, st, key, len))
			return;
		if (st != SLOT_EMPTY)
			continue;  /* another key, or one being written (a twin of this one is harmless) */
		if (__atomic_fetch_add(&t->remembered, 1, __ATOMIC_RELAXED) >= ISAAC_SETTLED_SLOTS * 3 / 4) {
			__atomic_fetch_sub(&t->remembered, 1, __ATOMIC_RELAXED);
			return;  /* full: later calls of this key ask Go */
		}
		int empty = SLOT_EMPTY;
		if (!__atomic_compare_exchange_n(&s->state, &empty, SLOT_WRITING, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			__atomic_fetch_sub(&t->remembered, 1, __ATOMIC_RELAXED);
			i--;  /* taken meanwhile: look at it again */
			continue;
		}
		memcpy(s->key, key, len);
		s->len = len;
		s->reason = reason;
		__atomic_store_n(&s->state, SLOT_READY, __ATOMIC_RELEASE);
		return;
	}
}

void isaac_settled_forget(isaac_settled *t)
{
	memset(t->slots, 0, sizeof t->slots);
	__atomic_store_n(&t->answered, 0, __ATOMIC_RELAXED);
	__atomic_store_n(&t->remembered, 0, __ATOMIC_RELEASE);
}
