/*
 * conv_repeats.c: the table of served convolutions' launches, repeated from
 * C on later calls like them (conv_repeats.h).
 *
 * The table is open-addressed and small; every change (a repeat kept, the
 * table emptied) takes its lock for writing, every lookup and the launches
 * after it take it for reading.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "conv_key.h"
#include "conv_repeats.h"

typedef struct repeat_key {
	isaac_conv_key conv;
	unsigned long long ctx;      /* the current context's ID */
	void *stream;
	uint64_t alpha, beta;        /* the scalars' bits, as wide as the call reads them */
} repeat_key;

typedef struct repeat {
	repeat_key key;
	int workspace;               /* uses the stream's kept workspace */
	int nlaunches;
	isaac_repeat_launch launches[];
} repeat;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
static isaac_repeat_driver driver; /* the last remembered repeat's (all are internal/cuda's) */
static repeat *slots[ISAAC_REPEAT_SLOTS];
static int kept;                 /* slots filled, atomic (read without the lock) */
static uint64_t moves;           /* the workspace moves the table was last emptied for (the lock held) */
static unsigned long repeated;   /* calls served from the table, atomic */

/* FNV-1a over the key's bytes. */
static uint64_t hash_of(const repeat_key *k)
{
	const unsigned char *b = (const unsigned char *)k;
	uint64_t h = 14695981039346656037ull;
	for (size_t i = 0; i < sizeof *k; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h ^ h >> 29;
}

/* The scalar at p as the call reads it: a double for double data, else a
 * float (cuDNN's rule); its bits. */
static uint64_t scalar_bits(const void *p, int wide)
{
	uint64_t v = 0;
	if (p != NULL)
		memcpy(&v, p, wide ? 8 : 4);
	return v;
}

enum { CUDNN_DATA_DOUBLE = 1 };

/* key_of is call's key in context ctx (call's state read). */
static void key_of(const isaac_conv_call *call, unsigned long long ctx, repeat_key *k)
{
	memset(k, 0, sizeof *k);
	isaac_conv_key_of(call, &k->conv);
	k->ctx = ctx;
	k->stream = call->state.stream;
	int wide = call->state.x_type == CUDNN_DATA_DOUBLE;
	k->alpha = scalar_bits(call->alpha, wide);
	k->beta = scalar_bits(call->beta, wide);
}

/* find is key's slot in the table (the lock held), or -1; *free is the
 * first empty slot of its probe sequence (-1: none). */
static int find(const repeat_key *k, int *empty)
{
	uint64_t h = hash_of(k);
	*empty = -1;
	for (int i = 0; i < ISAAC_REPEAT_SLOTS; i++) {
		int s = (int)((h + (uint64_t)i) & (ISAAC_REPEAT_SLOTS - 1));
		if (slots[s] == NULL) {
			*empty = s;
			return -1;
		}
		if (memcmp(&slots[s]->key, k, sizeof *k) == 0)
			return s;
	}
	return -1;
}

/* run launches r's kernels for call: 0, or the first failing launch's
 * CUresult. */
static int run(const repeat *r, const isaac_conv_call *call)
{
	const uintptr_t operands[3] = {(uintptr_t)call->x, (uintptr_t)call->w, (uintptr_t)call->y};
	uintptr_t stream = (uintptr_t)call->state.stream;
	for (int i = 0; i < r->nlaunches; i++) {
		const isaac_repeat_launch *l = &r->launches[i];
		unsigned char params[ISAAC_REPEAT_PARAM_BYTES] __attribute__((aligned(16)));
		memcpy(params, l->params, (size_t)l->nbytes);
		for (int j = 0; j < l->npatches; j++) {
			uint64_t v = (uint64_t)operands[l->patches[j].operand] + (uint64_t)l->patches[j].add;
			memcpy(params + l->patches[j].at, &v, 8);
		}
		int st;
		if (l->dependent || l->cluster[0] | l->cluster[1] | l->cluster[2])
			st = driver.launch_ex(l->fn, l->grid, l->block, l->cluster, l->dependent, l->shared_bytes,
				stream, params, l->offsets, l->nparams);
		else
			st = driver.launch(l->fn, l->grid, l->block, l->shared_bytes, stream, params, l->offsets, l->nparams);
		if (st != 0)
			return st;
	}
	return 0;
}

int isaac_conv_repeated(isaac_conv_call *call)
{
	if (__atomic_load_n(&kept, __ATOMIC_ACQUIRE) == 0)
		return 0;
	if (!(call->state_read & ISAAC_CONV_DESCRIPTORS)) {
		isaac_read_conv_descriptors(call, &call->state);
		call->state_read |= ISAAC_CONV_DESCRIPTORS;
	}
	if (!(call->state_read & ISAAC_CONV_STREAM)) {
		isaac_read_conv_stream(call, &call->state);
		call->state_read |= ISAAC_CONV_STREAM;
	}
	if (call->state.status != 0 || call->x == NULL || call->w == NULL || call->y == NULL)
		return 0;
	int served = 0;
	pthread_rwlock_rdlock(&lock);
	unsigned long long ctx;
	if (kept > 0 && driver.context(&ctx) == 0) {
		repeat_key k;
		key_of(call, ctx, &k);
		int empty, s = find(&k, &empty);
		if (s >= 0) {
			const repeat *r = slots[s];
			int capturing = 0;
			if (!r->workspace || (driver.capturing((uintptr_t)call->state.stream, &capturing) == 0 && !capturing))
				served = run(r, call) == 0;
		}
	}
	pthread_rwlock_unlock(&lock);
	if (served && isaac_log)
		__atomic_fetch_add(&repeated, 1, __ATOMIC_RELAXED);
	return served;
}

int isaac_conv_repeats_room(void)
{
	return __atomic_load_n(&kept, __ATOMIC_ACQUIRE) < ISAAC_REPEAT_SLOTS * 3 / 4;
}

/* legal: whether l's parameters and patches lie within the limits. */
static int legal(const isaac_repeat_launch *l)
{
	if (l->fn == 0 || l->nparams < 0 || l->nparams > ISAAC_REPEAT_PARAMS || l->nbytes < 0 ||
			l->nbytes > ISAAC_REPEAT_PARAM_BYTES || l->npatches < 0 || l->npatches > ISAAC_REPEAT_PATCHES)
		return 0;
	for (int j = 0; j < l->nparams; j++)
		if (l->offsets[j] < 0 || l->offsets[j] >= l->nbytes)
			return 0;
	for (int j = 0; j < l->npatches; j++)
		if (l->patches[j].at < 0 || l->patches[j].at > l->nbytes - 8 || l->patches[j].operand < 0 ||
				l->patches[j].operand > 2)
			return 0;
	return 1;
}

int isaac_conv_repeat_remember(const isaac_conv_call *call, const isaac_repeat_driver *drv,
	unsigned long long ctx, int workspace, uint64_t recorded_at, const isaac_repeat_launch *launches, int n)
{
	if (!(call->state_read & ISAAC_CONV_DESCRIPTORS) || !(call->state_read & ISAAC_CONV_STREAM) ||
			call->state.status != 0 || n < 1 || n > ISAAC_REPEAT_LAUNCHES || drv == NULL ||
			drv->launch == NULL || drv->launch_ex == NULL || drv->context == NULL || drv->capturing == NULL)
		return 0;
	for (int i = 0; i < n; i++)
		if (!legal(&launches[i]))
			return 0;
	repeat *r = malloc(sizeof *r + (size_t)n * sizeof r->launches[0]);
	if (r == NULL)
		return 0;
	key_of(call, ctx, &r->key);
	r->workspace = workspace != 0;
	r->nlaunches = n;
	memcpy(r->launches, launches, (size_t)n * sizeof launches[0]);
	int stored = 0;
	pthread_rwlock_wrlock(&lock);
	int empty;
	if (recorded_at == moves && isaac_conv_repeats_room() && find(&r->key, &empty) < 0 && empty >= 0) {
		driver = *drv;
		slots[empty] = r;
		__atomic_fetch_add(&kept, 1, __ATOMIC_RELEASE);
		stored = 1;
	}
	pthread_rwlock_unlock(&lock);
	if (!stored)
		free(r);
	return stored;
}

void isaac_conv_repeats_forget(uint64_t now)
{
	pthread_rwlock_wrlock(&lock);
	if (now > moves)
		moves = now;
	for (int i = 0; i < ISAAC_REPEAT_SLOTS; i++) {
		free(slots[i]);
		slots[i] = NULL;
	}
	__atomic_store_n(&kept, 0, __ATOMIC_RELEASE);
	pthread_rwlock_unlock(&lock);
}

uint64_t isaac_conv_repeats_moves(void)
{
	pthread_rwlock_rdlock(&lock);
	uint64_t m = moves;
	pthread_rwlock_unlock(&lock);
	return m;
}

unsigned long isaac_conv_repeated_calls(void) { return __atomic_load_n(&repeated, __ATOMIC_RELAXED); }
