package ptx

// tileOrigin sets the block's tile origin (m0, n0) for linear tile index
// lin of a persistent kernel, in rasterize's order: groups of rasterGroup
// tile rows (along m), walked column by column within a group, so that the
// blocks working at once share panels of A and B in L2.
func (c *gemmCtx) tileOrigin(lin string) {
	b, cfg := c.b, c.g.cfg
	per := b.reg(kB32) // tiles per group
	b.ins("mul.lo.u32 %s, %s, %d", per, c.tilesN, rasterGroup)
	grp := b.reg(kB32)
	b.ins("div.u32 %s, %s, %s", grp, lin, per)
	first := b.reg(kB32)
	b.ins("mul.lo.u32 %s, %s, %d", first, grp, rasterGroup)
	size := b.reg(kB32)
	b.ins("sub.u32 %s, %s, %s", size, c.tilesM, first)
	b.ins("min.u32 %s, %s, %d", size, size, rasterGroup)
	r := b.reg(kB32)
	b.ins("rem.u32 %s, %s, %s", r, lin, per)
	tm, tn := b.reg(kB32), b.reg(kB32)
	b.ins("rem.u32 %s, %s, %s", tm, r, size)
	b.ins("add.u32 %s, %s, %s", tm, tm, first)
	b.ins("div.u32 %s, %s, %s", tn, r, size)
	b.ins("mul.lo.s32 %s, %s, %d", c.m0, tm, cfg.ML)
	b.ins("mul.lo.s32 %s, %s, %d", c.n0, tn, cfg.NL)
}

// loopTMAPersistent is the main loop and epilogue of a persistent kernel
// (GemmConfig.PS): loopTMAProducer's pipeline, walked across the block's
// tiles (ctaid.x, then every nctaid.x-th) without a break. The producer
// warp's first lane issues the copies of every k-slice of every tile in
// order, its stages' phases running on from tile to tile, so that it fills
// the next tile's stages while the warpgroups that compute still write the
// last one; the warpgroups take each tile's slices from the same ring,
// release the last stage of a tile once its wgmma group has retired, write
// the tile (the epilogue, which then branches back here, finish) and clear
// their accumulators for the next. Only the stages' mbarriers order the
// two sides: no block barrier, as in loopTMAProducer.
func (c *gemmCtx) loopTMAPersistent(comp *wgmmaCompute) {
	b, g := c.b, c.g
	S, T := g.cfg.Stages, g.threads
	ops := []*tmaOperand{c.newTMAOperand(true), c.newTMAOperand(false)}
	full := b.addImm32(c.smem, g.barOff)
	empty := b.addImm32(c.smem, g.barOff+8*S)
	first := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", first, c.tid)
	b.comment("persistent tensor-copy pipeline with a producer warp: %d full and %d empty mbarriers, phases running across tiles", S, S)
	skip := b.newLabel("tma_init")
	b.insP("!"+first, "bra %s", skip)
	for s := 0; s < S; s++ {
		b.ins("mbarrier.init.shared.b64 %s, 1", addr(full, 8*s))
		b.ins("mbarrier.init.shared.b64 %s, %d", addr(empty, 8*s), T)
	}
	b.ins("fence.mbarrier_init.release.cluster")
	for _, t := range ops {
		b.ins("prefetch.tensormap [%s]", t.tmap)
	}
	b.label(skip)
	b.ins("bar.sync 0")
	nGrid := b.reg(kB32)
	b.ins("mov.u32 %s, %%nctaid.x", nGrid)
	consumer, done := b.newLabel("compute"), b.newLabel("done")
	isProd := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %d", isProd, c.tid, T)
	b.insP("!"+isProd, "bra.uni %s", consumer)

	// The producer warp: its first lane issues every tile's copies.
	lead := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, %d", lead, c.tid, T)
	b.insP("!"+lead, "exit")
	off, k, cnt := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, 0", off)
	barF, barE, phase := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, %s", barF, full)
	b.ins("mov.b32 %s, %s", barE, empty)
	b.ins("mov.b32 %s, 1", phase)
	ptile, pnext, ploop := b.newLabel("produce_tile"), b.newLabel("produce_next"), b.newLabel("produce")
	b.label(ptile)
	out := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %s", out, c.tile, c.tiles)
	b.insP(out, "exit")
	c.tileOrigin(c.tile)
	if c.conv != nil {
		ops[0].im2col = c.im2colOrigin()
	}
	b.ins("mov.b32 %s, %s", k, c.kBeg)
	b.ins("mov.b32 %s, %s", cnt, c.nTiles)
	none := b.reg(kPred)
	b.ins("setp.le.s32 %s, %s, 0", none, cnt)
	b.insP(none, "bra %s", pnext)
	b.label(ploop)
	c.waitPhase(barE, phase, "produce_wait")
	c.issueTMA(ops, off, barF, k)
	b.ins("add.s32 %s, %s, %d", k, k, g.cfg.U)
	c.rotate(off)
	c.rotateBar(barF, full, "")
	c.rotateBar(barE, empty, phase)
	b.ins("sub.s32 %s, %s, 1", cnt, cnt)
	more := b.reg(kPred)
	b.ins("setp.gt.s32 %s, %s, 0", more, cnt)
	b.insP(more, "bra %s", ploop)
	b.label(pnext)
	b.ins("add.u32 %s, %s, %s", c.tile, c.tile, nGrid)
	b.ins("bra %s", ptile)

	// The warpgroups that compute, tile after tile.
	b.label(consumer)
	rd, barR, barP := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, 0", rd)
	b.ins("mov.b32 %s, %s", barR, full)
	b.ins("mov.b32 %s, %s", barP, empty)
	b.ins("mov.b32 %s, 0", phase)
	ctile, epi, loop := b.newLabel("compute_tile"), b.newLabel("tile_epilogue"), b.newLabel("loop")
	c.nextTile = b.newLabel("next_tile")
	b.label(ctile)
	b.ins("setp.ge.u32 %s, %s, %s", out, c.tile, c.tiles)
	b.insP(out, "bra.uni %s", done)
	c.tileOrigin(c.tile)
	comp.origin()
	comp.clear()
	b.ins("setp.le.s32 %s, %s, 0", none, c.nTiles)
	b.insP(none, "bra.uni %s", epi)
	b.ins("mov.b32 %s, %s", cnt, c.nTiles)
	b.ins("setp.eq.u32 %s, %s, %s", first, c.tid, c.tid) // the tile's first slice releases nothing
	b.label(loop)
	c.waitPhase(barR, phase, "tma_wait")
	comp.tile(rd)
	b.ins("wgmma.wait_group.sync.aligned 1")
	state := b.reg(kB64)
	b.insP("!"+first, "mbarrier.arrive.shared.b64 %s, [%s]", state, barP)
	b.ins("setp.ne.u32 %s, %s, %s", first, c.tid, c.tid)
	// barP follows barR one stage behind: the stage whose group retired.
	b.ins("sub.s32 %s, %s, %s", barP, barR, full)
	b.ins("add.s32 %s, %s, %s", barP, barP, empty)
	c.rotate(rd)
	c.rotateBar(barR, full, phase)
	b.ins("sub.s32 %s, %s, 1", cnt, cnt)
	b.ins("setp.gt.s32 %s, %s, 0", more, cnt)
	b.insP(more, "bra.uni %s", loop)
	b.ins("wgmma.wait_group.sync.aligned 0")
	b.ins("mbarrier.arrive.shared.b64 %s, [%s]", state, barP) // the tile's last stage
	b.label(epi)
	c.epilogue(comp.elements()) // ends in finish: a branch to nextTile
	b.label(c.nextTile)
	b.ins("add.u32 %s, %s, %s", c.tile, c.tile, nGrid)
	b.ins("bra.uni %s", ctile)
	b.label(done)
	b.ins("ret")
}
