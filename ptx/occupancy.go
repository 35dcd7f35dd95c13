package ptx

// Occupancy estimates the warps of a legal configuration resident on one
// SM: the blocks that fit by threads (2,048 per SM), shared memory and
// registers (Legal's estimates), at most 32 blocks. It is the "maximum
// occupancy" baseline of the tuner's evaluation, not a model of speed.
func Occupancy(cfg GemmConfig, in InputClass, dev DeviceLimits) int {
	g := newGeometry(cfg, in)
	if g.threads <= 0 {
		return 0
	}
	blocks := min(32, 2048/g.threads)
	if g.sharedBytes > 0 {
		blocks = min(blocks, dev.MaxSharedPerSM/(g.sharedBytes+1024)) // 1 KiB reserved per block
	}
	if r := g.regEstimate() * g.threads; r > 0 {
		blocks = min(blocks, dev.RegistersPerSM/r)
	}
	return max(blocks, 0) * g.threads / 32
}
