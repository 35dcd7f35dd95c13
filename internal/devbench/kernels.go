package devbench

import _ "embed"

// l2ReadPTX is the flush kernel of FlushRead: every thread of a
// grid-stride loop reads 16-byte vectors of the flush buffer through L2
// (ld.global.cg), four independent ones per iteration (vectors i, i+S,
// i+2S, i+3S for S threads) so that each thread keeps 64 bytes in flight,
// and folds them into one word, which it stores to the sink only if it
// equals the magic parameter, so the loads cannot be removed and nothing
// else is written. Reading twice the L2's size leaves the cache full of
// clean lines of the flush buffer: a timed call then misses on all of its
// operands, as after a write flush, but evicts no dirty line, so its time
// carries no write-back of data that is not its own.
//
//go:embed l2_read.ptx
var l2ReadPTX string

// waitPTX is the kernel a blocking Timer puts before each timed call: one
// thread polls a flag in device memory until it holds the call's token
// (written from another stream once the host has enqueued the call) or
// until a time limit passes, so that the call starts on the GPU only when
// all of it is queued: the host's time to enqueue it (a cuBLAS call can take
// tens of microseconds) does not fall between the timing events. The limit
// turns a call that waits on its own stream inside the timed region into a
// wrong time, never a hang.
//
//go:embed wait.ptx
var waitPTX string
