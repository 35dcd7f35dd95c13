package shim

/*
#include <stdlib.h>
#include <string.h>
#include "conv_repeats.h"

// A fake driver for the tests of the repeated convolutions: it keeps each
// launch it is asked for instead of making it.
enum { FAKE_LAUNCHES = 16 };
typedef struct fake_launch {
	uintptr_t fn, stream;
	unsigned int grid[3], block[3], cluster[3];
	int dependent, ex, nparams;
	unsigned int shared_bytes;
	unsigned char params[ISAAC_REPEAT_PARAM_BYTES];
	int offsets[ISAAC_REPEAT_PARAMS];
} fake_launch;

static fake_launch fake_launches[FAKE_LAUNCHES];
static int fake_count, fake_status, fake_capturing;
static unsigned long long fake_context = 1;

static void fake_keep(uintptr_t f, const unsigned int *grid, const unsigned int *block, const unsigned int *cluster,
	int dependent, int ex, unsigned int shared, uintptr_t stream, unsigned char *args, const int *offsets, int n)
{
	int i = __atomic_fetch_add(&fake_count, 1, __ATOMIC_RELAXED);
	if (i >= FAKE_LAUNCHES)
		return;  // kept no more (tests on many threads launch many)
	fake_launch *l = &fake_launches[i];
	l->fn = f;
	l->stream = stream;
	memcpy(l->grid, grid, sizeof l->grid);
	memcpy(l->block, block, sizeof l->block);
	if (cluster != NULL)
		memcpy(l->cluster, cluster, sizeof l->cluster);
	else
		memset(l->cluster, 0, sizeof l->cluster);
	l->dependent = dependent;
	l->ex = ex;
	l->shared_bytes = shared;
	l->nparams = n;
	memcpy(l->offsets, offsets, (size_t)n * sizeof *offsets);
	// The parameters as the kernel would see them: each through its pointer.
	memset(l->params, 0, sizeof l->params);
	for (int i = 0; i < n; i++) {
		int end = i + 1 < n ? offsets[i + 1] : (int)sizeof l->params;
		if (end > offsets[i] + 8)
			end = offsets[i] + 8;
		memcpy(l->params + offsets[i], args + offsets[i], (size_t)(end - offsets[i]));
	}
}

static int fake_launch_fn(uintptr_t f, const unsigned int *grid, const unsigned int *block,
	unsigned int shared, uintptr_t stream, unsigned char *args, const int *offsets, int n)
{
	if (fake_status != 0)
		return fake_status;
	fake_keep(f, grid, block, NULL, 0, 0, shared, stream, args, offsets, n);
	return 0;
}

static int fake_launch_ex_fn(uintptr_t f, const unsigned int *grid, const unsigned int *block,
	const unsigned int *cluster, int dependent, unsigned int shared, uintptr_t stream,
	unsigned char *args, const int *offsets, int n)
{
	if (fake_status != 0)
		return fake_status;
	fake_keep(f, grid, block, cluster, dependent, 1, shared, stream, args, offsets, n);
	return 0;
}

static int fake_context_fn(unsigned long long *id) { *id = fake_context; return fake_context == 0 ? 201 : 0; }
static int fake_capturing_fn(uintptr_t stream, int *on) { *on = fake_capturing; return 0; }

static isaac_repeat_driver fake_driver(void)
{
	isaac_repeat_driver d = {fake_launch_fn, fake_launch_ex_fn, fake_context_fn, fake_capturing_fn};
	return d;
}

static void fake_reset(void) { fake_count = 0; fake_status = 0; fake_capturing = 0; fake_context = 1; }
static void fake_set(int status, int capturing, unsigned long long context)
{
	fake_status = status;
	fake_capturing = capturing;
	fake_context = context;
}
static int fake_launched(void) { return fake_count < FAKE_LAUNCHES ? fake_count : FAKE_LAUNCHES; }
static fake_launch *fake_at(int i) { return &fake_launches[i]; }
static int repeated(isaac_conv_call *c) { return isaac_conv_repeated(c); }

// set_scalars points the record's alpha and beta at two floats of its own
// (kept in s, two floats the caller owns).
static void set_scalars(isaac_conv_call *c, float *s, float alpha, float beta)
{
	s[0] = alpha;
	s[1] = beta;
	c->alpha = &s[0];
	c->beta = &s[1];
	c->state_read = ISAAC_CONV_DESCRIPTORS | ISAAC_CONV_STREAM;
}
*/
import "C"

import (
	"unsafe"

	"github.com/isaacgo/isaac/internal/cuda"
)

// The fake driver's launches, as the tests of repeats read them.
type fakeLaunch struct {
	fn, stream           uintptr
	grid, block, cluster cuda.Dim3
	dependent, ex        bool
	sharedBytes          int
	params               []byte
	offsets              []int32
}

// fakeDriverReset forgets the fake's launches and sets its answers: every
// launch's status, whether streams are being captured, the current
// context's ID (0: none).
func fakeDriverReset(status int, capturing bool, context uint64) {
	C.fake_reset()
	cp := 0
	if capturing {
		cp = 1
	}
	C.fake_set(C.int(status), C.int(cp), C.ulonglong(context))
}

// fakeLaunches are the launches the fake was asked for since its reset.
func fakeLaunches() []fakeLaunch {
	var out []fakeLaunch
	for i := 0; i < int(C.fake_launched()); i++ {
		l := C.fake_at(C.int(i))
		f := fakeLaunch{fn: uintptr(l.fn), stream: uintptr(l.stream), dependent: l.dependent != 0, ex: l.ex != 0,
			sharedBytes: int(l.shared_bytes)}
		for j := 0; j < 3; j++ {
			f.grid[j], f.block[j], f.cluster[j] = uint32(l.grid[j]), uint32(l.block[j]), uint32(l.cluster[j])
		}
		f.params = C.GoBytes(unsafe.Pointer(&l.params[0]), C.ISAAC_REPEAT_PARAM_BYTES)
		for j := 0; j < int(l.nparams); j++ {
			f.offsets = append(f.offsets, int32(l.offsets[j]))
		}
		out = append(out, f)
	}
	return out
}

// rememberFake is RememberConvRepeat of the record r with the fake driver.
func (r *convRecord) rememberRepeat(ctx uint64, workspace bool, recordedAt uint64, launches []cuda.LaunchRecord) bool {
	r.set()
	drv := C.fake_driver()
	return rememberRepeat(unsafe.Pointer(r.p), &drv, ctx, workspace, recordedAt, launches)
}

// repeated is the entry point's attempt to serve the record from the table.
func (r *convRecord) repeated() bool {
	r.set()
	return C.repeated(r.p) != 0
}

// scalars makes the record's alpha and beta these values, its descriptors
// and stream read (so that the table reads no cuDNN getter): the record's
// state as an entry point has it once the settled forwards are looked up.
func (r *convRecord) scalars(alpha, beta float32) {
	s := (*C.float)(C.malloc(8)) // a test's: not freed
	C.set_scalars(r.p, s, C.float(alpha), C.float(beta))
}

// emptyRepeats empties the table (tests) and is the workspace moves it
// takes recordings of from then on.
func emptyRepeats() uint64 {
	m := uint64(C.isaac_conv_repeats_moves())
	ForgetConvRepeats(m)
	return m
}
