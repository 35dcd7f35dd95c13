package ptx

// windowBatch is the rows a warp stages at once, their loads in flight
// together.
const windowBatch = 4

// stageRows emits the staging of nrows rows of ncv vectors of vec 16-bit
// elements into shared memory: the warps take batches of windowBatch rows
// (warp w rows w, w+warps, …), their lanes the vectors along the rows,
// every load of a batch issued before its stores. row sets up a row's
// values (whether it is in range is passed: rows past nrows store
// nothing); elem gives a vector's global address and whether it is read
// (zeros where not); dst is the row's shared memory address. Vectors of
// 4 bytes or more go by stageFlat instead.
func (c *gemmCtx) stageRows(cfg WindowConfig, label string, vec int, nrows, ncv, warp, lane string,
	row func(rho, valid string) any, elem func(r any, cv string) (addr, ok string), dst func(r any) string) {
	b := c.b
	nw := cfg.warps()
	rho0 := b.reg(kB32)
	b.ins("mov.u32 %s, %s", rho0, warp)
	loop, end := b.newLabel(label), b.newLabel(label+"_END")
	b.label(loop)
	more := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", more, rho0, nrows)
	b.insP("!"+more, "bra.uni %s", end)
	rows := make([]any, windowBatch)
	valids := make([]string, windowBatch)
	dsts := make([]string, windowBatch)
	for u := range rows {
		rho := b.addImm32(rho0, u*nw)
		valids[u] = b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", valids[u], rho, nrows)
		rows[u] = row(rho, valids[u])
		dsts[u] = dst(rows[u])
	}
	pass := b.reg(kB32) // lane + 32·pass: the vector
	b.ins("mov.u32 %s, %s", pass, lane)
	cols, next := b.newLabel(label+"_COL"), b.newLabel(label+"_NEXT")
	b.label(cols)
	first := b.reg(kB32) // 32·(the pass): uniform
	b.ins("sub.s32 %s, %s, %s", first, pass, lane)
	moreC := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreC, first, ncv)
	b.insP("!"+moreC, "bra.uni %s", next)
	inRow := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", inRow, pass, ncv)
	vals := make([][]string, windowBatch)
	for u := range rows {
		a, ok := elem(rows[u], pass)
		b.ins("and.pred %s, %s, %s", ok, ok, inRow)
		vals[u] = windowLoad(b, vec, a, ok)
	}
	for u := range rows {
		st := b.reg(kPred)
		b.ins("and.pred %s, %s, %s", st, inRow, valids[u])
		sa := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, pass, 2*vec, dsts[u])
		windowStore(b, vec, sa, vals[u], st)
	}
	b.ins("add.s32 %s, %s, 32", pass, pass)
	b.ins("bra.uni %s", cols)
	b.label(next)
	b.ins("add.s32 %s, %s, %d", rho0, rho0, windowBatch*nw)
	b.ins("bra.uni %s", loop)
	b.label(end)
}

// stageFlat is stageRows for vectors of 4 bytes or more, by cp.async: the
// block's threads take the nrows·ncv vectors in turn (thread tid: vectors
// tid, tid + threads, …; a vector's row and place by ncv's divider ncvM,
// ncvL), each its row's setup and one copy, zero-filled where not read
// (its source then global, the tensor's base), so that every copy of a
// chunk is in flight at once whatever the length of its rows. The caller
// waits for them (cp.async.wait_all) before its barrier.
func (c *gemmCtx) stageFlat(cfg WindowConfig, label string, vec int, nrows, ncv, ncvM, ncvL, tid, global string,
	row func(rho, valid string) any, elem func(r any, cv string) (addr, ok string), dst func(r any) string) {
	b := c.b
	total := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", total, nrows, ncv)
	valid := b.reg(kPred) // (every row the loop reaches is within nrows)
	b.ins("setp.ge.s32 %s, %s, 0", valid, total)
	blockLoop(b, cfg.warps()*32, label, tid, total, func(idx string) {
		rho, cv := divmodMagic(b, idx, ncv, ncvM, ncvL)
		r := row(rho, valid)
		a, ok := elem(r, cv)
		sa := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, cv, 2*vec, dst(r))
		src, n := b.reg(kB64), b.reg(kB32)
		b.ins("selp.b64 %s, %s, %s, %s", src, a, global, ok)
		b.ins("selp.b32 %s, %d, 0, %s", n, 2*vec, ok)
		b.ins("cp.async.ca.shared.global [%s], [%s], %d, %s", sa, src, 2*vec, n)
	})
}

// windowLoad loads vec 16-bit elements at global address a where ok
// (zeros where not), as one access: b16, b32, v2.b32 or v4.b32.
func windowLoad(b *builder, vec int, a, ok string) []string {
	if vec == 1 {
		h := b.reg(kB16)
		b.ins("mov.b16 %s, 0", h)
		b.insP(ok, "ld.global.nc.b16 %s, [%s]", h, a)
		return []string{h}
	}
	rs := b.regs(kB32, vec/2)
	for _, r := range rs {
		b.ins("mov.b32 %s, 0", r)
	}
	b.insP(ok, "ld.global.nc%s.b32 %s, [%s]", vsuffix(vec/2), vec1(rs), a)
	return rs
}

// windowStore stores windowLoad's registers at shared address a where ok.
func windowStore(b *builder, vec int, a string, rs []string, ok string) {
	if vec == 1 {
		b.insP(ok, "st.shared.b16 [%s], %s", a, rs[0])
		return
	}
	b.insP(ok, "st.shared%s.b32 [%s], %s", vsuffix(vec/2), a, vec1(rs))
}

// vec1 is a vector operand, or the register itself for one.
func vec1(rs []string) string {
	if len(rs) == 1 {
		return rs[0]
	}
	return braces(rs)
}

// windowRow is a staged row's values: its global offset (elements) and
// whether it is read at all.
type windowRow struct {
	off, ok, dst string
}

// windowStageX stages the chunk's window of x (channels c0… of image n:
// CC·HS rows of WS elements from row hLo and column wLo, zeros outside x
// and past C) at xs, in vectors of the class's XVec.
func (c *gemmCtx) windowStageX(cls WindowClass, cfg WindowConfig, x, xs, xN, hLo, wLo, c0, tid, warp, lane string, p map[string]string) {
	b := c.b
	v := cls.xVec()
	rows, ncv := b.reg(kB32), b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", rows, p["CC"], p["HS"])
	b.ins("shr.u32 %s, %s, %d", ncv, p["WS"], log2(v))
	row := func(rho, valid string) any {
		cl, hh := divmodMagic(b, rho, p["HS"], p["hsM"], p["hsL"])
		ch, h := b.add32(c0, cl), b.add32(hLo, hh)
		ok, hOK := b.reg(kPred), b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", ok, ch, p["C"])
		b.ins("setp.lt.u32 %s, %s, %s", hOK, h, p["H"]) // unsigned: a row above x is out too
		b.ins("and.pred %s, %s, %s", ok, ok, hOK)
		b.ins("and.pred %s, %s, %s", ok, ok, valid)
		off := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, ch, p["xsC"], xN)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, h, p["xsH"], off)
		d := b.reg(kB32)
		b.ins("mul.lo.s32 %s, %s, %s", d, rho, p["WS"])
		b.ins("mad.lo.s32 %s, %s, 2, %s", d, d, xs)
		return windowRow{off, ok, d}
	}
	elem := func(r any, cv string) (string, string) {
		wr := r.(windowRow)
		col := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %d, %s", col, cv, v, wLo)
		ok := b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %s", ok, col, p["W"]) // a vector lies wholly in the row or wholly outside
		b.ins("and.pred %s, %s, %s", ok, ok, wr.ok)
		off := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, col, p["xsW"], wr.off)
		return elemAddr(b, x, off, F16), ok
	}
	dst := func(r any) string { return r.(windowRow).dst }
	if v > 1 {
		c.stageFlat(cfg, "W_X", v, rows, ncv, p["xcvM"], p["xcvL"], tid, x, row, elem, dst)
		return
	}
	c.stageRows(cfg, "W_X", v, rows, ncv, warp, lane, row, elem, dst)
}

// windowStageW stages the filter's chunk (output channels k0…, the chunk's
// channels c0…) at ws: a row of J elements (pitch wPitch bytes) per output
// channel, zeros past K and past C; in vectors of the class's WVec along
// the filter's rows (K×C×R×S), else element by element through the
// filter's table (any format), zeros past J too.
func (c *gemmCtx) windowStageW(cls WindowClass, cfg WindowConfig, w, ws, tabW, tabC, wPitch, k0, c0, tid, warp, lane string, p map[string]string) {
	b := c.b
	v := cls.wVec()
	cOff := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", cOff, c0, p["wsC"])
	cLeft := b.reg(kB32) // the chunk's channels within C
	b.ins("sub.s32 %s, %s, %s", cLeft, p["C"], c0)
	rows, ncv := b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %d", rows, cfg.Channels)
	jIn := b.reg(kB32) // the reduction indices within C: min(J, (C − c0)·R·S)
	b.ins("mul.lo.s32 %s, %s, %s", jIn, cLeft, p["RS"])
	b.ins("min.s32 %s, %s, %s", jIn, jIn, p["J"])
	jLast := b.reg(kB32)
	b.ins("add.s32 %s, %s, -1", jLast, p["JP"])
	if v > 1 {
		b.ins("shr.u32 %s, %s, %d", ncv, p["J"], log2(v))
	} else {
		b.ins("mov.u32 %s, %s", ncv, p["JP"])
	}
	row := func(kk, valid string) any {
		k := b.add32(k0, kk)
		ok := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", ok, k, p["K"])
		b.ins("and.pred %s, %s, %s", ok, ok, valid)
		off := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, k, p["wsK"], cOff)
		d := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", d, kk, wPitch, ws)
		return windowRow{off, ok, d}
	}
	elem := func(r any, cv string) (string, string) {
		wr := r.(windowRow)
		ok := b.reg(kPred)
		if v > 1 {
			j := b.mulImm(cv, v)
			b.ins("setp.lt.s32 %s, %s, %s", ok, j, jIn)
			b.ins("and.pred %s, %s, %s", ok, ok, wr.ok)
			return elemAddr(b, w, b.add32(wr.off, j), F16), ok
		}
		j, ta := b.reg(kB32), b.reg(kB32) // (a lane past JP reads the last entry; its load is off)
		b.ins("min.s32 %s, %s, %s", j, cv, jLast)
		b.ins("mad.lo.s32 %s, %s, 4, %s", ta, j, tabW)
		wo, cl := b.reg(kB32), b.reg(kB32)
		b.ins("ld.shared.b32 %s, [%s]", wo, ta)
		b.ins("mad.lo.s32 %s, %s, 4, %s", ta, j, tabC)
		b.ins("ld.shared.b32 %s, [%s]", cl, ta)
		in := b.reg(kPred)
		b.ins("setp.ge.s32 %s, %s, 0", ok, wo)
		b.ins("setp.lt.s32 %s, %s, %s", in, cl, cLeft)
		b.ins("and.pred %s, %s, %s", ok, ok, in)
		b.ins("and.pred %s, %s, %s", ok, ok, wr.ok)
		return elemAddr(b, w, b.add32(wr.off, wo), F16), ok
	}
	dst := func(r any) string { return r.(windowRow).dst }
	if v > 1 {
		c.stageFlat(cfg, "W_W", v, rows, ncv, p["wcvM"], p["wcvL"], tid, w, row, elem, dst)
		return
	}
	c.stageRows(cfg, "W_W", v, rows, ncv, warp, lane, row, elem, dst)
}

// windowCopies writes a Shifted kernel's copies of the chunk's window (xs,
// its columns from sh): for each channel c, window row h, column group cg
// and tap s, the unit c·PLU + h·RPU + cg·S + s at cp holds the window's
// elements sh + wO + s·wStep + (8·cg + i)·strW of the row, i < 8 (the
// operands of the group's 8 pixels for that tap). The threads take the
// (row, column group) pairs in turn, each writing its S units; with
// stride 1 a unit is five aligned words of the row, funnel-shifted by an
// element where it starts at an odd one, else eight elements.
func (c *gemmCtx) windowCopies(cfg WindowConfig, xs, cp, sh, tid string, p map[string]string) {
	b := c.b
	b.comment("the window's shifted copies")
	threads := cfg.warps() * 32
	total := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", total, p["CC"], p["HS"])
	b.ins("mul.lo.s32 %s, %s, %s", total, total, p["NG"])
	gap := b.reg(kB32) // PLU − HS·RPU: a plane's units past its rows
	b.ins("mul.lo.s32 %s, %s, %s", gap, p["HS"], p["rpu"])
	b.ins("sub.s32 %s, %s, %s", gap, p["plu"], gap)
	step := b.reg(kB32) // bytes between a unit's elements in the window
	b.ins("shl.b32 %s, %s, 1", step, p["strW"])
	group := b.reg(kB32) // a column group's first element: 8·strW
	b.ins("shl.b32 %s, %s, 3", group, p["strW"])
	col0 := b.reg(kB32) // the window's column of tap 0 of the tile's first pixel
	b.ins("add.s32 %s, %s, %s", col0, sh, p["wO"])
	unit := b.reg(kPred) // stride 1: a unit is consecutive elements
	b.ins("setp.eq.s32 %s, %s, 1", unit, p["strW"])
	tapStep := b.reg(kB32) // bytes between taps: 2·wStep
	b.ins("shl.b32 %s, %s, 1", tapStep, p["wStep"])
	blockLoop(b, threads, "W_COPY", tid, total, func(idx string) {
		rho, cg := divmodMagic(b, idx, p["NG"], p["ngM"], p["ngL"])
		ch, _ := divmodMagic(b, rho, p["HS"], p["hsM"], p["hsL"])
		dst := b.reg(kB32) // ρ·RPU + c·gap + cg·S = c·PLU + h·RPU + cg·S
		b.ins("mul.lo.s32 %s, %s, %s", dst, cg, p["S"])
		b.ins("mad.lo.s32 %s, %s, %s, %s", dst, rho, p["rpu"], dst)
		b.ins("mad.lo.s32 %s, %s, %s, %s", dst, ch, gap, dst)
		b.ins("shl.b32 %s, %s, 4", dst, dst)
		b.ins("add.s32 %s, %s, %s", dst, dst, cp)
		src := b.reg(kB32) // the unit of tap 0: xs + 2·(ρ·WS + col0 + cg·8·strW)
		b.ins("mad.lo.s32 %s, %s, %s, %s", src, cg, group, col0)
		b.ins("mad.lo.s32 %s, %s, %s, %s", src, rho, p["WS"], src)
		b.ins("shl.b32 %s, %s, 1", src, src)
		b.ins("add.s32 %s, %s, %s", src, src, xs)
		s := b.reg(kB32)
		b.ins("mov.u32 %s, 0", s)
		taps := b.newLabel("W_COPY_TAP")
		b.label(taps)
		w := b.regs(kB32, 4)
		spread, stored := b.newLabel("W_COPY_SPREAD"), b.newLabel("W_COPY_STORE")
		b.insP("!"+unit, "bra.uni %s", spread)
		{
			a0, sel, odd := b.reg(kB32), b.reg(kB32), b.reg(kPred)
			b.ins("and.b32 %s, %s, -4", a0, src)
			b.ins("and.b32 %s, %s, 2", sel, src)
			b.ins("setp.ne.s32 %s, %s, 0", odd, sel)
			b.ins("selp.b32 %s, 21554, 12816, %s", sel, odd) // 0x5432: the upper half of one word and the lower of the next; 0x3210: the word
			words := b.regs(kB32, 5)
			for i, r := range words {
				b.ins("ld.shared.b32 %s, [%s+%d]", r, a0, 4*i)
			}
			for i := range w {
				b.ins("prmt.b32 %s, %s, %s, %s", w[i], words[i], words[i+1], sel)
			}
			b.ins("bra.uni %s", stored)
		}
		b.label(spread)
		{
			h := b.regs(kB16, 8)
			a := b.reg(kB32)
			b.ins("mov.u32 %s, %s", a, src)
			for i := range h {
				if i > 0 {
					b.ins("add.s32 %s, %s, %s", a, a, step)
				}
				b.ins("ld.shared.b16 %s, [%s]", h[i], a)
			}
			for i := range w {
				b.ins("mov.b32 %s, {%s, %s}", w[i], h[2*i], h[2*i+1])
			}
		}
		b.label(stored)
		b.ins("st.shared.v4.b32 [%s], %s", dst, braces(w))
		b.ins("add.s32 %s, %s, 16", dst, dst)
		b.ins("add.s32 %s, %s, %s", src, src, tapStep)
		b.ins("add.s32 %s, %s, 1", s, s)
		moreS := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", moreS, s, p["S"])
		b.insP(moreS, "bra.uni %s", taps)
	})
}
