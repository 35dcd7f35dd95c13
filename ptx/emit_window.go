package ptx

import "fmt"

// GenerateWindowConv emits the window kernel of a convolution (see
// WindowClass): block (ctaid.x) is one tile of TP×TQ output pixels of one
// image, ctaid.y a row of cfg.Channels output channels. The block writes
// its tables once (for each reduction index j = (channel of the chunk,
// filter row, filter column): the byte offset of its tap in the window,
// the filter's element offset, the channel; indices past J point at the
// window's zero plane), then for each chunk of CC channels stages x's
// window (zeros outside x and past C) and the filter's chunk (zeros past
// K, J and C) in shared memory, and accumulates the products with
// mma.sync m16n8k16: each A fragment element read from the window at its
// pixel's base plus its index's offset, each B fragment from the filter's
// rows. The accumulators go through shared memory so that y is written by
// rows of consecutive columns: y = α·acc + β·y (y not read when β = 0)
// through y's strides.
//
// Parameters: u64 x, w, y; f32 α, β; then the 32-bit integers of
// WindowIntParams for a geometry of WindowGeometryOf. Launch WindowGrid's
// grid with g.Bytes of dynamic shared memory (at most cfg.KB KiB).
func GenerateWindowConv(cls WindowClass, cfg WindowConfig, arch string) (*Kernel, error) {
	if err := LegalWindow(cfg, cls); err != nil {
		return nil, err
	}
	name := fmt.Sprintf("isaac_wconv_%s_x%dw%d_m%d_k%d_w%dx%d_s%d", cls.Data, cls.xVec(), cls.wVec(), cfg.Pixels, cfg.Channels, cfg.WarpsM, cfg.WarpsN, cfg.KB)
	if cfg.Shifted {
		name += "_sh"
	}
	if cfg.Direct {
		name += "_d"
	}
	b := &builder{}
	c := &gemmCtx{b: b}
	b.comment("%s %+v", cfg, cls)
	x, w, y := c.globalParam("x"), c.globalParam("w"), c.globalParam("y")
	p := map[string]string{}
	for _, n := range WindowIntParams {
		p[n] = c.intParam(n)
	}
	alpha, beta := b.reg(kF32), b.reg(kF32)
	b.ins("ld.param.f32 %s, [p_alpha]", alpha)
	b.ins("ld.param.f32 %s, [p_beta]", beta)
	threads := cfg.warps() * 32

	tid, warp, lane, g, t := b.reg(kB32), b.reg(kB32), b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tid)
	b.ins("shr.u32 %s, %s, 5", warp, tid)
	b.ins("and.b32 %s, %s, 31", lane, tid)
	b.ins("shr.u32 %s, %s, 2", g, lane)
	b.ins("and.b32 %s, %s, 3", t, lane)
	smem := b.reg(kB32)
	b.ins("mov.u32 %s, %s", smem, smemSymbol)

	b.comment("the block's first channel k0 and its tables")
	kb := b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.y", kb)
	k0 := b.mulImm(kb, cfg.Channels)
	xs := b.add32(smem, p["xsOff"]) // the window
	ws := b.add32(smem, p["wsOff"]) // the filter's chunk
	es := b.add32(smem, p["eOff"])  // the accumulators
	tabX := smem                    // x's offsets (bytes from smem), then the filter's, then the channels
	tabW, tabC := b.reg(kB32), b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 4, %s", tabW, p["JP"], smem)
	b.ins("mad.lo.s32 %s, %s, 4, %s", tabC, p["JP"], tabW)
	wPitch := b.reg(kB32) // the filter's row in bytes: JP+8 elements
	b.ins("add.s32 %s, %s, 8", wPitch, p["JP"])
	b.ins("shl.b32 %s, %s, 1", wPitch, wPitch)
	zero := c.windowTables(cfg, tid, smem, tabX, tabW, tabC, ws, wPitch, cls.wVec() > 1, p)
	var cp string // a Shifted kernel's copies
	if cfg.Shifted {
		cp = b.add32(smem, p["cpOff"])
	}

	b.comment("the warp's pixels and channels; each fragment row's pixel in the window")
	wm, wn := b.reg(kB32), b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", wm, warp, cfg.WarpsM-1)
	b.ins("shr.u32 %s, %s, %d", wn, warp, log2(cfg.WarpsM))
	mb := b.mulImm(wm, cfg.Pixels/cfg.WarpsM)
	nb := b.mulImm(wn, cfg.Channels/cfg.WarpsN)
	tilePix := b.reg(kB32) // TP·TQ: the tile's pixels
	b.ins("mul.lo.s32 %s, %s, %s", tilePix, p["TP"], p["TQ"])
	rowStep := b.reg(kB32) // a pixel row's step in the window: strH·WS
	b.ins("mul.lo.s32 %s, %s, %s", rowStep, p["strH"], p["WS"])
	mt, nt := cfg.mTiles(), cfg.nTiles()
	pix := make([][2]string, mt) // [tile][row g, row g+8]: the pixel's element offset in the window
	if cfg.Shifted {
		pix = nil
	}
	for i := range pix {
		for h := range 2 {
			m := b.add32(mb, g)
			m = b.addImm32(m, 16*i+8*h)
			pp, qq := divmod(b, m, p["TQ"])
			off := b.reg(kB32)
			b.ins("mul.lo.s32 %s, %s, %s", off, pp, rowStep)
			b.ins("mad.lo.s32 %s, %s, %s, %s", off, qq, p["strW"], off)
			used := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", used, m, tilePix)
			b.insP("!"+used, "mov.u32 %s, 0", off) // a slot past the tile reads the window's first element; its row is not stored
			pix[i][h] = off
		}
	}
	// wRows[j]: the filter row of the warp's n-tile j for this thread (channel nb+8j+g).
	wRows := make([]string, nt)
	for j := range wRows {
		ch := b.add32(nb, g)
		ch = b.addImm32(ch, 8*j)
		wRows[j] = b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", wRows[j], ch, wPitch, ws)
		b.ins("mad.lo.s32 %s, %s, 4, %s", wRows[j], t, wRows[j])
	}
	acc := make([][][]string, mt)
	for i := range acc {
		acc[i] = make([][]string, nt)
		for j := range acc[i] {
			acc[i][j] = b.regs(kF32, 4)
		}
	}
	pBeta := b.reg(kPred)
	b.ins("setp.neu.f32 %s, %s, 0f00000000", pBeta, beta)
	multi := b.reg(kPred) // several chunks: the filter staged for each
	b.ins("setp.lt.s32 %s, %s, %s", multi, p["CC"], p["C"])

	b.comment("for each of the block's tiles")
	it := b.reg(kB32)
	b.ins("mov.u32 %s, 0", it)
	tileLoop, done := b.newLabel("W_TILE"), b.newLabel("W_DONE")
	b.label(tileLoop)
	tile := b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.x", tile)
	b.ins("mad.lo.s32 %s, %s, %s, %s", tile, tile, p["tiles"], it)
	past := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", past, tile, p["tilesAll"])
	b.insP(past, "bra.uni %s", done)
	r1, qb := divmodMagic(b, tile, p["QB"], p["qbM"], p["qbL"])
	n, pb := divmodMagic(b, r1, p["PB"], p["pbM"], p["pbL"])
	p0, q0 := b.reg(kB32), b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", p0, pb, p["TP"])
	b.ins("mul.lo.s32 %s, %s, %s", q0, qb, p["TQ"])
	hLo, wLo := b.reg(kB32), b.reg(kB32) // the window's first row and column in x
	b.ins("mul.lo.s32 %s, %s, %s", hLo, p0, p["strH"])
	b.ins("sub.s32 %s, %s, %s", hLo, hLo, p["padH"])
	b.ins("mul.lo.s32 %s, %s, %s", wLo, q0, p["strW"])
	b.ins("sub.s32 %s, %s, %s", wLo, wLo, p["padW"])
	sh := "0" // the tile's first column past the vector it lies in
	if v := cls.xVec(); v > 1 {
		sh = b.reg(kB32)
		b.ins("and.b32 %s, %s, %d", sh, wLo, v-1)
		b.ins("sub.s32 %s, %s, %s", wLo, wLo, sh)
	}
	xN := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", xN, n, p["xsN"])
	bases := make([][2]string, len(pix)) // smem + 2·(the pixel's offset in the window, shifted)
	for i := range bases {
		for h := range 2 {
			bases[i][h] = b.reg(kB32)
			b.ins("add.s32 %s, %s, %s", bases[i][h], pix[i][h], sh)
			b.ins("shl.b32 %s, %s, 1", bases[i][h], bases[i][h])
			b.ins("add.s32 %s, %s, %s", bases[i][h], bases[i][h], smem)
		}
	}
	for i := range acc {
		for j := range acc[i] {
			for _, r := range acc[i][j] {
				b.ins("mov.f32 %s, 0f00000000", r)
			}
		}
	}

	var units []string // a Shifted kernel's: each m-tile's unit of this lane's ldmatrix rows
	if cfg.Shifted {
		units = c.windowUnitBases(cfg, mb, lane, smem, p)
	}

	b.comment("for each chunk of CC channels")
	c0 := b.reg(kB32)
	b.ins("mov.u32 %s, 0", c0)
	chunk, skipW := b.newLabel("W_CHUNK"), b.newLabel("W_SKIPW")
	b.label(chunk)
	b.ins("bar.sync 0") // the tables written; the last chunk's operands read, the last tile's accumulators
	zero()              // (the accumulators overlay the zero plane)
	c.windowStageX(cls, cfg, x, xs, xN, hLo, wLo, c0, tid, warp, lane, p)
	if0 := b.reg(kPred) // the filter staged at the first tile, and at each chunk where there are several
	b.ins("setp.eq.s32 %s, %s, 0", if0, it)
	b.ins("or.pred %s, %s, %s", if0, if0, multi)
	b.insP("!"+if0, "bra.uni %s", skipW)
	c.windowStageW(cls, cfg, w, ws, tabW, tabC, wPitch, k0, c0, tid, warp, lane, p)
	b.label(skipW)
	b.ins("cp.async.wait_all")
	b.ins("bar.sync 0")
	if cfg.Shifted {
		c.windowCopies(cfg, xs, cp, sh, tid, p)
		b.ins("bar.sync 0")
		c.windowProductsShifted(cls, tabX, units, wRows, lane, acc, p)
	} else {
		c.windowProducts(cls, tabX, bases, wRows, t, acc, p)
	}
	b.ins("add.s32 %s, %s, %s", c0, c0, p["CC"])
	moreC := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreC, c0, p["C"])
	b.insP(moreC, "bra.uni %s", chunk)

	if cfg.Direct {
		c.windowStoreDirect(cls, cfg, y, n, k0, p0, q0, mb, nb, g, t, acc, alpha, beta, pBeta, p)
	} else {
		c.windowStoreShared(cls, cfg, y, es, n, k0, p0, q0, mb, nb, g, t, warp, lane, acc, alpha, beta, pBeta, p)
	}
	b.ins("add.s32 %s, %s, 1", it, it)
	moreT := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreT, it, p["tiles"])
	b.insP(moreT, "bra.uni %s", tileLoop)
	b.label(done)
	b.ins("ret")

	ptx := header(arch) + fmt.Sprintf(".extern .shared .align 16 .b8 %s[];\n\n", smemSymbol) +
		entryMaxReg(name, windowParams(), min(255, 65536/threads), b)
	return &Kernel{
		Name:        name,
		PTX:         ptx,
		Block:       [3]int{threads, 1, 1},
		SharedBytes: cfg.KB << 10,
		Params:      windowParams(),
		window:      cfg,
		windowClass: cls,
	}, nil
}

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

// windowTables writes the block's tables (for each reduction index j <
// JP: x's tap as a byte offset from smem into the window, the zero plane's
// past J; the filter's element offset, −1 past J; the channel of the
// chunk), zeros the window's zero plane, and with vectors of the filter
// (wVec) the filter rows' tails past J, which the staging leaves.
func (c *gemmCtx) windowTables(cfg WindowConfig, tid, smem, tabX, tabW, tabC, ws, wPitch string, wVec bool, p map[string]string) (zero func()) {
	b := c.b
	threads := cfg.warps() * 32
	zeroPlane := b.reg(kB32) // bytes from smem
	if cfg.Shifted {
		b.ins("mul.lo.s32 %s, %s, %s", zeroPlane, p["CC"], p["plu"])
		b.ins("shl.b32 %s, %s, 4", zeroPlane, zeroPlane)
		b.ins("add.s32 %s, %s, %s", zeroPlane, zeroPlane, p["cpOff"])
	} else {
		b.ins("mul.lo.s32 %s, %s, %s", zeroPlane, p["CC"], p["plane"])
		b.ins("shl.b32 %s, %s, 1", zeroPlane, zeroPlane)
		b.ins("add.s32 %s, %s, %s", zeroPlane, zeroPlane, p["xsOff"])
	}
	forEach := func(label, limit string, body func(e string)) { blockLoop(b, threads, label, tid, limit, body) }
	forEach("W_TAB", p["JP"], func(j string) {
		in := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", in, j, p["J"])
		cl, rs := divmod(b, j, p["RS"])
		r, s := divmod(b, rs, p["S"])
		hh, wwo := b.reg(kB32), b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", hh, r, p["hStep"], p["hO"])
		b.ins("mad.lo.s32 %s, %s, %s, %s", wwo, s, p["wStep"], p["wO"])
		xo := b.reg(kB32)
		if cfg.Shifted { // the unit of (channel, window row, column group 0, tap s)
			b.ins("mad.lo.s32 %s, %s, %s, %s", xo, hh, p["rpu"], s)
			b.ins("mad.lo.s32 %s, %s, %s, %s", xo, cl, p["plu"], xo)
			b.ins("shl.b32 %s, %s, 4", xo, xo)
			b.ins("add.s32 %s, %s, %s", xo, xo, p["cpOff"])
		} else {
			b.ins("mad.lo.s32 %s, %s, %s, %s", xo, hh, p["WS"], wwo)
			b.ins("mad.lo.s32 %s, %s, %s, %s", xo, cl, p["plane"], xo)
			b.ins("shl.b32 %s, %s, 1", xo, xo)
			b.ins("add.s32 %s, %s, %s", xo, xo, p["xsOff"])
		}
		b.insP("!"+in, "mov.u32 %s, %s", xo, zeroPlane)
		wo := b.reg(kB32)
		b.ins("mul.lo.s32 %s, %s, %s", wo, cl, p["wsC"])
		b.ins("mad.lo.s32 %s, %s, %s, %s", wo, r, p["wsR"], wo)
		b.ins("mad.lo.s32 %s, %s, %s, %s", wo, s, p["wsS"], wo)
		b.insP("!"+in, "mov.u32 %s, -1", wo)
		a := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, 4, %s", a, j, tabX)
		b.ins("st.shared.b32 [%s], %s", a, xo)
		b.ins("mad.lo.s32 %s, %s, 4, %s", a, j, tabW)
		b.ins("st.shared.b32 [%s], %s", a, wo)
		b.ins("mad.lo.s32 %s, %s, 4, %s", a, j, tabC)
		b.ins("st.shared.b32 [%s], %s", a, cl)
	})
	z := b.reg(kB16)
	b.ins("mov.b16 %s, 0", z)
	words, z32 := b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, 0", z32)
	if cfg.Shifted {
		b.ins("shl.b32 %s, %s, 2", words, p["plu"])
	}
	zero = func() {
		if cfg.Shifted {
			forEach("W_ZERO", words, func(e string) {
				a := b.reg(kB32)
				b.ins("mad.lo.s32 %s, %s, 4, %s", a, e, zeroPlane)
				b.ins("add.s32 %s, %s, %s", a, a, smem)
				b.ins("st.shared.b32 [%s], %s", a, z32)
			})
			return
		}
		forEach("W_ZERO", p["plane"], func(e string) {
			a := b.reg(kB32)
			b.ins("shl.b32 %s, %s, 1", a, e)
			b.ins("add.s32 %s, %s, %s", a, a, zeroPlane)
			b.ins("add.s32 %s, %s, %s", a, a, smem)
			b.ins("st.shared.b16 [%s], %s", a, z)
		})
	}
	if wVec {
		tails := b.reg(kB32) // 16 places a row: JP − J < 16
		b.ins("mov.u32 %s, %d", tails, cfg.Channels*16)
		forEach("W_TAIL", tails, func(e string) {
			kk, jj := b.reg(kB32), b.reg(kB32)
			b.ins("shr.u32 %s, %s, 4", kk, e)
			b.ins("and.b32 %s, %s, 15", jj, e)
			b.ins("add.s32 %s, %s, %s", jj, jj, p["J"])
			in := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", in, jj, p["JP"])
			a := b.reg(kB32)
			b.ins("mad.lo.s32 %s, %s, %s, %s", a, kk, wPitch, ws)
			b.ins("mad.lo.s32 %s, %s, 2, %s", a, jj, a)
			b.insP(in, "st.shared.b16 [%s], %s", a, z)
		})
	}
	return zero
}

// divmodMagic is a / d and a − (a / d)·d for a below 2³¹, the quotient
// by d's DivMagic multiplier m and shift l (registers).
func divmodMagic(b *builder, a, d, m, l string) (quo, rem string) {
	hi, quo, rem := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mul.hi.u32 %s, %s, %s", hi, a, m)
	b.ins("add.s32 %s, %s, %s", hi, hi, a)
	b.ins("shr.u32 %s, %s, %s", quo, hi, l)
	b.ins("mul.lo.s32 %s, %s, %s", rem, quo, d)
	b.ins("sub.s32 %s, %s, %s", rem, a, rem)
	return quo, rem
}

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

// blockLoop emits a loop of the block's threads over indices below limit:
// thread tid takes tid, tid + threads, …, body emitting one index's work.
func blockLoop(b *builder, threads int, label, tid, limit string, body func(e string)) {
	e := b.reg(kB32)
	b.ins("mov.u32 %s, %s", e, tid)
	loop, end := b.newLabel(label), b.newLabel(label+"_END")
	b.label(loop)
	more := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", more, e, limit)
	b.insP("!"+more, "bra.uni %s", end)
	body(e)
	b.ins("add.s32 %s, %s, %d", e, e, threads)
	b.ins("bra.uni %s", loop)
	b.label(end)
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

// windowProducts accumulates the chunk's products: for each 16 reduction
// indices, the thread's four offsets (indices 2t, 2t+1, 2t+8, 2t+9) from
// the table, each m-tile's A fragment gathered from the window at its two
// pixel bases, each n-tile's B fragment from the filter's row, one mma each.
func (c *gemmCtx) windowProducts(cls WindowClass, tabX string, bases [][2]string, wRows []string, t string, acc [][][]string, p map[string]string) {
	b := c.b
	tab := b.reg(kB32) // this thread's entries of the step: index 2t
	b.ins("mad.lo.s32 %s, %s, 8, %s", tab, t, tabX)
	c.windowReduce(cls, tab, wRows, acc, p, func() func(i int) []string {
		o := b.regs(kB32, 4)
		b.ins("ld.shared.v2.b32 {%s, %s}, [%s]", o[0], o[1], tab)
		b.ins("ld.shared.v2.b32 {%s, %s}, [%s+32]", o[2], o[3], tab)
		pair := func(base, lo, hi string) string {
			h := b.regs(kB16, 2)
			for i, o := range []string{lo, hi} {
				a := b.add32(base, o)
				b.ins("ld.shared.b16 %s, [%s]", h[i], a)
			}
			r := b.reg(kB32)
			b.ins("mov.b32 %s, {%s, %s}", r, h[0], h[1])
			return r
		}
		return func(i int) []string {
			return []string{
				pair(bases[i][0], o[0], o[1]),
				pair(bases[i][1], o[0], o[1]),
				pair(bases[i][0], o[2], o[3]),
				pair(bases[i][1], o[2], o[3]),
			}
		}
	})
}

// windowReduce emits the loop over the chunk's JP/16 steps of 16 reduction
// indices (tab, this thread's table entries, and the filter's rows moving
// on by a step each): fragments emits a step's table reads and gives each
// m-tile's A fragment; each n-tile's B fragment comes from the filter's
// row (wRows), one mma.sync m16n8k16 a pair.
func (c *gemmCtx) windowReduce(cls WindowClass, tab string, wRows []string, acc [][][]string, p map[string]string, fragments func() func(i int) []string) {
	b := c.b
	op := "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
	if cls.Data == BF16 {
		op = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
	}
	steps := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 4", steps, p["JP"])
	wOff := b.reg(kB32) // bytes into the filter's rows
	b.ins("mov.u32 %s, 0", wOff)
	ks := b.reg(kB32)
	b.ins("mov.u32 %s, 0", ks)
	loop := b.newLabel("W_K")
	b.label(loop)
	a := fragments()
	bf := make([][2]string, len(wRows))
	for j, row := range wRows {
		r := b.add32(row, wOff)
		bf[j] = [2]string{b.reg(kB32), b.reg(kB32)}
		b.ins("ld.shared.b32 %s, [%s]", bf[j][0], r)
		b.ins("ld.shared.b32 %s, [%s+16]", bf[j][1], r)
	}
	for i := range acc {
		af := a(i)
		for j := range bf {
			d := acc[i][j]
			b.ins("%s %s, %s, %s, %s", op, braces(d), braces(af), braces(bf[j][:]), braces(d))
		}
	}
	b.ins("add.s32 %s, %s, 64", tab, tab)
	b.ins("add.s32 %s, %s, 32", wOff, wOff)
	loopNext(b, ks, steps, loop)
}

// windowUnitBases is a Shifted kernel's unit base of each of the warp's
// m-tiles for this lane's ldmatrix rows: lanes 8–15 and 24–31 give the
// tile's second 8 pixels (fragment rows 8–15), the others its first; a
// group of 8 pixels (a unit's columns) of tile row p and column group cg
// starts at unit p·strH·RPU + cg·S of every plane, as bytes from smem. A
// group past the tile reads unit 0 (its rows are not stored).
func (c *gemmCtx) windowUnitBases(cfg WindowConfig, mb, lane, smem string, p map[string]string) []string {
	b := c.b
	b.comment("each m-tile's unit for this lane's ldmatrix rows")
	hi := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 3", hi, lane)
	b.ins("and.b32 %s, %s, 1", hi, hi)
	grp0 := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 3", grp0, mb)
	b.ins("add.s32 %s, %s, %s", grp0, grp0, hi)
	groups := b.reg(kB32) // TP·NG
	b.ins("mul.lo.s32 %s, %s, %s", groups, p["TP"], p["NG"])
	rowUnits := b.reg(kB32) // strH·RPU: a tile row's step in units
	b.ins("mul.lo.s32 %s, %s, %s", rowUnits, p["strH"], p["rpu"])
	units := make([]string, cfg.mTiles())
	for i := range units {
		grp := b.addImm32(grp0, 2*i)
		pp, cg := divmod(b, grp, p["NG"])
		u := b.reg(kB32)
		b.ins("mul.lo.s32 %s, %s, %s", u, pp, rowUnits)
		b.ins("mad.lo.s32 %s, %s, %s, %s", u, cg, p["S"], u)
		in := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", in, grp, groups)
		b.insP("!"+in, "mov.u32 %s, 0", u)
		b.ins("shl.b32 %s, %s, 4", u, u)
		b.ins("add.s32 %s, %s, %s", u, u, smem)
		units[i] = u
	}
	return units
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

// windowProductsShifted is windowProducts for a Shifted kernel: for each 16
// reduction indices, this lane's row of the step (index 8·(lane/16) +
// lane%8) from the table, each m-tile's A fragment one ldmatrix.trans of
// the four units at its base plus the rows' offsets.
func (c *gemmCtx) windowProductsShifted(cls WindowClass, tabX string, units, wRows []string, lane string, acc [][][]string, p map[string]string) {
	b := c.b
	row := b.reg(kB32) // 8·(lane/16) + lane%8
	b.ins("shr.u32 %s, %s, 4", row, lane)
	b.ins("shl.b32 %s, %s, 3", row, row)
	lo := b.reg(kB32)
	b.ins("and.b32 %s, %s, 7", lo, lane)
	b.ins("add.s32 %s, %s, %s", row, row, lo)
	tab := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 4, %s", tab, row, tabX)
	c.windowReduce(cls, tab, wRows, acc, p, func() func(i int) []string {
		tap := b.reg(kB32)
		b.ins("ld.shared.b32 %s, [%s]", tap, tab)
		return func(i int) []string {
			a := b.add32(units[i], tap)
			af := b.regs(kB32, 4)
			b.ins("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 %s, [%s]", braces(af), a)
			return af
		}
	})
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
