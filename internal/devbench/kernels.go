package devbench

import _ "embed"

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
