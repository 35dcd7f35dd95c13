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
	// The class's epilogue (InputClass.Epi): the bias vector's global
	// address and D's byte offset from C ("" for none), the activation.
	bias, dOff string
	act        Activation
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
	e.loadEpilogue(b, in)
	return e
}

// storeC writes alpha*v + beta*C[addr] (C not read when beta == 0), after
// the class's epilogue (post: row is the element's row of C), to the C
// element at addr (or D's there), guarded by pred ("" = always).
func (e epiOps) storeC(b *builder, v, addrC string, imm int, pred string, row rowRef) {
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
	out = e.post(b, out, row, pred)
	addrD := e.dst(b, addrC)
	switch e.cType {
	case F16:
		h := b.reg(kB16)
		b.ins("cvt.rn.f16.f32 %s, %s", h, out)
		b.insP(pred, "st.global.b16 %s, %s", addr(addrD, imm), h)
	case BF16:
		h := b.reg(kB16)
		b.ins("cvt.rn.bf16.f32 %s, %s", h, out)
		b.insP(pred, "st.global.b16 %s, %s", addr(addrD, imm), h)
	default:
		b.insP(pred, "st.global.%s %s, %s", s, addr(addrD, imm), out)
	}
}

// storeCVec writes alpha*v[i] + beta*C[i] (C not read when beta == 0),
// after the class's epilogue (v[0] in row row of C, v[i] in the i-th after
// it), to the len(v) consecutive C elements at addrC+imm (or D's there)
// with one vector load and store; the caller has checked that all are
// inside C and that the address is aligned to the whole vector (at most 16
// bytes).
func (e epiOps) storeCVec(b *builder, v []string, addrC string, imm int, row rowRef) {
	s := epiSuffix(e.t)
	k := epiKind(e.t)
	n := len(v)
	zero := "0f00000000"
	if e.t == F64 {
		zero = "0d0000000000000000"
	}
	out := b.regs(k, n)
	for i := range out {
		b.ins("mov.%s %s, %s", s, out[i], zero)
		b.insP(e.pAlpha, "mul.rn.%s %s, %s, %s", s, out[i], e.alpha, v[i])
	}
	at := addr(addrC, imm)
	cv := b.regs(k, n)
	switch e.cType {
	case F16, BF16:
		// n halves travel as n/2 32-bit words, element 2w in the low half.
		words := b.regs(kB32, n/2)
		for _, w := range words {
			b.ins("mov.b32 %s, 0", w)
		}
		b.insP(e.pBeta, "ld.global%s.b32 %s, %s", vsuffix(n/2), vec(words), at)
		for w, word := range words {
			lo, hi := b.reg(kB16), b.reg(kB16)
			b.ins("mov.b32 {%s, %s}, %s", lo, hi, word)
			for h, half := range []string{lo, hi} {
				if e.cType == F16 {
					b.ins("cvt.f32.f16 %s, %s", cv[2*w+h], half)
				} else {
					b.ins("mov.b32 %s, {%s, %s}", cv[2*w+h], e.zeroH, half)
				}
			}
		}
	default:
		b.insP(e.pBeta, "ld.global%s.%s %s, %s", vsuffix(n), s, braces(cv), at)
	}
	for i := range out {
		b.insP(e.pBeta, "fma.rn.%s %s, %s, %s, %s", s, out[i], e.beta, cv[i], out[i])
		out[i] = e.post(b, out[i], rowRef{row.reg, row.imm + i}, "")
	}
	at = addr(e.dst(b, addrC), imm)
	switch e.cType {
	case F16, BF16:
		cvt := "cvt.rn.f16.f32"
		if e.cType == BF16 {
			cvt = "cvt.rn.bf16.f32"
		}
		words := b.regs(kB32, n/2)
		for w := range words {
			lo, hi := b.reg(kB16), b.reg(kB16)
			b.ins("%s %s, %s", cvt, lo, out[2*w])
			b.ins("%s %s, %s", cvt, hi, out[2*w+1])
			b.ins("mov.b32 %s, {%s, %s}", words[w], lo, hi)
		}
		b.ins("st.global%s.b32 %s, %s", vsuffix(n/2), at, vec(words))
	default:
		b.ins("st.global%s.%s %s, %s", vsuffix(n), s, at, braces(out))
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
		b.ins("cvt.u64.u32 %s, %s", zz, c.zg)
		b.ins("mul.lo.s64 %s, %s, %s", mn, mn, zz)
		b.ins("shl.b64 %s, %s, %d", mn, mn, log2(es))
		base = b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", base, c.ws, mn)
	}
	vecOK := "" // KG > 1: the workspace allows vector stores (checked at run time)
	maxVec := 16 / es
	if cfg.KG == 1 {
		maxVec = min(maxVec, g.in.AlignC)
	} else {
		// Slice z starts at ws + z·M·N·es and column j at j·M·es: vectors of
		// n elements are aligned when M % n == 0 and ws is 16-byte aligned.
		vecOK = b.reg(kPred)
		mv := b.reg(kB32)
		b.ins("and.b32 %s, %s, %d", mv, c.M, maxVec-1)
		wv := b.reg(kB64)
		b.ins("and.b64 %s, %s, 15", wv, c.ws)
		wv32 := b.reg(kB32)
		b.ins("cvt.u32.u64 %s, %s", wv32, wv)
		b.ins("or.b32 %s, %s, %s", mv, mv, wv32)
		b.ins("setp.eq.s32 %s, %s, 0", vecOK, mv)
	}
	if c.conv != nil && cfg.KG == 1 && g.kc == 1 && g.stageCols == 0 {
		general := b.newLabel("epi_general")
		if g.convStage {
			cols, unstaged := b.newLabel("epi_columns"), b.newLabel("epi_unstaged")
			c.convRowStaged(elems, vals, ops, cols)
			b.label(cols)
			c.convColStaged(elems, vals, ops, unstaged)
			b.label(unstaged)
		}
		c.convStores(elems, vals, ops, general)
		b.label(general)
	}
	if g.kc > 1 {
		c.clusterStore(elems, vals, storeTarget{ops: ops, base: base, ld: ld, es: es, maxVec: maxVec, vecOK: vecOK})
		c.finish()
		return
	}
	if g.stageCols > 0 {
		c.stagedStore(elems, vals, storeTarget{ops: ops, base: base, ld: ld, es: es, maxVec: maxVec, vecOK: vecOK})
		c.finish()
		return
	}
	colAddr := map[[2]string]string{}
	colPred := map[[2]string]string{}
	rowPred := map[[2]string]string{}
	key := func(r string, o int) [2]string { return [2]string{r, string(rune('0' + o))} }
	// prepare computes the address of elems[i]'s column and the bounds
	// predicates of its row and column (shared among elements).
	prepare := func(e accElem) (col, ca, row string) {
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
		return colPred[ck], colAddr[ck], rowPred[rk]
	}
	scalar := func(i int) {
		e := elems[i]
		pc, ca, pr := prepare(e)
		p := b.reg(kPred)
		b.ins("and.pred %s, %s, %s", p, pr, pc)
		switch {
		case c.conv != nil && cfg.KG == 1: // y through its strides
			ops.storeC(b, vals[i], c.convOut(e), 0, p, rowRef{})
		case cfg.KG == 1:
			ops.storeC(b, vals[i], ca, e.row*es, p, rowRef{e.rowBase, e.row})
		default:
			b.insP(p, "st.global.%s %s, %s", s, addr(ca, e.row*es), vals[i])
		}
	}
	for i := 0; i < len(elems); {
		n := vectorRun(elems[i:], maxVec)
		if n == 1 {
			scalar(i)
			i++
			continue
		}
		// A run of n consecutive rows of one column: one vector access when
		// the whole run is inside C (and aligned), element by element
		// otherwise.
		e := elems[i]
		pc, ca, _ := prepare(e)
		_, _, prLast := prepare(elems[i+n-1])
		full := b.reg(kPred)
		b.ins("and.pred %s, %s, %s", full, pc, prLast)
		if vecOK != "" {
			b.ins("and.pred %s, %s, %s", full, full, vecOK)
		}
		lScalar, lDone := b.newLabel("epi_scalar"), b.newLabel("epi_done")
		b.insP("!"+full, "bra %s", lScalar)
		if cfg.KG == 1 {
			ops.storeCVec(b, vals[i:i+n], ca, e.row*es, rowRef{e.rowBase, e.row})
		} else {
			b.ins("st.global%s.%s %s, %s", vsuffix(n), s, addr(ca, e.row*es), braces(vals[i:i+n]))
		}
		b.ins("bra %s", lDone)
		b.label(lScalar)
		for t := i; t < i+n; t++ {
			scalar(t)
		}
		b.label(lDone)
		i += n
	}
	c.finish()
}

// vectorRun is how many of elems, from the first, one vector access can
// store: a power of two up to maxVec of consecutive rows of one column,
// starting at a row that is a multiple of the run (the SIMT thread tile
// keeps MS consecutive rows; mma fragments hold no such runs).
func vectorRun(elems []accElem, maxVec int) int {
	e := elems[0]
	n := 1
	for n < maxVec && n < len(elems) {
		f := elems[n]
		if f.rowBase != e.rowBase || f.colBase != e.colBase || f.col != e.col || f.row != e.row+n {
			break
		}
		n++
	}
	for n > 1 && (!isPow2(n) || e.row%n != 0) {
		n--
	}
	return n
}

// finish ends the kernel after the epilogue's stores: a one-pass split-K
// kernel goes on to its fixup (see splitFixup), a persistent one to its
// next tile.
func (c *gemmCtx) finish() {
	if serialSplit(c.g) {
		c.splitFixup()
	}
	if c.nextTile != "" {
		c.b.ins("bra %s", c.nextTile) // a persistent kernel's next tile
		return
	}
	c.b.ins("ret")
}
