package serve

// holdPTX is a one-thread kernel, isaac_hold(u64 ns), that keeps its
// stream busy for ns nanoseconds of %globaltimer. The check of a decision
// to serve launches it before each timed call, so that the call is
// enqueued while the GPU is still busy and its events time the device's
// work alone, not the host's work between the start event and the launch
// (which differs between our launch path and the vendor's).
const holdPTX = `.version 7.8
.target sm_70
.address_size 64

.visible .entry isaac_hold(
	.param .u64 p_ns
)
{
	.reg .pred %p<2>;
	.reg .b64 %rd<5>;

	ld.param.u64 %rd1, [p_ns];
	mov.u64 %rd2, %globaltimer;
	add.u64 %rd3, %rd2, %rd1;
HOLD_LOOP:
	nanosleep.u32 1000;
	mov.u64 %rd4, %globaltimer;
	setp.lt.u64 %p1, %rd4, %rd3;
	@%p1 bra.uni HOLD_LOOP;
	ret;
}
`

// holdEntry is holdPTX's entry.
const holdEntry = "isaac_hold"
