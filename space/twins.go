package space

import (
	"slices"

	"github.com/isaacgo/isaac/ptx"
)

// Twins are configurations derived from drawn ones with options the spaces
// never draw (the predictor's features do not describe them): pipelined
// fragments (PP), a register cap (MR), tiles staged by the tensor copy
// engine (TMA). A sweep or a sampler tries them beside the configurations
// they derive from.

// PipelinedTwins are the PP = 1 twins of the mma.sync and SIMT
// configurations of cfgs with cp.async stages, in cfgs' order, that ok
// accepts: at most n.
func PipelinedTwins(cfgs []ptx.GemmConfig, n int, ok func(ptx.GemmConfig) bool) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	for _, c := range cfgs {
		if len(out) == n {
			break
		}
		if c.Math.IsWGMMA() || c.Stages < 2 || c.PP != 0 {
			continue
		}
		c.PP = 1
		if ok(c) {
			out = append(out, c)
		}
	}
	return out
}

// TMATwins are the TMA = 1 twins of the wgmma configurations of cfgs, each
// at its own k-slice or else at u = 64 (where its own keeps a k-contiguous
// tile from the 128-byte lines the copy engine writes), that ok accepts,
// without repeats.
func TMATwins(cfgs []ptx.GemmConfig, ok func(ptx.GemmConfig) bool) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	for _, c := range cfgs {
		if !c.Math.IsWGMMA() || c.TMA != 0 {
			continue
		}
		c.TMA = 1
		for _, u := range []int{c.U, 64} {
			c.U = u
			if ok(c) && !slices.Contains(out, c) {
				out = append(out, c)
				break
			}
		}
	}
	return out
}

// RegisterCap is the register cap (ptx.GemmConfig.MR) that gives a kernel
// of regs registers per thread and threads threads as many blocks per SM
// (registers alone: regsPerSM, allocated per thread in units of 8) as its
// plain twin of plain registers, when the kernel fits fewer; 0 when it does
// not lose a block or no cap of at least plain's registers keeps it.
func RegisterCap(plain, regs, threads, regsPerSM int) int {
	blocks := func(r int) int { return regsPerSM / ((r + 7) / 8 * 8 * threads) }
	want := blocks(plain)
	if want == 0 || blocks(regs) >= want {
		return 0
	}
	mr := min(regsPerSM/(want*threads)/8*8, 248)
	if mr < plain || mr < 32 {
		return 0
	}
	return mr
}

// StagedTwins are c's staged twins that are legal for class in on dev: for
// a wgmma configuration without staging, its tiles staged by the copy
// engine from the computing threads (TMA = 1, at its own k-slice or else at
// a 128-byte line of k), from a producer warp (TMA = 2) and, without a split
// of the reduction, persistent (PS = 1). The sampler measures them (and the
// pipelined twins, PipelinedTwins) for a model whose features tell them
// apart (predictor's schema v3).
func StagedTwins(c ptx.GemmConfig, in ptx.InputClass, dev ptx.DeviceLimits) []ptx.GemmConfig {
	var out []ptx.GemmConfig
	add := func(t ptx.GemmConfig) bool {
		if t == c || ptx.Legal(t, in, dev) != nil || slices.Contains(out, t) {
			return false
		}
		out = append(out, t)
		return true
	}
	if !c.Math.IsWGMMA() || c.TMA != 0 || c.PS != 0 {
		return nil
	}
	t := c
	t.TMA = 1
	if ptx.Legal(t, in, dev) != nil && in.AType.Size() > 0 {
		t.U = 128 / in.AType.Size()
	}
	if !add(t) {
		return out
	}
	t.TMA = 2
	if add(t) {
		t.PS = 1
		add(t)
	}
	return out
}

// ServedTwins are the twins of c that a search with a model of schema v3
// scores, and so that the server may run: the staged ones (StagedTwins) of
// a wgmma configuration, the pipelined one (PP = 1) of an mma.sync or SIMT
// configuration with cp.async stages, each where it is legal. Register caps
// need the compiled kernel's registers (CappedTwin) and are not among them.
// Under the v3 weights PyTorch's products had looked wrong in every type
// through pipelined kernels (gputest/results/h100/batched/call18): the FP64
// ones were (ptx.Legal refuses them since, gputest/results/h100/pipelined),
// and the other types' errors were those of their float64 reference, which
// the test computed through the shim and so through that FP64 kernel.
func ServedTwins(c ptx.GemmConfig, in ptx.InputClass, dev ptx.DeviceLimits) []ptx.GemmConfig {
	return append(StagedTwins(c, in, dev), PipelinedTwins([]ptx.GemmConfig{c}, 1, func(t ptx.GemmConfig) bool {
		return t.MR == 0 && ptx.Legal(t, in, dev) == nil
	})...)
}

// CappedTwin is the register-capped twin (MR) of t, a pipelined
// configuration, where t's kernel fits fewer blocks per SM than its plain
// twin's (RegisterCap, from both kernels' registers as registers reports
// them), legal for class in on dev; false where there is none or a kernel
// does not load.
func CappedTwin(t ptx.GemmConfig, in ptx.InputClass, dev ptx.DeviceLimits, registers func(ptx.GemmConfig) (int, error)) (ptx.GemmConfig, bool) {
	if t.PP != 1 || t.MR != 0 {
		return t, false
	}
	plain := t
	plain.PP = 0
	r0, err0 := registers(plain)
	r1, err1 := registers(t)
	if err0 != nil || err1 != nil {
		return t, false
	}
	mr := RegisterCap(r0, r1, t.Threads(), dev.RegistersPerSM)
	if mr == 0 {
		return t, false
	}
	c := t
	c.MR = mr
	return c, ptx.Legal(c, in, dev) == nil
}
