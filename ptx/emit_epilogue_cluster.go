package ptx

// clusterStore is the epilogue of a cluster split (KC > 1): the KC blocks of
// a cluster computed the same output tile over consecutive parts of the
// block's k-range. Each writes its partial tile (epilogue type) to its own
// shared memory, column-major with stride ML+16 bytes; after a cluster
// barrier, block rank r takes the r-th of KC equal parts of the tile's row
// vectors, adds the KC partials of each vector in rank order, reading the
// other blocks' shared memory through the cluster window (mapa), and stores
// the sum to C or to its workspace slice like stagedStore; a second cluster
// barrier keeps every block's shared memory alive until all have read it.
// The order of additions is fixed, so results are bit-identical run to run.
func (c *gemmCtx) clusterStore(elems []accElem, vals []string, t storeTarget) {
	b, g := c.b, c.g
	cfg := g.cfg
	es := g.epiType.Size()
	s := epiSuffix(g.epiType)
	kind := epiKind(g.epiType)
	stride, kc := g.stageStride, g.kc
	T := g.threads
	v := min(t.maxVec, cfg.ML)
	vpc := cfg.ML / v
	total := vpc * cfg.NL // vectors of the tile
	per := total / kc     // vectors per rank
	b.comment("cluster epilogue: %d blocks add their partial tiles through distributed shared memory", kc)

	b.ins("bar.sync 0") // the main loop's shared memory is free
	relRow, relCol := b.reg(kB32), b.reg(kB32)
	b.ins("sub.s32 %s, %s, %s", relRow, elems[0].rowBase, c.m0)
	b.ins("sub.s32 %s, %s, %s", relCol, elems[0].colBase, c.n0)
	wr := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", wr, relCol, stride, relRow)
	b.ins("mad.lo.s32 %s, %s, %d, %s", wr, wr, es, c.smem)
	for i, e := range elems {
		b.ins("st.shared.%s %s, %s", s, addr(wr, (e.col*stride+e.row)*es), vals[i])
	}
	b.ins("barrier.cluster.arrive")
	b.ins("barrier.cluster.wait")

	rank := b.reg(kB32)
	b.ins("mov.u32 %s, %%cluster_ctarank", rank)
	idx, end := b.reg(kB32), b.reg(kB32)
	b.ins("mul.lo.u32 %s, %s, %d", end, rank, per)
	b.ins("add.u32 %s, %s, %s", idx, end, c.tid)
	b.ins("add.u32 %s, %s, %d", end, end, per)
	lVec, lVecEnd := b.newLabel("cl_vec"), b.newLabel("cl_vec_end")
	b.label(lVec)
	done := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %s", done, idx, end)
	b.insP(done, "bra %s", lVecEnd)
	r := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", r, idx, vpc-1)
	b.ins("shl.b32 %s, %s, %d", r, r, log2(v))
	col := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", col, idx, log2(vpc))
	local := b.reg(kB32)
	b.ins("mad.lo.u32 %s, %s, %d, %s", local, col, stride, r)
	b.ins("mad.lo.u32 %s, %s, %d, %s", local, local, es, c.smem)
	chunk := min(v, 16/es)
	sum := b.regs(kind, v)
	for q := 0; q < kc; q++ {
		remote := b.reg(kB32)
		b.ins("mapa.shared::cluster.u32 %s, %s, %d", remote, local, q)
		got := sum
		if q > 0 {
			got = b.regs(kind, v)
		}
		for o := 0; o < v; o += chunk {
			b.ins("ld.shared::cluster%s.%s %s, %s", vsuffix(chunk), s, vec(got[o:o+chunk]), addr(remote, o*es))
		}
		if q > 0 {
			for i := range sum {
				b.ins("add.rn.%s %s, %s, %s", s, sum[i], sum[i], got[i])
			}
		}
	}
	c.storeColumnVector(t, sum, b.add32(c.m0, r), b.add32(c.n0, col), "cl")
	b.ins("add.u32 %s, %s, %d", idx, idx, T)
	b.ins("bra %s", lVec)
	b.label(lVecEnd)
	b.ins("barrier.cluster.arrive")
	b.ins("barrier.cluster.wait")
}
