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
	threads int // threads that compute (and run the epilogue)
	block   int // threads of the block: threads, and a producer warp with TMA = 2
	tg      int // threads per KL group
	uk      int // k-depth of one KL group per tile (U/KL)

	// SIMT thread grid / MMA warp grid within one KL group.
	tm, tn int // SIMT: ML/MS, NL/NS; MMA: warps along M, N
	wm, wn int // MMA warp tile (MS*mmaM, NS*mmaN)

	a, b operandGeom

	stageBytes  int // bytes of one pipeline stage (A tile + B tile)
	tileSmem    int // stages * stageBytes
	redSmem     int // shared bytes for the KL reduction
	stageCols   int // mma epilogue: columns of C staged per pass (0: no staging)
	stageStride int // elements between staged columns (ML plus 16 bytes of padding)
	stageSmem   int // shared bytes of one staging pass
	kc          int // blocks per cluster (1: none)
	clusterSmem int // KC > 1: the block's whole partial tile (epilogue type)
	barOff      int // TMA: byte offset of the stages' mbarriers (8 bytes each), past everything else
	sharedBytes int // dynamic shared memory of the GEMM kernel

	epiType DataType // F32 or F64: alpha/beta arithmetic and workspace type
	elems   int      // accumulator elements per thread (after KS summation)

	// A wgmma convolution's staged epilogue (convRowStaged, convColStaged):
	// the tile in y's type at convStageOff, by rows (a pixel's NL channels
	// every convRowBytes) or by columns (a channel's ML pixels every
	// convColBytes), each with 16 bytes of padding, then the ML pixels'
	// offsets (s32) at convOffsOff: in the main loop's stages, or past them
	// in a persistent kernel, whose producer is already filling them.
	// convStage false: none.
	convStage                  bool
	convRowBytes, convColBytes int
	convStageOff, convOffsOff  int
}

// operandGeom describes the staging of one operand tile (A: ML×U, B: U×NL).
type operandGeom struct {
	kContig bool // contiguous along k in global memory (A 'T', B 'N')
	mn      int  // tile extent along m (A) or n (B)
	vec     int  // global vector width (elements)
	stride  int  // shared row stride in elements
	core    bool // wgmma core-matrix layout (see newCoreMatrixGeom)
	swizzle bool // core: the 128-byte swizzled layout
	atoms   int  // swizzle: 128-byte atoms along the contiguous dimension
	lbo     int  // core: the descriptor's leading byte offset
	sbo     int  // core: the descriptor's stride byte offset
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
	if cfg.Math.IsWGMMA() {
		// A warpgroup's instruction spans 64 rows of A (a whole 128-byte
		// swizzle atom of an m-contiguous A) and 8·NS columns of B.
		tma := cfg.TMA >= 1
		g.a = newCoreMatrixGeom(in.TransA == T, cfg.ML, cfg.U, cfg.VecA, g.es, g.threads, 64, tma)
		g.b = newCoreMatrixGeom(in.TransB == N, cfg.NL, cfg.U, cfg.VecB, g.es, g.threads, 8*cfg.NS, tma)
	} else {
		g.a = newOperandGeom(in.TransA == T, cfg.ML, cfg.U, cfg.VecA, pad, g.es, g.threads)
		g.b = newOperandGeom(in.TransB == N, cfg.NL, cfg.U, cfg.VecB, pad, g.es, g.threads)
		if cfg.Math.IsMMA() {
			// Fragments read with scalar loads (f64, tf32 from m/n-contiguous
			// tiles) get the padding that spreads a warp's load over the
			// fewest shared-memory wavefronts.
			if !g.ldmatrix(g.a) {
				g.a = newOperandGeom(in.TransA == T, cfg.ML, cfg.U, cfg.VecA, g.fragPad(g.a), g.es, g.threads)
			}
			if !g.ldmatrix(g.b) {
				g.b = newOperandGeom(in.TransB == N, cfg.NL, cfg.U, cfg.VecB, g.fragPad(g.b), g.es, g.threads)
			}
		}
	}
	g.b.offset = g.a.bytes
	g.stageBytes = g.a.bytes + g.b.bytes
	g.tileSmem = max(cfg.Stages, 1) * g.stageBytes
	g.epiType = F32
	if in.Compute == F64 {
		g.epiType = F64
	}
	if cfg.Math.IsMMA() {
		g.elems = cfg.MS * cfg.NS * g.mmaM * g.mmaN / cfg.Math.unitThreads()
	} else {
		g.elems = cfg.MS * cfg.NS
	}
	if cfg.KL > 1 {
		g.redSmem = (cfg.KL - 1) * g.elems * g.tg * g.epiType.Size()
	}
	if cfg.Math.IsMMA() && isPow2(g.wn) && isPow2(cfg.ML) && cfg.NL%g.wn == 0 && in.Conv == NotConv && cfg.PS == 0 {
		// The mma epilogue stages C through shared memory in passes of
		// stageCols columns, as many as fit in what the main loop uses.
		es := g.epiType.Size()
		g.stageStride = cfg.ML + 16/es
		budget := max(g.tileSmem, g.redSmem)
		g.stageCols = g.wn
		for cw := 2 * g.wn; cfg.NL%cw == 0 && cw*g.stageStride*es <= budget; cw *= 2 {
			g.stageCols = cw
		}
		g.stageSmem = g.stageCols * g.stageStride * es
	}
	g.kc = cfg.clusterSize()
	if g.kc > 1 {
		es := g.epiType.Size()
		g.stageStride = cfg.ML + 16/es
		g.stageCols, g.stageSmem = 0, 0 // the cluster epilogue stages the whole tile
		g.clusterSmem = cfg.NL * g.stageStride * es
	}
	g.sharedBytes = max(g.tileSmem, g.redSmem, g.stageSmem, g.clusterSmem)
	if cfg.Math.IsWGMMA() && in.Conv != NotConv && cfg.KG == 1 && g.kc == 1 {
		g.convRowBytes = cfg.NL*in.CType.Size() + 16
		g.convColBytes = cfg.ML*in.CType.Size() + 16
		tile := max(cfg.ML*g.convRowBytes, cfg.NL*g.convColBytes)
		region := tile + 4*cfg.ML
		switch {
		case cfg.PS == 1:
			g.convStage, g.convStageOff = true, (g.sharedBytes+15)/16*16
			g.sharedBytes = g.convStageOff + region
		case region <= g.tileSmem: // no more shared memory than the main loop's
			g.convStage = true
		}
		g.convOffsOff = g.convStageOff + tile
	}
	g.block = g.threads
	if cfg.TMA >= 1 {
		// The mbarriers stay past every other use of the buffer (the
		// epilogues reuse the tiles' bytes with ordinary stores): one per
		// stage that the copies complete, and with a producer warp
		// (TMA = 2) one per stage that the consumers release.
		bars := cfg.Stages
		if cfg.TMA == 2 {
			bars *= 2
			g.block += 32
		}
		g.barOff = (g.sharedBytes + 7) / 8 * 8
		g.sharedBytes = g.barOff + 8*bars
	}
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

// newCoreMatrixGeom is the staging of a wgmma operand in one of the
// canonical layouts of PTX ISA "Shared Memory Matrix Layout" (16-byte
// vectors; inst is the operand's extent along m/n in one warpgroup
// instruction).
//
// The 128-byte swizzled layout, wherever the contiguous dimension of the
// tile is a whole number of 128-byte rows (k: exactly one, u·es = 128; m/n:
// any, with instructions starting on a 64-element boundary): 8 lines of 128
// bytes form a 1024-byte atom, atoms run along the contiguous dimension,
// then along the lines, and 16-byte chunk c of line l sits at chunk c ^ (l
// % 8) of its row. Vectors are taken line by line, so each quarter warp
// copies one whole 128-byte row: one L2 line read, eight different bank
// groups written. K-major: SBO = 1024 between 8-row groups along m/n, the
// k-steps move the start address within the row. MN-major: LBO = 1024
// between atoms along m/n, SBO = 1024·atoms between 8-line groups along k.
// With tma (the tiles written by the bulk tensor copy engine, one box of
// 128-byte lines per 64-element column of an MN-major tile) the atoms of
// an MN-major tile run along the lines first: a column of u lines is one
// box, LBO = 128·u between the columns, SBO = 1024 between 8-line groups
// (the same bytes as above when the tile is one column wide).
//
// Otherwise no swizzle, 8×16-byte core matrices of 128 contiguous bytes:
// vector v goes to byte 16·v, line 8·⌊v/(8w)⌋ + v%8, vector ⌊v/8⌋%w along the
// contiguous dimension (w vectors per line), so the 8 threads of a quarter
// warp fill one core matrix (no bank conflicts) and a warp reads 8 lines of
// 64 bytes. K-major: LBO = 128 along k, SBO = 128·w along m/n; MN-major:
// SBO = 128 along m/n, LBO = 128·w along k.
//
// Tiles are rounded up to 1024 bytes so that every stage keeps the atoms
// aligned.
func newCoreMatrixGeom(kContig bool, mn, u, vec, es, threads, inst int, tma bool) operandGeom {
	o := newOperandGeom(kContig, mn, u, vec, 0, es, threads)
	o.core = true
	o.bytes = (o.bytes + 1023) / 1024 * 1024
	row := o.lc * es
	switch {
	case kContig && row == 128:
		o.swizzle, o.atoms = true, 1
		o.lbo, o.sbo = 16, 1024
	case !kContig && row%128 == 0 && inst*es%128 == 0 && tma:
		o.swizzle, o.atoms = true, row/128
		o.lbo, o.sbo = 128*o.lo, 1024
	case !kContig && row%128 == 0 && inst*es%128 == 0:
		o.swizzle, o.atoms = true, row/128
		o.lbo, o.sbo = 1024, 1024*o.atoms
	case kContig:
		o.lbo, o.sbo = 128, 128*o.w
	default:
		o.lbo, o.sbo = 128*o.w, 128
	}
	return o
}

// coreOff is the byte offset within a core-matrix tile of the start of an
// instruction's operand at (mn, k): mn a multiple of 8 (of 64 elements for a
// swizzled m/n-contiguous tile), k a multiple of 16.
func (o operandGeom) coreOff(mnIdx, kIdx, es int) int {
	switch {
	case o.swizzle && o.kContig:
		return mnIdx/8*o.sbo + kIdx*es
	case o.swizzle:
		return mnIdx*es/128*o.lbo + kIdx/8*o.sbo
	case o.kContig:
		return mnIdx/8*o.sbo + kIdx*es/16*o.lbo
	}
	return mnIdx*es/16*o.sbo + kIdx/8*o.lbo
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
		per := g.mmaM * g.mmaN / c.Math.unitThreads()
		if c.Math == MMA_F16_F16ACC || c.Math == WGMMA_F16_F16ACC {
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
		if c.Math == MMA_F64 {
			frag = (c.MS + c.NS) * 2
		}
		if c.Math.IsWGMMA() {
			frag = 8 // A and B come from shared memory: descriptors only
		}
		if c.PP == 1 {
			// The next tile's first step is loaded while the last step
			// computes: with several steps per tile one more step's
			// fragments are live; with one, little more than the
			// carried fragments' copies (ptxas 12.4, sm_90, f64: +25–40
			// registers with two steps per tile, +3 to +10 with one).
			if g.uk > g.mmaK {
				frag *= 2
			} else {
				frag += 8
			}
		}
	} else {
		acc = c.KS * c.MS * c.NS * w
		frag = g.simtVK() * (c.MS + c.NS) * w
	}
	loads := g.a.loads + g.b.loads
	// The loads' registers: about five each (address, bounds), fewer for
	// a convolution's im2col gather whose loads share one pixel and one
	// loop-carried index (im2colPixelShared: a shared offset and a split
	// tap each, and the pixel's and the index's few) or one index
	// (im2colTapShared: a shared offset and a pixel each), fitted to
	// ptxas 12.4's allocations for sm_90 FP32 FMA tiles (docs/method.md).
	loadRegs := 5 * loads
	if g.in.Conv != NotConv && g.a.loads > 1 {
		switch im2colModeOf(g.a, g.threads) {
		case im2colPixelShared:
			loadRegs = 5*g.b.loads + 2*g.a.loads + 6
		case im2colTapShared:
			loadRegs = 5*g.b.loads + 3*g.a.loads + 6
		}
	}
	stage := 0
	if c.Stages <= 1 {
		stage = (g.a.loads*g.a.vec + g.b.loads*g.b.vec) * g.es / 4
		stage = max(stage, loads)
	}
	if c.PP == 1 && !c.Math.IsMMA() {
		// SIMT with pipelined fragments (outside the model's spaces, so
		// this estimate moves no choice of the model), fitted to ptxas's
		// allocations without the margin below: about three k-values'
		// rows and columns live, and the copies' addresses, of which
		// ptxas keeps what does not fit in local memory and reloads it
		// once per tile (docs/method.md, "Generator calibrations").
		return acc + 3*(c.MS+c.NS)*w + stage + 32 + min(loadRegs, 16)
	}
	regs := acc + frag + stage + loadRegs + 32
	if c.Math == WGMMA_F16_F16ACC {
		// The epilogue unpacks the paired f16 accumulators into one
		// register each: about 2·acc + 24 at the end, fitted to ptxas's
		// allocations (docs/method.md).
		regs = max(regs, 2*acc+24)
	}
	if !c.Math.IsMMA() && c.MS*c.NS > 64 {
		// Thread tiles above 8×8 (16×8, 8×16): ptxas interleaves the
		// fragment loads of the vk k-steps with the FMAs, so about two
		// k-steps' fragments are live, and no margin is needed (the
		// general estimate below overshoots such tiles; docs/method.md).
		return acc + 2*(c.MS+c.NS)*w + stage + loadRegs + 32
	}
	if !c.Math.IsMMA() {
		// 25% margin for SIMT: the JIT's allocation can exceed the count
		// of live values (docs/method.md). The mma estimate is already
		// above what ptxas allocates.
		regs = regs * 5 / 4
	}
	return regs
}

// simtRun is the length of a SIMT thread's runs of consecutive rows (or
// columns) when it owns n of them: one shared-memory vector (16 bytes, at
// most 4 elements), or n when smaller.
func (g geometry) simtRun(n int) int {
	return min(n, 4, 16/max(g.es, 1))
}

// simtOffset is the offset, from the thread's first, of the x-th of the n
// rows (or columns) a SIMT thread owns, with threads threads along that
// dimension: runs of simtRun(n) consecutive ones, run j starting
// j·run·threads after the first, so that the threads' runs interleave.
func (g geometry) simtOffset(x, n, threads int) int {
	run := g.simtRun(n)
	return x/run*run*threads + x%run
}

// simtVK is the number of k values a SIMT thread fetches per inner step.
func (g geometry) simtVK() int {
	vk := 4
	if g.es == 8 {
		vk = 2
	}
	return max(1, min(vk, g.uk))
}

// ldmatrix reports whether the mma fragments of operand o (g.a or g.b) are
// read with ldmatrix.sync.aligned.m8n8.{x2,x4}[.trans].shared.b16 instead of
// scalar ld.shared. It is a pure function of (config, class).
//
// One 8x8 b16 matrix is 8 rows of 16 contiguous bytes, each row starting at a
// 16-byte aligned address supplied by one lane. Every fragment register of
// mma.m16n8k16 (f16, bf16) is one such matrix, taken along k for a
// k-contiguous tile ([mn][k]: plain ldmatrix, rows = m or n) or along m/n for
// an mn-contiguous tile ([k][mn]: ldmatrix .trans, rows = k). For tf32
// (m16n8k8) a 32-bit element is two b16 halves: plain ldmatrix of a
// [mn][k] tile delivers exactly the tf32 fragment (an 8x4 matrix of 32-bit
// elements), but .trans would split elements, so mn-contiguous tf32 operands
// stay on the scalar path. f64 (m8n8k4) fragments are single 64-bit values:
// always scalar.
//
// Alignment: the row stride (lc + 16/es elements) is a multiple of 16 bytes
// because lc is a power-of-two multiple of 16 bytes' worth of elements for
// every legal mma configuration (U ≥ mmaK, ML ≥ 16, NL ≥ 8); the matrix
// origins along the contiguous dimension are multiples of 8 (m, n: warp tile
// and mma offsets) or of 16/es (k: KL slice, k-step, fragment half); tile
// and stage offsets are 16-byte multiples. The conditions are checked here
// anyway so a future geometry change falls back to the scalar path instead
// of producing misaligned ldmatrix. Bank conflicts: row r of a matrix is at
// r*stride*es bytes; stride*es = 16*(lc*es/16 + 1) is an odd multiple of 16
// bytes whenever lc*es ≥ 32, so the 8 rows hit 8 distinct 16-byte bank
// groups (conflict-free); only lc*es == 16 (NL = 8 with B mn-contiguous) is
// 2-way.
func (g geometry) ldmatrix(o operandGeom) bool {
	switch g.cfg.Math {
	case MMA_F16, MMA_F16_F16ACC, MMA_BF16:
		if g.es != 2 {
			return false
		}
	case MMA_TF32:
		if g.es != 4 || !o.kContig {
			return false
		}
	default:
		return false
	}
	kb := 16 / g.es // elements in one 16-byte matrix row
	if g.mmaK != 2*kb || g.mmaM != 16 || g.mmaN != 8 {
		return false
	}
	if (o.stride*g.es)%16 != 0 || o.offset%16 != 0 || g.stageBytes%16 != 0 || o.bytes%16 != 0 {
		return false
	}
	if o.kContig {
		// rows are m (A) / n (B); origin along k: grp*uk + ks + {0, kb}
		return g.uk%kb == 0
	}
	// rows are k; origin along m / n: warp tile + mma offset + {0, 8}
	return g.wm%8 == 0 && g.wn%8 == 0 && kb == 8
}
