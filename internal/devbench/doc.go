// Package devbench measures work on the GPU machine the way DESIGN.md's
// "Measuring" section says: one stream, CUDA events around each call, the
// L2 cache flushed before every timed run, operands filled with non-zero
// data, and a record of the device, driver and clocks with every result.
// bench_compare and isaac-tune both time through it. Their flushes differ by
// default (Flush): bench_compare reads L2 clean, isaac-tune writes it, as
// every committed training sample was measured; ISAAC_BENCH_FLUSH sets both.
package devbench
