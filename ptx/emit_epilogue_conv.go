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

// convPairStores is the epilogue of a convolution whose y is
// channel-contiguous, taken at run time where y's channel stride is 1, its
// pixel strides and channel count are even, y is aligned to two elements
// and alpha is not 0: each thread writes its pairs of consecutive channels
// as one access each (a packed f16x2 or bf16x2 word, or a vector of two),
// at immediate offsets from one address per output pixel, with beta = 0
// and beta != 0 as separate paths so that neither issues the other's
// instructions. Elsewhere it branches to general, the element-by-element
// epilogue through y's strides. elems must be channelPairs.
func (c *gemmCtx) convPairStores(elems []accElem, vals []string, ops epiOps, general string) {
	b, g, cv := c.b, c.g, c.conv.p
	es := g.in.CType.Size()
	b.comment("epilogue: pairs of channels of a channel-contiguous y")
	odd := b.reg(kB32)
	b.ins("or.b32 %s, %s, %s", odd, cv["yN"], cv["yH"])
	b.ins("or.b32 %s, %s, %s", odd, odd, cv["yW"])
	b.ins("or.b32 %s, %s, %s", odd, odd, c.N)
	b.ins("and.b32 %s, %s, 1", odd, odd)
	lo := b.reg(kB32)
	b.ins("cvt.u32.u64 %s, %s", lo, c.C)
	b.ins("and.b32 %s, %s, %d", lo, lo, 2*es-1)
	b.ins("or.b32 %s, %s, %s", odd, odd, lo)
	slow := b.reg(kPred)
	b.ins("setp.ne.s32 %s, %s, 0", slow, odd)
	unit := b.reg(kPred)
	b.ins("setp.ne.s32 %s, %s, 1", unit, cv["yC"])
	b.ins("or.pred %s, %s, %s", slow, slow, unit)
	b.ins("or.pred %s, %s, !%s", slow, slow, ops.pAlpha)
	b.insP(slow, "bra.uni %s", general)

	// One address and bound per output pixel, one bound per channel pair.
	type rowKey struct {
		base string
		row  int
	}
	rowAddr, rowOK := map[rowKey]string{}, map[rowKey]string{}
	colOK := map[[2]any]string{}
	pred := make([]string, len(elems)/2)
	at := make([]string, len(elems)/2)
	imm := make([]int, len(elems)/2)
	for i := 0; i < len(elems); i += 2 {
		e := elems[i]
		rk := rowKey{e.rowBase, e.row}
		if _, ok := rowAddr[rk]; !ok {
			m := b.addImm32(e.rowBase, e.row)
			p := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", p, m, c.M)
			rowOK[rk] = p
			off := b.add32(c.pixelOffset(m), e.colBase)
			wide := b.reg(kB64)
			b.ins("mul.wide.s32 %s, %s, %d", wide, off, es)
			a := b.reg(kB64)
			b.ins("add.s64 %s, %s, %s", a, c.C, wide)
			rowAddr[rk] = a
		}
		ck := [2]any{e.colBase, e.col}
		if _, ok := colOK[ck]; !ok {
			p := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", p, b.addImm32(e.colBase, e.col), c.N)
			colOK[ck] = p
		}
		p := b.reg(kPred)
		b.ins("and.pred %s, %s, %s", p, rowOK[rk], colOK[ck])
		pred[i/2], at[i/2], imm[i/2] = p, rowAddr[rk], e.col*es
	}
	withBeta := b.newLabel("epi_pairs_beta")
	b.insP(ops.pBeta, "bra.uni %s", withBeta)
	for _, beta := range []bool{false, true} {
		if beta {
			b.label(withBeta)
		}
		for i := 0; i < len(elems); i += 2 {
			c.storePair(ops, vals[i], vals[i+1], at[i/2], imm[i/2], pred[i/2], beta)
		}
		c.finish()
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
