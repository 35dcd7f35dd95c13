package ptx

// tileOrigin sets the block's tile origin (m0, n0) for linear tile index
// lin of a persistent kernel, in rasterize's order: groups of rasterGroup
// tile rows (along m), walked column by column within a group, so that the
// blocks working at once share panels of A and B in L2. A batched
// kernel's tiles are each matrix's in turn (batchTile).
func (c *gemmCtx) tileOrigin(lin string) {
	b, cfg := c.b, c.g.cfg
	if c.g.in.Batched {
		lin = c.batchTile(lin)
	}
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
	b := c.b
	r := c.newProducerRing("persistent tensor-copy pipeline with a producer warp, phases running across tiles")
	nGrid := b.reg(kB32)
	b.ins("mov.u32 %s, %%nctaid.x", nGrid)
	consumer, done := b.newLabel("compute"), b.newLabel("done")
	b.insP("!"+r.isProducer(), "bra.uni %s", consumer)

	// The producer warp: its first lane issues every tile's copies.
	lead := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, %d", lead, c.tid, c.g.threads)
	b.insP("!"+lead, "exit")
	p := r.producer()
	ptile, pnext := b.newLabel("produce_tile"), b.newLabel("produce_next")
	b.label(ptile)
	out := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %s", out, c.tile, c.tiles)
	b.insP(out, "exit")
	c.tileOrigin(c.tile)
	if c.conv != nil {
		r.ops[0].im2col = c.im2colOrigin()
	}
	b.ins("mov.b32 %s, %s", p.k, c.kBeg)
	none := b.reg(kPred)
	b.ins("setp.le.s32 %s, %s, 0", none, c.nTiles)
	b.insP(none, "bra %s", pnext)
	p.loop(c.nTiles, "produce")
	b.label(pnext)
	b.ins("add.u32 %s, %s, %s", c.tile, c.tile, nGrid)
	b.ins("bra %s", ptile)

	// The warpgroups that compute, tile after tile.
	b.label(consumer)
	s := r.consumer()
	ctile, epi := b.newLabel("compute_tile"), b.newLabel("tile_epilogue")
	c.nextTile = b.newLabel("next_tile")
	b.label(ctile)
	b.ins("setp.ge.u32 %s, %s, %s", out, c.tile, c.tiles)
	b.insP(out, "bra.uni %s", done)
	c.tileOrigin(c.tile)
	comp.origin()
	comp.clear()
	b.ins("setp.le.s32 %s, %s, 0", none, c.nTiles)
	b.insP(none, "bra.uni %s", epi)
	s.loop(comp, c.nTiles, "loop")
	b.ins("wgmma.wait_group.sync.aligned 0")
	s.release("") // the tile's last stage
	b.label(epi)
	c.epilogue(comp.elements()) // ends in finish: a branch to nextTile
	b.label(c.nextTile)
	b.ins("add.u32 %s, %s, %s", c.tile, c.tile, nGrid)
	b.ins("bra.uni %s", ctile)
	b.label(done)
	b.ins("ret")
}
