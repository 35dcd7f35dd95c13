package ptx

// windowStoreShared writes the tile's accumulators to shared memory
// ([channel][pixel], over the window once every warp's products are done),
// then y from them by rows of consecutive columns (windowStoreY).
func (c *gemmCtx) windowStoreShared(cls WindowClass, cfg WindowConfig, y, es, n, k0, p0, q0, mb, nb, g, t, warp, lane string, acc [][][]string,
	alpha, beta, pBeta string, p map[string]string) {
	b := c.b
	b.comment("the accumulators to shared memory, [channel][pixel], over the window")
	b.ins("bar.sync 0")
	pitch := cfg.windowPitch() * 4
	for i := range acc {
		for j := range acc[i] {
			m := b.add32(mb, g)
			m = b.addImm32(m, 16*i)
			ch := b.add32(nb, b.mulImm(t, 2))
			ch = b.addImm32(ch, 8*j)
			a := b.reg(kB32)
			b.ins("mul.lo.s32 %s, %s, %d", a, ch, pitch)
			b.ins("mad.lo.s32 %s, %s, 4, %s", a, m, a)
			b.ins("add.s32 %s, %s, %s", a, a, es)
			b.ins("st.shared.f32 [%s], %s", a, acc[i][j][0])
			b.ins("st.shared.f32 [%s+%d], %s", a, pitch, acc[i][j][1])
			b.ins("st.shared.f32 [%s+32], %s", a, acc[i][j][2])
			b.ins("st.shared.f32 [%s+%d], %s", a, pitch+32, acc[i][j][3])
		}
	}
	b.ins("bar.sync 0")
	c.windowStoreY(cls, cfg, y, es, n, k0, p0, q0, warp, lane, alpha, beta, pBeta, p)
}

// windowStoreDirect writes y = α·acc + β·y (y not read when β = 0) from
// the accumulators' registers: each fragment row's pixel (its tile slot as
// a row and column of the tile, within P and Q) and each column's channel
// (within K), one element a store.
func (c *gemmCtx) windowStoreDirect(cls WindowClass, cfg WindowConfig, y, n, k0, p0, q0, mb, nb, g, t string, acc [][][]string,
	alpha, beta, pBeta string, p map[string]string) {
	b := c.b
	b.comment("y from the accumulators' registers")
	slots := b.reg(kB32) // TP·TQ
	b.ins("mul.lo.s32 %s, %s, %s", slots, p["TP"], p["TQ"])
	yTile := b.reg(kB32) // y's offset of (n, k0, p0, q0)
	b.ins("mul.lo.s32 %s, %s, %s", yTile, n, p["ysN"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", yTile, k0, p["ysC"], yTile)
	b.ins("mad.lo.s32 %s, %s, %s, %s", yTile, p0, p["ysH"], yTile)
	b.ins("mad.lo.s32 %s, %s, %s, %s", yTile, q0, p["ysW"], yTile)
	rows := make([][2]string, len(acc)) // each fragment row's address of channel k0
	rowOK := make([][2]string, len(acc))
	for i := range acc {
		for h := range 2 {
			m := b.add32(mb, g)
			m = b.addImm32(m, 16*i+8*h)
			pp, qq := divmodMagic(b, m, p["TQ"], p["tqM"], p["tqL"])
			ok, in := b.reg(kPred), b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", ok, m, slots)
			pa, qa := b.add32(p0, pp), b.add32(q0, qq)
			b.ins("setp.lt.s32 %s, %s, %s", in, pa, p["P"])
			b.ins("and.pred %s, %s, %s", ok, ok, in)
			b.ins("setp.lt.s32 %s, %s, %s", in, qa, p["Q"])
			b.ins("and.pred %s, %s, %s", ok, ok, in)
			off := b.reg(kB32)
			b.ins("mad.lo.s32 %s, %s, %s, %s", off, pp, p["ysH"], yTile)
			b.ins("mad.lo.s32 %s, %s, %s, %s", off, qq, p["ysW"], off)
			rows[i][h], rowOK[i][h] = elemAddr(b, y, off, cls.Data), ok
		}
	}
	nt := len(acc[0])
	chOff := make([][2]string, nt) // each column's bytes from channel k0
	chOK := make([][2]string, nt)
	kEnd := b.reg(kB32)
	b.ins("sub.s32 %s, %s, %s", kEnd, p["K"], k0)
	for j := range nt {
		for e := range 2 {
			ch := b.add32(nb, b.mulImm(t, 2))
			ch = b.addImm32(ch, 8*j+e)
			chOK[j][e] = b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", chOK[j][e], ch, kEnd)
			chOff[j][e] = b.reg(kB64)
			b.ins("mul.wide.s32 %s, %s, %s", chOff[j][e], ch, p["ysC"])
			b.ins("shl.b64 %s, %s, %d", chOff[j][e], chOff[j][e], log2(cls.Data.Size()))
		}
	}
	withOld, stored := b.newLabel("W_YD_OLD"), b.newLabel("W_YD_END")
	b.insP(pBeta, "bra.uni %s", withOld)
	for _, readOld := range []bool{false, true} {
		if readOld {
			b.label(withOld)
		}
		for i := range acc {
			for h := range 2 {
				for j := range nt {
					for e := range 2 {
						ok := b.reg(kPred)
						b.ins("and.pred %s, %s, %s", ok, rowOK[i][h], chOK[j][e])
						a := b.reg(kB64)
						b.ins("add.s64 %s, %s, %s", a, rows[i][h], chOff[j][e])
						storeScaled(b, cls.Data, acc[i][j][2*h+e], a, ok, alpha, beta, readOld)
					}
				}
			}
		}
		if !readOld {
			b.ins("bra.uni %s", stored)
		}
	}
	b.label(stored)
}

// windowStoreY writes the tile's outputs from the accumulators in shared
// memory (es: [channel][pixel], rows of Pixels+4 floats): y = α·acc + β·y
// (y not read when β = 0) through y's strides. Each lane owns the tile's
// columns lane, lane+32, …; for each pixel row of the tile the warps take
// the channels (warp w: w, w+warps, …), a row of consecutive columns at a
// time, their addresses stepped without a division.
func (c *gemmCtx) windowStoreY(cls WindowClass, cfg WindowConfig, y, es, n, k0, p0, q0, warp, lane, alpha, beta, pBeta string, p map[string]string) {
	b := c.b
	pitch := cfg.windowPitch() * 4
	nw := cfg.warps()
	kEnd := b.reg(kB32) // the tile's channels within K, from k0
	b.ins("sub.s32 %s, %s, %s", kEnd, p["K"], k0)
	b.ins("min.s32 %s, %s, %d", kEnd, kEnd, cfg.Channels)
	pEnd := b.reg(kB32) // the tile's rows within P
	b.ins("sub.s32 %s, %s, %s", pEnd, p["P"], p0)
	b.ins("min.s32 %s, %s, %s", pEnd, pEnd, p["TP"])
	kStep := b.reg(kB64) // y's step between a warp's channels, bytes
	b.ins("mul.wide.s32 %s, %s, %d", kStep, p["ysC"], nw*cls.Data.Size())
	yBase := b.reg(kB32) // y's offset of (n, k0 + warp, p0)
	b.ins("add.s32 %s, %s, %s", yBase, k0, warp)
	b.ins("mul.lo.s32 %s, %s, %s", yBase, yBase, p["ysC"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", yBase, n, p["ysN"], yBase)
	b.ins("mad.lo.s32 %s, %s, %s, %s", yBase, p0, p["ysH"], yBase)
	eBase := b.reg(kB32) // the accumulators of (warp's first channel, pixel 0)
	b.ins("mad.lo.s32 %s, %s, %d, %s", eBase, warp, pitch, es)
	qq := b.reg(kB32)
	b.ins("mov.u32 %s, %s", qq, lane)
	colLoop, colNext, done := b.newLabel("W_YCOL"), b.newLabel("W_YCOL_NEXT"), b.newLabel("W_YCOL_END")
	b.label(colLoop)
	first := b.reg(kB32) // 32·(the pass): uniform
	b.ins("sub.s32 %s, %s, %s", first, qq, lane)
	moreQ := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreQ, first, p["TQ"])
	b.insP("!"+moreQ, "bra.uni %s", done)
	q := b.add32(q0, qq)
	colOK := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", colOK, q, p["Q"])
	inTile := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", inTile, qq, p["TQ"])
	b.ins("and.pred %s, %s, %s", colOK, colOK, inTile)
	yCol := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", yCol, q, p["ysW"], yBase)
	eCol := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 4, %s", eCol, qq, eBase)
	pp := b.reg(kB32)
	b.ins("mov.u32 %s, 0", pp)
	rowLoop, rowNext := b.newLabel("W_YROW"), b.newLabel("W_YROW_NEXT")
	b.label(rowLoop)
	morePP := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", morePP, pp, pEnd)
	b.insP("!"+morePP, "bra.uni %s", colNext)
	// The channels of this row: one loop where β = 0 (y not read), one where not.
	withOld := b.newLabel("W_YCH_OLD")
	b.insP(pBeta, "bra.uni %s", withOld)
	for _, readOld := range []bool{false, true} {
		if readOld {
			b.label(withOld)
		}
		ya := elemAddr(b, y, yCol, cls.Data) // (this row, the warp's first channel)
		ea := b.reg(kB32)
		b.ins("mov.u32 %s, %s", ea, eCol)
		kk := b.reg(kB32)
		b.ins("mov.u32 %s, %s", kk, warp)
		chLoop := b.newLabel("W_YCH")
		b.label(chLoop)
		moreK := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", moreK, kk, kEnd)
		b.insP("!"+moreK, "bra.uni %s", rowNext)
		v := b.reg(kF32) // (a lane past the tile's columns reads nothing: past the last channel's row lies the end of shared memory)
		b.ins("mov.f32 %s, 0f00000000", v)
		b.insP(inTile, "ld.shared.f32 %s, [%s]", v, ea)
		storeScaled(b, cls.Data, v, ya, colOK, alpha, beta, readOld)
		b.ins("add.s64 %s, %s, %s", ya, ya, kStep)
		b.ins("add.s32 %s, %s, %d", ea, ea, nw*pitch)
		b.ins("add.s32 %s, %s, %d", kk, kk, nw)
		b.ins("bra.uni %s", chLoop)
	}
	b.label(rowNext)
	b.ins("add.s32 %s, %s, %s", yCol, yCol, p["ysH"])
	b.ins("mad.lo.s32 %s, %s, 4, %s", eCol, p["TQ"], eCol)
	b.ins("add.s32 %s, %s, 1", pp, pp)
	b.ins("bra.uni %s", rowLoop)
	b.label(colNext)
	b.ins("add.s32 %s, %s, 32", qq, qq)
	b.ins("bra.uni %s", colLoop)
	b.label(done)
}

// storeScaled stores α·v + β·y (y read only where readOld) at global
// address a where ok, as 16-bit data of type d (F16 or BF16).
func storeScaled(b *builder, d DataType, v, a, ok, alpha, beta string, readOld bool) {
	r := b.reg(kF32)
	b.ins("mul.rn.f32 %s, %s, %s", r, v, alpha)
	if readOld {
		old := loadAt(b, d, kF32, a, ok, false)
		b.ins("fma.rn.f32 %s, %s, %s, %s", r, beta, old, r)
	}
	cvt := "cvt.rn.f16.f32"
	if d == BF16 {
		cvt = "cvt.rn.bf16.f32"
	}
	h := b.reg(kB16)
	b.ins("%s %s, %s", cvt, h, r)
	b.insP(ok, "st.global.b16 [%s], %s", a, h)
}
