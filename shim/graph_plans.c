/*
 * graph_plans.c: what the shim knows of cuDNN's graph API — the variant
 * packs' unique ids, pointers and workspace as the application set them,
 * and the execution plans decoded so far — and the convolution call one
 * cudnnBackendExecute makes of them.
 *
 * cuDNN 9 does not give a variant pack's ids and pointers back
 * (cudnnBackendGetAttribute answers NOT_SUPPORTED), so the shim keeps what
 * cudnnBackendSetAttribute set once cuDNN accepted it. A plan's convolution
 * is read from the plan's JSON representation (the operation graph's
 * tensors and node) and its engine's numerical notes, decoded by Go once
 * per plan. Both tables drop a descriptor when it is destroyed, so that a
 * new descriptor at a freed one's address is never taken for it. A table
 * that is full drops its oldest entry: a call whose variant pack or plan
 * is not known goes to cuDNN (the plan is decoded again on its next call).
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "entry.h"

/* cuDNN 9's enum values (cudnn_graph.h) that the shim reads and sets. */
enum {
	ATTR_ENGINECFG_ENGINE = 300,
	ATTR_EXECUTION_PLAN_ENGINE_CONFIG = 401,
	ATTR_EXECUTION_PLAN_JSON_REPRESENTATION = 405,
	ATTR_VARIANT_PACK_UNIQUE_IDS = 1000,
	ATTR_VARIANT_PACK_DATA_POINTERS = 1001,
	ATTR_VARIANT_PACK_WORKSPACE = 1003,
	ATTR_ENGINE_NUMERICAL_NOTE = 1303,
	TYPE_INT64 = 3,
	TYPE_VOID_PTR = 6,
	TYPE_NUMERICAL_NOTE = 11,
	TYPE_BACKEND_DESCRIPTOR = 15,
	TYPE_CHAR = 24,
	DESC_ENGINE = 2,
	DESC_ENGINECFG = 3,
};

#define VP_TENSORS 8     /* a variant pack of more tensors is not one convolution's */
#define VP_SLOTS 64      /* variant packs alive at once that the shim can know */
#define PLAN_SLOTS 256   /* plans decoded that it keeps */
#define MAX_NOTES 16
#define MAX_JSON (1 << 24)

/* A variant pack's attributes as set (its descriptor is the slot's key). */
typedef struct vp_entry {
	int nuids, nptrs;            /* -1: not set, or more than VP_TENSORS */
	int64_t uids[VP_TENSORS];
	void *ptrs[VP_TENSORS];
	void *workspace;
} vp_entry;

/* Each table's keys (a slot's descriptor, NULL where the slot is free) and
 * ages (a free slot's 0: the oldest) lie apart from its entries, so that a
 * lookup and a destroy scan a few cache lines, not every entry. Under mu. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static void *vp_desc[VP_SLOTS];
static unsigned long vp_stamp[VP_SLOTS];
static vp_entry vps[VP_SLOTS];
static void *plan_desc[PLAN_SLOTS];
static unsigned long plan_stamp[PLAN_SLOTS];
static isaac_graph_plan plans[PLAN_SLOTS];
static unsigned long clock_;

/* slot_of is desc's slot among n keys, or -1. */
static int slot_of(void *const *keys, int n, const void *desc)
{
	for (int i = 0; i < n; i++)
		if (keys[i] == desc)
			return i;
	return -1;
}

/* oldest_of is the slot of the smallest of n stamps (a free one first). */
static int oldest_of(const unsigned long *stamps, int n)
{
	int o = 0;
	for (int i = 1; i < n; i++)
		if (stamps[i] < stamps[o])
			o = i;
	return o;
}

/* vp_slot is desc's entry, or (make) a free or the oldest one made
 * desc's; NULL where desc has none. Under mu. */
static vp_entry *vp_slot(void *desc, int make)
{
	int i = slot_of(vp_desc, VP_SLOTS, desc);
	if (i >= 0)
		return &vps[i];
	if (!make)
		return NULL;
	i = oldest_of(vp_stamp, VP_SLOTS);
	memset(&vps[i], 0, sizeof vps[i]);
	vps[i].nuids = vps[i].nptrs = -1;
	vp_desc[i] = desc;
	vp_stamp[i] = ++clock_;
	return &vps[i];
}

void isaac_graph_record(void *desc, int name, int type, int64_t count, const void *elements)
{
	if (desc == NULL || (name != ATTR_VARIANT_PACK_UNIQUE_IDS && name != ATTR_VARIANT_PACK_DATA_POINTERS &&
			name != ATTR_VARIANT_PACK_WORKSPACE))
		return;
	pthread_mutex_lock(&mu);
	vp_entry *e = vp_slot(desc, 1);
	int fits = count >= 0 && count <= VP_TENSORS && (elements != NULL || count == 0);
	if (name == ATTR_VARIANT_PACK_UNIQUE_IDS) {
		e->nuids = fits && type == TYPE_INT64 ? (int)count : -1;
		if (e->nuids > 0)
			memcpy(e->uids, elements, count * sizeof(int64_t));
	} else if (name == ATTR_VARIANT_PACK_DATA_POINTERS) {
		e->nptrs = fits && type == TYPE_VOID_PTR ? (int)count : -1;
		if (e->nptrs > 0)
			memcpy(e->ptrs, elements, count * sizeof(void *));
	} else if (type == TYPE_VOID_PTR && count == 1 && elements != NULL) {
		e->workspace = *(void *const *)elements;
	}
	pthread_mutex_unlock(&mu);
}

void isaac_graph_forget(void *desc)
{
	if (desc == NULL)
		return;
	pthread_mutex_lock(&mu);
	for (int i = 0; i < VP_SLOTS; i++)
		if (vp_desc[i] == desc) {
			vp_desc[i] = NULL;
			vp_stamp[i] = 0;
		}
	for (int i = 0; i < PLAN_SLOTS; i++)
		if (plan_desc[i] == desc) {
			plan_desc[i] = NULL;
			plan_stamp[i] = 0;
		}
	pthread_mutex_unlock(&mu);
}

void isaac_graph_forget_all(void)
{
	pthread_mutex_lock(&mu);
	memset(vp_desc, 0, sizeof vp_desc);
	memset(vp_stamp, 0, sizeof vp_stamp);
	memset(plan_desc, 0, sizeof plan_desc);
	memset(plan_stamp, 0, sizeof plan_stamp);
	pthread_mutex_unlock(&mu);
}

typedef cudnnStatus_t (*get_attr_fn)(void *, int, int, int64_t, int64_t *, void *);
typedef cudnnStatus_t (*create_fn)(int, void **);
typedef cudnnStatus_t (*destroy_fn)(void *);

/* engine_notes reads the numerical notes of plan's engine into notes (at
 * most MAX_NOTES): their number, or -1 where cuDNN does not say. */
static int engine_notes(void *plan, int *notes)
{
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, get_attr_fn, "cudnnBackendGetAttribute", get)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, create_fn, "cudnnBackendCreateDescriptor", create)
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, destroy_fn, "cudnnBackendDestroyDescriptor", destroy)
	if (!get || !create || !destroy)
		return -1;
	void *cfg = NULL, *eng = NULL;
	int64_t n = 0;
	int out = -1;
	cudnnStatus_t st;
	CALL_VENDOR(st, create(DESC_ENGINECFG, &cfg));
	if (st != 0)
		return -1;
	CALL_VENDOR(st, get(plan, ATTR_EXECUTION_PLAN_ENGINE_CONFIG, TYPE_BACKEND_DESCRIPTOR, 1, &n, &cfg));
	if (st == 0 && n == 1)
		CALL_VENDOR(st, create(DESC_ENGINE, &eng));
	if (st == 0 && n == 1 && eng != NULL)
		CALL_VENDOR(st, get(cfg, ATTR_ENGINECFG_ENGINE, TYPE_BACKEND_DESCRIPTOR, 1, &n, &eng));
	if (st == 0 && n == 1 && eng != NULL) {
		int got[MAX_NOTES];  /* cudnnBackendNumericalNote_t: an enum */
		CALL_VENDOR(st, get(eng, ATTR_ENGINE_NUMERICAL_NOTE, TYPE_NUMERICAL_NOTE, MAX_NOTES, &n, got));
		if (st == 0 && n >= 0 && n <= MAX_NOTES) {
			memcpy(notes, got, n * sizeof(int));
			out = (int)n;
		}
	}
	if (eng != NULL)
		CALL_VENDOR(st, destroy(eng));
	CALL_VENDOR(st, destroy(cfg));
	return out;
}

/* decode reads plan (its JSON and its engine's notes) and has Go decode it
 * into p. Outside mu: it calls cuDNN and Go. */
static void decode(void *plan, isaac_graph_plan *p)
{
	memset(p, 0, sizeof *p);
	p->reason = ISAAC_FWD_UNSUPPORTED;  /* a plan cuDNN does not describe */
	ISAAC_VENDOR_FN(ISAAC_VENDOR_CUDNN, get_attr_fn, "cudnnBackendGetAttribute", get)
	if (get == NULL)
		return;
	int64_t n = 0;
	cudnnStatus_t st;
	CALL_VENDOR(st, get(plan, ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, TYPE_CHAR, 0, &n, NULL));
	if (st != 0 || n <= 0 || n > MAX_JSON)
		return;
	char *json = malloc(n + 1);
	if (json == NULL)
		return;
	int64_t got = 0;
	CALL_VENDOR(st, get(plan, ATTR_EXECUTION_PLAN_JSON_REPRESENTATION, TYPE_CHAR, n, &got, json));
	int notes[MAX_NOTES];
	int nnotes = st == 0 && got > 0 && got <= n ? engine_notes(plan, notes) : -1;
	if (nnotes >= 0) {
		while (got > 0 && json[got - 1] == '\0')
			got--;
		isaac_go_graph_plan(p, json, got, notes, nnotes);
	}
	free(json);
}

int isaac_graph_call(void *handle, void *plan, void *variant_pack, isaac_conv_call *call, isaac_graph_scalars *sc)
{
	if (plan == NULL || variant_pack == NULL || handle == NULL)
		return ISAAC_FWD_INVALID;  /* cuDNN's BAD_PARAM */
	isaac_graph_plan p;
	pthread_mutex_lock(&mu);
	int slot = slot_of(plan_desc, PLAN_SLOTS, plan);
	if (slot >= 0)
		p = plans[slot];
	pthread_mutex_unlock(&mu);
	if (slot < 0) {
		decode(plan, &p);
		pthread_mutex_lock(&mu);
		slot = slot_of(plan_desc, PLAN_SLOTS, plan);  /* another thread decoded it meanwhile */
		if (slot < 0)
			slot = oldest_of(plan_stamp, PLAN_SLOTS);
		plan_desc[slot] = plan;
		plans[slot] = p;
		plan_stamp[slot] = ++clock_;
		pthread_mutex_unlock(&mu);
	}
	if (p.reason != ISAAC_SERVED)
		return p.reason;

	const void *ptr[3] = {NULL, NULL, NULL};
	const int64_t uid[3] = {p.uid_x, p.uid_w, p.uid_y};
	void *workspace = NULL;
	int found = 0;
	pthread_mutex_lock(&mu);
	vp_entry *v = vp_slot(variant_pack, 0);
	if (v != NULL && v->nuids == v->nptrs && v->nuids > 0) {
		found = 1;
		for (int t = 0; t < 3; t++) {
			int hits = 0;
			for (int i = 0; i < v->nuids; i++) {
				if (v->uids[i] == uid[t]) {
					ptr[t] = v->ptrs[i];
					hits++;
				}
			}
			found &= hits == 1;
		}
		workspace = v->workspace;
	}
	pthread_mutex_unlock(&mu);
	if (!found)
		return ISAAC_FWD_UNSUPPORTED;  /* a variant pack the shim did not see set */

	memset(call, 0, sizeof *call);
	call->handle = handle;
	call->graph = 1;
	call->x = ptr[0];
	call->w = ptr[1];
	call->y = (void *)ptr[2];
	call->algo = 0;                /* cudnnConvolutionFwdAlgo_t 0: the plan's engine is not one of them */
	call->workspace = workspace;   /* the kernels keep their own */
	sc->alpha_f = (float)p.alpha;
	sc->beta_f = (float)p.beta;
	sc->alpha_d = p.alpha;
	sc->beta_d = p.beta;
	int wide = p.state.x_type == 1;  /* CUDNN_DATA_DOUBLE: double scalars */
	call->alpha = wide ? (const void *)&sc->alpha_d : (const void *)&sc->alpha_f;
	call->beta = wide ? (const void *)&sc->beta_d : (const void *)&sc->beta_f;
	call->state = p.state;
	isaac_read_conv_stream(call, &call->state);
	if (call->state.status != 0)
		return ISAAC_FWD_HANDLE;
	call->state_read = ISAAC_CONV_DESCRIPTORS | ISAAC_CONV_STREAM;
	return 0;
}
