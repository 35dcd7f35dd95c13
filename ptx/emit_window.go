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
