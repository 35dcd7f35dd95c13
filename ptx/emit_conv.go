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

// taps splits reduction index j into the filter tap (ch, r, s) in the
// class's order.
func (c *gemmCtx) taps(j string) (ch, r, s string) {
	b, cv := c.b, c.conv.p
	if c.g.in.Conv == ConvRSC {
		sc := b.reg(kB32)
		b.ins("mul.lo.s32 %s, %s, %s", sc, cv["cS"], cv["cC"])
		r, t := divmod(b, j, sc)
		s, ch = divmod(b, t, cv["cC"])
		return ch, r, s
	}
	rs := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", rs, cv["cR"], cv["cS"])
	ch, t := divmod(b, j, rs)
	r, s = divmod(b, t, cv["cS"])
	return ch, r, s
}

// im2colLoader gathers tiles of the im2col matrix A (M = N·P·Q rows, one
// per output pixel; a column per filter tap j) from x, element by element
// or, for a channel-contiguous x gathered in (r, s, c) order, in vectors of
// consecutive channels of one tap (the class's alignment keeps a vector
// within a tap and aligned).
// Each of a thread's loads keeps its pixel's part of the address (image and
// first tap row and column, computed once) and its tap (ch, r, s), which
// moves on by U taps per tile with carries, not divisions. A tap outside x
// (padding), a pixel beyond M and a tap beyond K are zero.
type im2colLoader struct {
	c    *gemmCtx
	t    *loader // the tile's staging (shared offsets, register kinds)
	step [3]string
	rX   string // x's offset of one step of r (hStep·xH) and of s
	sX   string

	pix   []string // per load: the pixel exists (m < M)
	pv    []string // per load: the element exists in the tile ("" when every thread's does)
	h0    []string // per load: the tap row of r = 0 (p·strH + hOff)
	w0    []string
	off   []string // per load: x's element offset of (n, h0, w0)
	ch    []string // per load: the current tap, loop-carried
	r, s  []string
	kleft []string // per load: K - j, loop-carried
	sOff  []string
	data  [][]string
}

func (c *gemmCtx) newIm2colLoader() *im2colLoader {
	b, g := c.b, c.g
	o := g.a
	l := &im2colLoader{c: c, t: &loader{c: c, o: o, name: "A"}}
	cv := c.conv.p
	b.comment("im2col loader A: %d elements, %d per thread, k-contiguous=%v", o.total, o.loads, o.kContig)
	// U taps as a step of (ch, r, s), so that a tile moves on without dividing.
	u := b.reg(kB32)
	b.ins("mov.u32 %s, %d", u, g.cfg.U)
	l.step[0], l.step[1], l.step[2] = c.taps(u)
	l.rX, l.sX = b.reg(kB32), b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", l.rX, cv["hStep"], cv["xH"])
	b.ins("mul.lo.s32 %s, %s, %s", l.sX, cv["wStep"], cv["xW"])
	for r := 0; r < o.loads; r++ {
		v := b.addImm32(c.tid, r*g.threads)
		cvi, ovi := l.t.vectorAt(v)
		mnIdx, kIdx := cvi, ovi
		if o.kContig {
			mnIdx, kIdx = ovi, cvi
		}
		m := b.add32(c.m0, mnIdx)
		pix := b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", pix, m, c.M)
		pv := ""
		if (r+1)*g.threads > o.total {
			pv = b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %d", pv, v, o.total)
		}
		l.pv = append(l.pv, pv)
		n, p, q := c.pixel(m)
		h0, w0 := b.reg(kB32), b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", h0, p, cv["strH"], cv["hOff"])
		b.ins("mad.lo.s32 %s, %s, %s, %s", w0, q, cv["strW"], cv["wOff"])
		off := b.reg(kB32)
		b.ins("mul.lo.s32 %s, %s, %s", off, n, cv["xN"])
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, h0, cv["xH"], off)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, w0, cv["xW"], off)
		j := b.add32(c.kBeg, kIdx)
		ch, rr, ss := c.taps(j)
		kl := b.reg(kB32)
		b.ins("sub.s32 %s, %s, %s", kl, c.kEnd, j)
		l.pix, l.h0, l.w0, l.off = append(l.pix, pix), append(l.h0, h0), append(l.w0, w0), append(l.off, off)
		l.ch, l.r, l.s, l.kleft = append(l.ch, ch), append(l.r, rr), append(l.s, ss), append(l.kleft, kl)
		l.sOff = append(l.sOff, l.t.sharedOffset(v, cvi, ovi, mnIdx, kIdx))
		if g.cfg.Stages <= 1 {
			l.data = append(l.data, b.regs(l.t.dataKind(), l.t.dataWords()))
		}
	}
	return l
}

// source is load r's address in the current tile and whether it is inside
// x (and the pixel and the tap exist).
func (l *im2colLoader) source(r int) (addr, ok string) {
	b, c, cv := l.c.b, l.c, l.c.conv.p
	h, w := b.reg(kB32), b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", h, l.r[r], cv["hStep"], l.h0[r])
	b.ins("mad.lo.s32 %s, %s, %s, %s", w, l.s[r], cv["wStep"], l.w0[r])
	ok = b.reg(kPred)
	b.ins("setp.lt.u32 %s, %s, %s", ok, h, cv["cH"])
	b.ins("setp.lt.and.u32 %s, %s, %s, %s", ok, w, cv["cW"], ok)
	b.ins("setp.gt.and.s32 %s, %s, 0, %s", ok, l.kleft[r], ok)
	b.ins("and.pred %s, %s, %s", ok, ok, l.pix[r])
	off := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, l.ch[r], cv["xC"], l.off[r])
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, l.r[r], l.rX, off)
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, l.s[r], l.sX, off)
	wide := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, off, c.g.es)
	addr = b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", addr, c.A, wide)
	return addr, ok
}

func (l *im2colLoader) edge() string { return "" }

func (l *im2colLoader) issueAsync(stageOff string) {
	b := l.c.b
	size := l.t.o.vec * l.c.g.es
	kind := "ca"
	if size == 16 {
		kind = "cg"
	}
	for r := range l.sOff {
		addr, ok := l.source(r)
		n := b.reg(kB32)
		b.ins("selp.b32 %s, %d, 0, %s", n, size, ok)
		src := b.reg(kB64)
		b.ins("selp.b64 %s, %s, %s, %s", src, addr, l.c.A, ok)
		b.insP(l.pv[r], "cp.async.%s.shared.global [%s], [%s], %d, %s", kind, b.add32(l.sOff[r], stageOff), src, size, n)
	}
}

// issueAsyncFull is issueAsync: padding can cut any tile.
func (l *im2colLoader) issueAsyncFull(stageOff string) { l.issueAsync(stageOff) }

func (l *im2colLoader) issueRegs() {
	b := l.c.b
	for r := range l.sOff {
		addr, ok := l.source(r)
		d := l.data[r]
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
	for r := range l.sOff {
		d := l.data[r]
		if l.t.dataKind() == kB16 {
			b.insP(l.pv[r], "st.shared.b16 [%s], %s", l.sOff[r], d[0])
			continue
		}
		b.insP(l.pv[r], "st.shared%s.b32 [%s], %s", vsuffix(len(d)), l.sOff[r], vec(d))
	}
}

// advance moves every load's tap on by U: the fastest coordinate first,
// each carry at most one (the step's coordinates are below their bounds).
func (l *im2colLoader) advance() {
	b, cv := l.c.b, l.c.conv.p
	// From fastest to slowest: the coordinate, its step and its bound.
	type coord struct {
		v           []string
		step, bound string
	}
	order := []coord{{l.s, l.step[2], cv["cS"]}, {l.r, l.step[1], cv["cR"]}, {l.ch, l.step[0], ""}}
	if l.c.g.in.Conv == ConvRSC {
		order = []coord{{l.ch, l.step[0], cv["cC"]}, {l.s, l.step[2], cv["cS"]}, {l.r, l.step[1], ""}}
	}
	for r := range l.sOff {
		b.ins("sub.s32 %s, %s, %d", l.kleft[r], l.kleft[r], l.c.g.cfg.U)
		for i, x := range order {
			b.ins("add.s32 %s, %s, %s", x.v[r], x.v[r], x.step)
			if x.bound == "" {
				break
			}
			carry := b.reg(kPred)
			b.ins("setp.ge.s32 %s, %s, %s", carry, x.v[r], x.bound)
			b.insP(carry, "sub.s32 %s, %s, %s", x.v[r], x.v[r], x.bound)
			b.insP(carry, "add.s32 %s, %s, 1", order[i+1].v[r], order[i+1].v[r])
		}
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
