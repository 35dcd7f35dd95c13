package ptx

// geometry holds everything derived from (config, class) that both Legal and
// the emitters need, so the two can never disagree.
type geometry struct {
	cfg GemmConfig
	in  InputClass

	es      int // A/B element size in shared memory (bytes)
	mmaM    int // mma instruction shape (1,1,1 for SIMT)
	mmaN    int
	mmaK    int
	threads int
	tg      int // threads per KL group
	uk      int // k-depth of one KL group per tile (U/KL)

	// SIMT thread grid / MMA warp grid within one KL group.
	tm, tn int // SIMT: ML/MS, NL/NS; MMA: warps along M, N
	wm, wn int // MMA warp tile (MS*mmaM, NS*mmaN)

	a, b operandGeom

	stageBytes  int // bytes of one pipeline stage (A tile + B tile)
	tileSmem    int // stages * stageBytes
	redSmem     int // shared bytes for the KL reduction
	sharedBytes int // dynamic shared memory of the GEMM kernel

	epiType DataType // F32 or F64: alpha/beta arithmetic and workspace type
	elems   int      // accumulator elements per thread (after KS summation)
}

// operandGeom describes the staging of one operand tile (A: ML×U, B: U×NL).
type operandGeom struct {
	kContig bool // contiguous along k in global memory (A 'T', B 'N')
	mn      int  // tile extent along m (A) or n (B)
	vec     int  // global vector width (elements)
	stride  int  // shared row stride in elements
	lc, lo  int  // tile extents along the contiguous / other dimension
	w       int  // vectors per contiguous line (lc/vec)
	total   int  // vectors per tile
	loads   int  // vector loads per thread per tile
	bytes   int  // bytes of the tile in shared memory (16-byte rounded)
	offset  int  // byte offset of the tile within a stage
}

func newGeometry(cfg GemmConfig, in InputClass) geometry {
	g := geometry{cfg: cfg, in: in}
	g.es = in.AType.Size()
	g.mmaM, g.mmaN, g.mmaK = cfg.Math.mmaShape()
	g.threads = cfg.threads()
	if cfg.KL > 0 {
		g.tg = g.threads / cfg.KL
		g.uk = cfg.U / cfg.KL
	}
	if cfg.Math.IsMMA() {
		g.wm, g.wn = cfg.MS*g.mmaM, cfg.NS*g.mmaN
		if g.wm > 0 && g.wn > 0 {
			g.tm, g.tn = cfg.ML/g.wm, cfg.NL/g.wn
		}
	} else if cfg.MS > 0 && cfg.NS > 0 {
		g.tm, g.tn = cfg.ML/cfg.MS, cfg.NL/cfg.NS
	}
	pad := 0
	if g.es > 0 {
		pad = 16 / g.es
	}
	g.a = newOperandGeom(in.TransA == T, cfg.ML, cfg.U, cfg.VecA, pad, g.es, g.threads)
	g.b = newOperandGeom(in.TransB == N, cfg.NL, cfg.U, cfg.VecB, pad, g.es, g.threads)
	g.b.offset = g.a.bytes
	g.stageBytes = g.a.bytes + g.b.bytes
	g.tileSmem = max(cfg.Stages, 1) * g.stageBytes
	g.epiType = F32
	if in.Compute == F64 {
		g.epiType = F64
	}
	if cfg.Math.IsMMA() {
		g.elems = cfg.MS * cfg.NS * g.mmaM * g.mmaN / 32
	} else {
		g.elems = cfg.MS * cfg.NS
	}
	if cfg.KL > 1 {
		g.redSmem = (cfg.KL - 1) * g.elems * g.tg * g.epiType.Size()
	}
	g.sharedBytes = max(g.tileSmem, g.redSmem)
	return g
}

func newOperandGeom(kContig bool, mn, u, vec, pad, es, threads int) operandGeom {
	o := operandGeom{kContig: kContig, mn: mn, vec: vec}
	if kContig {
		o.lc, o.lo = u, mn
	} else {
		o.lc, o.lo = mn, u
	}
	o.stride = o.lc + pad
	if vec > 0 {
		o.w = o.lc / vec
	}
	o.total = o.w * o.lo
	if threads > 0 {
		o.loads = (o.total + threads - 1) / threads
	}
	o.bytes = (o.lo*o.stride*es + 15) / 16 * 16
	return o
}

// smemOff is the element offset within the tile of (mn index, k index).
func (o operandGeom) smemOff(mnIdx, kIdx int) int {
	if o.kContig {
		return mnIdx*o.stride + kIdx
	}
	return kIdx*o.stride + mnIdx
}

// regEstimate is a conservative per-thread 32-bit register estimate.
func (g geometry) regEstimate() int {
	c := g.cfg
	w := 1 // 32-bit words per accumulator / fragment value
	if g.in.Compute == F64 {
		w = 2
	}
	acc, frag := 0, 0
	if c.Math.IsMMA() {
		// accumulators: per mma, mmaM*mmaN/32 values; f16acc packs two per word
		per := g.mmaM * g.mmaN / 32
		if c.Math == MMA_F16_F16ACC {
			acc = c.KS * c.MS * c.NS * per / 2
		} else {
			acc = c.KS * c.MS * c.NS * per * w
		}
		aw := g.mmaM * g.mmaK / 32 * g.es / 4 // words of one A fragment
		bw := g.mmaN * g.mmaK / 32 * g.es / 4
		if aw < 1 {
			aw = 1
		}
		frag = c.MS*max(aw, 1) + c.NS*max(bw, 1)
		if g.es == 8 {
			frag = (c.MS + c.NS) * 2
		}
	} else {
		acc = c.KS * c.MS * c.NS * w
		frag = g.simtVK() * (c.MS + c.NS) * w
	}
	loads := g.a.loads + g.b.loads
	stage := 0
	if c.Stages <= 1 {
		stage = (g.a.loads*g.a.vec + g.b.loads*g.b.vec) * g.es / 4
		stage = max(stage, loads)
	}
	regs := acc + frag + stage + 5*loads + 32
	if !c.Math.IsMMA() {
		// 25% margin for SIMT: the JIT's allocation exceeds the count of
		// live values (measured on an H100: a 512-thread f16 FFMA kernel
		// estimated at 120 registers needed more than 128). The mma
		// estimate is already above what ptxas allocates.
		regs = regs * 5 / 4
	}
	return regs
}

// simtVK is the number of k values a SIMT thread fetches per inner step.
func (g geometry) simtVK() int {
	vk := 4
	if g.es == 8 {
		vk = 2
	}
	return max(1, min(vk, g.uk))
}
