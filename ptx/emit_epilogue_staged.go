package ptx

// storeTarget is where an epilogue writes: C through ops when KG == 1, else
// the k-split's workspace slice. base is the matrix origin, ld the leading
// dimension register, es the element size in global memory, maxVec the widest
// vector (in elements) the alignment allows and vecOK, when not "", the
// run-time predicate that vectors are allowed at all (the workspace).
type storeTarget struct {
	ops    epiOps
	base   string
	ld     string
	es     int
	maxVec int
	vecOK  string
}

// stagedStore writes the mma accumulators through shared memory, so that
// global memory sees whole vectors of consecutive rows rather than the
// fragments' scattered pairs of columns. The block tile is written in passes
// of CW = stageCols columns: in pass p the warps whose columns lie in
// [p·CW, (p+1)·CW) write their elements (epilogue type) to a column-major
// ML×CW staging tile; after a barrier every thread of the (first) KL group
// stores vectors of v consecutive rows of it, vector t, t+T, … in order.
// Vectors that leave C fall back to element-by-element stores.
func (c *gemmCtx) stagedStore(elems []accElem, vals []string, t storeTarget) {
	b, g := c.b, c.g
	cfg := g.cfg
	es := g.epiType.Size()
	s := epiSuffix(g.epiType)
	kind := epiKind(g.epiType)
	cw, stride := g.stageCols, g.stageStride
	T := g.tg
	v := min(t.maxVec, cfg.ML)
	vpc := cfg.ML / v // vectors per staged column
	total := vpc * cw
	b.comment("epilogue staged through shared memory: %d pass(es) of %d columns, vectors of %d", cfg.NL/cw, cw, v)
	bar := func() {
		if cfg.KL > 1 {
			// The other KL groups have exited: only this group's warps.
			b.ins("bar.sync 1, %d", T)
		} else {
			c.barrier()
		}
	}

	// Where this thread's elements go: all share rowBase and colBase.
	relRow, relCol := b.reg(kB32), b.reg(kB32)
	b.ins("sub.s32 %s, %s, %s", relRow, elems[0].rowBase, c.m0)
	b.ins("sub.s32 %s, %s, %s", relCol, elems[0].colBase, c.n0)
	myPass := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", myPass, relCol, log2(cw))
	wr := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", wr, relCol, cw-1)
	b.ins("mad.lo.s32 %s, %s, %d, %s", wr, wr, stride, relRow)
	b.ins("mad.lo.s32 %s, %s, %d, %s", wr, wr, es, c.smem)

	pass := b.reg(kB32)
	b.ins("mov.b32 %s, 0", pass)
	lPass := b.newLabel("stage_pass")
	b.label(lPass)
	bar() // the staging tile is free: main loop, KL partials or last pass done
	lSkip := b.newLabel("stage_skip")
	notMine := b.reg(kPred)
	b.ins("setp.ne.s32 %s, %s, %s", notMine, myPass, pass)
	b.insP(notMine, "bra %s", lSkip)
	for i, e := range elems {
		b.ins("st.shared.%s %s, %s", s, addr(wr, (e.col*stride+e.row)*es), vals[i])
	}
	b.label(lSkip)
	bar()

	n0 := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", n0, pass, cw, c.n0)
	idx := b.reg(kB32)
	b.ins("mov.b32 %s, %s", idx, c.t)
	lVec, lVecEnd := b.newLabel("stage_vec"), b.newLabel("stage_vec_end")
	b.label(lVec)
	end := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %d", end, idx, total)
	b.insP(end, "bra %s", lVecEnd)
	r := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", r, idx, vpc-1)
	b.ins("shl.b32 %s, %s, %d", r, r, log2(v))
	col := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", col, idx, log2(vpc))
	ra := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", ra, col, stride, r)
	b.ins("mad.lo.s32 %s, %s, %d, %s", ra, ra, es, c.smem)
	vs := b.regs(kind, v)
	chunk := min(v, 16/es)
	for o := 0; o < v; o += chunk {
		b.ins("ld.shared%s.%s %s, %s", vsuffix(chunk), s, vec(vs[o:o+chunk]), addr(ra, o*es))
	}
	c.storeColumnVector(t, vs, b.add32(c.m0, r), b.add32(n0, col), "stage")
	b.ins("add.s32 %s, %s, %d", idx, idx, T)
	b.ins("bra %s", lVec)
	b.label(lVecEnd)

	b.ins("add.s32 %s, %s, 1", pass, pass)
	more := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %d", more, pass, cfg.NL/cw)
	b.insP(more, "bra %s", lPass)
}

// storeColumnVector stores the v = len(vals) consecutive rows gr… of
// column gc of C (a partial tile with a grid split): one vector store
// where the column and all v rows are in bounds and t allows vectors,
// else element by element under their bounds. Its labels begin with
// label.
func (c *gemmCtx) storeColumnVector(t storeTarget, vals []string, gr, gc, label string) {
	b, cfg := c.b, c.g.cfg
	s, v := epiSuffix(c.g.epiType), len(vals)
	ga := b.elemAddr64(t.base, gr, gc, t.ld, t.es)
	pc := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", pc, gc, c.N)
	scalar := func() {
		for e := 0; e < v; e++ {
			p := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", p, b.addImm32(gr, e), c.M)
			b.ins("and.pred %s, %s, %s", p, p, pc)
			if cfg.KG == 1 {
				t.ops.storeC(b, vals[e], ga, e*t.es, p, rowRef{gr, e})
			} else {
				b.insP(p, "st.global.%s %s, %s", s, addr(ga, e*t.es), vals[e])
			}
		}
	}
	if v == 1 {
		scalar()
		return
	}
	full := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", full, b.addImm32(gr, v-1), c.M)
	b.ins("and.pred %s, %s, %s", full, full, pc)
	if t.vecOK != "" {
		b.ins("and.pred %s, %s, %s", full, full, t.vecOK)
	}
	lScalar, lDone := b.newLabel(label+"_scalar"), b.newLabel(label+"_done")
	b.insP("!"+full, "bra %s", lScalar)
	if cfg.KG == 1 {
		t.ops.storeCVec(b, vals, ga, 0, rowRef{gr, 0})
	} else {
		b.ins("st.global%s.%s %s, %s", vsuffix(v), s, addr(ga, 0), braces(vals))
	}
	b.ins("bra %s", lDone)
	b.label(lScalar)
	scalar()
	b.label(lDone)
}
