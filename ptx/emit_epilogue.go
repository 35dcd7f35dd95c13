package ptx

// epiOps bundles the run-time scalars of the epilogue.
type epiOps struct {
	t      DataType // epilogue arithmetic type: F32 or F64
	alpha  string
	beta   string
	pAlpha string // alpha != 0 (NaN counts as non-zero)
	pBeta  string // beta != 0
	zeroH  string // b16 zero (bf16 widening)
	cType  DataType
}

func epiSuffix(t DataType) string {
	if t == F64 {
		return "f64"
	}
	return "f32"
}

func epiKind(t DataType) regKind {
	if t == F64 {
		return kF64
	}
	return kF32
}

// loadScalars reads alpha and beta: the value parameters, replaced by the
// device-memory value when the pointer parameter is non-zero.
func loadScalars(b *builder, in InputClass, epi DataType) epiOps {
	e := epiOps{t: epi, cType: in.CType}
	e.zeroH = b.reg(kB16)
	b.ins("mov.b16 %s, 0", e.zeroH)
	load := func(name string) string {
		ptr := b.reg(kB64)
		b.ins("ld.param.u64 %s, [p_%sPtr]", ptr, name)
		p := b.reg(kPred)
		b.ins("setp.ne.u64 %s, %s, 0", p, ptr)
		g := b.reg(kB64)
		b.ins("cvta.to.global.u64 %s, %s", g, ptr)
		switch in.Compute {
		case F16:
			h := b.reg(kB16)
			b.ins("ld.param.b16 %s, [p_%s]", h, name)
			b.insP(p, "ld.global.b16 %s, [%s]", h, g)
			f := b.reg(kF32)
			b.ins("cvt.f32.f16 %s, %s", f, h)
			return f
		case F64:
			f := b.reg(kF64)
			b.ins("ld.param.f64 %s, [p_%s]", f, name)
			b.insP(p, "ld.global.f64 %s, [%s]", f, g)
			return f
		}
		f := b.reg(kF32)
		b.ins("ld.param.f32 %s, [p_%s]", f, name)
		b.insP(p, "ld.global.f32 %s, [%s]", f, g)
		return f
	}
	e.alpha = load("alpha")
	e.beta = load("beta")
	s := epiSuffix(epi)
	zero := "0f00000000"
	if epi == F64 {
		zero = "0d0000000000000000"
	}
	e.pAlpha, e.pBeta = b.reg(kPred), b.reg(kPred)
	b.ins("setp.neu.%s %s, %s, %s", s, e.pAlpha, e.alpha, zero)
	b.ins("setp.neu.%s %s, %s, %s", s, e.pBeta, e.beta, zero)
	return e
}

// storeC writes alpha*v + beta*C[addr] (C not read when beta == 0) to the C
// element at addr, guarded by pred ("" = always).
func (e epiOps) storeC(b *builder, v, addrC string, imm int, pred string) {
	s := epiSuffix(e.t)
	out := b.reg(epiKind(e.t))
	if e.t == F64 {
		b.ins("mov.f64 %s, 0d0000000000000000", out)
	} else {
		b.ins("mov.f32 %s, 0f00000000", out)
	}
	b.insP(e.pAlpha, "mul.rn.%s %s, %s, %s", s, out, e.alpha, v)
	pc := e.pBeta
	if pred != "" {
		pc = b.reg(kPred)
		b.ins("and.pred %s, %s, %s", pc, pred, e.pBeta)
	}
	cv := b.reg(epiKind(e.t))
	switch e.cType {
	case F16, BF16:
		h := b.reg(kB16)
		b.ins("mov.b16 %s, 0", h)
		b.insP(pc, "ld.global.b16 %s, %s", h, addr(addrC, imm))
		if e.cType == F16 {
			b.ins("cvt.f32.f16 %s, %s", cv, h)
		} else {
			b.ins("mov.b32 %s, {%s, %s}", cv, e.zeroH, h)
		}
	case F32:
		b.insP(pc, "ld.global.f32 %s, %s", cv, addr(addrC, imm))
	case F64:
		b.insP(pc, "ld.global.f64 %s, %s", cv, addr(addrC, imm))
	}
	b.insP(pc, "fma.rn.%s %s, %s, %s, %s", s, out, e.beta, cv, out)
	switch e.cType {
	case F16:
		h := b.reg(kB16)
		b.ins("cvt.rn.f16.f32 %s, %s", h, out)
		b.insP(pred, "st.global.b16 %s, %s", addr(addrC, imm), h)
	case BF16:
		h := b.reg(kB16)
		b.ins("cvt.rn.bf16.f32 %s, %s", h, out)
		b.insP(pred, "st.global.b16 %s, %s", addr(addrC, imm), h)
	default:
		b.insP(pred, "st.global.%s %s, %s", s, addr(addrC, imm), out)
	}
}

// widenAcc converts an accumulator value to the epilogue type.
func widenAcc(b *builder, v string, k regKind) string {
	if k != kB16 {
		return v
	}
	f := b.reg(kF32)
	b.ins("cvt.f32.f16 %s, %s", f, v)
	return f
}

// epilogue sums the KS sets, reduces the KL groups through shared memory
// (group 0 adds groups 1..KL-1 in order), then writes C (KG == 1) or the
// partial tile of this k-split to the workspace (KG > 1).
func (c *gemmCtx) epilogue(elems []accElem) {
	b, g := c.b, c.g
	cfg := g.cfg
	s := epiSuffix(g.epiType)
	b.comment("epilogue")
	vals := make([]string, len(elems))
	for i, e := range elems {
		v := widenAcc(b, e.vals[0], e.kind)
		for _, w := range e.vals[1:] {
			w = widenAcc(b, w, e.kind)
			d := b.reg(epiKind(g.epiType))
			b.ins("add.rn.%s %s, %s, %s", s, d, v, w)
			v = d
		}
		vals[i] = v
	}
	if cfg.KL > 1 {
		esz := g.epiType.Size()
		E := len(vals)
		pg := b.reg(kPred)
		b.ins("setp.ne.s32 %s, %s, 0", pg, c.grp)
		wb := b.reg(kB32)
		b.ins("add.s32 %s, %s, -1", wb, c.grp)
		b.ins("mul.lo.s32 %s, %s, %d", wb, wb, E*g.tg)
		b.ins("add.s32 %s, %s, %s", wb, wb, c.t)
		b.ins("mad.lo.s32 %s, %s, %d, %s", wb, wb, esz, c.smem)
		for e, v := range vals {
			b.insP(pg, "st.shared.%s %s, %s", s, addr(wb, e*g.tg*esz), v)
		}
		b.ins("bar.sync 0")
		b.insP(pg, "exit")
		rb := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %d, %s", rb, c.t, esz, c.smem)
		for grp := 1; grp < cfg.KL; grp++ {
			for e := range vals {
				t := b.reg(epiKind(g.epiType))
				b.ins("ld.shared.%s %s, %s", s, t, addr(rb, ((grp-1)*E+e)*g.tg*esz))
				d := b.reg(epiKind(g.epiType))
				b.ins("add.rn.%s %s, %s, %s", s, d, vals[e], t)
				vals[e] = d
			}
		}
	}
	var ops epiOps
	base, ld, es := c.C, c.ldc, g.in.CType.Size()
	if cfg.KG == 1 {
		ops = loadScalars(b, g.in, g.epiType)
	} else {
		es = g.epiType.Size()
		ld = c.M
		mn := b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %s", mn, c.M, c.N)
		zz := b.reg(kB64)
		b.ins("cvt.u64.u32 %s, %s", zz, c.z)
		b.ins("mul.lo.s64 %s, %s, %s", mn, mn, zz)
		b.ins("shl.b64 %s, %s, %d", mn, mn, log2(es))
		base = b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", base, c.ws, mn)
	}
	colAddr := map[[2]string]string{}
	colPred := map[[2]string]string{}
	rowPred := map[[2]string]string{}
	key := func(r string, o int) [2]string { return [2]string{r, string(rune('0' + o))} }
	for i, e := range elems {
		ck := key(e.colBase+"+"+e.rowBase, e.col)
		if _, ok := colAddr[ck]; !ok {
			j := b.addImm32(e.colBase, e.col)
			p := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", p, j, c.N)
			colPred[ck] = p
			colAddr[ck] = b.elemAddr64(base, e.rowBase, j, ld, es)
		}
		rk := key(e.rowBase, e.row)
		if _, ok := rowPred[rk]; !ok {
			ii := b.addImm32(e.rowBase, e.row)
			p := b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", p, ii, c.M)
			rowPred[rk] = p
		}
		p := b.reg(kPred)
		b.ins("and.pred %s, %s, %s", p, rowPred[rk], colPred[ck])
		if cfg.KG == 1 {
			ops.storeC(b, vals[i], colAddr[ck], e.row*es, p)
		} else {
			b.insP(p, "st.global.%s %s, %s", s, addr(colAddr[ck], e.row*es), vals[i])
		}
	}
	b.ins("ret")
}
