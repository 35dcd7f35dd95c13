package ptx

// convRowStaged is the epilogue of a wgmma convolution (geometry.convStage)
// whose y is channel-contiguous with 16-byte aligned pixels (checked at
// run time: unit channel stride, pixel strides and y's address multiples of
// 16 bytes) and whose alpha is not 0; elsewhere it branches to unstaged.
// The fragments hold pairs of channels scattered over the tile's rows, which
// y's pixels would take as 4-byte pieces of 16-byte lines; here every thread
// first writes its elements, alpha·acc (+ beta·y, y read element by element
// only with beta, one rounding to y's type), to a row-major copy of the tile
// in shared memory (a pixel's NL channels a row) and the tile's first
// threads its pixels' offsets in y (-1 past M); after a barrier of the
// threads that compute, each stores whole 16-byte vectors of a pixel's
// channels, vector t, t+T, … of the tile, element by element where a
// vector crosses N. A barrier before the writes keeps them off stages that
// a warpgroup's last wgmma still reads and off the previous tile's copy
// (a persistent kernel's own region).
func (c *gemmCtx) convRowStaged(elems []accElem, vals []string, ops epiOps, unstaged string) {
	b, g, cv := c.b, c.g, c.conv.p
	cfg := g.cfg
	es := g.in.CType.Size()
	v := 16 / es
	b.comment("epilogue staged by rows: pixels of %d channels in shared memory, stored in 16-byte vectors", cfg.NL)
	b.insP("!"+ops.pAlpha, "bra.uni %s", unstaged)
	odd := b.reg(kB32)
	b.ins("or.b32 %s, %s, %s", odd, cv["yN"], cv["yH"])
	b.ins("or.b32 %s, %s, %s", odd, odd, cv["yW"])
	b.ins("and.b32 %s, %s, %d", odd, odd, v-1)
	b.insP(c.notChannelContiguous(odd, 16), "bra.uni %s", unstaged)

	stage, offs := c.stageTile(elems, vals, ops, false)

	// Whole vectors of pixels' channels.
	vpr := cfg.NL / v // vectors a row
	loop := c.openVectorLoop(cfg.ML*vpr, "stage_vec")
	idx, next := loop.idx, loop.next
	row, vc := b.reg(kB32), b.reg(kB32)
	if isPow2(vpr) {
		b.ins("shr.u32 %s, %s, %d", row, idx, log2(vpr))
		b.ins("and.b32 %s, %s, %d", vc, idx, vpr-1)
	} else {
		b.ins("div.u32 %s, %s, %d", row, idx, vpr)
		b.ins("rem.u32 %s, %s, %d", vc, idx, vpr)
	}
	off := b.reg(kB32)
	b.ins("ld.shared.s32 %s, [%s]", off, b.add32(offs, b.mulImm(row, 4)))
	src := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", src, row, g.convRowBytes, stage)
	b.ins("mad.lo.s32 %s, %s, 16, %s", src, vc, src)
	words := b.regs(kB32, 4)
	b.ins("ld.shared.v4.b32 %s, [%s]", vec(words), src)
	n := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", n, vc, v, c.n0)
	at := b.reg(kB32)
	b.ins("add.s32 %s, %s, %s", at, off, n)
	wide := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, at, es)
	dst := b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", dst, c.C, wide)
	valid := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, 0", valid, off)
	full := b.reg(kPred)
	b.ins("setp.le.s32 %s, %s, %s", full, b.addImm32(n, v), c.N)
	b.ins("and.pred %s, %s, %s", full, full, valid)
	b.insP(full, "st.global.v4.b32 [%s], %s", dst, vec(words))
	// A vector across N: its elements inside y one by one.
	part := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", part, n, c.N)
	b.ins("and.pred %s, %s, %s", part, part, valid)
	b.ins("and.pred %s, %s, !%s", part, part, full)
	b.insP("!"+part, "bra %s", next)
	for j := 0; j < v; j++ {
		p := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", p, b.addImm32(n, j), c.N)
		if es == 4 {
			b.insP(p, "st.global.b32 %s, %s", addr(dst, 4*j), words[j])
			continue
		}
		h := b.regs(kB16, 2)
		b.ins("mov.b32 {%s, %s}, %s", h[0], h[1], words[j/2])
		b.insP(p, "st.global.b16 %s, %s", addr(dst, 2*j), h[j%2])
	}
	loop.end()
	c.finish()
}

// stageTile writes the thread's elements to the staging tile, by rows or
// by columns (cols), and the tile's pixel offsets (stagePixels), between
// barriers; it returns the tile's and the offsets' shared addresses.
func (c *gemmCtx) stageTile(elems []accElem, vals []string, ops epiOps, cols bool) (stage, offs string) {
	b, g := c.b, c.g
	stage, offs = c.stagePixels()
	relRow, relCol := b.reg(kB32), b.reg(kB32)
	b.ins("sub.s32 %s, %s, %s", relRow, elems[0].rowBase, c.m0)
	b.ins("sub.s32 %s, %s, %s", relCol, elems[0].colBase, c.n0)
	lead, minor, lines := relRow, relCol, g.convRowBytes
	if cols {
		lead, minor, lines = relCol, relRow, g.convColBytes
	}
	wr := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", wr, lead, lines, stage)
	b.ins("mad.lo.s32 %s, %s, %d, %s", wr, minor, g.in.CType.Size(), wr)
	c.stageBothBetas(elems, vals, ops, wr, cols)
	return stage, offs
}

// vectorLoop is a loop over vectors t, t+T, … below a bound (T the
// threads that compute): idx is the vector's index, next the label of the
// loop's next step (end places it).
type vectorLoop struct {
	c                     *gemmCtx
	idx, next, top, label string
}

// openVectorLoop opens a vectorLoop over the vectors below total.
func (c *gemmCtx) openVectorLoop(total int, label string) vectorLoop {
	b := c.b
	l := vectorLoop{c: c, idx: b.reg(kB32), top: b.newLabel(label), label: b.newLabel(label + "_end"), next: b.newLabel(label + "_next")}
	b.ins("mov.b32 %s, %s", l.idx, c.t)
	b.label(l.top)
	past := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %d", past, l.idx, total)
	b.insP(past, "bra %s", l.label)
	return l
}

// end places the loop's next step, the back branch and the loop's end.
func (l vectorLoop) end() {
	b := l.c.b
	b.label(l.next)
	b.ins("add.s32 %s, %s, %d", l.idx, l.idx, l.c.g.threads)
	b.ins("bra %s", l.top)
	b.label(l.label)
}

// stagePixels passes the barrier before the staging tile is written and
// writes the tile's pixel offsets in y (-1 past M), a row a thread; it
// returns the shared addresses of the staging tile and of the offsets.
func (c *gemmCtx) stagePixels() (stage, offs string) {
	b, g := c.b, c.g
	cfg := g.cfg
	T := g.threads
	stage = b.addImm32(c.smem, g.convStageOff)
	offs = b.addImm32(c.smem, g.convOffsOff)
	c.barrier()
	for r0 := 0; r0 < cfg.ML; r0 += T {
		row := b.addImm32(c.t, r0)
		skip := b.newLabel("stage_offs")
		if r0+T > cfg.ML {
			past := b.reg(kPred)
			b.ins("setp.ge.u32 %s, %s, %d", past, row, cfg.ML)
			b.insP(past, "bra %s", skip)
		}
		m := b.add32(c.m0, row)
		off := c.pixelOffset(m)
		out := b.reg(kPred)
		b.ins("setp.ge.s32 %s, %s, %s", out, m, c.M)
		b.ins("selp.b32 %s, -1, %s, %s", off, off, out)
		b.ins("st.shared.s32 [%s], %s", b.add32(offs, b.mulImm(row, 4)), off)
		b.label(skip)
	}
	return stage, offs
}

// stageBothBetas writes the thread's elements to the staging tile (by rows,
// or by columns with cols) on two paths, beta = 0 and beta != 0, then
// passes the barrier after which the tile is read.
func (c *gemmCtx) stageBothBetas(elems []accElem, vals []string, ops epiOps, wr string, cols bool) {
	b := c.b
	withBeta, staged := b.newLabel("stage_beta"), b.newLabel("staged")
	b.insP(ops.pBeta, "bra.uni %s", withBeta)
	c.stageElems(elems, vals, ops, wr, false, cols)
	b.ins("bra.uni %s", staged)
	b.label(withBeta)
	c.stageElems(elems, vals, ops, wr, true, cols)
	b.label(staged)
	c.barrier()
}

// stageElems writes the thread's elements to the staging tile at wr (its
// first element's place), by rows or by columns (cols): alpha·acc, with
// beta plus beta·y (y read under its bounds, one element at a time),
// rounded once to y's type; by rows, pairs of channels (the wgmma
// fragments') as one shared store.
func (c *gemmCtx) stageElems(elems []accElem, vals []string, ops epiOps, wr string, beta, cols bool) {
	b, g := c.b, c.g
	es := g.in.CType.Size()
	rows := map[[2]any]string{} // pixel offsets of this path's own (not convOut's cache: other paths do not run this one)
	yAt := func(e accElem) string {
		key := [2]any{e.rowBase, e.row}
		off, ok := rows[key]
		if !ok {
			off = c.pixelOffset(b.addImm32(e.rowBase, e.row))
			rows[key] = off
		}
		return c.convAddr(off, b.addImm32(e.colBase, e.col))
	}
	value := func(i int) string {
		e := elems[i]
		out := b.reg(kF32)
		b.ins("mul.rn.f32 %s, %s, %s", out, ops.alpha, vals[i])
		if !beta {
			return out
		}
		p := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", p, b.addImm32(e.rowBase, e.row), c.M)
		pc := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", pc, b.addImm32(e.colBase, e.col), c.N)
		b.ins("and.pred %s, %s, %s", p, p, pc)
		a := addr(yAt(e), 0)
		y := b.reg(kF32)
		switch ops.cType {
		case F16, BF16:
			h := b.reg(kB16)
			b.ins("mov.b16 %s, 0", h)
			b.insP(p, "ld.global.b16 %s, %s", h, a)
			if ops.cType == F16 {
				b.ins("cvt.f32.f16 %s, %s", y, h)
			} else {
				b.ins("mov.b32 %s, {%s, %s}", y, ops.zeroH, h)
			}
		default:
			b.ins("mov.f32 %s, 0f00000000", y)
			b.insP(p, "ld.global.f32 %s, %s", y, a)
		}
		b.ins("fma.rn.f32 %s, %s, %s, %s", out, ops.beta, y, out)
		return out
	}
	at := func(e accElem) string {
		if cols {
			return addr(wr, e.col*g.convColBytes+e.row*es)
		}
		return addr(wr, e.row*g.convRowBytes+e.col*es)
	}
	pairs := !cols && channelPairs(elems)
	for i := 0; i < len(elems); {
		e := elems[i]
		if pairs {
			v0, v1 := value(i), value(i+1)
			switch ops.cType {
			case F16, BF16:
				name := "f16x2"
				if ops.cType == BF16 {
					name = "bf16x2"
				}
				w := b.reg(kB32)
				b.ins("cvt.rn.%s.f32 %s, %s, %s", name, w, v1, v0) // the first channel in the low half
				b.ins("st.shared.b32 %s, %s", at(e), w)
			default:
				b.ins("st.shared.v2.f32 %s, {%s, %s}", at(e), v0, v1)
			}
			i += 2
			continue
		}
		v0 := value(i)
		switch ops.cType {
		case F16, BF16:
			name := "f16"
			if ops.cType == BF16 {
				name = "bf16"
			}
			h := b.reg(kB16)
			b.ins("cvt.rn.%s.f32 %s, %s", name, h, v0)
			b.ins("st.shared.b16 %s, %s", at(e), h)
		default:
			b.ins("st.shared.f32 %s, %s", at(e), v0)
		}
		i++
	}
}

// convColStaged is convRowStaged for a y whose pixels are consecutive
// (unit w stride and packed rows, as NCHW's, images not overlapping) with
// images of a multiple of 16 bytes of pixels and image and channel strides
// to match (checked at run time, with y's address 16-byte aligned), and
// whose channels are not (else convRowStaged takes
// it): the tile is staged by columns (a channel's pixels a column), and
// each thread stores vectors of 16 bytes of one channel's consecutive
// pixels where their offsets in y are consecutive and aligned (within one
// image of a packed y: the pixels' offsets say it, from the staged table),
// else their elements one by one, consecutive pixels in consecutive lanes.
func (c *gemmCtx) convColStaged(elems []accElem, vals []string, ops epiOps, unstaged string) {
	b, g, cv := c.b, c.g, c.conv.p
	cfg := g.cfg
	es := g.in.CType.Size()
	v := 16 / es
	b.comment("epilogue staged by columns: channels of %d pixels in shared memory, stored in 16-byte vectors of pixels", cfg.ML)
	b.insP("!"+ops.pAlpha, "bra.uni %s", unstaged)
	lo := b.reg(kB32)
	b.ins("cvt.u32.u64 %s, %s", lo, c.C)
	b.ins("and.b32 %s, %s, 15", lo, lo)
	slow := b.reg(kPred)
	b.ins("setp.ne.s32 %s, %s, 0", slow, lo)
	unit := b.reg(kPred)
	b.ins("setp.ne.s32 %s, %s, 1", unit, cv["yW"])
	b.ins("or.pred %s, %s, %s", slow, slow, unit)
	// Offsets strictly increasing with the pixel (rows and images apart
	// by at least their extent), so that v pixels whose first and last
	// offsets are v-1 apart are consecutive.
	reach := b.reg(kB32)
	b.ins("setp.lt.s32 %s, %s, %s", unit, cv["yH"], cv["cQ"])
	b.ins("or.pred %s, %s, %s", slow, slow, unit)
	b.ins("add.s32 %s, %s, -1", reach, cv["cP"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", reach, reach, cv["yH"], cv["cQ"])
	b.ins("setp.lt.s32 %s, %s, %s", unit, cv["yN"], reach)
	b.ins("or.pred %s, %s, %s", slow, slow, unit)
	// Only where whole vectors are the rule: packed rows, images of a
	// multiple of v pixels, image and channel strides multiples of v (on
	// 7×7, 14×14 and 27×27 outputs the pixel-by-pixel stores of the
	// staged tile ran slower than the unstaged epilogue: call 40).
	pq := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", pq, cv["cP"], cv["cQ"])
	b.ins("or.b32 %s, %s, %s", pq, pq, cv["yN"])
	b.ins("or.b32 %s, %s, %s", pq, pq, cv["yC"])
	b.ins("and.b32 %s, %s, %d", pq, pq, v-1)
	b.ins("setp.ne.s32 %s, %s, 0", unit, pq)
	b.ins("or.pred %s, %s, %s", slow, slow, unit)
	b.ins("setp.ne.s32 %s, %s, %s", unit, cv["yH"], cv["cQ"])
	b.ins("or.pred %s, %s, %s", slow, slow, unit)
	b.insP(slow, "bra.uni %s", unstaged)

	stage, offs := c.stageTile(elems, vals, ops, true)

	// Vectors of a channel's pixels, vector t, t+T, … of the tile.
	vpc := cfg.ML / v // vectors a column
	loop := c.openVectorLoop(cfg.NL*vpc, "stage_cvec")
	idx, next := loop.idx, loop.next
	col, r := b.reg(kB32), b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", col, idx, log2(vpc)) // ML and v are powers of two
	b.ins("and.b32 %s, %s, %d", r, idx, vpc-1)
	b.ins("shl.b32 %s, %s, %d", r, r, log2(v))
	src := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", src, col, g.convColBytes, stage)
	b.ins("mad.lo.s32 %s, %s, %d, %s", src, r, es, src)
	words := b.regs(kB32, 4)
	b.ins("ld.shared.v4.b32 %s, [%s]", vec(words), src)
	ch := b.reg(kB32)
	b.ins("add.s32 %s, %s, %s", ch, c.n0, col)
	chOK := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", chOK, ch, c.N)
	chOff := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", chOff, ch, cv["yC"])
	offAt := b.add32(offs, b.mulImm(r, 4))
	first, last := b.reg(kB32), b.reg(kB32)
	b.ins("ld.shared.s32 %s, [%s]", first, offAt)
	b.ins("ld.shared.s32 %s, %s", last, addr(offAt, 4*(v-1)))
	// One vector: the channel inside y, the last pixel inside M (so the
	// first too), the pixels' offsets consecutive, the first aligned.
	full := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, 0", full, last)
	b.ins("and.pred %s, %s, %s", full, full, chOK)
	gap := b.reg(kB32)
	b.ins("sub.s32 %s, %s, %s", gap, last, first)
	p := b.reg(kPred)
	b.ins("setp.eq.s32 %s, %s, %d", p, gap, v-1)
	b.ins("and.pred %s, %s, %s", full, full, p)
	at := b.reg(kB32)
	b.ins("add.s32 %s, %s, %s", at, first, chOff)
	al := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", al, at, v-1)
	b.ins("setp.eq.s32 %s, %s, 0", p, al)
	b.ins("and.pred %s, %s, %s", full, full, p)
	wide := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, at, es)
	dst := b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", dst, c.C, wide)
	b.insP(full, "st.global.v4.b32 [%s], %s", dst, vec(words))
	b.insP(full, "bra %s", next)
	b.insP("!"+chOK, "bra %s", next)
	// Element by element: each pixel at its own offset.
	for j := 0; j < v; j++ {
		off := b.reg(kB32)
		b.ins("ld.shared.s32 %s, %s", off, addr(offAt, 4*j))
		pj := b.reg(kPred)
		b.ins("setp.ge.s32 %s, %s, 0", pj, off)
		e := b.reg(kB32)
		b.ins("add.s32 %s, %s, %s", e, off, chOff)
		w := b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %d", w, e, es)
		a := b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", a, c.C, w)
		if es == 4 {
			b.insP(pj, "st.global.b32 [%s], %s", a, words[j])
			continue
		}
		h := b.regs(kB16, 2)
		b.ins("mov.b32 {%s, %s}, %s", h[0], h[1], words[j/2])
		b.insP(pj, "st.global.b16 [%s], %s", a, h[j%2])
	}
	loop.end()
	c.finish()
}
