package ptx

// convRegs are a convolution kernel's parameters (convParamNames) in
// registers, loaded once after the GEMM ABI's.
type convRegs struct {
	p    map[string]string
	rows map[[2]any]string // the epilogue's rows: y's element offset of the pixel
}

func (c *gemmCtx) convParams() *convRegs {
	c.b.comment("convolution: implicit GEMM, reduction order %s", c.g.in.Conv)
	r := &convRegs{p: map[string]string{}, rows: map[[2]any]string{}}
	for _, n := range convParamNames {
		r.p[n] = c.intParam(n)
	}
	return r
}

// pixel splits output pixel m (of N·P·Q) into its image n and position
// (p, q).
func (c *gemmCtx) pixel(m string) (n, p, q string) {
	b, cv := c.b, c.conv.p
	pq := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", pq, cv["cP"], cv["cQ"])
	n = b.reg(kB32)
	b.ins("div.u32 %s, %s, %s", n, m, pq)
	rem := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", rem, n, pq)
	b.ins("sub.s32 %s, %s, %s", rem, m, rem)
	p = b.reg(kB32)
	b.ins("div.u32 %s, %s, %s", p, rem, cv["cQ"])
	q = b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", q, p, cv["cQ"])
	b.ins("sub.s32 %s, %s, %s", q, rem, q)
	return n, p, q
}

// divmod is a / d and a - (a / d)·d, unsigned.
func divmod(b *builder, a, d string) (quo, rem string) {
	quo, rem = b.reg(kB32), b.reg(kB32)
	b.ins("div.u32 %s, %s, %s", quo, a, d)
	b.ins("mul.lo.s32 %s, %s, %s", rem, quo, d)
	b.ins("sub.s32 %s, %s, %s", rem, a, rem)
	return quo, rem
}

// im2colLoader gathers tiles of the im2col matrix A (M = N·P·Q rows, one
// per output pixel; a column per filter tap j) from x, element by element
// or, for a channel-contiguous x gathered in (r, s, c) order, in vectors of
// consecutive channels of one tap (the class's alignment keeps a vector
// within a tap and aligned).
//
// A load's pixel part of the address (image and first tap row and column)
// is computed once; its reduction index j is loop-carried and split into
// its tap (c, r, s) each tile by multiplications (the DivMagic parameters),
// not divisions. A thread's loads share what they can (im2colModeOf): one
// tap, split once a tile, for loads of several pixels, or one pixel for
// loads of several taps. A tap outside x (padding), a pixel beyond M and a
// tap beyond K are zero. A thread whose pixels exist and read no padding
// whatever the tap (inside) copies the tiles wholly inside K without
// bounds (issueAsyncFull).
type im2colLoader struct {
	c       *gemmCtx
	t       *loader // the tile's staging (shared offsets, register kinds)
	rX, sX  string  // x's offset of one step of r (hStep·xH) and of s
	rs, sc  string  // R·S and S·C
	px      []im2colPixel
	js      []string // the distinct reduction indices, loop-carried
	ld      []im2colLoad
	data    [][]string
	inside  string // every pixel of the thread exists and reads inside x at every tap
	outside string // not inside (edge)
}

// im2colPixel is one output pixel's part of the addresses: it exists
// (m < M), its first tap row and column (p·strH + hOff, q·strW + wOff) and
// x's element offset of (n, h0, w0).
type im2colPixel struct{ ok, h0, w0, off string }

// im2colLoad is one of a thread's loads of a tile: its pixel (of
// im2colLoader.px), its reduction index (js[j] + imm), whether the vector
// exists in the tile ("" when every thread's does) and its shared offset.
type im2colLoad struct {
	px, j, imm int
	pv, sOff   string
}

// im2colMode is how a thread's loads of a tile share their pixel or tap.
type im2colMode int

const (
	im2colOwn         im2colMode = iota // a pixel and an index each
	im2colPixelShared                   // one pixel; indices loads·threads/w apart (im2colShared, x not channel-contiguous)
	im2colTapShared                     // one index; a pixel each
)

// im2colShared reports whether a thread's loads of a tile with o's geometry
// share their element along the contiguous dimension, their lines i·threads/w
// apart: the threads cover whole lines (of 16-byte columns of 8 lines for
// the unswizzled core-matrix layout, see loader.vectorAt).
func im2colShared(o operandGeom, threads int) bool {
	if o.core && !o.swizzle {
		return (threads/8)%o.w == 0
	}
	return threads%o.w == 0
}

// im2colTapLanes is, for a tile of x not channel-contiguous (lines of taps,
// pixels contiguous) whose loads can share their tap, the threads along a
// line: threads/lines threads each load `loads` pixels of one line, Tm
// apart (the first Tm consecutive, so that a warp reads runs of Tm
// pixels). 0 where the tile does not divide so, is staged in a
// core-matrix layout, or a thread has one load or more than eight (their
// pixels' registers).
func im2colTapLanes(o operandGeom, threads int) int {
	if o.kContig || o.core || o.swizzle || o.vec != 1 || o.total%threads != 0 || threads%o.lo != 0 {
		return 0
	}
	tm := threads / o.lo
	if !isPow2(tm) || tm*o.loads != o.w || o.loads < 2 || o.loads > 8 {
		return 0
	}
	return tm
}

// im2colModeOf is how a thread's loads of A share their pixel or tap.
func im2colModeOf(o operandGeom, threads int) im2colMode {
	switch {
	case o.kContig && im2colShared(o, threads), im2colTapLanes(o, threads) > 0:
		return im2colTapShared
	case !o.kContig && im2colShared(o, threads):
		return im2colPixelShared
	}
	return im2colOwn
}

func (c *gemmCtx) newIm2colLoader() *im2colLoader {
	b, g := c.b, c.g
	o := g.a
	l := &im2colLoader{c: c, t: &loader{c: c, o: o, name: "A"}}
	cv := c.conv.p
	mode := im2colModeOf(o, g.threads)
	b.comment("im2col loader A: %d elements, %d per thread, k-contiguous=%v, mode %d", o.total, o.loads, o.kContig, mode)
	l.rX, l.sX, l.rs, l.sc = b.reg(kB32), b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", l.rX, cv["hStep"], cv["xH"])
	b.ins("mul.lo.s32 %s, %s, %s", l.sX, cv["wStep"], cv["xW"])
	b.ins("mul.lo.s32 %s, %s, %s", l.rs, cv["cR"], cv["cS"])
	b.ins("mul.lo.s32 %s, %s, %s", l.sc, cv["cS"], cv["cC"])
	tm := im2colTapLanes(o, g.threads)
	var cv0, ov0 string
	if tm > 0 { // lines of taps: thread t loads pixels t%Tm + i·Tm of line t/Tm
		cv0, ov0 = b.reg(kB32), b.reg(kB32)
		b.ins("and.b32 %s, %s, %d", cv0, c.tid, tm-1)
		b.ins("shr.u32 %s, %s, %d", ov0, c.tid, log2(tm))
	}
	for r := 0; r < o.loads; r++ {
		v := b.addImm32(c.tid, r*g.threads)
		ld := im2colLoad{}
		if (r+1)*g.threads > o.total {
			ld.pv = b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %d", ld.pv, v, o.total)
		}
		var cvi, ovi string
		switch {
		case tm > 0:
			cvi, ovi = b.addImm32(cv0, r*tm), ov0
		case mode == im2colOwn || r == 0:
			cvi, ovi = l.t.vectorAt(v)
			cv0, ov0 = cvi, ovi
		default:
			cvi, ovi = cv0, b.addImm32(ov0, r*g.threads/o.w)
		}
		mnIdx, kIdx := cvi, ovi
		if o.kContig {
			mnIdx, kIdx = ovi, cvi
		}
		ld.sOff = l.t.sharedOffset(v, cvi, ovi, mnIdx, kIdx)
		ld.px, ld.j = len(l.px), len(l.js)
		switch {
		case mode == im2colPixelShared && r > 0: // the first load's pixel, its index moved on
			ld.px, ld.j, ld.imm = 0, 0, r*g.threads/o.w
		case mode == im2colTapShared && r > 0: // the first load's index, a pixel of its own
			ld.j = 0
			l.px = append(l.px, l.pixelAt(b.add32(c.m0, mnIdx)))
		default:
			l.px = append(l.px, l.pixelAt(b.add32(c.m0, mnIdx)))
			l.js = append(l.js, b.add32(c.kBeg, kIdx))
		}
		l.ld = append(l.ld, ld)
		if g.cfg.Stages <= 1 {
			l.data = append(l.data, b.regs(l.t.dataKind(), l.t.dataWords()))
		}
	}
	l.inside = l.insideX()
	l.outside = b.reg(kPred)
	b.ins("not.pred %s, %s", l.outside, l.inside)
	return l
}

// insideX is a predicate: each of the thread's pixels exists and reads
// inside x at every tap (its first tap row and column, moved by up to
// ·hStep and (S-1)·wStep either way, within H and W).
func (l *im2colLoader) insideX() string {
	b, cv := l.c.b, l.c.conv.p
	lo, hi := [2]string{}, [2]string{}
	for i, d := range [2][2]string{{cv["cR"], cv["hStep"]}, {cv["cS"], cv["wStep"]}} {
		reach := b.reg(kB32)
		b.ins("sub.s32 %s, %s, 1", reach, d[0])
		b.ins("mul.lo.s32 %s, %s, %s", reach, reach, d[1])
		lo[i], hi[i] = b.reg(kB32), b.reg(kB32)
		b.ins("min.s32 %s, %s, 0", lo[i], reach)
		b.ins("max.s32 %s, %s, 0", hi[i], reach)
	}
	in := b.reg(kPred)
	b.ins("setp.eq.s32 %s, 0, 0", in)
	for _, px := range l.px {
		b.ins("and.pred %s, %s, %s", in, in, px.ok)
		for i, d := range [2][2]string{{px.h0, cv["cH"]}, {px.w0, cv["cW"]}} {
			first, last := b.add32(d[0], lo[i]), b.add32(d[0], hi[i])
			b.ins("setp.ge.and.s32 %s, %s, 0, %s", in, first, in)
			b.ins("setp.lt.and.s32 %s, %s, %s, %s", in, last, d[1], in)
		}
	}
	return in
}

// pixelAt is output pixel m's part of the addresses.
func (l *im2colLoader) pixelAt(m string) im2colPixel {
	b, c, cv := l.c.b, l.c, l.c.conv.p
	px := im2colPixel{ok: b.reg(kPred), h0: b.reg(kB32), w0: b.reg(kB32), off: b.reg(kB32)}
	b.ins("setp.lt.s32 %s, %s, %s", px.ok, m, c.M)
	n, p, q := c.pixel(m)
	b.ins("mad.lo.s32 %s, %s, %s, %s", px.h0, p, cv["strH"], cv["hOff"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", px.w0, q, cv["strW"], cv["wOff"])
	b.ins("mul.lo.s32 %s, %s, %s", px.off, n, cv["xN"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", px.off, px.h0, cv["xH"], px.off)
	b.ins("mad.lo.s32 %s, %s, %s, %s", px.off, px.w0, cv["xW"], px.off)
	return px
}

// im2colTap is a reduction index split into its tap: the index, its
// channel and filter row and column, and the tap's offset in x from its
// pixel's (ch·xC + r·hStep·xH + s·wStep·xW).
type im2colTap struct{ j, ch, r, s, off string }

// tap splits reduction index j into its tap in the class's order.
func (l *im2colLoader) tap(j string) im2colTap {
	b, cv := l.c.b, l.c.conv.p
	t := im2colTap{j: j}
	if l.c.g.in.Conv == ConvRSC {
		var rest string
		t.r, rest = divmodMagic(b, j, l.sc, cv["scM"], cv["scL"])
		t.s, t.ch = divmodMagic(b, rest, cv["cC"], cv["cM"], cv["cL"])
	} else {
		var rest string
		t.ch, rest = divmodMagic(b, j, l.rs, cv["rsM"], cv["rsL"])
		t.r, t.s = divmodMagic(b, rest, cv["cS"], cv["sM"], cv["sL"])
	}
	t.off = b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", t.off, t.ch, cv["xC"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", t.off, t.r, l.rX, t.off)
	b.ins("mad.lo.s32 %s, %s, %s, %s", t.off, t.s, l.sX, t.off)
	return t
}

// taps splits each load's reduction index of the current tile, each
// distinct index once.
func (l *im2colLoader) taps() []im2colTap {
	out := make([]im2colTap, len(l.ld))
	seen := map[[2]int]im2colTap{}
	for i, ld := range l.ld {
		key := [2]int{ld.j, ld.imm}
		t, ok := seen[key]
		if !ok {
			t = l.tap(l.c.b.addImm32(l.js[ld.j], ld.imm))
			seen[key] = t
		}
		out[i] = t
	}
	return out
}

// source is load i's address in the current tile (its tap t) and whether
// it is inside x (and the pixel and the tap exist).
func (l *im2colLoader) source(i int, t im2colTap) (addr, ok string) {
	b, c, cv := l.c.b, l.c, l.c.conv.p
	px := l.px[l.ld[i].px]
	h, w := b.reg(kB32), b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", h, t.r, cv["hStep"], px.h0)
	b.ins("mad.lo.s32 %s, %s, %s, %s", w, t.s, cv["wStep"], px.w0)
	ok = b.reg(kPred)
	b.ins("setp.lt.u32 %s, %s, %s", ok, h, cv["cH"])
	b.ins("setp.lt.and.u32 %s, %s, %s, %s", ok, w, cv["cW"], ok)
	b.ins("setp.lt.and.s32 %s, %s, %s, %s", ok, t.j, c.kEnd, ok)
	b.ins("and.pred %s, %s, %s", ok, ok, px.ok)
	off := b.add32(px.off, t.off)
	wide := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, off, c.g.es)
	addr = b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", addr, c.A, wide)
	return addr, ok
}

// edge is a predicate: the thread has a pixel beyond M or one whose taps
// can fall in the padding, and copies every tile with bounds.
func (l *im2colLoader) edge() string { return l.outside }

func (l *im2colLoader) issueAsync(stageOff string) {
	b := l.c.b
	size := l.t.o.vec * l.c.g.es
	kind := "ca"
	if size == 16 {
		kind = "cg"
	}
	taps := l.taps()
	for i, ld := range l.ld {
		addr, ok := l.source(i, taps[i])
		n := b.reg(kB32)
		b.ins("selp.b32 %s, %d, 0, %s", n, size, ok)
		src := b.reg(kB64)
		b.ins("selp.b64 %s, %s, %s, %s", src, addr, l.c.A, ok)
		b.insP(ld.pv, "cp.async.%s.shared.global [%s], [%s], %d, %s", kind, b.add32(ld.sOff, stageOff), src, size, n)
	}
}

// issueAsyncFull is issueAsync for a tile wholly inside K by a thread
// whose pixels read inside x (inside): no bounds.
func (l *im2colLoader) issueAsyncFull(stageOff string) {
	b, c := l.c.b, l.c
	size := l.t.o.vec * c.g.es
	kind := "ca"
	if size == 16 {
		kind = "cg"
	}
	taps := l.taps()
	for i, ld := range l.ld {
		off := b.add32(l.px[ld.px].off, taps[i].off)
		wide := b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %d", wide, off, c.g.es)
		addr := b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", addr, c.A, wide)
		b.insP(ld.pv, "cp.async.%s.shared.global [%s], [%s], %d, %d", kind, b.add32(ld.sOff, stageOff), addr, size, size)
	}
}

func (l *im2colLoader) issueRegs() {
	b := l.c.b
	taps := l.taps()
	for i := range l.ld {
		addr, ok := l.source(i, taps[i])
		d := l.data[i]
		if l.t.dataKind() == kB16 {
			b.ins("mov.b16 %s, 0", d[0])
			b.insP(ok, "ld.global.nc.b16 %s, [%s]", d[0], addr)
			continue
		}
		for _, w := range d {
			b.ins("mov.b32 %s, 0", w)
		}
		b.insP(ok, "ld.global.nc%s.b32 %s, [%s]", vsuffix(len(d)), vec(d), addr)
	}
}

func (l *im2colLoader) storeRegs() {
	b := l.c.b
	for i, ld := range l.ld {
		d := l.data[i]
		if l.t.dataKind() == kB16 {
			b.insP(ld.pv, "st.shared.b16 [%s], %s", ld.sOff, d[0])
			continue
		}
		b.insP(ld.pv, "st.shared%s.b32 [%s], %s", vsuffix(len(d)), ld.sOff, vec(d))
	}
}

// advance moves every reduction index on by U.
func (l *im2colLoader) advance() {
	for _, j := range l.js {
		l.c.b.ins("add.s32 %s, %s, %d", j, j, l.c.g.cfg.U)
	}
}

// convOut is the address in y of accumulator element e: pixel row
// e.rowBase+e.row, channel e.colBase+e.col. A row's pixel is split once.
func (c *gemmCtx) convOut(e accElem) string {
	key := [2]any{e.rowBase, e.row}
	off, ok := c.conv.rows[key]
	if !ok {
		off = c.pixelOffset(c.b.addImm32(e.rowBase, e.row))
		c.conv.rows[key] = off
	}
	return c.convAddr(off, c.b.addImm32(e.colBase, e.col))
}

// convAt is the address in y of output pixel row, channel col.
func (c *gemmCtx) convAt(row, col string) string { return c.convAddr(c.pixelOffset(row), col) }

// pixelOffset is y's element offset of output pixel m (channel 0).
func (c *gemmCtx) pixelOffset(m string) string {
	b, cv := c.b, c.conv.p
	n, p, q := c.pixel(m)
	off := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", off, n, cv["yN"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, p, cv["yH"], off)
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, q, cv["yW"], off)
	return off
}

// convAddr is y + (pixel offset + channel·yC)·es.
func (c *gemmCtx) convAddr(pixel, col string) string {
	b := c.b
	at := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", at, col, c.conv.p["yC"], pixel)
	wide := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, at, c.g.in.CType.Size())
	a := b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", a, c.C, wide)
	return a
}
