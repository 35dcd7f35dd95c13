package ptx

// channelPairs reports whether a convolution's accumulator elements come in
// pairs of consecutive channels of one output pixel (elements 2i and 2i+1,
// the first at an even channel): the mma and wgmma fragments' layout.
func channelPairs(elems []accElem) bool {
	if len(elems) == 0 || len(elems)%2 != 0 {
		return false
	}
	for i := 0; i < len(elems); i += 2 {
		e, f := elems[i], elems[i+1]
		if e.rowBase != f.rowBase || e.row != f.row || e.colBase != f.colBase || f.col != e.col+1 || e.col%2 != 0 {
			return false
		}
	}
	return true
}

// convStores is the epilogue of a convolution without a grid split where
// alpha is not 0 (elsewhere it branches to general, the element-by-element
// epilogue): one address per output pixel and one offset per channel,
// computed once, so that each element costs an add and its store. Where
// the elements come in pairs of channels (channelPairs) and y is
// channel-contiguous (checked at run time: unit channel stride, even pixel
// strides and channels, y aligned to two elements) each pair is one access
// (a packed f16x2 or bf16x2 word, or a vector of two) at an immediate
// offset from its pixel's address. beta = 0 and beta != 0 are separate
// paths, so that neither issues the other's instructions.
func (c *gemmCtx) convStores(elems []accElem, vals []string, ops epiOps, general string) {
	b, g, cv := c.b, c.g, c.conv.p
	es := g.in.CType.Size()
	b.comment("epilogue: an address per output pixel, an offset per channel")
	b.insP("!"+ops.pAlpha, "bra.uni %s", general)
	type rowKey struct {
		base string
		row  int
	}
	rowOff, rowOK := map[rowKey]string{}, map[rowKey]string{}
	for _, e := range elems {
		rk := rowKey{e.rowBase, e.row}
		if _, ok := rowOff[rk]; !ok {
			m := b.addImm32(e.rowBase, e.row)
			p := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", p, m, c.M)
			rowOK[rk], rowOff[rk] = p, c.pixelOffset(m)
		}
	}
	pixelAddr := func(off string) string {
		wide := b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %d", wide, off, es)
		a := b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", a, c.C, wide)
		return a
	}
	// guard is the predicate of element e's store: its pixel and channel
	// inside y. The channels' bounds are computed where first used, once
	// per path (cols is the path's cache), so that few are live at once.
	guard := func(e accElem, cols map[[2]any]string) string {
		ck := [2]any{e.colBase, e.col}
		pc, ok := cols[ck]
		if !ok {
			pc = b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", pc, b.addImm32(e.colBase, e.col), c.N)
			cols[ck] = pc
		}
		p := b.reg(kPred)
		b.ins("and.pred %s, %s, %s", p, rowOK[rowKey{e.rowBase, e.row}], pc)
		return p
	}
	// stores emits both beta paths of the stores and ends the kernel.
	stores := func(access func(beta bool)) {
		withBeta := b.newLabel("epi_beta")
		b.insP(ops.pBeta, "bra.uni %s", withBeta)
		access(false)
		c.finish()
		b.label(withBeta)
		access(true)
		c.finish()
	}
	if channelPairs(elems) {
		strided := b.newLabel("epi_strided")
		odd := b.reg(kB32)
		b.ins("or.b32 %s, %s, %s", odd, cv["yN"], cv["yH"])
		b.ins("or.b32 %s, %s, %s", odd, odd, cv["yW"])
		b.ins("or.b32 %s, %s, %s", odd, odd, c.N)
		b.ins("and.b32 %s, %s, 1", odd, odd)
		b.insP(c.notChannelContiguous(odd, 2*es), "bra.uni %s", strided)
		b.comment("pairs of channels of a channel-contiguous y")
		at := map[rowKey]string{}
		for _, e := range elems {
			rk := rowKey{e.rowBase, e.row}
			if _, ok := at[rk]; !ok {
				at[rk] = pixelAddr(b.add32(rowOff[rk], e.colBase))
			}
		}
		stores(func(beta bool) {
			cols := map[[2]any]string{}
			for i := 0; i < len(elems); i += 2 {
				e := elems[i]
				c.storePair(ops, vals[i], vals[i+1], at[rowKey{e.rowBase, e.row}], e.col*es, guard(e, cols), beta)
			}
		})
		b.label(strided)
	}
	b.comment("y through its strides")
	at := map[rowKey]string{}
	for _, e := range elems {
		rk := rowKey{e.rowBase, e.row}
		if _, ok := at[rk]; !ok {
			at[rk] = pixelAddr(rowOff[rk])
		}
	}
	yc := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", yc, cv["yC"], es)
	stores(func(beta bool) {
		cols, colAt := map[[2]any]string{}, map[[2]any]string{}
		for i, e := range elems {
			ck := [2]any{e.colBase, e.col}
			j, ok := colAt[ck]
			if !ok {
				j = b.reg(kB64)
				b.ins("cvt.s64.s32 %s, %s", j, b.addImm32(e.colBase, e.col))
				b.ins("mul.lo.s64 %s, %s, %s", j, j, yc)
				colAt[ck] = j
			}
			a := b.reg(kB64)
			b.ins("add.s64 %s, %s, %s", a, at[rowKey{e.rowBase, e.row}], j)
			c.storeElem(ops, vals[i], a, guard(e, cols), beta)
		}
	})
}

// storeElem writes alpha·v + beta·y (y read only with beta) to the element
// at addr, under pred.
func (c *gemmCtx) storeElem(ops epiOps, v, at, pred string, beta bool) {
	b := c.b
	s := epiSuffix(ops.t)
	out := b.reg(epiKind(ops.t))
	b.ins("mul.rn.%s %s, %s, %s", s, out, ops.alpha, v)
	a := addr(at, 0)
	switch ops.cType {
	case F16, BF16:
		if beta {
			h := b.reg(kB16)
			b.ins("mov.b16 %s, 0", h)
			b.insP(pred, "ld.global.b16 %s, %s", h, a)
			y := b.reg(kF32)
			if ops.cType == F16 {
				b.ins("cvt.f32.f16 %s, %s", y, h)
			} else {
				b.ins("mov.b32 %s, {%s, %s}", y, ops.zeroH, h)
			}
			b.ins("fma.rn.f32 %s, %s, %s, %s", out, ops.beta, y, out)
		}
		h := b.reg(kB16)
		name := "f16"
		if ops.cType == BF16 {
			name = "bf16"
		}
		b.ins("cvt.rn.%s.f32 %s, %s", name, h, out)
		b.insP(pred, "st.global.b16 %s, %s", a, h)
	default:
		if beta {
			y := b.reg(epiKind(ops.t))
			b.ins("mov.b%d %s, 0", 8*ops.cType.Size(), y)
			b.insP(pred, "ld.global.%s %s, %s", s, y, a)
			b.ins("fma.rn.%s %s, %s, %s, %s", s, out, ops.beta, y, out)
		}
		b.insP(pred, "st.global.%s %s, %s", s, a, out)
	}
}

// storePair writes alpha·v + beta·y (y read only with beta) to the two
// consecutive elements at addr+imm, under pred.
func (c *gemmCtx) storePair(ops epiOps, v0, v1, at string, imm int, pred string, beta bool) {
	b := c.b
	s := epiSuffix(ops.t)
	k := epiKind(ops.t)
	out := b.regs(k, 2)
	for i, v := range []string{v0, v1} {
		b.ins("mul.rn.%s %s, %s, %s", s, out[i], ops.alpha, v)
	}
	a := addr(at, imm)
	switch ops.cType {
	case F16, BF16:
		name := "f16x2"
		if ops.cType == BF16 {
			name = "bf16x2"
		}
		if beta {
			w := b.reg(kB32)
			b.ins("mov.b32 %s, 0", w)
			b.insP(pred, "ld.global.b32 %s, %s", w, a)
			h := b.regs(kB16, 2)
			b.ins("mov.b32 {%s, %s}, %s", h[0], h[1], w)
			for i := range out {
				y := b.reg(kF32)
				if ops.cType == F16 {
					b.ins("cvt.f32.f16 %s, %s", y, h[i])
				} else {
					b.ins("mov.b32 %s, {%s, %s}", y, ops.zeroH, h[i])
				}
				b.ins("fma.rn.f32 %s, %s, %s, %s", out[i], ops.beta, y, out[i])
			}
		}
		w := b.reg(kB32)
		b.ins("cvt.rn.%s.f32 %s, %s, %s", name, w, out[1], out[0]) // the first channel in the low half
		b.insP(pred, "st.global.b32 %s, %s", a, w)
	default:
		if beta {
			y := b.regs(k, 2)
			b.ins("mov.b%d %s, 0", 8*ops.cType.Size(), y[0])
			b.ins("mov.b%d %s, 0", 8*ops.cType.Size(), y[1])
			b.insP(pred, "ld.global.v2.%s %s, %s", s, braces(y), a)
			for i := range out {
				b.ins("fma.rn.%s %s, %s, %s, %s", s, out[i], ops.beta, y[i], out[i])
			}
		}
		b.insP(pred, "st.global.v2.%s %s, %s", s, a, braces(out))
	}
}

// notChannelContiguous is a predicate: y's channels are not consecutive
// (a channel stride other than 1), y's address is not a multiple of align
// bytes, or odd (the caller's other conditions, or-ed together) is not 0.
func (c *gemmCtx) notChannelContiguous(odd string, align int) string {
	b := c.b
	lo := b.reg(kB32)
	b.ins("cvt.u32.u64 %s, %s", lo, c.C)
	b.ins("and.b32 %s, %s, %d", lo, lo, align-1)
	b.ins("or.b32 %s, %s, %s", odd, odd, lo)
	slow := b.reg(kPred)
	b.ins("setp.ne.s32 %s, %s, 0", slow, odd)
	unit := b.reg(kPred)
	b.ins("setp.ne.s32 %s, %s, 1", unit, c.conv.p["yC"])
	b.ins("or.pred %s, %s, %s", slow, slow, unit)
	return slow
}
