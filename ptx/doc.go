// Package ptx generates PTX source for ISAAC's kernels: GEMM, and
// convolution as an implicit GEMM of the same kernels (an InputClass with
// Conv set; see ConvOrder).
//
// It is pure Go and does no I/O: given a tuning configuration (GemmConfig,
// the parameters of the ISAAC paper's Figure 3 plus vector widths, cp.async
// pipeline stages and the math instruction) and an input class (data types,
// transpositions, alignments), GenerateGemm returns a Kernel: PTX text, the
// launch geometry and the parameter list a runtime needs. Legal is the single
// rule deciding which (config, class, device) triples are valid; the
// generator, the sampler and the search all use it, and every configuration
// it accepts is meant to compute the exact cuBLAS result for every shape.
//
// Three math families share the loaders, epilogues and splits: SIMT FMA,
// warp-level mma.sync (f16, bf16, tf32, f64) and, on sm_90 (PTX target
// sm_90a), warpgroup wgmma.mma_async for f16 and bf16, whose operands the
// tensor cores read from shared memory through matrix descriptors. SpaceFor
// is the tuning space of the first two and WarpgroupSpace that of wgmma; the
// sampler, the sweep and the predictor's search draw from both.
//
// The kernels compute, column-major and with cuBLAS semantics,
//
//	C = alpha * op(A) * op(B) + beta * C,  op(A) m×k, op(B) k×n, C m×n.
//
// # Kernel ABI
//
// Every kernel (the GEMM kernel and, when KG > 1, its split-K reduction
// kernel) takes the same parameters, in this order:
//
//	u64 A, u64 B, u64 C,           // device pointers
//	s32 M, s32 N, s32 K,
//	s32 lda, s32 ldb, s32 ldc,      // in elements
//	<ct> alpha, <ct> beta,          // ct = compute type: .b16 (f16 bits), .f32 or .f64
//	u64 alphaPtr, u64 betaPtr,      // non-zero: load the scalar (compute type) from device memory
//	u64 workspace,                  // Kernel.WorkspaceBytes(m,n,k) bytes, or 0 when none are needed
//	u64 counters                    // Kernel.Counters(m,n) zeroed 32-bit words, or 0 when none are needed
//
// Kernel.Params lists them with their sizes. Launch the GEMM kernel with
// Block, Grid(m,n,k) and SharedBytes of dynamic shared memory (raise
// CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES when it exceeds 48 KiB),
// then, if Reduce is not nil, the reduction kernel on the same stream with its
// own Block, Grid and SharedBytes. A, B and C are never padded: bounds are
// handled with predicated loads (zero fill) and stores. When beta is zero C is
// not read, when alpha is zero A and B do not contribute (so NaN or Inf in
// them does not leak), and K == 0 gives C = beta*C. Address arithmetic is
// 64-bit. Results are deterministic: split-K (KG) writes per-split partial
// tiles in the compute precision to the workspace, and they are summed in a
// fixed order, either by the reduction kernel or, when the tile's partials
// are small (Kernel.Counters reports counters), in the GEMM kernel itself by
// the last block of the tile to arrive, found with one atomic addition on a
// per-tile counter that is zero at the launch and that the kernel leaves
// zero (so a stream's counters are zeroed once, not per launch); with many
// slices, over two levels (groups of slices, then the groups' sums); block-level
// splits (KL) reduce through shared memory in a fixed order. No atomic ever
// adds data, so the order of arrival never changes a result.
package ptx
