package ptx

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
