package ptx

// serialSplitBytes bounds the partials one block may have to sum in the
// one-pass split-K fixup: KG slices of an ML×NL tile in the epilogue type.
// Above it the fixup, which runs on one SM, would take longer than the
// separate reduction kernel spread over the whole GPU.
const serialSplitBytes = 256 << 10

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

// counterOffset is the byte offset of the arrival counters in the workspace
// of a one-pass split-K kernel: after the KG slices, 16-byte aligned.
func counterOffset(m, n, kg, es int) int { return (kg*m*n*es + 15) / 16 * 16 }

// splitFixup is the end of a one-pass split-K kernel, emitted after the
// block has stored its partial tile to its workspace slice. Every live thread
// fences its stores at GPU scope; after a barrier thread 0 adds one to the
// tile's arrival counter (zeroed by the runtime before the launch), and the
// block whose addition completes the count, gridDim.z, is the last: it sums
// the tile's KG slices in ascending order (loads that bypass L1), and writes
// alpha·sum + beta·C like the reduction kernel. The order of the additions
// depends only on KG, so results are bit-identical run to run and equal to
// the two-pass path's whenever that sums in the same order.
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
	b.comment("one-pass split-K: the last block of the tile to arrive sums the %d partials", cfg.KG)
	b.ins("membar.gl")
	bar()
	// Counter address: ws + counterOffset + 4·(ctaid.x + ctaid.y·nctaid.x).
	slice := b.reg(kB64) // bytes of one slice: M·N·es
	b.ins("mul.wide.s32 %s, %s, %s", slice, c.M, c.N)
	b.ins("shl.b64 %s, %s, %d", slice, slice, log2(es))
	ctr := b.reg(kB64)
	b.ins("mul.lo.u64 %s, %s, %d", ctr, slice, cfg.KG)
	b.ins("add.u64 %s, %s, 15", ctr, ctr)
	b.ins("and.b64 %s, %s, -16", ctr, ctr)
	b.ins("add.u64 %s, %s, %s", ctr, ctr, c.ws)
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
	old, target := b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%nctaid.z", target)
	b.ins("sub.u32 %s, %s, 1", target, target)
	b.insP(first, "atom.acq_rel.gpu.global.add.u32 %s, [%s], 1", old, ctr)
	last := b.reg(kB32)
	isLast := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, %s", isLast, old, target)
	b.ins("and.pred %s, %s, %s", isLast, isLast, first)
	b.ins("selp.u32 %s, 1, 0, %s", last, isLast)
	b.insP(first, "st.shared.u32 [%s], %s", c.smem, last)
	bar()
	b.ins("ld.shared.u32 %s, [%s]", last, c.smem)
	b.ins("fence.acq_rel.gpu")
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

	idx := b.reg(kB32)
	b.ins("mov.b32 %s, %s", idx, c.tid)
	lVec, lVecEnd := b.newLabel("fix_vec"), b.newLabel("fix_vec_end")
	b.label(lVec)
	end := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %d", end, idx, total)
	b.insP(end, "bra %s", lVecEnd)
	r := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", r, idx, vpc-1)
	b.ins("shl.b32 %s, %s, %d", r, r, log2(v))
	col := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", col, idx, log2(vpc))
	gr := b.add32(c.m0, r)
	gc := b.add32(c.n0, col)
	lNext := b.newLabel("fix_next")
	out := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", out, gc, c.N)
	b.insP(out, "bra %s", lNext)
	b.ins("setp.ge.s32 %s, %s, %s", out, gr, c.M)
	b.insP(out, "bra %s", lNext)
	wa := b.elemAddr64(c.ws, gr, gc, c.M, es)
	ca := b.elemAddr64(c.C, gr, gc, c.ldc, ces)

	// sumSlices adds the w elements at wa of slices 0..KG-1 in ascending
	// order, up to four independent loads in flight, guarded by ok ("" =
	// always; scalar loads only).
	sumSlices := func(w int, ok string) []string {
		sum := b.regs(kind, w)
		a := b.reg(kB64)
		b.ins("mov.b64 %s, %s", a, wa)
		load := func(dst []string) {
			if ok != "" {
				b.ins("mov.%s %s, %s", s, dst[0], zero)
			}
			b.insP(ok, "ld.global.cg%s.%s %s, [%s]", vsuffix(w), s, vec(dst), a)
			b.ins("add.u64 %s, %s, %s", a, a, slice)
		}
		// group loads n slices, then adds them in order.
		group := func(n int) {
			got := make([][]string, n)
			for u := range got {
				got[u] = b.regs(kind, w)
				load(got[u])
			}
			for u := range got {
				for i := range sum {
					b.ins("add.rn.%s %s, %s, %s", s, sum[i], sum[i], got[u][i])
				}
			}
		}
		load(sum)
		rest := cfg.KG - 1
		if loops := rest / 4; loops > 1 {
			cnt := b.reg(kB32)
			b.ins("mov.u32 %s, %d", cnt, loops)
			lZ := b.newLabel("fix_z")
			b.label(lZ)
			// Unrolled, ptxas would hoist every slice's load and run out
			// of registers.
			b.ins(".pragma \"nounroll\"")
			group(4)
			b.ins("sub.u32 %s, %s, 1", cnt, cnt)
			more := b.reg(kPred)
			b.ins("setp.ne.u32 %s, %s, 0", more, cnt)
			b.insP(more, "bra %s", lZ)
			rest %= 4
		}
		for rest > 0 {
			n := min(4, rest)
			group(n)
			rest -= n
		}
		return sum
	}
	if v > 1 {
		full := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", full, b.addImm32(gr, v-1), c.M)
		b.ins("and.pred %s, %s, %s", full, full, vecOK)
		lScalar := b.newLabel("fix_scalar")
		b.insP("!"+full, "bra %s", lScalar)
		sum := sumSlices(v, "")
		if g.in.AlignC >= v && v*ces <= 16 {
			ops.storeCVec(b, sum, ca, 0)
		} else {
			for e := range sum {
				ops.storeC(b, sum[e], ca, e*ces, "")
			}
		}
		b.ins("bra %s", lNext)
		b.label(lScalar)
	}
	// Element by element: rows gr..gr+v-1 that are inside C.
	for e := 0; e < v; e++ {
		p := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", p, b.addImm32(gr, e), c.M)
		if e > 0 {
			b.ins("add.u64 %s, %s, %d", wa, wa, es)
		}
		sum := sumSlices(1, p)
		ops.storeC(b, sum[0], ca, e*ces, p)
	}
	b.label(lNext)
	b.ins("add.u32 %s, %s, %d", idx, idx, live)
	b.ins("bra %s", lVec)
	b.label(lVecEnd)
}
