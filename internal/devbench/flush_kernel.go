package devbench

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
	.reg .pred %p<6>;
	.reg .b32 %r<24>;
	.reg .b64 %rd<16>;

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
	shl.b64 %rd9, %rd6, 4;
	shl.b64 %rd10, %rd6, 2;
	mov.u32 %r6, 0;
	setp.ge.u64 %p1, %rd4, %rd2;
	@%p1 bra DONE;
LOOP:
	mov.u32 %r11, 0;
	mov.u32 %r12, 0;
	mov.u32 %r13, 0;
	mov.u32 %r14, 0;
	mov.u32 %r15, 0;
	mov.u32 %r16, 0;
	mov.u32 %r17, 0;
	mov.u32 %r18, 0;
	mov.u32 %r19, 0;
	mov.u32 %r20, 0;
	mov.u32 %r21, 0;
	mov.u32 %r22, 0;
	shl.b64 %rd7, %rd4, 4;
	add.u64 %rd8, %rd1, %rd7;
	add.u64 %rd11, %rd4, %rd6;
	setp.lt.u64 %p3, %rd11, %rd2;
	add.u64 %rd11, %rd11, %rd6;
	setp.lt.u64 %p4, %rd11, %rd2;
	add.u64 %rd11, %rd11, %rd6;
	setp.lt.u64 %p5, %rd11, %rd2;
	ld.global.cg.v4.u32 {%r7, %r8, %r9, %r10}, [%rd8];
	add.u64 %rd12, %rd8, %rd9;
	@%p3 ld.global.cg.v4.u32 {%r11, %r12, %r13, %r14}, [%rd12];
	add.u64 %rd13, %rd12, %rd9;
	@%p4 ld.global.cg.v4.u32 {%r15, %r16, %r17, %r18}, [%rd13];
	add.u64 %rd14, %rd13, %rd9;
	@%p5 ld.global.cg.v4.u32 {%r19, %r20, %r21, %r22}, [%rd14];
	xor.b32 %r6, %r6, %r7;
	xor.b32 %r6, %r6, %r8;
	xor.b32 %r6, %r6, %r9;
	xor.b32 %r6, %r6, %r10;
	xor.b32 %r6, %r6, %r11;
	xor.b32 %r6, %r6, %r12;
	xor.b32 %r6, %r6, %r13;
	xor.b32 %r6, %r6, %r14;
	xor.b32 %r6, %r6, %r15;
	xor.b32 %r6, %r6, %r16;
	xor.b32 %r6, %r6, %r17;
	xor.b32 %r6, %r6, %r18;
	xor.b32 %r6, %r6, %r19;
	xor.b32 %r6, %r6, %r20;
	xor.b32 %r6, %r6, %r21;
	xor.b32 %r6, %r6, %r22;
	add.u64 %rd4, %rd4, %rd10;
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
