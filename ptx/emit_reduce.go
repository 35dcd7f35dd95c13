package ptx

const (
	reduceThreads = 256
	reduceParts   = 32 // at most one warp shares a vector's slices
	// reduceTarget is how many threads the reduction aims to keep busy: when
	// C has few vectors, several threads share one vector's slices.
	reduceTarget = 65536
	// reduceMaxBlocks bounds the grid; blocks loop over the rest.
	reduceMaxBlocks = 1 << 20
)

// reduceVec is the vector width (elements of the workspace type) of the
// reduction's loads: 16 bytes.
func reduceVec(epi DataType) int { return 16 / epi.Size() }

// reduceShape is the reduction's work split for an M×N output and KG slices:
// w elements per vector (reduceVec when M % w == 0, so that a vector never
// crosses a column, else 1), the number of vectors, and P, the threads that
// share one vector's slices (the largest power of two ≤ min(KG, 32) that
// the grid needs). The kernel
// computes the same values from its parameters; the host uses them for the
// grid. Both must agree only for speed: the kernel loops over any grid.
func reduceShape(m, n, kg, vec int) (w, positions, parts int) {
	w = vec
	if m%w != 0 {
		w = 1
	}
	positions = ceilDiv(m*n, w)
	parts = 1
	for 2*parts <= min(kg, reduceParts) && positions*parts < reduceTarget {
		parts *= 2
	}
	return w, positions, parts
}

// reduceGrid is the reduction's launch grid (x only).
func reduceGrid(m, n, kg, vec int) int {
	_, positions, parts := reduceShape(m, n, kg, vec)
	return max(1, min(ceilDiv(positions*parts, reduceThreads), reduceMaxBlocks))
}

// emitReduce emits the deterministic split-K reduction. The workspace holds
// KG slices of the M×N output, each column-major with leading dimension M,
// so a slice is one flat vector of M·N elements. Thread t of a block works on
// vector pos = blockIdx.x·(256/P) + t/P (looping by the grid) and sums the
// slices z = t%P, t%P+P, … in ascending order with independent loads in
// flight; when P > 1 the P partial sums are then added in ascending order
// through shared memory. Every element's additions happen in an order that
// depends only on (M, N, KG), so results are bit-identical run to run. The
// thread with t%P == 0 writes alpha·sum + beta·C for its w elements (one
// column, consecutive rows), as one vector when C's alignment allows.
func emitReduce(g geometry, name, arch string) string {
	b := &builder{}
	c := &gemmCtx{g: g, b: b}
	kg := g.cfg.KG
	vec := reduceVec(g.epiType)
	esz := g.epiType.Size()
	s := epiSuffix(g.epiType)
	kind := epiKind(g.epiType)
	b.comment("split-K reduction of %d slices, %s", kg, g.in)
	c.C = c.globalParam("C")
	c.ws = c.globalParam("workspace")
	c.M, c.N, c.ldc = c.intParam("M"), c.intParam("N"), c.intParam("ldc")
	ops := loadScalars(b, g.in, g.epiType)
	tid := b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tid)

	// e = M·N elements; the vector path needs M % vec == 0.
	e := b.reg(kB32)
	b.ins("mul.lo.u32 %s, %s, %s", e, c.M, c.N)
	mr := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", mr, c.M, vec-1)
	isVec := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", isVec, mr)
	lScalar := b.newLabel("red_scalar")
	b.insP("!"+isVec, "bra.uni %s", lScalar)
	c.reduceBody(ops, e, tid, vec, kg, s, kind, esz)
	b.label(lScalar)
	c.reduceBody(ops, e, tid, 1, kg, s, kind, esz)
	return header(arch) + entry(name, abiParams(g.in.Compute), b)
}

// reduceBody emits the reduction for vectors of w elements and returns.
func (c *gemmCtx) reduceBody(ops epiOps, e, tid string, w, kg int, s string, kind regKind, esz int) {
	b, g := c.b, c.g
	b.comment("vectors of %d", w)
	// positions = ceil(e / w); P doubles while 2P ≤ min(KG, 32) and
	// positions·P < reduceTarget (as reduceShape).
	pos := b.reg(kB32)
	b.ins("add.u32 %s, %s, %d", pos, e, w-1)
	b.ins("shr.u32 %s, %s, %d", pos, pos, log2(w))
	parts, lp := b.reg(kB32), b.reg(kB32) // P and log2 P
	b.ins("mov.u32 %s, 1", parts)
	b.ins("mov.u32 %s, 0", lp)
	lP, lPDone := b.newLabel("red_p"), b.newLabel("red_p_done")
	b.label(lP)
	stop := b.reg(kPred)
	b.ins("setp.gt.u32 %s, %s, %d", stop, parts, min(kg, reduceParts)/2)
	b.insP(stop, "bra.uni %s", lPDone)
	prod := b.reg(kB64)
	b.ins("mul.wide.u32 %s, %s, %s", prod, pos, parts)
	b.ins("setp.ge.u64 %s, %s, %d", stop, prod, reduceTarget)
	b.insP(stop, "bra.uni %s", lPDone)
	b.ins("shl.b32 %s, %s, 1", parts, parts)
	b.ins("add.u32 %s, %s, 1", lp, lp)
	b.ins("bra.uni %s", lP)
	b.label(lPDone)

	part := b.reg(kB32)
	b.ins("sub.u32 %s, %s, 1", part, parts)
	b.ins("and.b32 %s, %s, %s", part, tid, part)
	local := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %s", local, tid, lp)
	per := b.reg(kB32) // vectors per block
	b.ins("mov.u32 %s, %d", per, reduceThreads)
	b.ins("shr.u32 %s, %s, %s", per, per, lp)
	base, stride := b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.x", base)
	b.ins("mul.lo.u32 %s, %s, %s", base, base, per)
	b.ins("mov.u32 %s, %%nctaid.x", stride)
	b.ins("mul.lo.u32 %s, %s, %s", stride, stride, per)
	// Bytes between slices z and z+1, and between z and z+P.
	slice := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", slice, e)
	b.ins("shl.b64 %s, %s, %d", slice, slice, log2(esz))
	step := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", step, parts)
	b.ins("mul.lo.u64 %s, %s, %s", step, step, slice)
	lead := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", lead, part)

	lLoop, lEnd := b.newLabel("red_loop"), b.newLabel("red_end")
	b.label(lLoop)
	more := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %s", more, base, pos)
	b.insP(more, "bra.uni %s", lEnd) // uniform: every thread of the block leaves together
	p := b.reg(kB32)
	b.ins("add.u32 %s, %s, %s", p, base, local)
	valid := b.reg(kPred)
	b.ins("setp.lt.u32 %s, %s, %s", valid, p, pos)
	// Address of slice `part`, vector p.
	a := b.reg(kB64)
	b.ins("mul.wide.u32 %s, %s, %d", a, p, w*esz)
	off := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", off, part)
	b.ins("mul.lo.u64 %s, %s, %s", off, off, slice)
	b.ins("add.u64 %s, %s, %s", a, a, off)
	b.ins("add.u64 %s, %s, %s", a, a, c.ws)
	zero := "0f00000000"
	if kind == kF64 {
		zero = "0d0000000000000000"
	}
	load := func(dst []string, at string, pred string) {
		for _, r := range dst {
			b.ins("mov.%s %s, %s", s, r, zero)
		}
		b.insP(pred, "ld.global%s.%s %s, [%s]", vsuffix(w), s, vec(dst), at)
	}
	sum := b.regs(kind, w)
	load(sum, a, valid)
	// Slices part+P, part+2P, … in groups of 4 independent loads, added in
	// ascending order.
	z := b.reg(kB32)
	b.ins("add.u32 %s, %s, %s", z, part, parts)
	lZ, lZEnd := b.newLabel("red_z"), b.newLabel("red_z_end")
	b.label(lZ)
	zdone := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %d", zdone, z, kg)
	b.insP(zdone, "bra %s", lZEnd)
	var got [4][]string
	for u := 0; u < 4; u++ {
		b.ins("add.u64 %s, %s, %s", a, a, step)
		zu := b.reg(kB32)
		b.ins("mad.lo.u32 %s, %s, %d, %s", zu, parts, u, z)
		pu := b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %d", pu, zu, kg)
		b.ins("and.pred %s, %s, %s", pu, pu, valid)
		got[u] = b.regs(kind, w)
		load(got[u], a, pu)
	}
	for u := 0; u < 4; u++ {
		zu := b.reg(kB32)
		b.ins("mad.lo.u32 %s, %s, %d, %s", zu, parts, u, z)
		pu := b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %d", pu, zu, kg)
		for i := range sum {
			b.insP(pu, "add.rn.%s %s, %s, %s", s, sum[i], sum[i], got[u][i])
		}
	}
	b.ins("mad.lo.u32 %s, %s, 4, %s", z, parts, z)
	b.ins("bra %s", lZ)
	b.label(lZEnd)

	// Combine the P partial sums (P ≤ 32: consecutive lanes of one warp)
	// with a fixed shuffle tree: at offsets P/2, P/4, …, 1 each lane adds
	// the value of the lane that far above it, so lane part 0 ends with
	// ((s0+s_{P/2}) + …) in an order fixed by P.
	lCombined := b.newLabel("red_combined")
	one := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 1", one, parts)
	b.insP(one, "bra.uni %s", lCombined)
	sh := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 1", sh, parts)
	lC, lCEnd := b.newLabel("red_c"), b.newLabel("red_c_end")
	b.label(lC)
	cdone := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", cdone, sh)
	b.insP(cdone, "bra.uni %s", lCEnd)
	for i := range sum {
		t := b.reg(kind)
		if kind == kF64 {
			lo, hi := b.reg(kB32), b.reg(kB32)
			b.ins("mov.b64 {%s, %s}, %s", lo, hi, sum[i])
			b.ins("shfl.sync.down.b32 %s, %s, %s, 31, -1", lo, lo, sh)
			b.ins("shfl.sync.down.b32 %s, %s, %s, 31, -1", hi, hi, sh)
			b.ins("mov.b64 %s, {%s, %s}", t, lo, hi)
		} else {
			b.ins("shfl.sync.down.b32 %s, %s, %s, 31, -1", t, sum[i], sh)
		}
		b.ins("add.rn.%s %s, %s, %s", s, sum[i], sum[i], t)
	}
	b.ins("shr.u32 %s, %s, 1", sh, sh)
	b.ins("bra.uni %s", lC)
	b.label(lCEnd)
	b.label(lCombined)

	// Store: element p·w is row p·w % M of column p·w / M.
	lNext := b.newLabel("red_next")
	st := b.reg(kPred)
	b.ins("and.pred %s, %s, %s", st, valid, lead)
	b.insP("!"+st, "bra %s", lNext)
	el := b.reg(kB32)
	b.ins("mul.lo.u32 %s, %s, %d", el, p, w)
	i, j := b.reg(kB32), b.reg(kB32)
	b.ins("rem.u32 %s, %s, %s", i, el, c.M)
	b.ins("div.u32 %s, %s, %s", j, el, c.M)
	ca := b.elemAddr64(c.C, i, j, c.ldc, g.in.CType.Size())
	ces := g.in.CType.Size()
	if w > 1 && g.in.AlignC >= w && w*ces <= 16 {
		ops.storeCVec(b, sum, ca, 0, rowRef{}) // no epilogue with a two-pass split (epilogueLegal)
	} else {
		for k := range sum {
			ops.storeC(b, sum[k], ca, k*ces, "", rowRef{})
		}
	}
	b.label(lNext)
	b.ins("add.u32 %s, %s, %s", base, base, stride)
	b.ins("bra.uni %s", lLoop)
	b.label(lEnd)
	b.ins("ret")
}
