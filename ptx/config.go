package ptx

// GemmConfig holds the tuning parameters of one GEMM kernel.
//
// For SIMT math (FFMA, DFMA, HFMA) MS×NS is the tile of C each thread
// computes. For mma math MS×NS counts mma instructions per warp: a warp
// computes (MS·mmaM)×(NS·mmaN) of C (mmaM×mmaN = 16×8 or 8×8 for f64).
// For wgmma math a warpgroup computes (MS·64)×(NS·8) of C with MS
// wgmma.m64n(8·NS)k16 instructions per k-step.
// ML×NL is the tile of C of one thread block, U the depth of the k-slice
// staged in shared memory per main-loop iteration. KS splits each thread's
// reduction into independent accumulator sets, KL splits a block's k-slice
// among KL thread groups reduced through shared memory, KG splits K across
// the grid (partials go to the workspace and a reduction kernel sums them).
// KC (sm_90) splits each block's k-range further among the KC blocks of a
// thread-block cluster, which add their partial tiles through distributed
// shared memory before one write: no workspace and no second kernel; 0 and
// 1 both mean no cluster.
// VecA/VecB are global load vector widths in elements. Stages is the number
// of shared-memory pipeline stages: 1 prefetches the next slice into
// registers, ≥2 uses cp.async with that many stages in flight. PP = 1
// (mma.sync and SIMT kernels with cp.async stages) pipelines the fragments
// across tiles: each tile's first k-step is loaded before the previous
// tile's last mma or FMA instructions (loopPipelined); 0 is the plain loop. The model's
// parameter spaces do not hold it yet (no configuration of the tuning data
// has it), so only the sweep's grids and explicit configurations use it.
// MR, when set, caps the registers per thread (PTX .maxnreg; ptxas keeps
// what does not fit in local memory): a way to keep a block per SM that a
// few registers more would cost. Like PP it lies outside the spaces.
// TMA = 1 (wgmma kernels whose operand tiles are both in the 128-byte
// swizzled layout) stages the tiles with the bulk tensor copy engine
// (cp.async.bulk.tensor, completing on an mbarrier per stage) from tensor
// maps the host encodes per call, instead of cp.async copies from every
// thread (loopTMA); like PP and MR it lies outside the spaces.
// PS = 1 (TMA = 2 kernels without a split of the reduction) makes the
// kernel persistent: a grid of as many blocks as the device holds at once,
// each walking the output tiles (block b takes tiles b, b + grid, …), its
// producer warp running on into the next tile's copies while the
// computing warpgroups write the last one (loopTMAPersistent); it too lies
// outside the spaces.
type GemmConfig struct {
	MS, NS     int
	ML, NL     int
	U          int
	KS, KL, KG int
	KC         int
	VecA, VecB int
	Stages     int
	Math       Math
	PP         int
	MR         int
	TMA        int
	PS         int
}

// clusterSize is the number of blocks of a cluster (1 without one).
func (c GemmConfig) clusterSize() int { return max(1, c.KC) }

// threads is the block size implied by the configuration.
func (c GemmConfig) threads() int {
	mM, mN, _ := c.Math.mmaShape()
	if c.Math.IsMMA() {
		wm, wn := c.MS*mM, c.NS*mN
		if wm == 0 || wn == 0 {
			return 0
		}
		return c.Math.unitThreads() * (c.ML / wm) * (c.NL / wn) * c.KL
	}
	if c.MS == 0 || c.NS == 0 {
		return 0
	}
	return (c.ML / c.MS) * (c.NL / c.NS) * c.KL
}

// Threads is the number of threads of a block of the configuration: those
// that compute, and the producer warp of TMA = 2.
func (c GemmConfig) Threads() int {
	if c.TMA == 2 {
		return c.threads() + 32
	}
	return c.threads()
}
