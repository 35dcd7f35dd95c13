// Package engine runs ISAAC's generated GEMM kernels: it maps a request to
// the generator's input class, decides what computes it and launches it on
// the request's stream, in the caller's current context.
//
// Serve is the shim's path. Under Auto (ISAAC_POLICY=auto, the default) the
// device's performance model (ISAAC_WEIGHTS, else the weights shipped for
// the GPU) chooses a configuration for the exact input and predicts the
// vendor's rate; the call is served only where it predicts a win by a
// margin, and every other outcome is a forward reason. Under Always every
// call is served (ISAAC_CONFIG, the model's choice, or the generator's
// heuristic). Decisions are cached per context, class, shape and mode; the
// model's choices are also kept on disk per model and class, and compiled
// kernel images per PTX text, architecture and driver, both under
// ISAAC_CACHE_DIR (default ~/.cache/isaac), so a new process starts with
// them. Under Auto the first call of a shape waits for the model's choice
// (one search) but not for the driver's JIT: a chosen kernel that is
// neither loaded nor on disk is compiled by a goroutine while the vendor
// takes the calls (reason compiling). The first shape of a class whose seed
// pool is neither drawn nor on disk does not wait for the choice either
// (reason searching). A decision to serve is checked on the shape's first
// calls, ours and the vendor's timed alternately (measurement, reasons
// measuring and measured; ISAAC_MEASURE=0 turns it off). With
// ISAAC_SEARCH=async a call whose decision is not
// made yet goes to the vendor while a goroutine makes it, choice included.
//
// A split-K kernel's workspace (partial tiles and arrival counters) is kept
// per stream and reused from call to call, so such a call puts only its
// kernels on the stream; while a stream is captured into a graph each call
// allocates its own, in stream order.
//
// Gemm runs a given configuration (tuners, benchmarks, tests). The package
// is safe for concurrent use from many threads and contexts.
package engine
