package ptx

const (
	reduceThreads = 256 // 8 warps
	reduceWarps   = reduceThreads / 32
	reduceRows    = 32 // rows of C per block: one per lane
)

// emitReduce emits the deterministic split-K reduction. A block covers 32
// rows of one column of C at a time (looping over columns by gridDim.y);
// lane l of warp w sums, for row i = 32·blockIdx.x + l, the workspace
// slices z = w, w+8, w+16, … in ascending order with independent loads in
// flight, then warp 0 adds the 8 warps' partial sums in ascending warp
// order through shared memory and writes alpha·sum + beta·C. The order of
// additions is fixed, so results are bit-identical run to run. Grid:
// (ceil(M/32), min(N, 65535)).
func emitReduce(g geometry, name, arch string) string {
	b := &builder{}
	c := &gemmCtx{g: g, b: b}
	kg := g.cfg.KG
	b.comment("split-K reduction of %d slices, %s", kg, g.in)
	esz := g.epiType.Size()
	s := epiSuffix(g.epiType)
	kind := epiKind(g.epiType)
	zero := "0f00000000"
	if g.epiType == F64 {
		zero = "0d0000000000000000"
	}
	b.ins(".shared .align 8 .b8 red_partial[%d]", reduceWarps*reduceRows*esz)
	c.C = c.globalParam("C")
	c.ws = c.globalParam("workspace")
	c.M, c.N, c.ldc = c.intParam("M"), c.intParam("N"), c.intParam("ldc")
	tid, lane, warp := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	bx, by, ny := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tid)
	b.ins("and.b32 %s, %s, 31", lane, tid)
	b.ins("shr.u32 %s, %s, 5", warp, tid)
	b.ins("mov.u32 %s, %%ctaid.x", bx)
	b.ins("mov.u32 %s, %%ctaid.y", by)
	b.ins("mov.u32 %s, %%nctaid.y", ny)
	i := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", i, bx, reduceRows, lane)
	pin := b.reg(kPred) // this lane's row exists
	b.ins("setp.lt.s32 %s, %s, %s", pin, i, c.M)
	pw0 := b.reg(kPred) // warp 0 combines and stores
	b.ins("setp.eq.u32 %s, %s, 0", pw0, warp)
	pst := b.reg(kPred)
	b.ins("and.pred %s, %s, %s", pst, pin, pw0)
	ops := loadScalars(b, g.in, g.epiType)

	// Bytes between consecutive slices, and this warp's first slice offset.
	slice := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %s", slice, c.M, c.N)
	b.ins("shl.b64 %s, %s, %d", slice, slice, log2(esz))
	w64 := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", w64, warp)
	first := b.reg(kB64)
	b.ins("mul.lo.u64 %s, %s, %s", first, w64, slice)
	stride := b.reg(kB64)
	b.ins("shl.b64 %s, %s, %d", stride, slice, log2(reduceWarps))
	// Shared-memory addresses: this thread's partial, and row `lane` of warp 0..7.
	smem := b.reg(kB32)
	b.ins("mov.u32 %s, red_partial", smem)
	mine := b.reg(kB32)
	b.ins("mad.lo.u32 %s, %s, %d, %s", mine, tid, esz, smem)
	row := b.reg(kB32)
	b.ins("mad.lo.u32 %s, %s, %d, %s", row, lane, esz, smem)

	// Slices per warp: KG/8 each when KG ≥ 8; one slice for warps < KG otherwise.
	per, pload := kg/reduceWarps, pin
	if kg < reduceWarps {
		per = 1
		pw := b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %d", pw, warp, kg)
		pload = b.reg(kPred)
		b.ins("and.pred %s, %s, %s", pload, pin, pw)
	}
	combine := min(kg, reduceWarps)

	j := b.reg(kB32)
	b.ins("mov.b32 %s, %s", j, by)
	loop, done := b.newLabel("col"), b.newLabel("end")
	b.label(loop)
	pj := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", pj, j, c.N)
	b.insP(pj, "bra.uni %s", done)
	p := b.elemAddr64(c.ws, i, j, c.M, esz)
	b.ins("add.s64 %s, %s, %s", p, p, first)
	vals := make([]string, per)
	for t := range vals {
		vals[t] = b.reg(kind)
		b.ins("mov.%s %s, %s", s, vals[t], zero)
		b.insP(pload, "ld.global.%s %s, [%s]", s, vals[t], p)
		if t+1 < per {
			q := b.reg(kB64)
			b.ins("add.s64 %s, %s, %s", q, p, stride)
			p = q
		}
	}
	sum := vals[0]
	for _, v := range vals[1:] {
		d := b.reg(kind)
		b.ins("add.rn.%s %s, %s, %s", s, d, sum, v)
		sum = d
	}
	b.ins("st.shared.%s [%s], %s", s, mine, sum)
	b.ins("bar.sync 0")
	total := b.reg(kind)
	b.ins("ld.shared.%s %s, [%s]", s, total, row)
	for w := 1; w < combine; w++ {
		t := b.reg(kind)
		b.ins("ld.shared.%s %s, [%s+%d]", s, t, row, w*reduceRows*esz)
		d := b.reg(kind)
		b.ins("add.rn.%s %s, %s, %s", s, d, total, t)
		total = d
	}
	ca := b.elemAddr64(c.C, i, j, c.ldc, g.in.CType.Size())
	ops.storeC(b, total, ca, 0, pst)
	b.ins("bar.sync 0")
	b.ins("add.s32 %s, %s, %s", j, j, ny)
	b.ins("bra.uni %s", loop)
	b.label(done)
	b.ins("ret")
	return header(arch) + entry(name, abiParams(g.in.Compute), b)
}
