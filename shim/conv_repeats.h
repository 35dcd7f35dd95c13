/*
 * conv_repeats.h: served convolutions repeated from C (conv_repeats.c).
 *
 * Once Go has served a convolution with a decision that holds for every
 * later call like it (its check over, its kernels chosen), it hands the
 * entry point that call's launches as recorded (kernels.Recording): each
 * kernel, its grid and block, its parameters as packed, and where in them
 * the call's x, w and y pointers (or addresses derived from them) lie. A
 * later call of the same key (the convolution's key, conv_key.h, with the
 * current context, the stream and the scalars' values) is then served by
 * the entry point itself: the parameters copied, the call's pointers
 * patched in, the kernels launched on its stream, without a call into Go.
 *
 * A repeat that uses the stream's kept workspace is valid until that
 * workspace moves: Go empties the table (isaac_conv_repeats_forget) before
 * it frees the old memory, and a repeat is looked up and launched under
 * the table's read lock, so no launch of one reaches a stream after its
 * memory was freed there. A stream being captured gets no such repeat (Go
 * gives a captured call a workspace of its own). Any launch that fails
 * leaves the call to Go, which serves it or gives cuDNN's answer.
 */
#ifndef ISAAC_CONV_REPEATS_H
#define ISAAC_CONV_REPEATS_H

#include <stdint.h>

#include "shim.h"

enum {
	ISAAC_REPEAT_SLOTS = 256,        /* repeats kept at most */
	ISAAC_REPEAT_LAUNCHES = 4,       /* kernels one call launches at most */
	ISAAC_REPEAT_PARAMS = 96,        /* parameters of one kernel at most (internal/cuda's limit) */
	ISAAC_REPEAT_PARAM_BYTES = 4096, /* bytes of one kernel's parameters at most */
	ISAAC_REPEAT_PATCHES = 8,        /* addresses patched into one kernel's parameters at most */
};

/* The 8 bytes at `at` in a launch's parameters become the call's pointer
 * `operand` (0 x, 1 w, 2 y) plus `add`. */
typedef struct isaac_repeat_patch {
	int32_t at, operand;
	int64_t add;
} isaac_repeat_patch;

typedef struct isaac_repeat_launch {
	uintptr_t fn;                    /* CUfunction */
	unsigned int grid[3], block[3], cluster[3];  /* cluster all 0: none */
	int dependent;                   /* a programmatic dependent of the grid before it */
	unsigned int shared_bytes;
	int nparams, nbytes, npatches;
	int offsets[ISAAC_REPEAT_PARAMS];
	isaac_repeat_patch patches[ISAAC_REPEAT_PATCHES];
	unsigned char params[ISAAC_REPEAT_PARAM_BYTES];
} isaac_repeat_launch;

/* The driver calls a repeat makes: internal/cuda's C functions, passed by
 * Go (fakes in tests). Each returns a CUresult. */
typedef struct isaac_repeat_driver {
	int (*launch)(uintptr_t f, const unsigned int *grid, const unsigned int *block,
		unsigned int shared_bytes, uintptr_t stream, unsigned char *args, const int *offsets, int nargs);
	int (*launch_ex)(uintptr_t f, const unsigned int *grid, const unsigned int *block,
		const unsigned int *cluster, int dependent, unsigned int shared_bytes, uintptr_t stream,
		unsigned char *args, const int *offsets, int nargs);
	int (*context)(unsigned long long *id);       /* the calling thread's current context's ID */
	int (*capturing)(uintptr_t stream, int *on);  /* whether stream is being captured */
} isaac_repeat_driver;

/* isaac_conv_repeated serves call from its repeat, if one is kept: 1 once
 * its kernels are on the stream; 0 (nothing launched, or a launch failed)
 * leaves it to Go. It reads the call's descriptors and stream into
 * call->state when they are not read yet and a repeat is kept. */
int isaac_conv_repeated(isaac_conv_call *call);
/* isaac_conv_repeat_remember keeps the launches of call (decoded, its
 * state read) in context ctx, recorded when the streams' workspaces had
 * moved recorded_at times (kernels.Runtime.WorkspaceMoves): 1 kept, 0 not
 * (a workspace moved since, the table full, the key kept already, a launch
 * beyond the limits above). */
int isaac_conv_repeat_remember(const isaac_conv_call *call, const isaac_repeat_driver *drv,
	unsigned long long ctx, int workspace, uint64_t recorded_at, const isaac_repeat_launch *launches, int n);
/* isaac_conv_repeats_room: whether the table takes another repeat. */
int isaac_conv_repeats_room(void);
/* isaac_conv_repeats_forget empties the table once no repeat is being
 * launched: a stream's workspace is about to move for the now-th time
 * (later recordings of fewer moves are refused), the server closes
 * (UINT64_MAX: none is kept again), tests. */
void isaac_conv_repeats_forget(uint64_t now);
/* The moves the table was last emptied for (tests). */
uint64_t isaac_conv_repeats_moves(void);
/* Calls served from the table (ISAAC_LOG). */
unsigned long isaac_conv_repeated_calls(void);

#endif /* ISAAC_CONV_REPEATS_H */
