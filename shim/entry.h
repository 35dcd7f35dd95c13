/*
 * entry.h: what every exported entry point does before and after Go.
 */
#ifndef ISAAC_ENTRY_H
#define ISAAC_ENTRY_H

#include "shim.h"
#include "conv_repeats.h"
#include "entry_points.h"

#pragma weak isaac_go_gemm
#pragma weak isaac_go_gemm_after
#pragma weak isaac_go_conv
#pragma weak isaac_go_conv_after
#pragma weak isaac_go_lt
#pragma weak isaac_go_lt_after
#pragma weak isaac_go_graph_plan

/* CALL_VENDOR(status, call) makes the vendor's call with the thread marked
 * as inside the vendor (isaac_in_vendor), so that what the vendor's library
 * calls of ours on the way (cuBLAS calling cublasLtMatmul, cuDNN calling
 * cuBLAS) is passed on as the vendor's own work (ISAAC_FWD_NESTED). */
#define CALL_VENDOR(status, call) do { \
	isaac_in_vendor++;              \
	status = call;                  \
	isaac_in_vendor--;              \
} while (0)

/* The vendor's function `name` of type `type`, resolved once into `fn`. */
#define ISAAC_VENDOR_FN(vendor, type, name, fn)                                   \
	static type fn##_cached;                                                  \
	type fn = __atomic_load_n(&fn##_cached, __ATOMIC_ACQUIRE);                \
	if (fn == NULL) {                                                         \
		fn = (type)isaac_vendor_symbol(vendor, name);                     \
		__atomic_store_n(&fn##_cached, fn, __ATOMIC_RELEASE);             \
	}

/* isaac_forward_first is the reason a call goes to the vendor before
 * anything of it is read, whatever the entry point (0: none): the shim is
 * disabled, the process a forked child, the call the vendor's own (nested),
 * or Go is not linked in (go_linked 0). */
static inline int isaac_forward_first(int go_linked)
{
	if (__atomic_load_n(&isaac_disabled, __ATOMIC_RELAXED))
		return ISAAC_FWD_DISABLED;
	if (isaac_forked)
		return ISAAC_FWD_FORK;
	if (isaac_in_vendor)
		return ISAAC_FWD_NESTED;
	if (!go_linked)
		return ISAAC_FWD_NO_GO;
	return 0;
}

/* A GEMM's answer: from C where it is settled (gemm_forwards.c), else from
 * Go. */
static inline int isaac_decide_gemm(isaac_gemm_call *call)
{
	int reason = isaac_forward_first(isaac_go_gemm != NULL);
	if (reason == 0 && !isaac_gemm_forwarded(call, &reason)) {
		isaac_go_enter();
		reason = isaac_go_gemm(call);
	}
	isaac_count(call->entry, reason);
	return reason;
}

/* What follows a forwarded GEMM: the end of the vendor's timing when Go
 * asked for it (reason ISAAC_FWD_MEASURING). */
static inline void isaac_after_gemm(isaac_gemm_call *call, int reason)
{
	if (reason == ISAAC_FWD_MEASURING && isaac_go_gemm_after != NULL)
		isaac_go_gemm_after(call);
}

/* A convolution's answer: from C where it is settled (conv_forwards.c) or
 * its launches are kept (conv_repeats.c), else from Go. */
static inline int isaac_decide_conv(isaac_conv_call *call)
{
	int reason = isaac_forward_first(isaac_go_conv != NULL);
	if (reason == 0) {
		if (__atomic_load_n(&isaac_conv_all_forwarded, __ATOMIC_ACQUIRE))
			reason = ISAAC_FWD_POLICY;
		else if (isaac_conv_forwarded(call, &reason))
			;
		else if (isaac_conv_repeated(call))
			reason = ISAAC_SERVED;
		else {
			isaac_go_enter();
			reason = isaac_go_conv(call);
		}
	}
	isaac_count(ISAAC_ENTRY_CONV_FWD, reason);
	return reason;
}

/* What follows a forwarded convolution: the end of cuDNN's timing when Go
 * asked for it (reason ISAAC_FWD_MEASURING). */
static inline void isaac_after_conv(isaac_conv_call *call, int reason)
{
	if (reason == ISAAC_FWD_MEASURING && isaac_go_conv_after != NULL)
		isaac_go_conv_after(call);
}

/* A cudnnBackendExecute's answer: cuDNN's where the plan is not one
 * convolution the shim serves, else as for cudnnConvolutionForward (from C
 * where it is settled or its launches are kept, else from Go), the call
 * made from the plan and the variant pack. */
static inline int isaac_decide_graph(void *handle, void *plan, void *variant_pack,
	isaac_conv_call *call, isaac_graph_scalars *sc)
{
	int reason = isaac_forward_first(isaac_go_conv != NULL && isaac_go_graph_plan != NULL);
	if (reason == 0) {
		if (__atomic_load_n(&isaac_conv_all_forwarded, __ATOMIC_ACQUIRE))
			reason = ISAAC_FWD_POLICY;
		else if ((reason = isaac_graph_call(handle, plan, variant_pack, call, sc)) != 0 ||
				isaac_conv_find(call, &reason))
			;
		else if (isaac_conv_repeated(call))
			reason = ISAAC_SERVED;
		else {
			isaac_go_enter();
			reason = isaac_go_conv(call);
		}
	}
	isaac_count(ISAAC_ENTRY_CONV_GRAPH, reason);
	return reason;
}

/* A cublasLtMatmul's answer: from C when the policy serves none (Go said so
 * once); else its descriptors read through cuBLASLt's getters (a getter that
 * fails leaves the call to cuBLASLt, which gives its own status), then from
 * C where Go settled it (lt_forwards.c), else Go's. */
static inline int isaac_decide_lt(isaac_lt_call *call)
{
	int reason = isaac_forward_first(isaac_go_lt != NULL);
	if (reason == 0) {
		if (__atomic_load_n(&isaac_lt_all_forwarded, __ATOMIC_ACQUIRE))
			reason = ISAAC_FWD_POLICY;
		else {
			isaac_read_lt_state(call, &call->state);
			if (call->state.status != 0)
				reason = ISAAC_FWD_HANDLE;
			else if (!isaac_lt_forwarded(call, &reason)) {
				isaac_go_enter();
				reason = isaac_go_lt(call);
			}
		}
	}
	isaac_count(ISAAC_ENTRY_LT_MATMUL, reason);
	return reason;
}

/* What follows a forwarded cublasLtMatmul: the end of cuBLASLt's timing
 * when Go asked for it (reason ISAAC_FWD_MEASURING). */
static inline void isaac_after_lt(isaac_lt_call *call, int reason)
{
	if (reason == ISAAC_FWD_MEASURING && isaac_go_lt_after != NULL)
		isaac_go_lt_after(call);
}

#endif /* ISAAC_ENTRY_H */
