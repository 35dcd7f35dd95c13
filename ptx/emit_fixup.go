package ptx

// serialSplitBytes bounds the partials one block may have to sum in a pass
// of the one-pass split-K fixup: slices of an ML×NL tile in the epilogue
// type. Above it the fixup, which runs on one SM, would take longer than the
// separate reduction kernel spread over the whole GPU.
const serialSplitBytes = 256 << 10

// twoLevelBytes bounds what one block sums in each level of a two-level
// one-pass split (splitGroup): G slices of a tile, or the KG/G group sums.
// Above it the fixups' loads, in series after the grid's last block, take
// longer than the separate reduction kernel (docs/method.md, "Generator
// calibrations").
const twoLevelBytes = 64 << 10

// fixupInFlight is how many vector loads of partials each thread of the
// fixup keeps in flight (16 bytes each, 64 registers), in blocks of up to 512
// threads; larger blocks have 64 registers per thread in all and keep
// fixupInFlightLarge.
const (
	fixupInFlight      = 16
	fixupInFlightLarge = 4
)

// serialSplit reports whether a grid split (KG > 1) finishes in the GEMM
// kernel itself: every block writes its partial tile to the workspace and the
// last of the tile's blocks to arrive sums all the tile's partials and writes
// C, so no reduction kernel is launched. The alternative is the two-pass path
// (Kernel.Reduce). The fixup needs a barrier among the threads still alive
// after the KL reduction, so with KL > 1 a group must be whole warps. When
// the KG slices of a tile are too many for one block to sum, the split can
// still finish in one pass over two levels (splitGroup).
func serialSplit(g geometry) bool {
	cfg := g.cfg
	if cfg.KG <= 1 {
		return false
	}
	if cfg.KL > 1 && g.tg%32 != 0 {
		return false
	}
	tile := cfg.ML * cfg.NL * g.epiType.Size()
	if cfg.KG*tile <= serialSplitBytes {
		return true
	}
	return splitGroup(g) > 0
}

// splitGroup is the group size of a two-level one-pass split, 0 when the
// split does not sum over two levels. With two levels the KG slices of a
// tile form KG/G groups of G consecutive slices: the last block of a group
// to arrive sums the group's slices into the group's first slice, and the
// last group to finish sums the groups' sums and writes C. G is the divisor
// of KG nearest above √KG (so both levels read about as much, G ≥ KG/G).
// Two levels are used when one would sum more than serialSplitBytes, G
// slices are within twoLevelBytes, and the whole block sums (KL = 1: with
// KL > 1 only one group's threads would, and measured slower); a KG with no
// such divisor (a prime) has none.
func splitGroup(g geometry) int {
	cfg := g.cfg
	tile := cfg.ML * cfg.NL * g.epiType.Size()
	if cfg.KG*tile <= serialSplitBytes || cfg.KL > 1 {
		return 0
	}
	for gs := 2; gs < cfg.KG; gs++ {
		if cfg.KG%gs == 0 && gs*gs >= cfg.KG {
			if gs*tile > twoLevelBytes {
				return 0
			}
			return gs
		}
	}
	return 0
}

// splitCounters is how many arrival counters a one-pass split-K kernel needs
// per tile: one, and with two levels one more per group.
func splitCounters(g geometry) int {
	if gs := splitGroup(g); gs > 0 {
		return 1 + g.cfg.KG/gs
	}
	return 1
}

// splitFixup is the end of a one-pass split-K kernel, emitted after the
// block has stored its partial tile to its workspace slice. After a barrier
// (which orders the block's stores before thread 0's next operation) thread
// 0 adds one to the tile's arrival counter with an acquire-release atomic at
// GPU scope (zero at the launch; the last block of the tile sets it back to
// zero, so a counter buffer is zeroed once, not before every launch): release
// publishes the block's partial, acquire makes the earlier blocks' partials
// visible, and a second barrier extends that to the block's other threads.
// The block whose addition completes the count is the last: it sums the
// tile's KG slices in ascending order (loads that bypass L1), and writes
// alpha·sum + beta·C like the reduction kernel. The order of the additions
// depends only on KG, so results are bit-identical run to run and equal to
// the two-pass path's whenever that sums in the same order. With a cluster
// split (KC > 1) the cluster arrives once, through rank 0 after the cluster
// barrier that ends its epilogue; rank 0's answer reaches the other blocks
// through distributed shared memory, and the last cluster's KC blocks share
// the fixup, KC times faster than one block.
//
// With two levels (splitGroup) the block first arrives at its group's
// counter; the group's last block sums the group's G slices in ascending
// order into the group's first slice and, after another barrier, arrives at
// the tile's counter; the tile's last group sums the KG/G group sums in
// ascending order and writes C. The order is again fixed by KG alone.
func (c *gemmCtx) splitFixup() {
	b, g := c.b, c.g
	cfg := g.cfg
	es := g.epiType.Size()
	live := g.threads
	bar := c.barrier
	if cfg.KL > 1 {
		// The other KL groups have exited: only this group's warps.
		live = g.tg
		bar = func() { b.ins("bar.sync 1, %d", live) }
	}
	kc := g.kc
	gs := splitGroup(g)
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
	slice := b.reg(kB64) // bytes of one slice: M·N·es
	b.ins("mul.wide.s32 %s, %s, %s", slice, c.M, c.N)
	b.ins("shl.b64 %s, %s, %d", slice, slice, log2(es))
	// The tile's counter: counters + 4·(ctaid.x + ctaid.y·nctaid.x).
	ctrs := c.globalParam("counters")
	tile, nx := b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.x", tile)
	b.ins("mov.u32 %s, %%nctaid.x", nx)
	by := b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.y", by)
	b.ins("mad.lo.u32 %s, %s, %s, %s", tile, by, nx, tile)
	ctr := b.reg(kB64)
	b.ins("mul.wide.u32 %s, %s, 4", ctr, tile)
	b.ins("add.u64 %s, %s, %s", ctr, ctr, ctrs)
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
	// arrive adds one to the counter at addr (first thread only) and ends
	// every block but the one whose addition makes the count.
	arrive := func(addr string, count int) {
		old := b.reg(kB32)
		b.insP(first, "atom.acq_rel.gpu.global.add.u32 %s, [%s], 1", old, addr)
		last := b.reg(kB32)
		isLast := b.reg(kPred)
		b.ins("setp.eq.u32 %s, %s, %d", isLast, old, count-1)
		b.ins("and.pred %s, %s, %s", isLast, isLast, first)
		// Every other block has arrived, so nothing adds to the counter
		// again in this launch: the last block puts it back to zero for
		// the next launch, which the stream orders after this one's end.
		b.insP(isLast, "st.relaxed.gpu.global.u32 [%s], 0", addr)
		b.ins("selp.u32 %s, 1, 0, %s", last, isLast)
		b.insP(first, "st.shared.u32 [%s], %s", c.smem, last)
		if kc > 1 {
			// Every block reads rank 0's answer; the second barrier keeps
			// rank 0's shared memory alive until all have.
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
	}
	p := fixupPass{slice: slice, rank: rank, live: live}
	if gs == 0 {
		arrive(ctr, cfg.KG)
		p.count, p.stride, p.toC = cfg.KG, 1, true
		c.fixupPass(p)
		return
	}
	groups := cfg.KG / gs
	b.comment("two levels: %d groups of %d slices", groups, gs)
	// The group's counter: counters + 4·(tiles + tile·groups + group).
	grp := b.reg(kB32)
	b.ins("div.u32 %s, %s, %d", grp, c.zg, gs)
	tiles := b.reg(kB32)
	b.ins("mov.u32 %s, %%nctaid.y", tiles)
	b.ins("mul.lo.u32 %s, %s, %s", tiles, tiles, nx)
	gi := b.reg(kB32)
	b.ins("mad.lo.u32 %s, %s, %d, %s", gi, tile, groups, tiles)
	b.ins("add.u32 %s, %s, %s", gi, gi, grp)
	gctr := b.reg(kB64)
	b.ins("mul.wide.u32 %s, %s, 4", gctr, gi)
	b.ins("add.u64 %s, %s, %s", gctr, gctr, ctrs)
	arrive(gctr, gs)
	// The group's first slice: group·G slices from slice 0.
	p.base = b.reg(kB64)
	b.ins("mul.lo.u32 %s, %s, %d", gi, grp, gs)
	b.ins("cvt.u64.u32 %s, %s", p.base, gi)
	b.ins("mul.lo.u64 %s, %s, %s", p.base, p.base, slice)
	p.count, p.stride, p.toC = gs, 1, false
	c.fixupPass(p)
	// The group's sum is in the workspace: order its stores before the
	// arrival at the tile's counter as the epilogue's are ordered.
	if kc > 1 {
		b.ins("barrier.cluster.arrive")
		b.ins("barrier.cluster.wait")
	} else {
		bar()
	}
	arrive(ctr, groups)
	p.base, p.count, p.stride, p.toC = "", groups, gs, true
	c.fixupPass(p)
}

// fixupPass is one pass of the fixup over the tile: it sums count slices,
// stride slices apart, starting base bytes (a register; "" for 0) after
// slice 0, and writes alpha·sum + beta·C to C (toC) or the raw sum to the
// first of the slices.
type fixupPass struct {
	slice  string // bytes of one slice (register)
	base   string
	count  int
	stride int
	toC    bool
	rank   string // the block's rank in its cluster ("" without one)
	live   int    // threads taking part
}

func (c *gemmCtx) fixupPass(fp fixupPass) {
	b, g := c.b, c.g
	cfg := g.cfg
	es := g.epiType.Size()
	s := epiSuffix(g.epiType)
	kind := epiKind(g.epiType)
	kc := g.kc
	live, rank := fp.live, fp.rank
	slices := fp.count
	step := fp.slice
	if fp.stride > 1 {
		step = b.reg(kB64)
		b.ins("mul.lo.u64 %s, %s, %d", step, fp.slice, fp.stride)
	}
	var ops epiOps
	if fp.toC {
		ops = loadScalars(b, g.in, g.epiType)
	}
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
	// inFlight vector loads in flight: P vectors per iteration with all
	// their slices when KG is small, else groups of inFlight slices.
	inFlight := fixupInFlight
	if g.threads > 512 {
		inFlight = fixupInFlightLarge
	}
	perThread := ceilDiv(total, live*kc)
	P := 1
	for 2*P*slices <= inFlight && 2*P <= perThread {
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
		if fp.base != "" {
			b.ins("add.u64 %s, %s, %s", q.wa, q.wa, fp.base)
		}
		if c.conv == nil { // a convolution's y: per element (cAddr)
			q.ca = b.elemAddr64(c.C, q.gr, q.gc, c.ldc, ces)
		}
		return q
	}
	// cAddr is the address of element e of vector q in C, and the
	// immediate offset to add.
	cAddr := func(q position, e int) (string, int) {
		if c.conv != nil {
			return c.convAt(b.addImm32(q.gr, e), q.gc), 0
		}
		return q.ca, e * ces
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
		b.ins("add.u64 %s, %s, %s", a, a, step)
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
	// order, groups of up to inFlight loads in flight.
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
		rest := slices - 1
		if loops := rest / inFlight; loops > 1 {
			cnt := b.reg(kB32)
			b.ins("mov.u32 %s, %d", cnt, loops)
			lZ := b.newLabel("fix_z")
			b.label(lZ)
			// Unrolled, ptxas would hoist every slice's load and run out
			// of registers.
			b.ins(".pragma \"nounroll\"")
			group(inFlight)
			b.ins("sub.u32 %s, %s, 1", cnt, cnt)
			more := b.reg(kPred)
			b.ins("setp.ne.u32 %s, %s, 0", more, cnt)
			b.insP(more, "bra %s", lZ)
			rest %= inFlight
		}
		for rest > 0 {
			n := min(inFlight, rest)
			group(n)
			rest -= n
		}
		return sum
	}
	storeVec := func(q position, sum []string) {
		if !fp.toC {
			// A group's sum, to the group's first slice.
			b.ins("st.global.cg%s.%s [%s], %s", vsuffix(len(sum)), s, q.wa, vec(sum))
			return
		}
		if g.in.AlignC >= v && v*ces <= 16 {
			ops.storeCVec(b, sum, q.ca, 0, rowRef{q.gr, 0})
			return
		}
		for e := range sum {
			a, imm := cAddr(q, e)
			ops.storeC(b, sum[e], a, imm, "", rowRef{q.gr, e})
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
			got[j] = make([][]string, slices)
		}
		for z := 0; z < slices; z++ {
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
			if fp.toC {
				a, imm := cAddr(q, e)
				ops.storeC(b, sum[0], a, imm, p, rowRef{q.gr, e})
			} else {
				b.insP(p, "st.global.cg.%s [%s], %s", s, wa, sum[0])
			}
		}
		b.label(lSkip)
	}
	b.label(lNext)
	b.ins("add.u32 %s, %s, %d", idx, idx, P*live*kc)
	b.ins("bra %s", lVec)
	b.label(lVecEnd)
}
