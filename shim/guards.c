/*
 * guards.c: the decisions taken in C before any Go code runs, and the
 * ISAAC_LOG counters.
 *
 * ISAAC_DISABLE=1 makes every entry point a pure pass-through. In a forked
 * child the Go runtime's threads do not exist, so calls go straight to the
 * vendor: a pthread_atfork child handler marks the child, which is the same
 * as comparing getpid() with the pid at load but costs no system call.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "shim.h"
#include "conv_repeats.h"

int isaac_disabled;
volatile int isaac_forked;

ISAAC_EXPORT int isaac_passthrough(int on)
{
	return __atomic_exchange_n(&isaac_disabled, on != 0, __ATOMIC_RELAXED);
}
int isaac_log;
__thread int isaac_in_vendor;

static unsigned long calls[ISAAC_ENTRY_COUNT];
static unsigned long outcomes[ISAAC_REASON_COUNT];
static unsigned long served[ISAAC_ENTRY_COUNT];

static const char *entry_names[ISAAC_ENTRY_COUNT] = {
	"cublasSgemm_v2", "cublasDgemm_v2", "cublasHgemm", "cublasGemmEx",
	"cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasHgemm_64", "cublasGemmEx_64",
	"cudnnConvolutionForward",
	"cublasSgemmStridedBatched", "cublasDgemmStridedBatched", "cublasHgemmStridedBatched",
	"cublasGemmStridedBatchedEx", "cublasSgemmStridedBatched_64", "cublasDgemmStridedBatched_64",
	"cublasHgemmStridedBatched_64", "cublasGemmStridedBatchedEx_64",
	"cublasLtMatmul", "cudnnBackendExecute",
};

static const char *reason_names[ISAAC_REASON_COUNT] = {
	"served", "disabled", "fork", "no_go", "handle", "invalid", "empty",
	"unsupported", "too_large", "no_kernel", "no_driver", "policy", "error",
	"no_weights", "weights", "predicted", "searching", "compiling",
	"measuring", "measured", "capturing", "nested",
};

static int env_true(const char *name)
{
	const char *v = getenv(name);
	return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0;
}

void isaac_count(int entry, int reason)
{
	if (!isaac_log)
		return;
	__atomic_fetch_add(&calls[entry], 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&outcomes[reason], 1, __ATOMIC_RELAXED);
	if (reason == ISAAC_SERVED)
		__atomic_fetch_add(&served[entry], 1, __ATOMIC_RELAXED);
}

static void at_fork_child(void)
{
	isaac_forked = 1;
	memset(calls, 0, sizeof calls);
	memset(outcomes, 0, sizeof outcomes);
	memset(served, 0, sizeof served);
}

/* One line: calls per entry point, served, forwarded by reason, served per
 * entry point (where any was), the vendor libraries. */
static void print_log(void)
{
	char line[2048];
	size_t n = 0;
	unsigned long total = 0, forwarded = 0;
	for (int e = 0; e < ISAAC_ENTRY_COUNT; e++)
		total += calls[e];
	for (int r = 1; r < ISAAC_REASON_COUNT; r++)
		forwarded += outcomes[r];
	if (total == 0)
		return;  /* a process that never called: no line */
	n += snprintf(line + n, sizeof line - n, "isaac: pid %d%s: calls %lu",
		(int)getpid(), isaac_forked ? " (forked child)" : "", total);
	const char *sep = " (";
	for (int e = 0; e < ISAAC_ENTRY_COUNT && n < sizeof line; e++) {
		if (calls[e] == 0)
			continue;
		n += snprintf(line + n, sizeof line - n, "%s%s=%lu", sep, entry_names[e], calls[e]);
		sep = " ";
	}
	if (n < sizeof line && strcmp(sep, " ") == 0)
		n += snprintf(line + n, sizeof line - n, ")");
	if (n < sizeof line)
		n += snprintf(line + n, sizeof line - n, "; served %lu; forwarded %lu",
			outcomes[ISAAC_SERVED], forwarded);
	sep = " (";
	for (int r = 1; r < ISAAC_REASON_COUNT && n < sizeof line; r++) {
		if (outcomes[r] == 0)
			continue;
		n += snprintf(line + n, sizeof line - n, "%s%s=%lu", sep, reason_names[r], outcomes[r]);
		sep = " ";
	}
	if (n < sizeof line && strcmp(sep, " ") == 0)
		n += snprintf(line + n, sizeof line - n, ")");
	sep = "; served by entry (";
	for (int e = 0; e < ISAAC_ENTRY_COUNT && n < sizeof line; e++) {
		if (served[e] == 0)
			continue;
		n += snprintf(line + n, sizeof line - n, "%s%s=%lu", sep, entry_names[e], served[e]);
		sep = " ";
	}
	if (n < sizeof line && strcmp(sep, " ") == 0)
		n += snprintf(line + n, sizeof line - n, ")");
	unsigned long settled = isaac_gemm_settled_calls() + isaac_conv_settled_calls() + isaac_lt_settled_calls();
	if (n < sizeof line && settled > 0)
		n += snprintf(line + n, sizeof line - n, "; forwarded by the entry point as settled %lu", settled);
	unsigned long repeated = isaac_conv_repeated_calls();
	if (n < sizeof line && repeated > 0)
		n += snprintf(line + n, sizeof line - n, "; served by the entry point from kept launches %lu", repeated);
	if (n < sizeof line)
		n += snprintf(line + n, sizeof line - n, "; cuBLAS: %s; cuBLASLt: %s; cuDNN: %s",
			isaac_vendor_path(ISAAC_VENDOR_CUBLAS), isaac_vendor_path(ISAAC_VENDOR_CUBLASLT),
			isaac_vendor_path(ISAAC_VENDOR_CUDNN));
	fprintf(stderr, "%s\n", line);
}

/* Go's end at the process's exit (isaac_go_exit: its background work leaves
 * the driver). Registered at the first call handed to Go, after the CUDA
 * runtime and cuDNN registered their own exit handlers (they are loaded
 * and initialized before any call reaches us), so that it runs before they
 * tear the driver's state down: a thread still inside the driver's JIT then
 * corrupts the heap (gputest/results/h100/conv/call64); registered again
 * after the driver's first JIT (isaac_go_exit_register). */
#pragma weak isaac_go_exit
static void at_exit_go(void)
{
	if (!isaac_forked && isaac_go_exit != NULL)
		isaac_go_exit();
}

void isaac_go_enter(void)
{
	static int registered;
	if (!__atomic_load_n(&registered, __ATOMIC_ACQUIRE) && !__atomic_exchange_n(&registered, 1, __ATOMIC_ACQ_REL))
		atexit(at_exit_go);
}

/* Registers the handler again (Go, after the driver's first JIT: the PTX
 * compiler it loads then registers exit code of its own). The handler
 * runs once: isaac_go_exit does its work the first time. */
void isaac_go_exit_register(void)
{
	atexit(at_exit_go);
}

__attribute__((constructor)) static void isaac_shim_init(void)
{
	isaac_disabled = env_true("ISAAC_DISABLE");
	isaac_log = env_true("ISAAC_LOG");
	pthread_atfork(NULL, NULL, at_fork_child);
	if (isaac_log)
		atexit(print_log);
}
