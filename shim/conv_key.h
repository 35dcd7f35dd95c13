/*
 * conv_key.h: what a convolution's answer depends on beside its data, as
 * bytes to compare (the settled forwards of conv_forwards.c and the
 * repeated launches of conv_repeats.c).
 *
 * The handle (cuDNN binds it to one device), everything the descriptors
 * say (the stream aside), and the alignment of x, w and y (the kernels'
 * input class depends on it; NULL pointers are cuDNN's BAD_PARAM).
 */
#ifndef ISAAC_CONV_KEY_H
#define ISAAC_CONV_KEY_H

#include <string.h>

#include "settled.h"
#include "shim.h"

typedef struct isaac_conv_key {
	void *handle;
	unsigned char align[3];      /* x, w, y (isaac_settled_align) */
	unsigned char scalars;       /* alpha, beta not NULL: bits 0, 1; bit 2: a graph API call */
	isaac_conv_state state;      /* status 0, stream NULL */
} isaac_conv_key;

static inline void isaac_conv_key_of(const isaac_conv_call *call, isaac_conv_key *k)
{
	memset(k, 0, sizeof *k);  /* padding included: keys compare as bytes */
	k->handle = call->handle;
	k->align[0] = isaac_settled_align(call->x);
	k->align[1] = isaac_settled_align(call->w);
	k->align[2] = isaac_settled_align(call->y);
	k->scalars = (call->alpha != NULL) | (call->beta != NULL) << 1 | (call->graph != 0) << 2;
	k->state = call->state;
	k->state.status = 0;
	k->state.stream = NULL;
}

#endif /* ISAAC_CONV_KEY_H */
