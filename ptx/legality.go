package ptx

import "fmt"

func isPow2(v int) bool { return v > 0 && v&(v-1) == 0 }

func inPow2Range(v, lo, hi int) bool { return isPow2(v) && v >= lo && v <= hi }

// Legal reports whether the kernel generated for (cfg, in) is valid and can
// run on dev. It is the single legality rule of the package: GenerateGemm,
// the sampler and the search all use it. A nil error promises that the kernel
// computes the exact GEMM for every shape.
func Legal(cfg GemmConfig, in InputClass, dev DeviceLimits) error {
	if err := in.Validate(); err != nil {
		return err
	}
	if err := dev.Supported(); err != nil {
		return illegal("%v", err)
	}
	m := cfg.Math
	switch {
	case m < FFMA || m > lastWGMMA:
		return illegal("ptx: unknown math %d", int(m))
	case !m.compatible(in.AType, in.Compute, in.AllowTF32):
		return illegal("ptx: math %s incompatible with A=%s compute=%s (tf32 allowed: %v)", m, in.AType, in.Compute, in.AllowTF32)
	case m.sm90Only() && dev.SMMajor < 9:
		return illegal("ptx: math %s needs sm_90 or newer", m)
	case m.IsWGMMA() && (dev.SMMajor != 9 || dev.SMMinor != 0):
		return illegal("ptx: math %s needs sm_90a (compute capability 9.0 exactly)", m)
	}
	msMax, nsMax := 8, 8
	if !m.IsMMA() {
		msMax, nsMax = 16, 16 // SIMT thread tiles up to 16×8 / 8×16 (see the register check)
	}
	if m.IsWGMMA() {
		nsMax = 32 // wgmma n = 8·NS up to 256
	}
	for _, p := range []struct {
		name      string
		v, lo, hi int
	}{
		{"ms", cfg.MS, 1, msMax}, {"ns", cfg.NS, 1, nsMax}, {"ml", cfg.ML, 8, 256}, {"nl", cfg.NL, 8, 256},
		{"u", cfg.U, 4, 64}, {"ks", cfg.KS, 1, 8}, {"kl", cfg.KL, 1, 8},
		{"va", cfg.VecA, 1, 8}, {"vb", cfg.VecB, 1, 8},
	} {
		if !inPow2Range(p.v, p.lo, p.hi) {
			return illegal("ptx: %s=%d must be a power of two in [%d,%d]", p.name, p.v, p.lo, p.hi)
		}
	}
	if cfg.KG < 1 || cfg.KG > 512 {
		// Any count: a grid of tiles·KG blocks can then match the SMs.
		return illegal("ptx: kg=%d must be in [1,512]", cfg.KG)
	}
	switch cfg.KC {
	case 0, 1:
	case 2, 4, 8:
		if dev.SMMajor < 9 {
			return illegal("ptx: kc=%d (thread-block clusters) needs sm_90 or newer", cfg.KC)
		}
		if cfg.KL > 1 {
			return illegal("ptx: kc=%d with kl=%d: the cluster reduction needs every thread of the block", cfg.KC, cfg.KL)
		}
	default:
		return illegal("ptx: kc=%d must be 1, 2, 4 or 8", cfg.KC)
	}
	switch {
	case cfg.Stages < 1 || cfg.Stages > 8:
		return illegal("ptx: st=%d must be in [1,8]", cfg.Stages)
	case cfg.MR != 0 && (cfg.MR < 32 || cfg.MR > 248 || cfg.MR%8 != 0):
		return illegal("ptx: mr=%d must be 0 or a multiple of 8 in [32,248]", cfg.MR)
	case cfg.PP < 0 || cfg.PP > 1:
		return illegal("ptx: pp=%d must be 0 or 1", cfg.PP)
	case cfg.PP == 1 && (m.IsWGMMA() || cfg.Stages < 2):
		return illegal("ptx: pp=1 (fragments pipelined across tiles) needs mma.sync or SIMT math and cp.async stages (math %s, st=%d)", m, cfg.Stages)
	case cfg.PP == 1 && m.isF64MMA():
		// The driver's compiler (CUDA 13.0, sm_90) rotates the pipelined
		// loop so that its first DMMA reads the accumulators without
		// waiting for the previous iteration's last DMMA to write them
		// (its scoreboard is not among the first's waits): results wrong
		// and different run to run on an H100, where the plain twins are
		// exact (gputest/results/h100/pipelined/call1, call2).
		return illegal("ptx: pp=1 with f64 mma.sync (math %s) is not allowed (the compiled loop reads the accumulators before the last mma writes them)", m)
	case cfg.TMA < 0 || cfg.TMA > 2:
		return illegal("ptx: tma=%d must be 0, 1 or 2", cfg.TMA)
	case cfg.TMA >= 1 && !m.IsWGMMA():
		return illegal("ptx: tma=%d (bulk tensor copies) needs wgmma math (math %s)", cfg.TMA, m)
	case cfg.PS < 0 || cfg.PS > 1:
		return illegal("ptx: ps=%d must be 0 or 1", cfg.PS)
	case cfg.PS == 1 && (cfg.TMA != 2 || cfg.KG != 1 || max(cfg.KC, 1) > 1):
		// The producer warp runs on into the next tile; a split's partials
		// and fixups are per block and tile.
		return illegal("ptx: ps=1 (a persistent grid) needs tma=2 and no split of the reduction (tma=%d kg=%d kc=%d)", cfg.TMA, cfg.KG, cfg.KC)
	case cfg.TMA == 2 && max(cfg.KC, 1) > 1:
		// The cluster epilogue's barriers span whole blocks; the producer
		// warp has left by then.
		return illegal("ptx: tma=2 (a producer warp) has no cluster split (kc=%d)", cfg.KC)
	}
	if err := batchLegal(cfg, in); err != nil {
		return err
	}
	if err := epilogueLegal(cfg, in); err != nil {
		return err
	}
	if m.IsWGMMA() {
		if err := warpgroupLegal(cfg, in); err != nil {
			return err
		}
	}
	if in.Conv != NotConv {
		if err := convLegal(cfg, in); err != nil {
			return err
		}
	}
	g := newGeometry(cfg, in)
	if cfg.TMA >= 1 && !(g.a.swizzle && g.b.swizzle) {
		// The copy engine writes boxes of 128-byte lines in the 128-byte
		// swizzle: k-contiguous tiles need u·es = 128, m/n-contiguous ones
		// whole 128-byte lines and instructions.
		return illegal("ptx: tma>=1 needs both operand tiles in the 128-byte swizzled layout (A swizzled %v, B swizzled %v)", g.a.swizzle, g.b.swizzle)
	}
	switch {
	case m.IsMMA() && (cfg.ML%g.wm != 0 || cfg.NL%g.wn != 0):
		return illegal("ptx: block tile %dx%d not a multiple of the warp tile %dx%d", cfg.ML, cfg.NL, g.wm, g.wn)
	case m.IsMMA() && (cfg.U%cfg.KL != 0 || g.uk%(g.mmaK*cfg.KS) != 0):
		return illegal("ptx: u/kl=%d/%d must be a multiple of mma k (%d) times ks (%d)", cfg.U, cfg.KL, g.mmaK, cfg.KS)
	case !m.IsMMA() && (cfg.ML%cfg.MS != 0 || cfg.NL%cfg.NS != 0):
		return illegal("ptx: block tile %dx%d not a multiple of the thread tile %dx%d", cfg.ML, cfg.NL, cfg.MS, cfg.NS)
	case !m.IsMMA() && (cfg.U%cfg.KL != 0 || g.uk%cfg.KS != 0):
		return illegal("ptx: u=%d must be a multiple of kl*ks=%d", cfg.U, cfg.KL*cfg.KS)
	case !m.IsMMA() && g.uk%g.simtVK() != 0:
		return illegal("ptx: u/kl=%d must be a multiple of the inner k step %d", g.uk, g.simtVK())
	case g.threads < 32 || g.threads%32 != 0:
		return illegal("ptx: %d threads per block is not a positive multiple of 32", g.threads)
	case g.block > dev.MaxThreadsPerBlock || g.block > 1024:
		return illegal("ptx: %d threads per block exceeds %d", g.block, dev.MaxThreadsPerBlock)
	}
	if err := vecLegal("a", cfg.VecA, in.AlignA, g.a, g.es, cfg.Stages); err != nil {
		return err
	}
	if err := vecLegal("b", cfg.VecB, in.AlignB, g.b, g.es, cfg.Stages); err != nil {
		return err
	}
	if g.sharedBytes > dev.MaxSharedPerBlockOptin || g.sharedBytes > dev.MaxSharedPerSM {
		return illegal("ptx: %d bytes of shared memory exceed the device limit %d", g.sharedBytes, min(dev.MaxSharedPerBlockOptin, dev.MaxSharedPerSM))
	}
	regs := g.regEstimate()
	if cfg.MR > 0 {
		regs = min(regs, cfg.MR) // ptxas spills the rest
	}
	switch {
	case regs > dev.MaxRegistersPerThread || regs > 255:
		return illegal("ptx: estimated %d registers per thread exceed %d", regs, min(dev.MaxRegistersPerThread, 255))
	case regs*g.block > dev.RegistersPerBlock || regs*g.block > dev.RegistersPerSM:
		return illegal("ptx: estimated %d registers per block exceed the register file (%d)", regs*g.block, dev.RegistersPerBlock)
	}
	return nil
}

// warpgroupLegal holds the rules only the wgmma kernels have: whole
// 16-byte rows of core matrices (16-byte vectors, so 16-byte aligned
// operands), k-steps of 16, at least one stage under the tensor cores and
// one in flight besides the one being consumed, at most two instructions
// (128 rows) per warpgroup, and no k-splits inside the block.
func warpgroupLegal(cfg GemmConfig, in InputClass) error {
	es := in.AType.Size()
	switch {
	case cfg.VecA*es != 16 || cfg.VecB*es != 16:
		return illegal("ptx: wgmma needs 16-byte vectors (va=%d vb=%d)", cfg.VecA, cfg.VecB)
	case cfg.U%16 != 0:
		return illegal("ptx: wgmma needs u a multiple of 16 (u=%d)", cfg.U)
	case cfg.Stages < 3:
		return illegal("ptx: wgmma needs at least 3 stages (st=%d)", cfg.Stages)
	case cfg.MS > 2:
		return illegal("ptx: wgmma takes at most 2 instructions along m per warpgroup (ms=%d)", cfg.MS)
	case cfg.KS != 1 || cfg.KL != 1:
		return illegal("ptx: wgmma kernels have no ks/kl split (ks=%d kl=%d)", cfg.KS, cfg.KL)
	case cfg.Math == WGMMA_TF32 && (in.TransA != T || in.TransB != N):
		// The instruction takes no transposes for 32-bit inputs.
		return illegal("ptx: wgmma_tf32 reads k-contiguous A and B only (A %s, B %s)", in.TransA, in.TransB)
	}
	return nil
}

func vecLegal(name string, vec, align int, o operandGeom, es, stages int) error {
	switch {
	case vec > align:
		return illegal("ptx: v%s=%d exceeds the alignment %d of %s", name, vec, align, name)
	case vec*es > 16:
		return illegal("ptx: v%s=%d is %d bytes, more than a 16-byte vector", name, vec, vec*es)
	case o.lc%vec != 0:
		return illegal("ptx: v%s=%d does not divide the contiguous tile extent %d", name, vec, o.lc)
	case stages >= 2 && vec*es < 4:
		return illegal("ptx: cp.async needs at least 4-byte copies but v%s=%d is %d bytes", name, vec, vec*es)
	}
	return nil
}

// legalityError is why Legal rejects a configuration, formatted only when
// asked: a search draws many configurations that Legal rejects, and
// formatting every reason cost more than the checks themselves.
type legalityError struct {
	format string
	args   []any
}

func (e *legalityError) Error() string { return fmt.Sprintf(e.format, e.args...) }

func illegal(format string, args ...any) error { return &legalityError{format, args} }
