package ptx

// serialSplitBytes bounds the partials one block may have to sum in the
// one-pass split-K fixup: KG slices of an ML×NL tile in the epilogue type.
// Above it the fixup, which runs on one SM, would take longer than the
// separate reduction kernel spread over the whole GPU.
const serialSplitBytes = 256 << 10

// fixupInFlight is how many vector loads of partials each thread of the
// fixup keeps in flight (16 bytes each, 64 registers).
const fixupInFlight = 16

// serialSplit reports whether a grid split (KG > 1) finishes in the GEMM
// kernel itself: every block writes its partial tile to the workspace and the
// last of the tile's blocks to arrive sums all the tile's partials and writes
// C, so no reduction kernel is launched. The alternative is the two-pass path
// (Kernel.Reduce). The fixup needs a barrier among the threads still alive
// after the KL reduction, so with KL > 1 a group must be whole warps.
func serialSplit(g geometry) bool {
	cfg := g.cfg
	if cfg.KG <= 1 {
		return false
	}
	if cfg.KL > 1 && g.tg%32 != 0 {
		return false
	}
	return cfg.KG*cfg.ML*cfg.NL*g.epiType.Size() <= serialSplitBytes
}

// splitFixup is the end of a one-pass split-K kernel, emitted after the
// block has stored its partial tile to its workspace slice. After a barrier
// (which orders the block's stores before thread 0's next operation) thread
// 0 adds one to the tile's arrival counter with an acquire-release atomic at
// GPU scope (zero at the launch; the last block of the tile sets it back to
// zero, so a counter buffer is zeroed once, not before every launch): release publishes the
// block's partial, acquire makes the earlier blocks' partials visible, and a
// second barrier extends that to the block's other threads. The block whose
// addition completes the count, gridDim.z, is the last: it sums
// the tile's KG slices in ascending order (loads that bypass L1), and writes
// alpha·sum + beta·C like the reduction kernel. The order of the additions
// depends only on KG, so results are bit-identical run to run and equal to
// the two-pass path's whenever that sums in the same order. With a cluster
// split (KC > 1) the cluster arrives once, through rank 0 after the cluster
// barrier that ends its epilogue; rank 0's answer reaches the other blocks
// through distributed shared memory, and the last cluster's KC blocks share
// the fixup, KC times faster than one block.
func (c *gemmCtx) splitFixup() {
	b, g := c.b, c.g
	cfg := g.cfg
	es := g.epiType.Size()
	s := epiSuffix(g.epiType)
	kind := epiKind(g.epiType)
	live := g.threads
	bar := func() { b.ins("bar.sync 0") }
	if cfg.KL > 1 {
		// The other KL groups have exited: only this group's warps.
		live = g.tg
		bar = func() { b.ins("bar.sync 1, %d", live) }
	}
	kc := g.kc
	if kc > 1 {
		// A cluster split: the cluster's blocks wrote one slice together
		// (clusterStore ends with a cluster barrier, whose release and
		// acquire order their stores before rank 0's), so the cluster
		// arrives once, through rank 0, and the last cluster's blocks
		// share the fixup.
		b.comment("one-pass split-K: the last cluster of the tile to arrive sums the %d partials, its %d blocks in parallel", cfg.KG, kc)
	} else {
		b.comment("one-pass split-K: the last block of the tile to arrive sums the %d partials", cfg.KG)
		bar()
	}
	// The tile's counter: counters + 4·(ctaid.x + ctaid.y·nctaid.x).
	slice := b.reg(kB64) // bytes of one slice: M·N·es
	b.ins("mul.wide.s32 %s, %s, %s", slice, c.M, c.N)
	b.ins("shl.b64 %s, %s, %d", slice, slice, log2(es))
	ctr := c.globalParam("counters")
	bx, by, nx := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.x", bx)
	b.ins("mov.u32 %s, %%ctaid.y", by)
	b.ins("mov.u32 %s, %%nctaid.x", nx)
	b.ins("mad.lo.u32 %s, %s, %s, %s", bx, by, nx, bx)
	off := b.reg(kB64)
	b.ins("mul.wide.u32 %s, %s, 4", off, bx)
	b.ins("add.u64 %s, %s, %s", ctr, ctr, off)
	first := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", first, c.tid)
	rank := ""
	if kc > 1 {
		rank = b.reg(kB32)
		b.ins("mov.u32 %s, %%cluster_ctarank", rank)
		r0 := b.reg(kPred)
		b.ins("setp.eq.u32 %s, %s, 0", r0, rank)
		b.ins("and.pred %s, %s, %s", first, first, r0)
	}
	old, target := b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%nctaid.z", target)
	if kc > 1 {
		b.ins("shr.u32 %s, %s, %d", target, target, log2(kc)) // arrivals: KG clusters
	}
	b.ins("sub.u32 %s, %s, 1", target, target)
	b.insP(first, "atom.acq_rel.gpu.global.add.u32 %s, [%s], 1", old, ctr)
	last := b.reg(kB32)
	isLast := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, %s", isLast, old, target)
	b.ins("and.pred %s, %s, %s", isLast, isLast, first)
	// Every other block of the tile has arrived, so nothing adds to the
	// counter again in this launch: the last block puts it back to zero for
	// the next launch, which the stream orders after this one's end.
	b.insP(isLast, "st.relaxed.gpu.global.u32 [%s], 0", ctr)
	b.ins("selp.u32 %s, 1, 0, %s", last, isLast)
	b.insP(first, "st.shared.u32 [%s], %s", c.smem, last)
	if kc > 1 {
		// Every block reads rank 0's answer; the second barrier keeps rank
		// 0's shared memory alive until all have.
		b.ins("barrier.cluster.arrive")
		b.ins("barrier.cluster.wait")
		r := b.reg(kB32)
		b.ins("mapa.shared::cluster.u32 %s, %s, 0", r, c.smem)
		b.ins("ld.shared::cluster.u32 %s, [%s]", last, r)
		b.ins("barrier.cluster.arrive")
		b.ins("barrier.cluster.wait")
	} else {
		bar()
		b.ins("ld.shared.u32 %s, [%s]", last, c.smem)
	}
	notLast := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", notLast, last)
	b.insP(notLast, "ret")

	ops := loadScalars(b, g.in, g.epiType)
	v := min(16/es, cfg.ML)
	vpc := cfg.ML / v
	total := vpc * cfg.NL
	// Vectors need M % v == 0 and a 16-byte aligned workspace (then every
	// slice and column starts aligned).
	vecOK := b.reg(kPred)
	mv := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", mv, c.M, v-1)
	wv := b.reg(kB64)
	b.ins("and.b64 %s, %s, 15", wv, c.ws)
	wv32 := b.reg(kB32)
	b.ins("cvt.u32.u64 %s, %s", wv32, wv)
	b.ins("or.b32 %s, %s, %s", mv, mv, wv32)
	b.ins("setp.eq.s32 %s, %s, 0", vecOK, mv)
	zero := "0f00000000"
	if kind == kF64 {
		zero = "0d0000000000000000"
	}
	ces := g.in.CType.Size()
	// The fixup runs after the rest of the grid has finished, on a few SMs:
	// it is bound by the latency of its loads, so each thread keeps up to
	// fixupInFlight vector loads in flight: P vectors per iteration with all
	// their slices when KG is small, else groups of fixupInFlight slices.
	perThread := ceilDiv(total, live*kc)
	P := 1
	for 2*P*cfg.KG <= fixupInFlight && 2*P <= perThread {
		P *= 2
	}

	// position is vector i's place: row gr and column gc of C, whether any
	// of it is inside C (in) and whether all of it is and vectors are
	// allowed (full), its workspace (slice 0) and C addresses.
	type position struct{ gr, gc, in, full, wa, ca string }
	place := func(i string) position {
		var q position
		r := b.reg(kB32)
		b.ins("and.b32 %s, %s, %d", r, i, vpc-1)
		b.ins("shl.b32 %s, %s, %d", r, r, log2(v))
		col := b.reg(kB32)
		b.ins("shr.u32 %s, %s, %d", col, i, log2(vpc))
		q.gr, q.gc = b.add32(c.m0, r), b.add32(c.n0, col)
		q.in, q.full = b.reg(kPred), b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %d", q.in, i, total)
		p := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", p, q.gc, c.N)
		b.ins("and.pred %s, %s, %s", q.in, q.in, p)
		b.ins("setp.lt.s32 %s, %s, %s", p, q.gr, c.M)
		b.ins("and.pred %s, %s, %s", q.in, q.in, p)
		b.ins("setp.lt.s32 %s, %s, %s", q.full, b.addImm32(q.gr, v-1), c.M)
		b.ins("and.pred %s, %s, %s", q.full, q.full, q.in)
		b.ins("and.pred %s, %s, %s", q.full, q.full, vecOK)
		q.wa = b.elemAddr64(c.ws, q.gr, q.gc, c.M, es)
		q.ca = b.elemAddr64(c.C, q.gr, q.gc, c.ldc, ces)
		return q
	}
	// load reads w elements at a (guarded by ok, "" = always, zero when
	// not loaded) and moves a on by one slice.
	load := func(dst []string, a, ok string) {
		if ok != "" {
			for _, d := range dst {
				b.ins("mov.%s %s, %s", s, d, zero)
			}
		}
		b.insP(ok, "ld.global.cg%s.%s %s, [%s]", vsuffix(len(dst)), s, vec(dst), a)
		b.ins("add.u64 %s, %s, %s", a, a, slice)
	}
	addInto := func(sum []string, got [][]string) {
		for _, g := range got {
			for i := range sum {
				b.ins("add.rn.%s %s, %s, %s", s, sum[i], sum[i], g[i])
			}
		}
	}
	cursor := func(at string) string {
		a := b.reg(kB64)
		b.ins("mov.b64 %s, %s", a, at)
		return a
	}
	// sumSlices adds the w elements at wa of slices 0..KG-1 in ascending
	// order, groups of up to fixupInFlight loads in flight.
	sumSlices := func(wa string, w int, ok string) []string {
		a := cursor(wa)
		sum := b.regs(kind, w)
		load(sum, a, ok)
		group := func(n int) {
			got := make([][]string, n)
			for u := range got {
				got[u] = b.regs(kind, w)
				load(got[u], a, ok)
			}
			addInto(sum, got)
		}
		rest := cfg.KG - 1
		if loops := rest / fixupInFlight; loops > 1 {
			cnt := b.reg(kB32)
			b.ins("mov.u32 %s, %d", cnt, loops)
			lZ := b.newLabel("fix_z")
			b.label(lZ)
			// Unrolled, ptxas would hoist every slice's load and run out
			// of registers.
			b.ins(".pragma \"nounroll\"")
			group(fixupInFlight)
			b.ins("sub.u32 %s, %s, 1", cnt, cnt)
			more := b.reg(kPred)
			b.ins("setp.ne.u32 %s, %s, 0", more, cnt)
			b.insP(more, "bra %s", lZ)
			rest %= fixupInFlight
		}
		for rest > 0 {
			n := min(fixupInFlight, rest)
			group(n)
			rest -= n
		}
		return sum
	}
	storeVec := func(q position, sum []string) {
		if g.in.AlignC >= v && v*ces <= 16 {
			ops.storeCVec(b, sum, q.ca, 0)
			return
		}
		for e := range sum {
			ops.storeC(b, sum[e], q.ca, e*ces, "")
		}
	}

	// Block rank r of the cluster (0 without one) takes the iterations
	// r, r+KC, …: vectors [(i·KC + r)·P·T, …+P·T) of iteration i.
	idx := b.reg(kB32)
	b.ins("mov.b32 %s, %s", idx, c.tid)
	if kc > 1 {
		b.ins("mad.lo.u32 %s, %s, %d, %s", idx, rank, P*live, idx)
	}
	lVec, lVecEnd := b.newLabel("fix_vec"), b.newLabel("fix_vec_end")
	lSlow, lNext := b.newLabel("fix_slow"), b.newLabel("fix_next")
	b.label(lVec)
	end := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %d", end, idx, total)
	b.insP(end, "bra %s", lVecEnd)
	qs := make([]position, P)
	all := b.reg(kPred)
	for j := range qs {
		i := idx
		if j > 0 {
			i = b.reg(kB32)
			b.ins("add.u32 %s, %s, %d", i, idx, j*live)
		}
		qs[j] = place(i)
		if j == 0 {
			b.ins("mov.pred %s, %s", all, qs[j].full)
		} else {
			b.ins("and.pred %s, %s, %s", all, all, qs[j].full)
		}
	}
	b.insP("!"+all, "bra %s", lSlow)
	// Fast path: P whole vectors.
	if P == 1 {
		storeVec(qs[0], sumSlices(qs[0].wa, v, ""))
	} else {
		as := make([]string, P)
		got := make([][][]string, P)
		for j := range qs {
			as[j] = cursor(qs[j].wa)
			got[j] = make([][]string, cfg.KG)
		}
		for z := 0; z < cfg.KG; z++ {
			for j := range qs {
				got[j][z] = b.regs(kind, v)
				load(got[j][z], as[j], "")
			}
		}
		for j, q := range qs {
			addInto(got[j][0], got[j][1:])
			storeVec(q, got[j][0])
		}
	}
	b.ins("bra %s", lNext)
	// Slow path: each vector on its own, whole or element by element.
	b.label(lSlow)
	for _, q := range qs {
		lSkip, lElems := b.newLabel("fix_skip"), b.newLabel("fix_elems")
		b.insP("!"+q.in, "bra %s", lSkip)
		b.insP("!"+q.full, "bra %s", lElems)
		storeVec(q, sumSlices(q.wa, v, ""))
		b.ins("bra %s", lSkip)
		b.label(lElems)
		for e := 0; e < v; e++ {
			p := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", p, b.addImm32(q.gr, e), c.M)
			wa := q.wa
			if e > 0 {
				wa = b.reg(kB64)
				b.ins("add.u64 %s, %s, %d", wa, q.wa, e*es)
			}
			sum := sumSlices(wa, 1, p)
			ops.storeC(b, sum[0], q.ca, e*ces, p)
		}
		b.label(lSkip)
	}
	b.label(lNext)
	b.ins("add.u32 %s, %s, %d", idx, idx, P*live*kc)
	b.ins("bra %s", lVec)
	b.label(lVecEnd)
}
