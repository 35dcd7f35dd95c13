package ptx

import "fmt"

// gemmCtx holds the registers every part of the GEMM kernel shares.
type gemmCtx struct {
	g geometry
	b *builder

	A, B, C, ws        string // global pointers (u64)
	M, N, K            string
	lda, ldb, ldc      string
	tid, t, grp        string // thread id, id within KL group, KL group
	m0, n0, z          string // block origin, k-split index (grid z)
	zg                 string // workspace slice of the block: z / KC
	kBeg, kEnd, nTiles string
	smem               string    // shared window address of the dynamic buffer
	conv               *convRegs // a convolution's parameters (nil for a GEMM)

	// A persistent kernel (GemmConfig.PS): the tiles along m and n, their
	// number, the block's current tile (m0 and n0 are set per tile by
	// tileOrigin), and where the epilogue goes on (finish).
	tilesM, tilesN, tiles, tile string
	nextTile                    string

	batch batchRegs // a batched kernel's copies' coordinates and persistent tiles
}

// compute is the math part of the main loop (SIMT or mma).
type compute interface {
	setup()
	zero()
	tile(stageOff string) // consume the tile in the stage at byte offset stageOff
	elements() []accElem  // accumulator elements owned by this thread
}

// accElem is one accumulator element of C owned by a thread: its values (one
// per KS set, in accumulator precision) and its coordinates, rowBase+row and
// colBase+col, relative to the matrix origin.
type accElem struct {
	vals             []string
	kind             regKind // kF32, kF64 or kB16 (f16)
	rowBase, colBase string
	row, col         int
}

const smemSymbol = "isaac_smem"

func emitGemm(g geometry, name, arch string) string {
	b := &builder{}
	c := &gemmCtx{g: g, b: b}
	if waitsOnPrior(g.in, arch) {
		b.comment("a programmatic dependent launch's start: the grids before it end first (Kernel.WaitsOnPrior)")
		b.ins("griddepcontrol.wait")
	}
	c.prologue()
	var la, lb tileLoader
	switch {
	case g.cfg.TMA >= 1: // the copy engine needs no per-thread addresses
		if g.in.Conv != 0 {
			c.conv = c.convParams()
		}
	case g.in.Conv != 0:
		c.conv = c.convParams()
		la, lb = c.newIm2colLoader(), c.newLoader(false)
	default:
		la, lb = c.newLoader(true), c.newLoader(false)
	}
	var comp compute
	switch {
	case g.cfg.Math.IsWGMMA():
		comp = &wgmmaCompute{c: c}
	case g.cfg.Math.IsMMA():
		comp = &mmaCompute{c: c}
	default:
		comp = &simtCompute{c: c}
	}
	comp.setup()
	comp.zero()
	switch {
	case g.cfg.PS == 1:
		c.loopTMAPersistent(comp.(*wgmmaCompute)) // the epilogue inside, per tile
	case g.cfg.TMA == 2:
		c.loopTMAProducer(comp.(*wgmmaCompute))
	case g.cfg.TMA == 1:
		c.loopTMA(comp.(*wgmmaCompute))
	case g.cfg.Math.IsWGMMA():
		c.loopWarpgroup(la, lb, comp.(*wgmmaCompute))
	case g.cfg.PP == 1 && g.cfg.Math.IsMMA():
		loopPipelined(c, la, lb, stepCompute[mmaFrag](comp.(*mmaCompute)))
	case g.cfg.PP == 1:
		loopPipelined(c, la, lb, stepCompute[simtFrag](comp.(*simtCompute)))
	case g.cfg.Stages >= 2:
		c.loopAsync(la, lb, comp)
	default:
		c.loopRegs(la, lb, comp)
	}
	if g.cfg.PS == 0 {
		c.epilogue(comp.elements())
	}
	if g.cfg.Math.IsWGMMA() {
		// wgmma is PTX ISA 8.0 and needs the architecture-specific target.
		arch = "sm_90a"
	}
	align := 16
	if g.cfg.Math.IsWGMMA() {
		align = 1024 // 128-byte swizzle atoms (newCoreMatrixGeom)
	}
	return header(arch) + fmt.Sprintf(".extern .shared .align %d .b8 %s[];\n\n", align, smemSymbol) +
		entryMaxReg(name, gemmParams(g.in, tensorMapsOf(g)), g.cfg.MR, b)
}

func (c *gemmCtx) globalParam(name string) string {
	b := c.b
	t := b.reg(kB64)
	b.ins("ld.param.u64 %s, [p_%s]", t, name)
	r := b.reg(kB64)
	b.ins("cvta.to.global.u64 %s, %s", r, t)
	return r
}

func (c *gemmCtx) intParam(name string) string {
	r := c.b.reg(kB32)
	c.b.ins("ld.param.s32 %s, [p_%s]", r, name)
	return r
}

func (c *gemmCtx) prologue() {
	b, g := c.b, c.g
	cfg := g.cfg
	b.comment("%s %s", cfg, g.in)
	c.A, c.B, c.C = c.globalParam("A"), c.globalParam("B"), c.globalParam("C")
	c.M, c.N, c.K = c.intParam("M"), c.intParam("N"), c.intParam("K")
	c.lda, c.ldb, c.ldc = c.intParam("lda"), c.intParam("ldb"), c.intParam("ldc")
	c.tid = b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", c.tid)
	if cfg.PS == 1 {
		// Persistent: the tiles' count; the block starts at tile ctaid.x.
		c.tilesM, c.tilesN, c.tiles = b.reg(kB32), b.reg(kB32), b.reg(kB32)
		b.ins("add.s32 %s, %s, %d", c.tilesM, c.M, cfg.ML-1)
		b.ins("div.u32 %s, %s, %d", c.tilesM, c.tilesM, cfg.ML)
		b.ins("add.s32 %s, %s, %d", c.tilesN, c.N, cfg.NL-1)
		b.ins("div.u32 %s, %s, %d", c.tilesN, c.tilesN, cfg.NL)
		b.ins("mul.lo.u32 %s, %s, %s", c.tiles, c.tilesM, c.tilesN)
		c.tile = b.reg(kB32)
		b.ins("mov.u32 %s, %%ctaid.x", c.tile)
		c.m0, c.n0 = b.reg(kB32), b.reg(kB32)
	} else {
		bx, by := c.rasterize()
		c.m0 = b.mulImm(bx, cfg.ML)
		c.n0 = b.mulImm(by, cfg.NL)
	}
	c.grp, c.t = b.reg(kB32), b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", c.grp, c.tid, log2(g.tg))
	b.ins("and.b32 %s, %s, %d", c.t, c.tid, g.tg-1)
	c.smem = b.reg(kB32)
	b.ins("mov.u32 %s, %s", c.smem, smemSymbol)
	splits := cfg.KG * g.kc // grid z: KG slices of KC cluster blocks each (per matrix of a batch)
	slice := ""
	switch {
	case g.in.Batched && cfg.PS == 1:
		c.batchPersistent() // each tile's matrix: tileOrigin
	case g.in.Batched:
		slice = c.batchOffsets(splits)
	}
	if splits == 1 {
		c.kBeg = b.reg(kB32)
		b.ins("mov.b32 %s, 0", c.kBeg)
		c.kEnd = c.K
	} else {
		c.z = slice
		if c.z == "" {
			c.z = b.reg(kB32)
			b.ins("mov.u32 %s, %%ctaid.z", c.z)
		}
		c.zg = c.z
		if g.kc > 1 {
			c.zg = b.reg(kB32)
			b.ins("shr.u32 %s, %s, %d", c.zg, c.z, log2(g.kc))
		}
		if cfg.KG > 1 {
			c.ws = c.globalParam("workspace")
		}
		// chunk = roundup(ceil(K/S), U); kBeg = min(z*chunk, K); kEnd = min(kBeg+chunk, K)
		ch := b.reg(kB32)
		b.ins("add.s32 %s, %s, %d", ch, c.K, splits-1)
		if isPow2(splits) {
			b.ins("shr.u32 %s, %s, %d", ch, ch, log2(splits))
		} else {
			b.ins("div.u32 %s, %s, %d", ch, ch, splits)
		}
		b.ins("add.s32 %s, %s, %d", ch, ch, cfg.U-1)
		b.ins("shr.u32 %s, %s, %d", ch, ch, log2(cfg.U))
		b.ins("shl.b32 %s, %s, %d", ch, ch, log2(cfg.U))
		c.kBeg, c.kEnd = b.reg(kB32), b.reg(kB32)
		b.ins("mul.lo.s32 %s, %s, %s", c.kBeg, c.z, ch)
		b.ins("min.s32 %s, %s, %s", c.kBeg, c.kBeg, c.K)
		b.ins("add.s32 %s, %s, %s", c.kEnd, c.kBeg, ch)
		b.ins("min.s32 %s, %s, %s", c.kEnd, c.kEnd, c.K)
	}
	c.nTiles = b.reg(kB32)
	b.ins("sub.s32 %s, %s, %s", c.nTiles, c.kEnd, c.kBeg)
	b.ins("add.s32 %s, %s, %d", c.nTiles, c.nTiles, cfg.U-1)
	b.ins("shr.s32 %s, %s, %d", c.nTiles, c.nTiles, log2(cfg.U))
}

// rasterGroup is how many block rows (along M) consecutive blocks walk
// before moving to the next block column: a wave of blocks then reads a few
// panels of A and B many times from L2 instead of streaming all of A once
// per block column, which matters when A does not fit in L2.
const rasterGroup = 8

// rasterize maps the linear block index (ctaid.x fastest) to the block's
// tile (tm, tn) in groups of rasterGroup tile rows: tm = first + r % size,
// tn = r / size within group ⌊lin / (G·ny)⌋. Grids wider than 65535 blocks
// along M keep the identity mapping (the linear index could overflow).
func (c *gemmCtx) rasterize() (tm, tn string) {
	b := c.b
	bx, by, nx, ny := b.reg(kB32), b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.x", bx)
	b.ins("mov.u32 %s, %%ctaid.y", by)
	b.ins("mov.u32 %s, %%nctaid.x", nx)
	b.ins("mov.u32 %s, %%nctaid.y", ny)
	tm, tn = b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, %s", tm, bx)
	b.ins("mov.b32 %s, %s", tn, by)
	wide := b.reg(kPred)
	b.ins("setp.gt.u32 %s, %s, 65535", wide, nx)
	done := b.newLabel("raster_done")
	b.insP(wide, "bra.uni %s", done)
	lin := b.reg(kB32)
	b.ins("mad.lo.u32 %s, %s, %s, %s", lin, by, nx, bx)
	per := b.reg(kB32) // blocks per group
	b.ins("mul.lo.u32 %s, %s, %d", per, ny, rasterGroup)
	grp := b.reg(kB32)
	b.ins("div.u32 %s, %s, %s", grp, lin, per)
	first := b.reg(kB32)
	b.ins("mul.lo.u32 %s, %s, %d", first, grp, rasterGroup)
	size := b.reg(kB32)
	b.ins("sub.u32 %s, %s, %s", size, nx, first)
	b.ins("min.u32 %s, %s, %d", size, size, rasterGroup)
	r := b.reg(kB32)
	b.ins("rem.u32 %s, %s, %s", r, lin, per)
	b.ins("rem.u32 %s, %s, %s", tm, r, size)
	b.ins("add.u32 %s, %s, %s", tm, tm, first)
	b.ins("div.u32 %s, %s, %s", tn, r, size)
	b.label(done)
	return tm, tn
}

// rotate advances a stage offset register in place: off = (off+stage) mod (S*stage).
func (c *gemmCtx) rotate(off string) {
	b, g := c.b, c.g
	b.ins("add.s32 %s, %s, %d", off, off, g.stageBytes)
	p := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %d", p, off, g.cfg.Stages*g.stageBytes)
	b.ins("selp.b32 %s, 0, %s, %s", off, off, p)
}

// asyncLoop is a cp.async main loop's state: the byte offsets of the stage
// being written and of the stage being read, the labels of the loop and of
// its end, the tiles left, the tiles issued so far and the tiles wholly
// inside K (while the tile being issued is one of them, the copies skip the
// k bounds: issueAsyncFull).
type asyncLoop struct {
	wr, rd, loop, done, cnt, issued, full string
}

// asyncPrologue issues and commits the first inflight tiles (comment
// describes them in the PTX), branches to the loop's end when there is no
// tile, and sets the loop's counters. The caller places the loop label.
func (c *gemmCtx) asyncPrologue(la, lb tileLoader, inflight int, comment string) asyncLoop {
	b, g := c.b, c.g
	l := asyncLoop{wr: b.reg(kB32), rd: b.reg(kB32)}
	b.ins("mov.b32 %s, 0", l.wr)
	b.ins("mov.b32 %s, 0", l.rd)
	b.comment("%s", comment)
	for s := 0; s < inflight; s++ {
		la.issueAsync(l.wr)
		lb.issueAsync(l.wr)
		b.ins("cp.async.commit_group")
		la.advance()
		lb.advance()
		c.rotate(l.wr)
	}
	l.loop, l.done = b.newLabel("loop"), b.newLabel("done")
	pz := b.reg(kPred)
	b.ins("setp.le.s32 %s, %s, 0", pz, c.nTiles)
	b.insP(pz, "bra.uni %s", l.done)
	l.cnt = b.reg(kB32)
	b.ins("mov.b32 %s, %s", l.cnt, c.nTiles)
	l.issued, l.full = b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, %d", l.issued, inflight)
	b.ins("sub.s32 %s, %s, %s", l.full, c.kEnd, c.kBeg)
	b.ins("shr.s32 %s, %s, %d", l.full, l.full, log2(g.cfg.U))
	return l
}

// next counts a tile off and branches back to the loop while tiles are
// left.
func (c *gemmCtx) next(l asyncLoop) {
	b := c.b
	b.ins("sub.s32 %s, %s, 1", l.cnt, l.cnt)
	pl := b.reg(kPred)
	b.ins("setp.gt.s32 %s, %s, 0", pl, l.cnt)
	b.insP(pl, "bra.uni %s", l.loop)
}

// loopAsync is the multi-stage cp.async main loop: stage t%S is consumed while
// tiles t+1..t+S-1 are in flight.
func (c *gemmCtx) loopAsync(la, lb tileLoader, comp compute) {
	b, S := c.b, c.g.cfg.Stages
	l := c.asyncPrologue(la, lb, S-1, fmt.Sprintf("pipeline prologue: %d stages in flight", S-1))
	b.label(l.loop)
	b.ins("cp.async.wait_group %d", S-2)
	b.ins("bar.sync 0")
	c.issueTile(la, lb, l.wr, l.issued, l.full)
	comp.tile(l.rd)
	c.rotate(l.rd)
	c.next(l)
	b.label(l.done)
	b.ins("cp.async.wait_group 0")
	b.ins("bar.sync 0")
}

// stepCompute is a compute whose tile is a sequence of k-steps that load
// their fragments (fetchStep) and then use them (mathStep), so that a loop
// can load one step's fragments while the previous step computes.
type stepCompute[F any] interface {
	steps() []int
	stageAddrs(stageOff string) (string, string)
	fetchStep(aAddr, bAddr string, k int) F
	mathStep(f F, k int)
	moveFrag(dst, src F)
}

// kSteps are the offsets 0, step, 2·step, … below n: the k-steps of a tile.
func kSteps(n, step int) []int {
	var out []int
	for k := 0; k < n; k += step {
		out = append(out, k)
	}
	return out
}

// loopPipelined is loopAsync with each tile's first k-step loaded before the
// previous tile's last k-step computes (GemmConfig.PP): the wait for the next
// tile and the barrier come before the last step's math instead of at the
// top of the loop, so the first fragment loads of a tile are covered by
// math, and the math issued just before the barrier keeps the tensor cores
// busy while a warp waits there (the order of CUTLASS's multistage main
// loop and of cuBLAS's sm90 f64 kernels). The stage overwritten at the top
// of an iteration was last read before the previous boundary's barrier, as
// in loopAsync; every tile, the last included, is waited for before its
// first step is loaded. One step's fragments are carried around the loop in
// fixed registers.
func loopPipelined[F any](c *gemmCtx, la, lb tileLoader, s stepCompute[F]) {
	b, S := c.b, c.g.cfg.Stages
	l := c.asyncPrologue(la, lb, S-1, fmt.Sprintf("pipeline prologue: %d stages in flight", S-1))
	steps := s.steps()
	b.ins("cp.async.wait_group %d", S-2)
	b.ins("bar.sync 0")
	aAddr, bAddr := s.stageAddrs(l.rd)
	carried := s.fetchStep(aAddr, bAddr, 0)
	b.label(l.loop)
	c.issueTile(la, lb, l.wr, l.issued, l.full)
	aAddr, bAddr = s.stageAddrs(l.rd)
	cur := carried
	for i, k := range steps {
		var next F
		if i+1 < len(steps) {
			next = s.fetchStep(aAddr, bAddr, steps[i+1])
		} else {
			b.comment("tile boundary: the next tile's first step before this tile's last math")
			b.ins("cp.async.wait_group %d", S-2)
			b.ins("bar.sync 0")
			c.rotate(l.rd)
			na, nb := s.stageAddrs(l.rd)
			next = s.fetchStep(na, nb, 0)
		}
		s.mathStep(cur, k)
		cur = next
	}
	s.moveFrag(carried, cur)
	c.next(l)
	b.label(l.done)
	b.ins("cp.async.wait_group 0")
	b.ins("bar.sync 0")
}

// issueTile issues the cp.async copies of the next tile into the stage at
// wr and commits them as one group, then moves the loaders and wr on.
// issued counts the tiles issued so far and full the tiles wholly inside K:
// while the tile is one of those, threads none of whose vectors is cut by
// the M/N edge take the short path (issueAsyncFull).
func (c *gemmCtx) issueTile(la, lb tileLoader, wr, issued, full string) {
	b := c.b
	fast, join := b.newLabel("issue_full"), b.newLabel("issued")
	pf := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", pf, issued, full)
	for _, l := range []tileLoader{la, lb} {
		if p := l.edge(); p != "" {
			b.ins("and.pred %s, %s, !%s", pf, pf, p)
		}
	}
	b.insP(pf, "bra %s", fast) // per thread: edge threads take the general path
	la.issueAsync(wr)
	lb.issueAsync(wr)
	b.ins("bra %s", join)
	b.label(fast)
	la.issueAsyncFull(wr)
	lb.issueAsyncFull(wr)
	b.label(join)
	b.ins("add.s32 %s, %s, 1", issued, issued)
	b.ins("cp.async.commit_group")
	la.advance()
	lb.advance()
	c.rotate(wr)
}

// loopRegs is the single-stage loop: the next tile is prefetched into
// registers while the current one is consumed from shared memory.
func (c *gemmCtx) loopRegs(la, lb tileLoader, comp compute) {
	b := c.b
	loop, done := b.newLabel("loop"), b.newLabel("done")
	pz := b.reg(kPred)
	b.ins("setp.le.s32 %s, %s, 0", pz, c.nTiles)
	b.insP(pz, "bra.uni %s", done)
	la.issueRegs()
	lb.issueRegs()
	la.advance()
	lb.advance()
	la.storeRegs()
	lb.storeRegs()
	b.ins("bar.sync 0")
	zero := b.reg(kB32)
	b.ins("mov.b32 %s, 0", zero)
	cnt := b.reg(kB32)
	b.ins("mov.b32 %s, %s", cnt, c.nTiles)
	b.label(loop)
	la.issueRegs()
	lb.issueRegs()
	la.advance()
	lb.advance()
	comp.tile(zero)
	b.ins("bar.sync 0")
	la.storeRegs()
	lb.storeRegs()
	b.ins("bar.sync 0")
	b.ins("sub.s32 %s, %s, 1", cnt, cnt)
	pl := b.reg(kPred)
	b.ins("setp.gt.s32 %s, %s, 0", pl, cnt)
	b.insP(pl, "bra.uni %s", loop)
	b.label(done)
}
