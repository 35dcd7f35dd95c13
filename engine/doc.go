// Package engine runs ISAAC's generated GEMM kernels: it maps a request to
// the generator's input class, chooses a configuration (ISAAC_CONFIG, or the
// generator's documented heuristic until the model chooses), compiles the
// kernel once per CUDA context (keeping compiled images on disk under
// ISAAC_CACHE_DIR, default ~/.cache/isaac, so a new process does not
// recompile) and launches it on the request's stream, in the caller's
// current context. It is safe for concurrent use from many threads and
// contexts.
package engine
