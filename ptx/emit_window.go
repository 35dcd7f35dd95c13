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
	name := fmt.Sprintf("isaac_wconv_%s_m%d_k%d_w%dx%d", cls.Data, cfg.Pixels, cfg.Channels, cfg.WarpsM, cfg.WarpsN)
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

	b.comment("the block's image n, first output row p0 and column q0, first channel k0")
	cta, kb := b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.x", cta)
	b.ins("mov.u32 %s, %%ctaid.y", kb)
	r1, qb := divmod(b, cta, p["QB"])
	n, pb := divmod(b, r1, p["PB"])
	p0, q0, k0 := b.reg(kB32), b.reg(kB32), b.mulImm(kb, cfg.Channels)
	b.ins("mul.lo.s32 %s, %s, %s", p0, pb, p["TP"])
	b.ins("mul.lo.s32 %s, %s, %s", q0, qb, p["TQ"])
	hLo, wLo := b.reg(kB32), b.reg(kB32) // the window's first row and column in x
	b.ins("mul.lo.s32 %s, %s, %s", hLo, p0, p["strH"])
	b.ins("sub.s32 %s, %s, %s", hLo, hLo, p["padH"])
	b.ins("mul.lo.s32 %s, %s, %s", wLo, q0, p["strW"])
	b.ins("sub.s32 %s, %s, %s", wLo, wLo, p["padW"])
	xN := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", xN, n, p["xsN"])
	xs := b.add32(smem, p["xsOff"]) // the window
	ws := b.add32(smem, p["wsOff"]) // the filter's chunk
	tabX := smem                    // x's offsets (bytes from smem), then the filter's, then the channels
	tabW, tabC := b.reg(kB32), b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 4, %s", tabW, p["JP"], smem)
	b.ins("mad.lo.s32 %s, %s, 4, %s", tabC, p["JP"], tabW)
	wPitch := b.reg(kB32) // the filter's row in bytes: JP+8 elements
	b.ins("add.s32 %s, %s, 8", wPitch, p["JP"])
	b.ins("shl.b32 %s, %s, 1", wPitch, wPitch)

	b.comment("the tables, and the zero plane after the chunk's channels")
	zeroPlane := b.reg(kB32) // bytes from smem
	b.ins("mul.lo.s32 %s, %s, %s", zeroPlane, p["CC"], p["plane"])
	b.ins("shl.b32 %s, %s, 1", zeroPlane, zeroPlane)
	b.ins("add.s32 %s, %s, %s", zeroPlane, zeroPlane, p["xsOff"])
	{
		j := b.reg(kB32)
		b.ins("mov.u32 %s, %s", j, tid)
		loop, done := b.newLabel("W_TAB"), b.newLabel("W_TAB_END")
		b.label(loop)
		more := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", more, j, p["JP"])
		b.insP("!"+more, "bra.uni %s", done)
		in := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", in, j, p["J"])
		cl, rs := divmod(b, j, p["RS"])
		r, s := divmod(b, rs, p["S"])
		hh, wwo := b.reg(kB32), b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", hh, r, p["hStep"], p["hO"])
		b.ins("mad.lo.s32 %s, %s, %s, %s", wwo, s, p["wStep"], p["wO"])
		xo := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", xo, hh, p["WS"], wwo)
		b.ins("mad.lo.s32 %s, %s, %s, %s", xo, cl, p["plane"], xo)
		b.ins("shl.b32 %s, %s, 1", xo, xo)
		b.ins("add.s32 %s, %s, %s", xo, xo, p["xsOff"])
		b.insP("!"+in, "mov.u32 %s, %s", xo, zeroPlane)
		wo := b.reg(kB32)
		b.ins("mul.lo.s32 %s, %s, %s", wo, cl, p["wsC"])
		b.ins("mad.lo.s32 %s, %s, %s, %s", wo, r, p["wsR"], wo)
		b.ins("mad.lo.s32 %s, %s, %s, %s", wo, s, p["wsS"], wo)
		b.insP("!"+in, "mov.u32 %s, -1", wo)
		a := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, 4, %s", a, j, tabX)
		b.ins("st.shared.u32 [%s], %s", a, xo)
		b.ins("mad.lo.s32 %s, %s, 4, %s", a, j, tabW)
		b.ins("st.shared.u32 [%s], %s", a, wo)
		b.ins("mad.lo.s32 %s, %s, 4, %s", a, j, tabC)
		b.ins("st.shared.u32 [%s], %s", a, cl)
		b.ins("add.s32 %s, %s, %d", j, j, threads)
		b.ins("bra.uni %s", loop)
		b.label(done)

		e := b.reg(kB32)
		b.ins("mov.u32 %s, %s", e, tid)
		zl, zd := b.newLabel("W_ZERO"), b.newLabel("W_ZERO_END")
		b.label(zl)
		zm := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", zm, e, p["plane"])
		b.insP("!"+zm, "bra.uni %s", zd)
		za, z := b.reg(kB32), b.reg(kB16)
		b.ins("shl.b32 %s, %s, 1", za, e)
		b.ins("add.s32 %s, %s, %s", za, za, zeroPlane)
		b.ins("add.s32 %s, %s, %s", za, za, smem)
		b.ins("mov.b16 %s, 0", z)
		b.ins("st.shared.b16 [%s], %s", za, z)
		b.ins("add.s32 %s, %s, %d", e, e, threads)
		b.ins("bra.uni %s", zl)
		b.label(zd)
	}

	b.comment("the warp's pixels and channels; each fragment row's pixel base in the window")
	wm, wn := b.reg(kB32), b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", wm, warp, cfg.WarpsM-1)
	b.ins("shr.u32 %s, %s, %d", wn, warp, log2(cfg.WarpsM))
	mb := b.mulImm(wm, cfg.Pixels/cfg.WarpsM)
	nb := b.mulImm(wn, cfg.Channels/cfg.WarpsN)
	tiles := b.reg(kB32) // TP·TQ: the tile's pixels
	b.ins("mul.lo.s32 %s, %s, %s", tiles, p["TP"], p["TQ"])
	rowStep := b.reg(kB32) // a pixel row's step in the window: strH·WS
	b.ins("mul.lo.s32 %s, %s, %s", rowStep, p["strH"], p["WS"])
	mt, nt := cfg.mTiles(), cfg.nTiles()
	bases := make([][2]string, mt) // [tile][row g, row g+8]: smem + 2·(window offset of the pixel)
	for i := range bases {
		for h := range 2 {
			m := b.add32(mb, g)
			m = b.addImm32(m, 16*i+8*h)
			pp, qq := divmod(b, m, p["TQ"])
			off := b.reg(kB32)
			b.ins("mul.lo.s32 %s, %s, %s", off, pp, rowStep)
			b.ins("mad.lo.s32 %s, %s, %s, %s", off, qq, p["strW"], off)
			used := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", used, m, tiles)
			b.insP("!"+used, "mov.u32 %s, 0", off) // a slot past the tile reads the window's first element; its row is not stored
			bases[i][h] = b.reg(kB32)
			b.ins("shl.b32 %s, %s, 1", bases[i][h], off)
			b.ins("add.s32 %s, %s, %s", bases[i][h], bases[i][h], smem)
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
			for _, r := range acc[i][j] {
				b.ins("mov.f32 %s, 0f00000000", r)
			}
		}
	}

	b.comment("for each chunk of CC channels")
	c0 := b.reg(kB32)
	b.ins("mov.u32 %s, 0", c0)
	chunk := b.newLabel("W_CHUNK")
	b.label(chunk)
	b.ins("bar.sync 0") // the tables written; the last chunk's operands read
	c.windowStageX(cfg, x, xs, xN, hLo, wLo, c0, warp, lane, p)
	c.windowStageW(cfg, w, ws, tabW, tabC, wPitch, k0, c0, warp, lane, p)
	b.ins("bar.sync 0")
	c.windowProducts(cls, cfg, tabX, bases, wRows, t, acc, p)
	b.ins("add.s32 %s, %s, %s", c0, c0, p["CC"])
	moreC := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreC, c0, p["C"])
	b.insP(moreC, "bra.uni %s", chunk)

	b.comment("the accumulators to shared memory, [channel][pixel]")
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
			b.ins("add.s32 %s, %s, %s", a, a, smem)
			b.ins("st.shared.f32 [%s], %s", a, acc[i][j][0])
			b.ins("st.shared.f32 [%s+%d], %s", a, pitch, acc[i][j][1])
			b.ins("st.shared.f32 [%s+32], %s", a, acc[i][j][2])
			b.ins("st.shared.f32 [%s+%d], %s", a, pitch+32, acc[i][j][3])
		}
	}
	b.ins("bar.sync 0")

	b.comment("y = alpha*acc + beta*y by rows of the tile: a warp a row (channel, pixel row), its lanes along the columns")
	pBeta := b.reg(kPred)
	b.ins("setp.neu.f32 %s, %s, 0f00000000", pBeta, beta)
	rows := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %d", rows, p["TP"], cfg.Channels)
	rho := b.reg(kB32)
	b.ins("mov.u32 %s, %s", rho, warp)
	rowLoop, rowNext, done := b.newLabel("W_YROW"), b.newLabel("W_YROW_NEXT"), b.newLabel("W_DONE")
	b.label(rowLoop)
	moreR := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreR, rho, rows)
	b.insP("!"+moreR, "bra.uni %s", done)
	kk, pp := divmod(b, rho, p["TP"])
	k, pi := b.add32(k0, kk), b.add32(p0, pp)
	out := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", out, k, p["K"])
	b.insP(out, "bra.uni %s", rowNext)
	b.ins("setp.ge.s32 %s, %s, %s", out, pi, p["P"])
	b.insP(out, "bra.uni %s", rowNext)
	yRow := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", yRow, n, p["ysN"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", yRow, k, p["ysC"], yRow)
	b.ins("mad.lo.s32 %s, %s, %s, %s", yRow, pi, p["ysH"], yRow)
	eRow := b.reg(kB32) // the row's accumulators: [kk][pp·TQ]
	b.ins("mul.lo.s32 %s, %s, %s", eRow, pp, p["TQ"])
	b.ins("shl.b32 %s, %s, 2", eRow, eRow)
	b.ins("mad.lo.s32 %s, %s, %d, %s", eRow, kk, pitch, eRow)
	b.ins("add.s32 %s, %s, %s", eRow, eRow, smem)
	qq := b.reg(kB32)
	b.ins("mov.u32 %s, %s", qq, lane)
	colLoop := b.newLabel("W_YCOL")
	b.label(colLoop)
	moreQ := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreQ, qq, p["TQ"])
	b.insP("!"+moreQ, "bra.uni %s", rowNext)
	q := b.add32(q0, qq)
	ok := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", ok, q, p["Q"])
	ea := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 4, %s", ea, qq, eRow)
	v := b.reg(kF32)
	b.ins("ld.shared.f32 %s, [%s]", v, ea)
	b.ins("mul.rn.f32 %s, %s, %s", v, v, alpha)
	off := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, q, p["ysW"], yRow)
	readOld := b.reg(kPred)
	b.ins("and.pred %s, %s, %s", readOld, pBeta, ok)
	old := loadWidened(b, cls.Data, kF32, y, off, readOld, false)
	b.insP(readOld, "fma.rn.f32 %s, %s, %s, %s", v, beta, old, v)
	storeNarrowed(b, cls.Data, kF32, y, off, v, ok)
	b.ins("add.s32 %s, %s, 32", qq, qq)
	b.ins("bra.uni %s", colLoop)
	b.label(rowNext)
	b.ins("add.s32 %s, %s, %d", rho, rho, cfg.warps())
	b.ins("bra.uni %s", rowLoop)
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
	}, nil
}

// windowStageX stages the chunk's window of x (channels c0… of image n:
// CC·HS rows of WS elements from row hLo and column wLo, zeros outside x
// and past C) at xs: a warp a row, its lanes along the row.
func (c *gemmCtx) windowStageX(cfg WindowConfig, x, xs, xN, hLo, wLo, c0, warp, lane string, p map[string]string) {
	b := c.b
	rows := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", rows, p["CC"], p["HS"])
	rho := b.reg(kB32)
	b.ins("mov.u32 %s, %s", rho, warp)
	loop, next, done := b.newLabel("W_XROW"), b.newLabel("W_XROW_NEXT"), b.newLabel("W_XROW_END")
	b.label(loop)
	more := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", more, rho, rows)
	b.insP("!"+more, "bra.uni %s", done)
	cl, hh := divmod(b, rho, p["HS"])
	ch, h := b.add32(c0, cl), b.add32(hLo, hh)
	rowOK, hOK := b.reg(kPred), b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", rowOK, ch, p["C"])
	b.ins("setp.lt.u32 %s, %s, %s", hOK, h, p["H"]) // unsigned: a row above x is out too
	b.ins("and.pred %s, %s, %s", rowOK, rowOK, hOK)
	xRow := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", xRow, ch, p["xsC"], xN)
	b.ins("mad.lo.s32 %s, %s, %s, %s", xRow, h, p["xsH"], xRow)
	dst := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", dst, rho, p["WS"])
	b.ins("shl.b32 %s, %s, 1", dst, dst)
	b.ins("add.s32 %s, %s, %s", dst, dst, xs)
	ww := b.reg(kB32)
	b.ins("mov.u32 %s, %s", ww, lane)
	col := b.newLabel("W_XCOL")
	b.label(col)
	moreW := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreW, ww, p["WS"])
	b.insP("!"+moreW, "bra.uni %s", next)
	wc, ok := b.add32(wLo, ww), b.reg(kPred)
	b.ins("setp.lt.u32 %s, %s, %s", ok, wc, p["W"])
	b.ins("and.pred %s, %s, %s", ok, ok, rowOK)
	off := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, wc, p["xsW"], xRow)
	a := elemAddr(b, x, off, F16)
	v := b.reg(kB16)
	b.ins("mov.b16 %s, 0", v)
	b.insP(ok, "ld.global.nc.b16 %s, [%s]", v, a)
	sa := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 2, %s", sa, ww, dst)
	b.ins("st.shared.b16 [%s], %s", sa, v)
	b.ins("add.s32 %s, %s, 32", ww, ww)
	b.ins("bra.uni %s", col)
	b.label(next)
	b.ins("add.s32 %s, %s, %d", rho, rho, cfg.warps())
	b.ins("bra.uni %s", loop)
	b.label(done)
}

// windowStageW stages the filter's chunk (output channels k0…, the chunk's
// channels c0…) at ws: a row of JP elements (pitch wPitch bytes) per
// output channel, zeros past K, past J (the filter table's −1) and past C;
// a warp a row, its lanes along the reduction.
func (c *gemmCtx) windowStageW(cfg WindowConfig, w, ws, tabW, tabC, wPitch, k0, c0, warp, lane string, p map[string]string) {
	b := c.b
	kk := b.reg(kB32)
	b.ins("mov.u32 %s, %s", kk, warp)
	cOff := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", cOff, c0, p["wsC"])
	cLeft := b.reg(kB32) // the chunk's channels within C
	b.ins("sub.s32 %s, %s, %s", cLeft, p["C"], c0)
	loop, next, done := b.newLabel("W_WROW"), b.newLabel("W_WROW_NEXT"), b.newLabel("W_WROW_END")
	b.label(loop)
	more := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %d", more, kk, cfg.Channels)
	b.insP("!"+more, "bra.uni %s", done)
	k := b.add32(k0, kk)
	kOK := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", kOK, k, p["K"])
	wRow := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", wRow, k, p["wsK"], cOff)
	dst := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", dst, kk, wPitch, ws)
	j := b.reg(kB32)
	b.ins("mov.u32 %s, %s", j, lane)
	col := b.newLabel("W_WCOL")
	b.label(col)
	moreJ := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", moreJ, j, p["JP"])
	b.insP("!"+moreJ, "bra.uni %s", next)
	ta := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 4, %s", ta, j, tabW)
	wo, cl := b.reg(kB32), b.reg(kB32)
	b.ins("ld.shared.u32 %s, [%s]", wo, ta)
	b.ins("mad.lo.s32 %s, %s, 4, %s", ta, j, tabC)
	b.ins("ld.shared.u32 %s, [%s]", cl, ta)
	ok, in := b.reg(kPred), b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, 0", ok, wo)
	b.ins("setp.lt.s32 %s, %s, %s", in, cl, cLeft)
	b.ins("and.pred %s, %s, %s", ok, ok, in)
	b.ins("and.pred %s, %s, %s", ok, ok, kOK)
	off := b.add32(wRow, wo)
	a := elemAddr(b, w, off, F16)
	v := b.reg(kB16)
	b.ins("mov.b16 %s, 0", v)
	b.insP(ok, "ld.global.nc.b16 %s, [%s]", v, a)
	sa := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 2, %s", sa, j, dst)
	b.ins("st.shared.b16 [%s], %s", sa, v)
	b.ins("add.s32 %s, %s, 32", j, j)
	b.ins("bra.uni %s", col)
	b.label(next)
	b.ins("add.s32 %s, %s, %d", kk, kk, cfg.warps())
	b.ins("bra.uni %s", loop)
	b.label(done)
}

// windowProducts accumulates the chunk's products: for each 16 reduction
// indices, the thread's four offsets (indices 2t, 2t+1, 2t+8, 2t+9) from
// the table, each m-tile's A fragment gathered from the window at its two
// pixel bases, each n-tile's B fragment from the filter's row, one mma each.
func (c *gemmCtx) windowProducts(cls WindowClass, cfg WindowConfig, tabX string, bases [][2]string, wRows []string, t string, acc [][][]string, p map[string]string) {
	b := c.b
	op := "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
	if cls.Data == BF16 {
		op = "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
	}
	steps := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 4", steps, p["JP"])
	tab := b.reg(kB32) // this thread's entries of the step: index 2t
	b.ins("mad.lo.s32 %s, %s, 8, %s", tab, t, tabX)
	wOff := b.reg(kB32) // bytes into the filter's rows
	b.ins("mov.u32 %s, 0", wOff)
	ks := b.reg(kB32)
	b.ins("mov.u32 %s, 0", ks)
	loop := b.newLabel("W_K")
	b.label(loop)
	o := b.regs(kB32, 4)
	b.ins("ld.shared.v2.u32 {%s, %s}, [%s]", o[0], o[1], tab)
	b.ins("ld.shared.v2.u32 {%s, %s}, [%s+32]", o[2], o[3], tab)
	bf := make([][2]string, len(wRows))
	for j, row := range wRows {
		a := b.add32(row, wOff)
		bf[j] = [2]string{b.reg(kB32), b.reg(kB32)}
		b.ins("ld.shared.b32 %s, [%s]", bf[j][0], a)
		b.ins("ld.shared.b32 %s, [%s+16]", bf[j][1], a)
	}
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
	for i := range bases {
		af := []string{
			pair(bases[i][0], o[0], o[1]),
			pair(bases[i][1], o[0], o[1]),
			pair(bases[i][0], o[2], o[3]),
			pair(bases[i][1], o[2], o[3]),
		}
		for j := range bf {
			d := acc[i][j]
			b.ins("%s %s, %s, %s, %s", op, braces(d), braces(af), braces(bf[j][:]), braces(d))
		}
	}
	b.ins("add.s32 %s, %s, 64", tab, tab)
	b.ins("add.s32 %s, %s, 32", wOff, wOff)
	loopNext(b, ks, steps, loop)
}
