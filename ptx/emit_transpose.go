package ptx

import "fmt"

// Transpose tiles: 32×32 elements per block of 32×8 threads.
const (
	transposeTile = 32
	transposeRows = 8
)

// GenerateTranspose emits the kernel that copies a 4-d tensor of es-byte
// elements, dimensions (A, B, C, D) with element strides (sA, sB, sC, sD),
// into a packed (A, C, D, B) tensor: it moves the second dimension last.
// A convolution's x in NCHW (any strides) becomes a packed NHWC copy, and
// its filter in NCHW format (K, C, R, S) one in NHWC format, so that the
// implicit GEMM gathers vectors of channels (see im2colLoader). Parameters:
// u64 src, u64 dst, s32 A, B, C, D, sA, sB, sC, sD. Launch with
// TransposeGrid's grid, blocks of Block threads; each block moves a tile of
// 32 B-elements by 32 D-elements of one (a, c) through shared memory, so
// that both the reads (along D) and the writes (along B) are coalesced
// where the strides allow.
func GenerateTranspose(es int, arch string) (*Kernel, error) {
	var ty string
	switch es {
	case 2:
		ty = "b16"
	case 4:
		ty = "b32"
	case 8:
		ty = "b64"
	default:
		return nil, fmt.Errorf("ptx: no transpose of %d-byte elements", es)
	}
	kind := map[int]regKind{2: kB16, 4: kB32, 8: kB64}[es]
	name := fmt.Sprintf("isaac_transpose_%s", ty)
	params := []Param{{"src", ".u64", 8}, {"dst", ".u64", 8}}
	for _, n := range []string{"dA", "dB", "dC", "dD", "sA", "sB", "sC", "sD"} {
		params = append(params, Param{n, ".s32", 4})
	}
	b := &builder{}
	c := &gemmCtx{b: b}
	src, dst := c.globalParam("src"), c.globalParam("dst")
	p := map[string]string{}
	for _, n := range []string{"dA", "dB", "dC", "dD", "sA", "sB", "sC", "sD"} {
		p[n] = c.intParam(n)
	}
	tx, ty2, bx, by, bz := b.reg(kB32), b.reg(kB32), b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tx)
	b.ins("mov.u32 %s, %%tid.y", ty2)
	b.ins("mov.u32 %s, %%ctaid.x", bx)
	b.ins("mov.u32 %s, %%ctaid.y", by)
	b.ins("mov.u32 %s, %%ctaid.z", bz)
	// z = a·C + c
	a, cc := divmod(b, bz, p["dC"])
	d0, b0 := b.mulImm(bx, transposeTile), b.mulImm(by, transposeTile)
	smem := b.reg(kB32)
	b.ins("mov.u32 %s, %s", smem, smemSymbol)
	stride := (transposeTile + 1) * es // a padded row of the tile
	// The source's part of (a, c).
	base := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", base, a, p["sA"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", base, cc, p["sC"], base)
	dIdx := b.add32(d0, tx)
	inD := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", inD, dIdx, p["dD"])
	b.comment("read rows of D into tile[b][d]")
	for i := 0; i < transposeTile/transposeRows; i++ {
		row := b.addImm32(ty2, i*transposeRows)
		bIdx := b.add32(b0, row)
		ok := b.reg(kPred)
		b.ins("setp.lt.and.s32 %s, %s, %s, %s", ok, bIdx, p["dB"], inD)
		off := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, bIdx, p["sB"], base)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, dIdx, p["sD"], off)
		wide := b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %d", wide, off, es)
		addr := b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", addr, src, wide)
		v := b.reg(kind)
		b.insP(ok, "ld.global.nc.%s %s, [%s]", ty, v, addr)
		sa := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, row, stride, smem)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, tx, es, sa)
		b.insP(ok, "st.shared.%s [%s], %s", ty, sa, v)
	}
	b.ins("bar.sync 0")
	b.comment("write tile[b][d] as rows of B: dst[((a*C + c)*D + d)*B + b]")
	bOut := b.add32(b0, tx)
	inB := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", inB, bOut, p["dB"])
	rowBase := b.reg(kB32) // (a·C + c)·D
	b.ins("mul.lo.s32 %s, %s, %s", rowBase, bz, p["dD"])
	for i := 0; i < transposeTile/transposeRows; i++ {
		dl := b.addImm32(ty2, i*transposeRows)
		dOut := b.add32(d0, dl)
		ok := b.reg(kPred)
		b.ins("setp.lt.and.s32 %s, %s, %s, %s", ok, dOut, p["dD"], inB)
		sa := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, tx, stride, smem)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, dl, es, sa)
		v := b.reg(kind)
		b.insP(ok, "ld.shared.%s %s, [%s]", ty, v, sa)
		off := b.reg(kB32)
		b.ins("add.s32 %s, %s, %s", off, rowBase, dOut)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, off, p["dB"], bOut)
		wide := b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %d", wide, off, es)
		addr := b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", addr, dst, wide)
		b.insP(ok, "st.global.%s [%s], %s", ty, addr, v)
	}
	b.ins("ret")
	shared := transposeTile * stride
	return &Kernel{
		Name:        name,
		PTX:         header(arch) + fmt.Sprintf(".extern .shared .align 16 .b8 %s[];\n\n", smemSymbol) + entryMaxReg(name, params, 0, b),
		Block:       [3]int{transposeTile, transposeRows, 1},
		SharedBytes: shared,
		Params:      params,
	}, nil
}

// TransposeGrid is the grid of GenerateTranspose's kernel for a tensor of
// dimensions (A, B, C, D); ok is false when A·C exceeds the grid's z limit.
func TransposeGrid(dA, dB, dC, dD int) (grid [3]int, ok bool) {
	z := dA * dC
	return [3]int{ceilDiv(dD, transposeTile), ceilDiv(dB, transposeTile), z}, z <= 65535 && ceilDiv(dB, transposeTile) <= 65535
}

// RowsMaxD is the longest last dimension GenerateTransposeRows takes.
const RowsMaxD = 32

// rowsBlock is the threads of a block of GenerateTransposeRows's kernel.
const rowsBlock = 256

// GenerateTransposeRows emits the kernel that does GenerateTranspose's
// copy, (A, B, D) with element strides (sA, sB, sD) into a packed
// (A, D, B), for a short D (at most RowsMaxD; the caller merges C into D):
// a thread per (a, b) reads its D elements and writes each to its row of
// B, so consecutive threads write consecutive elements and a warp's reads
// cover one span of memory where b's rows are consecutive. A filter's
// (K, C, R·S) in NCHW format becomes (K, R·S, C) with whole lines written,
// where the tiles of GenerateTranspose would fill R·S of their 32 columns.
// Parameters: u64 src, u64 dst, s32 A, B, D, sA, sB, sD. Launch with
// TransposeRowsGrid's grid, blocks of Block threads.
func GenerateTransposeRows(es int, arch string) (*Kernel, error) {
	ty, ok := map[int]string{2: "b16", 4: "b32", 8: "b64"}[es]
	if !ok {
		return nil, fmt.Errorf("ptx: no transpose of %d-byte elements", es)
	}
	kind := map[int]regKind{2: kB16, 4: kB32, 8: kB64}[es]
	name := fmt.Sprintf("isaac_transpose_rows_%s", ty)
	names := []string{"dA", "dB", "dD", "sA", "sB", "sD"}
	params := []Param{{"src", ".u64", 8}, {"dst", ".u64", 8}}
	for _, n := range names {
		params = append(params, Param{n, ".s32", 4})
	}
	b := &builder{}
	c := &gemmCtx{b: b}
	src, dst := c.globalParam("src"), c.globalParam("dst")
	p := map[string]string{}
	for _, n := range names {
		p[n] = c.intParam(n)
	}
	tx, bx, a := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tx)
	b.ins("mov.u32 %s, %%ctaid.x", bx)
	b.ins("mov.u32 %s, %%ctaid.y", a)
	bi := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", bi, bx, rowsBlock, tx)
	out := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", out, bi, p["dB"])
	b.insP(out, "ret")
	in := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", in, a, p["sA"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", in, bi, p["sB"], in)
	o := b.reg(kB32) // dst: (a·D + d)·B + b
	b.ins("mul.lo.s32 %s, %s, %s", o, a, p["dD"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", o, o, p["dB"], bi)
	b.comment("the row's elements, a few loads in flight before their stores")
	const batch = 8
	for d0 := 0; d0 < RowsMaxD; d0 += batch {
		vals := make([]string, batch)
		oks := make([]string, batch)
		for i := range vals {
			d := d0 + i
			oks[i] = b.reg(kPred)
			b.ins("setp.gt.s32 %s, %s, %d", oks[i], p["dD"], d)
			off := b.reg(kB32)
			b.ins("mad.lo.s32 %s, %s, %d, %s", off, p["sD"], d, in)
			vals[i] = b.reg(kind)
			b.insP(oks[i], "ld.global.nc.%s %s, [%s]", ty, vals[i], byteAddr(b, src, off, es))
		}
		for i := range vals {
			off := b.reg(kB32)
			b.ins("mad.lo.s32 %s, %s, %d, %s", off, p["dB"], d0+i, o)
			b.insP(oks[i], "st.global.%s [%s], %s", ty, byteAddr(b, dst, off, es), vals[i])
		}
		if d0+batch < RowsMaxD {
			more := b.reg(kPred)
			b.ins("setp.le.s32 %s, %s, %d", more, p["dD"], d0+batch)
			b.insP(more, "ret")
		}
	}
	b.ins("ret")
	return &Kernel{
		Name:   name,
		PTX:    header(arch) + entryMaxReg(name, params, 0, b),
		Block:  [3]int{rowsBlock, 1, 1},
		Params: params,
	}, nil
}

// TransposeRowsGrid is the grid of GenerateTransposeRows's kernel for
// dimensions (A, B, D); ok is false beyond the grid's limits or RowsMaxD.
func TransposeRowsGrid(dA, dB, dD int) (grid [3]int, ok bool) {
	return [3]int{ceilDiv(dB, rowsBlock), dA, 1}, dA <= 65535 && dD <= RowsMaxD && dD >= 1
}

// byteAddr is base + off·es (off a 32-bit element offset).
func byteAddr(b *builder, base, off string, es int) string {
	wide, a := b.reg(kB64), b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, off, es)
	b.ins("add.s64 %s, %s, %s", a, base, wide)
	return a
}
