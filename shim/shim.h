/*
 * shim.h: the contract between the C entry points of libisaac.so and the Go
 * side that decides whether a call is served by ISAAC or by the vendor.
 *
 * Each exported entry point packs its arguments, unchanged, into a call
 * record and hands it to Go (isaac_go_gemm / isaac_go_conv). Go answers
 * ISAAC_SERVED or the reason it did not serve; the C side then calls the
 * vendor with the original arguments.
 */
#ifndef ISAAC_SHIM_H
#define ISAAC_SHIM_H

#include "vendor_types.h"

/* The shim's C files build with -fvisibility=hidden: only the vendor entry
 * points (and the Go runtime's own symbols) are exported. */
#define ISAAC_EXPORT __attribute__((visibility("default")))

/* Entry points, in the order the ISAAC_LOG line prints them. */
enum isaac_entry {
	ISAAC_ENTRY_SGEMM,
	ISAAC_ENTRY_DGEMM,
	ISAAC_ENTRY_HGEMM,
	ISAAC_ENTRY_GEMMEX,
	ISAAC_ENTRY_SGEMM_64,
	ISAAC_ENTRY_DGEMM_64,
	ISAAC_ENTRY_HGEMM_64,
	ISAAC_ENTRY_GEMMEX_64,
	ISAAC_ENTRY_CONV_FWD,
	/* The strided-batched GEMMs, after the convolution so that the entry
	 * points before them keep their numbers. */
	ISAAC_ENTRY_SGEMM_STRIDED_BATCHED,
	ISAAC_ENTRY_DGEMM_STRIDED_BATCHED,
	ISAAC_ENTRY_HGEMM_STRIDED_BATCHED,
	ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX,
	ISAAC_ENTRY_SGEMM_STRIDED_BATCHED_64,
	ISAAC_ENTRY_DGEMM_STRIDED_BATCHED_64,
	ISAAC_ENTRY_HGEMM_STRIDED_BATCHED_64,
	ISAAC_ENTRY_GEMM_STRIDED_BATCHED_EX_64,
	ISAAC_ENTRY_LT_MATMUL,
	/* cuDNN's graph API: the executions of plans whose one operation is a
	 * convolution (graph_plans.c). */
	ISAAC_ENTRY_CONV_GRAPH,
	ISAAC_ENTRY_COUNT
};

/* What Go answers: served, or why the vendor must take the call. */
enum isaac_reason {
	ISAAC_SERVED = 0,
	ISAAC_FWD_DISABLED,     /* ISAAC_DISABLE=1 */
	ISAAC_FWD_FORK,         /* forked child: the Go runtime is not there */
	ISAAC_FWD_NO_GO,        /* built without the Go side (C-only tests) */
	ISAAC_FWD_HANDLE,       /* a vendor getter failed on the handle or a descriptor */
	ISAAC_FWD_INVALID,      /* invalid arguments: the vendor gives its status */
	ISAAC_FWD_EMPTY,        /* nothing to compute (m or n is 0, or a batch of none) */
	ISAAC_FWD_UNSUPPORTED,  /* an input class ISAAC does not serve */
	ISAAC_FWD_TOO_LARGE,    /* _64 sizes that do not fit 32-bit kernels */
	ISAAC_FWD_NO_KERNEL,    /* no kernel for this input */
	ISAAC_FWD_NO_DRIVER,    /* CUDA driver or context unavailable */
	ISAAC_FWD_POLICY,       /* the dispatch policy chose the vendor */
	ISAAC_FWD_ERROR,        /* a JIT, launch or runtime error on our side */
	ISAAC_FWD_NO_WEIGHTS,   /* ISAAC_POLICY=auto and no model for this device */
	ISAAC_FWD_WEIGHTS,      /* the model's weights failed to load (ISAAC_WEIGHTS or shipped) */
	ISAAC_FWD_PREDICTED,    /* the model predicts the vendor is faster on this input */
	ISAAC_FWD_SEARCHING,    /* ISAAC_SEARCH=async: the choice for this input is being made */
	ISAAC_FWD_COMPILING,    /* the chosen kernel is being compiled in the background */
	ISAAC_FWD_MEASURING,    /* forwarded to time the vendor beside our kernel: call isaac_go_gemm_after */
	ISAAC_FWD_MEASURED,     /* our kernel measured slower than the vendor on this input */
	ISAAC_FWD_CAPTURING,    /* the stream is being captured and ISAAC's decision is not final */
	ISAAC_FWD_NESTED,       /* made by the vendor's library inside a call the shim forwarded to it */
	ISAAC_REASON_COUNT
};

/* The cuBLAS handle's state, read through the vendor's getters. */
typedef struct isaac_cublas_state {
	int status;                  /* first failing getter's status, or 0 */
	void *stream;
	int pointer_mode, math_mode, atomics_mode;
} isaac_cublas_state;

/* One GEMM call exactly as the application made it. Sizes are widened to
 * 64 bits so the int and _64 entry points share one record. */
typedef struct isaac_gemm_call {
	int entry;
	int transa, transb;
	int a_type, b_type, c_type;  /* cudaDataType */
	int compute_type;            /* cublasComputeType_t, or a cudaDataType for legacy calls */
	int algo;
	void *handle;
	int64_t m, n, k;
	int64_t lda, ldb, ldc;
	const void *alpha, *beta;
	const void *A, *B;
	void *C;
	int64_t stride_a, stride_b, stride_c;  /* elements from one matrix of a batch to the next */
	int64_t batch;               /* batchCount; 1 for the non-batched entry points */
	uintptr_t token;             /* set by Go with ISAAC_FWD_MEASURING, for isaac_go_gemm_after */
	isaac_cublas_state state;    /* the handle's, once state_read */
	int state_read;              /* state is read (by the entry point for its lookup, or by Go) */
	int state_used;              /* Go's answer depends on the state: it read it to decide */
} isaac_gemm_call;

#define ISAAC_MAX_DIMS 8

/* A cuDNN convolution's descriptors, read through the vendor's getters. */
typedef struct isaac_conv_state {
	int status;                  /* first failing getter's status, or 0 */
	void *stream;
	int x_type, x_dims, x_dim[ISAAC_MAX_DIMS], x_stride[ISAAC_MAX_DIMS];
	int y_type, y_dims, y_dim[ISAAC_MAX_DIMS], y_stride[ISAAC_MAX_DIMS];
	int w_type, w_format, w_dims, w_dim[ISAAC_MAX_DIMS];
	int conv_dims, pad[ISAAC_MAX_DIMS], stride[ISAAC_MAX_DIMS], dilation[ISAAC_MAX_DIMS];
	int mode, compute_type, groups, math_type;
} isaac_conv_state;

/* isaac_conv_call.state_read's bits. */
enum { ISAAC_CONV_DESCRIPTORS = 1, ISAAC_CONV_STREAM = 2 };

/* One cudnnConvolutionForward call exactly as the application made it. */
typedef struct isaac_conv_call {
	void *handle;
	const void *alpha, *beta;
	void *x_desc, *w_desc, *conv_desc, *y_desc;
	const void *x, *w;
	void *y;
	int algo;
	void *workspace;
	size_t workspace_bytes;
	uintptr_t token;             /* set by Go with ISAAC_FWD_MEASURING, for isaac_go_conv_after */
	int state_read;              /* what state holds: ISAAC_CONV_DESCRIPTORS (isaac_conv_forwarded read them), | ISAAC_CONV_STREAM */
	int graph;                   /* 1: a cudnnBackendExecute, its descriptors x_desc… unset and state read from its plan */
	isaac_conv_state state;
} isaac_conv_call;

/* What a cuDNN execution plan computes where it is one convolution the
 * shim may serve, decoded once per plan (by Go, from the plan's JSON and
 * its engine's numerical notes: isaac_go_graph_plan). */
typedef struct isaac_graph_plan {
	int reason;                  /* ISAAC_SERVED: the convolution below; else why cuDNN takes the plan's every execution */
	isaac_conv_state state;      /* status 0, stream NULL */
	int64_t uid_x, uid_w, uid_y; /* the tensors' unique ids, by which a variant pack names their pointers */
	double alpha, beta;
} isaac_graph_plan;

/* The scalars of one graph convolution, in the width cuDNN's legacy entry
 * point would read (float, double for double data): isaac_conv_call points
 * at them. */
typedef struct isaac_graph_scalars {
	float alpha_f, beta_f;
	double alpha_d, beta_d;
} isaac_graph_scalars;

/* A cuBLASLt matrix layout, read through cublasLtMatrixLayoutGetAttribute. */
typedef struct isaac_lt_layout {
	int type, order;             /* cudaDataType, cublasLtOrder_t */
	uint64_t rows, cols;
	int64_t ld;
	int batch;                   /* BATCH_COUNT */
	int batch_mode;              /* BATCH_MODE (0, strided, where the library has none) */
	int64_t stride;              /* STRIDED_BATCH_OFFSET, elements */
	int64_t plane_offset;
} isaac_lt_layout;

/* A cublasLtMatmul call's descriptors, read through cuBLASLt's getters. */
typedef struct isaac_lt_state {
	int status;                  /* first failing getter's status, or 0 */
	int compute_type, scale_type, pointer_mode;
	int transa, transb, transc, fill_mode;
	unsigned epilogue;
	const void *bias;
	int bias_type;               /* -1: D's */
	int64_t bias_batch_stride;
	const void *aux;             /* EPILOGUE_AUX_POINTER */
	int scaled;                  /* a scale, amax or atomic-synchronization pointer is set */
	int64_t alpha_vector_batch_stride;
	isaac_lt_layout a, b, c, d;
} isaac_lt_state;

/* One cublasLtMatmul call exactly as the application made it, and its
 * descriptors as read before Go is asked (state). */
typedef struct isaac_lt_call {
	void *handle, *desc;
	const void *alpha, *beta;
	const void *A, *B, *C;
	void *D;
	void *a_desc, *b_desc, *c_desc, *d_desc;
	const void *algo;
	void *workspace;
	size_t workspace_bytes;
	void *stream;
	uintptr_t token;             /* set by Go with ISAAC_FWD_MEASURING, for isaac_go_lt_after */
	isaac_lt_state state;
} isaac_lt_call;

/* Go side (exports.go). Declared weak by the entry points so that the C
 * layer also links and works without it (reason ISAAC_FWD_NO_GO). */
int isaac_go_gemm(isaac_gemm_call *call);
int isaac_go_conv(isaac_conv_call *call);
/* After a forward with reason ISAAC_FWD_MEASURING, once the vendor's call
 * is on the stream: Go closes the vendor's timing (call->token says which). */
void isaac_go_gemm_after(isaac_gemm_call *call);
void isaac_go_conv_after(isaac_conv_call *call);
int isaac_go_lt(isaac_lt_call *call);
void isaac_go_lt_after(isaac_lt_call *call);
/* A plan's decoding (exports.go): fills plan from its JSON (json_bytes
 * bytes) and its engine's numerical notes; answers plan->reason. */
int isaac_go_graph_plan(isaac_graph_plan *plan, char *json, int64_t json_bytes, int *notes, int nnotes);
/* At the process's exit: Go's background work ends (serve.Server.Close). */
void isaac_go_exit(void);

/* Guards and counters (guards.c). */
extern int isaac_disabled;          /* ISAAC_DISABLE=1 at load, or isaac_passthrough(1); atomic */
/* isaac_passthrough: from now on every call goes to the vendor untouched, as
 * under ISAAC_DISABLE=1 (on 1), or is handled again (on 0); returns the
 * setting before. Exported: a program (or a benchmark) compares its calls
 * with and without the shim in one process. */
ISAAC_EXPORT int isaac_passthrough(int on);
extern volatile int isaac_forked;   /* set in a forked child */
extern int isaac_log;               /* ISAAC_LOG=1 at load */
extern __thread int isaac_in_vendor; /* this thread is inside a vendor function the shim called */
void isaac_count(int entry, int reason);
void isaac_go_enter(void);          /* before a call is handed to Go: registers isaac_go_exit's handler once */
void isaac_go_exit_register(void);  /* registers it again (after the driver's first JIT) */

/* Vendor resolution (vendor.c). Returns NULL, after one line on stderr the
 * first time, when no vendor library can be found. */
enum isaac_vendor { ISAAC_VENDOR_CUBLAS, ISAAC_VENDOR_CUDNN, ISAAC_VENDOR_CUBLASLT };
void *isaac_vendor_symbol(int vendor, const char *name);
const char *isaac_vendor_path(int vendor);

/* Convolutions whose answer is settled (conv_forwards.c): forwarded from C
 * without asking Go. isaac_conv_forwarded reads the call's descriptors into
 * call->state when anything is remembered and answers 1, with the reason,
 * for a remembered call; Go remembers a call (isaac_conv_remember) once its
 * reason holds for every later call with the same descriptors, handle and
 * pointer alignments, and every convolution (isaac_conv_forward_all) when
 * the policy sends them all to cuDNN. */
int isaac_conv_forwarded(isaac_conv_call *call, int *reason);
int isaac_conv_find(const isaac_conv_call *call, int *reason);
void isaac_conv_remember(const isaac_conv_call *call, int reason);
void isaac_conv_forward_all(void);
extern int isaac_conv_all_forwarded;
void isaac_conv_forget(void);  /* tests: empties the table; not while calls are made */
unsigned long isaac_conv_settled_calls(void);  /* calls answered from the table (ISAAC_LOG) */

/* cuDNN's graph API (graph_plans.c). The shim sees every
 * cudnnBackendSetAttribute and cudnnBackendDestroyDescriptor: it keeps the
 * unique ids, pointers and workspace set on variant packs
 * (isaac_graph_record, after cuDNN accepted them) and each decoded plan
 * until its descriptor is destroyed (isaac_graph_forget). isaac_graph_call
 * makes the convolution call of one cudnnBackendExecute (its plan decoded
 * on first sight, its pointers from the variant pack, the handle's stream
 * read): 0, or the reason cuDNN takes it. */
void isaac_graph_record(void *desc, int name, int type, int64_t count, const void *elements);
void isaac_graph_forget(void *desc);
int isaac_graph_call(void *handle, void *plan, void *variant_pack, isaac_conv_call *call, isaac_graph_scalars *sc);
void isaac_graph_forget_all(void);  /* tests: empties the tables; not while calls are made */

/* GEMMs whose answer is settled (gemm_forwards.c), as for convolutions: a
 * reason Go gave from the call's arguments alone (it read no handle state:
 * isaac_gemm_call.state_used 0) is remembered by those, and any other with
 * the handle's state too. isaac_gemm_forwarded answers 1 with the reason of
 * a remembered call, the handle's state read into call->state when calls
 * are remembered with it. */
int isaac_gemm_forwarded(isaac_gemm_call *call, int *reason);
void isaac_gemm_remember(const isaac_gemm_call *call, int reason);
unsigned long isaac_gemm_settled_calls(void);  /* calls answered from the tables (ISAAC_LOG) */
void isaac_gemm_forget(void);                  /* tests: empties the tables; not while calls are made */

/* Handle state (handle_state.c), called from Go. */
void isaac_read_cublas_state(void *handle, isaac_cublas_state *st);
void isaac_read_conv_state(const isaac_conv_call *call, isaac_conv_state *st);        /* descriptors, then the stream */
void isaac_read_conv_descriptors(const isaac_conv_call *call, isaac_conv_state *st);  /* the descriptors alone */
void isaac_read_conv_stream(const isaac_conv_call *call, isaac_conv_state *st);       /* the handle's stream into st */
void isaac_read_lt_state(const isaac_lt_call *call, isaac_lt_state *st);              /* the matmul descriptor and the four layouts */
/* Every later cublasLtMatmul goes to cuBLASLt from C (reason policy), its
 * descriptors unread: Go sets it when the policy serves none. */
void isaac_lt_forward_all(void);
extern int isaac_lt_all_forwarded;
/* cublasLtMatmul calls whose answer is settled (lt_forwards.c), as for
 * convolutions: isaac_lt_forwarded answers 1 with the reason of a call
 * (its descriptors read) that Go remembered (isaac_lt_remember). */
int isaac_lt_forwarded(const isaac_lt_call *call, int *reason);
void isaac_lt_remember(const isaac_lt_call *call, int reason);
unsigned long isaac_lt_settled_calls(void);  /* calls answered from the table (ISAAC_LOG) */
void isaac_lt_forget(void);                  /* tests: empties the table; not while calls are made */

#endif /* ISAAC_SHIM_H */
