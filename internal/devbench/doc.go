// Package devbench measures work on the GPU machine the way DESIGN.md's
// "Measuring" section says: one stream, CUDA events around each call, the
// L2 cache flushed before every timed run, operands filled with non-zero
// data, and a record of the device, driver and clocks with every result.
// bench_compare and isaac-tune both time through it, so a tuning sample and
// a benchmark row mean the same thing.
package devbench
