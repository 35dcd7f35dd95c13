/*
 * settled.h: tables of calls whose answer is settled, so that an entry point
 * forwards them to the vendor without a call into Go (settled.c).
 *
 * A call is known by its key, bytes its entry point builds from what the
 * call's answer depends on (the handle, what the descriptors say, the
 * alignment of the pointers). Go remembers a key with a reason that holds
 * for every later call of that key (request.Reason.Settled). A stale key
 * (a handle destroyed and its address reused) only forwards: the vendor
 * computes every call, so the worst it does is forgo serving one.
 */
#ifndef ISAAC_SETTLED_H
#define ISAAC_SETTLED_H

#include <stddef.h>
#include <stdint.h>

enum { ISAAC_SETTLED_SLOTS = 1024, ISAAC_SETTLED_KEY = 512 };

typedef struct isaac_settled_slot {
	int state;                   /* empty, being written, published: atomic */
	int reason;
	size_t len;
	unsigned char key[ISAAC_SETTLED_KEY];
} isaac_settled_slot;

/* One entry point's table: zero is empty. */
typedef struct isaac_settled {
	isaac_settled_slot slots[ISAAC_SETTLED_SLOTS];
	int remembered;              /* slots claimed, atomic */
	unsigned long answered;      /* calls answered from it (the entry points count them under ISAAC_LOG), atomic */
} isaac_settled;

/* isaac_settled_find answers 1 with the reason for a remembered key. */
int isaac_settled_find(isaac_settled *t, const void *key, size_t len, int *reason);
/* isaac_settled_remember keeps key's reason (no more once the table is
 * three-quarters full: those calls ask Go as before). */
void isaac_settled_remember(isaac_settled *t, const void *key, size_t len, int reason);
/* isaac_settled_empty: whether nothing is remembered (an entry point then
 * builds no key). */
int isaac_settled_empty(isaac_settled *t);
/* isaac_settled_forget empties the table (tests; not while calls are made). */
void isaac_settled_forget(isaac_settled *t);
/* isaac_settled_align is a pointer's alignment for a key: its trailing zero
 * bits, at most 8; 255 for NULL. */
unsigned char isaac_settled_align(const void *p);

#endif /* ISAAC_SETTLED_H */
