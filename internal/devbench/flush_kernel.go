package devbench

// l2ReadPTX is the flush kernel of FlushRead: every thread of a
// grid-stride loop reads 16-byte vectors of the flush buffer through L2
// (ld.global.cg) and folds them into one word, which it stores to the sink
// only if it equals the magic parameter, so the loads cannot be removed and
// nothing else is written. Reading twice the L2's size leaves the cache
// full of clean lines of the flush buffer: a timed call then misses on all
// of its operands, as after a write flush, but evicts no dirty line, so
// its time carries no write-back of data that is not its own.
const l2ReadPTX = `.version 7.8
.target sm_70
.address_size 64

.visible .entry isaac_l2_read(
	.param .u64 p_buf,
	.param .u64 p_n,
	.param .u64 p_sink,
	.param .u32 p_magic
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<12>;
	.reg .b64 %rd<9>;

	ld.param.u64 %rd1, [p_buf];
	ld.param.u64 %rd2, [p_n];
	ld.param.u64 %rd3, [p_sink];
	ld.param.u32 %r1, [p_magic];
	mov.u32 %r2, %ctaid.x;
	mov.u32 %r3, %ntid.x;
	mov.u32 %r4, %tid.x;
	mov.u32 %r5, %nctaid.x;
	mul.wide.u32 %rd4, %r2, %r3;
	cvt.u64.u32 %rd5, %r4;
	add.u64 %rd4, %rd4, %rd5;
	mul.wide.u32 %rd6, %r5, %r3;
	mov.u32 %r6, 0;
	setp.ge.u64 %p1, %rd4, %rd2;
	@%p1 bra DONE;
LOOP:
	shl.b64 %rd7, %rd4, 4;
	add.u64 %rd8, %rd1, %rd7;
	ld.global.cg.v4.u32 {%r7, %r8, %r9, %r10}, [%rd8];
	xor.b32 %r6, %r6, %r7;
	xor.b32 %r6, %r6, %r8;
	xor.b32 %r6, %r6, %r9;
	xor.b32 %r6, %r6, %r10;
	add.u64 %rd4, %rd4, %rd6;
	setp.lt.u64 %p1, %rd4, %rd2;
	@%p1 bra LOOP;
DONE:
	setp.ne.u32 %p2, %r6, %r1;
	@%p2 bra END;
	st.global.u32 [%rd3], %r6;
END:
	ret;
}
`

// waitPTX is the kernel a blocking Timer puts before each timed call: one
// thread polls a flag in device memory until it holds the call's token
// (written from another stream once the host has enqueued the call) or
// until a time limit passes, so that the call starts on the GPU only when
// all of it is queued: the host's time to enqueue it (a cuBLAS call can take
// tens of microseconds) does not fall between the timing events. The limit
// turns a call that waits on its own stream inside the timed region into a
// wrong time, never a hang.
const waitPTX = `.version 7.8
.target sm_70
.address_size 64

.visible .entry isaac_wait(
	.param .u64 p_flag,
	.param .u32 p_token,
	.param .u64 p_limit_ns
)
{
	.reg .pred %p<3>;
	.reg .b32 %r<3>;
	.reg .b64 %rd<6>;

	ld.param.u64 %rd1, [p_flag];
	ld.param.u32 %r1, [p_token];
	ld.param.u64 %rd2, [p_limit_ns];
	mov.u64 %rd3, %globaltimer;
	add.u64 %rd4, %rd3, %rd2;
POLL:
	ld.volatile.global.u32 %r2, [%rd1];
	setp.eq.u32 %p1, %r2, %r1;
	@%p1 bra DONE;
	mov.u64 %rd5, %globaltimer;
	setp.ge.u64 %p2, %rd5, %rd4;
	@%p2 bra DONE;
	nanosleep.u32 200;
	bra POLL;
DONE:
	ret;
}
`
