package ptx

const reduceThreads = 256

// emitReduce emits the deterministic split-K reduction: thread (i, j) sums
// the KG workspace slices ws[z][i + j*M] for z = 0..KG-1 in order, then
// writes alpha*sum + beta*C. Grid: x covers M, y loops over N.
func emitReduce(g geometry, name, arch string) string {
	b := &builder{}
	c := &gemmCtx{g: g, b: b}
	b.comment("split-K reduction of %d slices, %s", g.cfg.KG, g.in)
	c.C = c.globalParam("C")
	c.ws = c.globalParam("workspace")
	c.M, c.N, c.ldc = c.intParam("M"), c.intParam("N"), c.intParam("ldc")
	tid, bx, by, ny := b.reg(kB32), b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tid)
	b.ins("mov.u32 %s, %%ctaid.x", bx)
	b.ins("mov.u32 %s, %%ctaid.y", by)
	b.ins("mov.u32 %s, %%nctaid.y", ny)
	i := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", i, bx, reduceThreads, tid)
	pout := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", pout, i, c.M)
	b.insP(pout, "exit")
	ops := loadScalars(b, g.in, g.epiType)
	esz := g.epiType.Size()
	s := epiSuffix(g.epiType)
	slice := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %s", slice, c.M, c.N)
	b.ins("shl.b64 %s, %s, %d", slice, slice, log2(esz))
	j := b.reg(kB32)
	b.ins("mov.b32 %s, %s", j, by)
	loop, done := b.newLabel("col"), b.newLabel("end")
	b.label(loop)
	pj := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", pj, j, c.N)
	b.insP(pj, "bra.uni %s", done)
	p := b.elemAddr64(c.ws, i, j, c.M, esz)
	sum := b.reg(epiKind(g.epiType))
	b.ins("ld.global.%s %s, [%s]", s, sum, p)
	for z := 1; z < g.cfg.KG; z++ {
		b.ins("add.s64 %s, %s, %s", p, p, slice)
		t := b.reg(epiKind(g.epiType))
		b.ins("ld.global.%s %s, [%s]", s, t, p)
		d := b.reg(epiKind(g.epiType))
		b.ins("add.rn.%s %s, %s, %s", s, d, sum, t)
		sum = d
	}
	ca := b.elemAddr64(c.C, i, j, c.ldc, g.in.CType.Size())
	ops.storeC(b, sum, ca, 0, "")
	b.ins("add.s32 %s, %s, %s", j, j, ny)
	b.ins("bra.uni %s", loop)
	b.label(done)
	b.ins("ret")
	return header(arch) + entry(name, abiParams(g.in.Compute), b)
}
