package ptx

// tileLoader stages one operand's tiles from global to shared memory, as the
// main loops drive it: the GEMM operands' loader, or a convolution's im2col
// gather (im2colLoader).
type tileLoader interface {
	issueAsync(stageOff string)     // cp.async copies of the current tile
	issueAsyncFull(stageOff string) // the same for a tile wholly inside K (see issueTile)
	issueRegs()                     // the current tile into registers
	storeRegs()                     // the registers to shared memory (stage 0)
	advance()                       // on to the next tile
	edge() string                   // a predicate: this thread's copies need issueAsync even inside K ("" never)
}

// loader stages one operand tile (A: ML×U, B: U×NL) from global to shared
// memory. Each thread moves `loads` vectors of `vec` elements along the
// contiguous dimension of the operand. Bounds are handled per vector by a
// remaining-element count: full vectors use one vector load, partial ones
// (only at the m/n edge, or the k edge for k-contiguous operands) fall back
// to predicated element loads; cp.async uses its src-size operand, which
// zero-fills the rest of the destination.
type loader struct {
	c    *gemmCtx
	o    operandGeom
	name string
	base string // global base pointer (u64)
	step string // per-tile pointer increment (u64 register) or "" for constant
	imm  int    // constant per-tile pointer increment in bytes when step == ""

	ptr   []string // per load: current global address (u64), loop-carried
	kleft []string // per load: kEnd - k coordinate of the vector start, loop-carried
	mnc   []string // per load (m/n-contiguous): elements of the vector inside M/N, clamped to [0,vec]
	pMN   []string // per load (k-contiguous): m/n coordinate in bounds
	pV    []string // per load: the vector exists (only when total % threads != 0)
	sOff  []string // per load: shared address within stage 0 (u32)
	// cp.async, tiles wholly inside K (loop-invariant): the vector lies
	// outside M/N (zero-filled, source ignored), and whether one of this
	// thread's vectors is cut by the M/N edge (then the general path runs).
	pIgnore []string
	partial string
	data    [][]string
}

func (c *gemmCtx) newLoader(isA bool) *loader {
	b, g := c.b, c.g
	l := &loader{c: c}
	var ld, lim, mn0 string
	if isA {
		l.o, l.name, l.base, ld, lim, mn0 = g.a, "A", c.A, c.lda, c.M, c.m0
	} else {
		l.o, l.name, l.base, ld, lim, mn0 = g.b, "B", c.B, c.ldb, c.N, c.n0
	}
	o, es := l.o, g.es
	b.comment("loader %s: %d vectors of %d, %d per thread, k-contiguous=%v", l.name, o.total, o.vec, o.loads, o.kContig)
	if o.kContig {
		l.imm = g.cfg.U * es
	} else {
		l.step = b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %d", l.step, ld, g.cfg.U*es)
	}
	for r := 0; r < o.loads; r++ {
		v := b.addImm32(c.tid, r*g.threads)
		pv := ""
		if (r+1)*g.threads > o.total {
			pv = b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %d", pv, v, o.total)
		}
		cv, ov := l.vectorAt(v)
		mnIdx, kIdx := cv, ov
		if o.kContig {
			mnIdx, kIdx = ov, cv
		}
		mnG := b.add32(mn0, mnIdx)
		kG := b.add32(c.kBeg, kIdx)
		var ptr string
		if o.kContig {
			ptr = b.elemAddr64(l.base, kG, mnG, ld, es)
		} else {
			ptr = b.elemAddr64(l.base, mnG, kG, ld, es)
		}
		kl := b.reg(kB32)
		b.ins("sub.s32 %s, %s, %s", kl, c.kEnd, kG)
		mnRem := b.reg(kB32)
		b.ins("sub.s32 %s, %s, %s", mnRem, lim, mnG)
		var mnc, pmn string
		if o.kContig {
			pmn = b.reg(kPred)
			b.ins("setp.gt.s32 %s, %s, 0", pmn, mnRem)
		} else {
			mnc = b.reg(kB32)
			b.ins("max.s32 %s, %s, 0", mnc, mnRem)
			b.ins("min.s32 %s, %s, %d", mnc, mnc, o.vec)
		}
		so := l.sharedOffset(v, cv, ov, mnIdx, kIdx)
		l.ptr = append(l.ptr, ptr)
		l.kleft = append(l.kleft, kl)
		l.mnc = append(l.mnc, mnc)
		l.pMN = append(l.pMN, pmn)
		l.pV = append(l.pV, pv)
		l.sOff = append(l.sOff, so)
		if g.cfg.Stages >= 2 {
			ign := b.reg(kPred)
			if o.kContig {
				b.ins("not.pred %s, %s", ign, pmn)
			} else {
				b.ins("setp.eq.s32 %s, %s, 0", ign, mnc)
				if o.vec > 1 {
					// cut by the edge: 0 < mnc < vec
					cut := b.reg(kPred)
					b.ins("setp.lt.s32 %s, %s, %d", cut, mnc, o.vec)
					b.ins("and.pred %s, %s, !%s", cut, cut, ign)
					if l.partial == "" {
						l.partial = cut
					} else {
						b.ins("or.pred %s, %s, %s", l.partial, l.partial, cut)
					}
				}
			}
			l.pIgnore = append(l.pIgnore, ign)
		}
		if g.cfg.Stages <= 1 {
			l.data = append(l.data, b.regs(l.dataKind(), l.dataWords()))
		}
	}
	return l
}

func (l *loader) edge() string { return l.partial }

// sharedOffset is the shared address of vector v (at element cv of line
// ov; mnIdx, kIdx its tile coordinates) in stage 0: smem + operand offset +
// (element offset)·es, or 16 bytes per vector in the core-matrix layout.
func (l *loader) sharedOffset(v, cv, ov, mnIdx, kIdx string) string {
	b, c, o, es := l.c.b, l.c, l.o, l.c.g.es
	so := b.reg(kB32)
	switch {
	case o.swizzle:
		b.ins("add.s32 %s, %s, %s", so, l.swizzledOffset(cv, ov), c.smem)
	case o.core:
		b.ins("mad.lo.s32 %s, %s, 16, %s", so, v, c.smem)
	case o.kContig:
		b.ins("mad.lo.s32 %s, %s, %d, %s", so, mnIdx, o.stride, kIdx)
		b.ins("mad.lo.s32 %s, %s, %d, %s", so, so, es, c.smem)
	default:
		b.ins("mad.lo.s32 %s, %s, %d, %s", so, kIdx, o.stride, mnIdx)
		b.ins("mad.lo.s32 %s, %s, %d, %s", so, so, es, c.smem)
	}
	if o.offset != 0 {
		b.ins("add.s32 %s, %s, %d", so, so, o.offset)
	}
	return so
}

// vectorAt splits vector index v of the tile into its element index along
// the contiguous dimension and its line: line-major (v%w, v/w), or for the
// unswizzled core-matrix layout (newCoreMatrixGeom) 8 lines of one 16-byte
// column first: column ⌊v/8⌋%w, line 8·⌊v/(8w)⌋ + v%8.
func (l *loader) vectorAt(v string) (cv, ov string) {
	b, o := l.c.b, l.o
	cv, ov = b.reg(kB32), b.reg(kB32)
	if o.core && !o.swizzle {
		q := b.reg(kB32)
		b.ins("shr.u32 %s, %s, 3", q, v)
		b.ins("and.b32 %s, %s, %d", cv, q, o.w-1)
		b.ins("shr.u32 %s, %s, %d", ov, q, log2(o.w))
		r8 := b.reg(kB32)
		b.ins("and.b32 %s, %s, 7", r8, v)
		b.ins("mad.lo.s32 %s, %s, 8, %s", ov, ov, r8)
	} else {
		b.ins("and.b32 %s, %s, %d", cv, v, o.w-1)
		b.ins("shr.u32 %s, %s, %d", ov, v, log2(o.w))
	}
	if o.vec > 1 {
		b.ins("shl.b32 %s, %s, %d", cv, cv, log2(o.vec))
	}
	return cv, ov
}

// swizzledOffset is the byte offset in a 128-byte swizzled tile (see
// newCoreMatrixGeom) of the 16-byte vector at element cv of line ov:
// atom (⌊ov/8⌋·atoms + ⌊c/8⌋)·1024 + (ov%8)·128 + ((c%8) ^ (ov%8))·16 with c =
// cv/vec the vector's index along the line.
func (l *loader) swizzledOffset(cv, ov string) string {
	b, o := l.c.b, l.o
	c := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", c, cv, log2(o.vec))
	l8 := b.reg(kB32)
	b.ins("and.b32 %s, %s, 7", l8, ov)
	atom := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 3", atom, ov)
	hi := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 3", hi, c)
	b.ins("mad.lo.s32 %s, %s, %d, %s", atom, atom, o.atoms, hi)
	x := b.reg(kB32)
	b.ins("and.b32 %s, %s, 7", x, c)
	b.ins("xor.b32 %s, %s, %s", x, x, l8)
	off := b.reg(kB32)
	b.ins("shl.b32 %s, %s, 10", off, atom)
	b.ins("mad.lo.s32 %s, %s, 128, %s", off, l8, off)
	b.ins("mad.lo.s32 %s, %s, 16, %s", off, x, off)
	return off
}

// dataWords is the number of registers holding one vector (b32 words, or a
// single b16 for a lone 2-byte element).
func (l *loader) dataWords() int {
	bytes := l.o.vec * l.c.g.es
	if bytes < 4 {
		return 1
	}
	return bytes / 4
}

func (l *loader) dataKind() regKind {
	if l.o.vec*l.c.g.es < 4 {
		return kB16
	}
	return kB32
}

// remaining returns a register with the number of in-bounds elements of
// vector r for the current tile (0..vec).
func (l *loader) remaining(r int) string {
	b, o := l.c.b, l.o
	rem := b.reg(kB32)
	if o.kContig {
		b.ins("max.s32 %s, %s, 0", rem, l.kleft[r])
		b.ins("min.s32 %s, %s, %d", rem, rem, o.vec)
		b.ins("selp.b32 %s, %s, 0, %s", rem, rem, l.pMN[r])
	} else {
		p := b.reg(kPred)
		b.ins("setp.gt.s32 %s, %s, 0", p, l.kleft[r])
		b.ins("selp.b32 %s, %s, 0, %s", rem, l.mnc[r], p)
	}
	if l.pV[r] != "" {
		b.ins("selp.b32 %s, %s, 0, %s", rem, rem, l.pV[r])
	}
	return rem
}

// advance moves every load to the next k-tile (in place: loop-carried).
func (l *loader) advance() {
	b := l.c.b
	for r := range l.ptr {
		if l.step != "" {
			b.ins("add.s64 %s, %s, %s", l.ptr[r], l.ptr[r], l.step)
		} else {
			b.ins("add.s64 %s, %s, %d", l.ptr[r], l.ptr[r], l.imm)
		}
		b.ins("sub.s32 %s, %s, %d", l.kleft[r], l.kleft[r], l.c.g.cfg.U)
	}
}

// issueAsync emits cp.async copies of the current tile into the stage at
// byte offset stageOff (u32 register).
func (l *loader) issueAsync(stageOff string) {
	b, es, o := l.c.b, l.c.g.es, l.o
	size := o.vec * es
	kind := "ca"
	if size == 16 {
		kind = "cg"
	}
	for r := range l.ptr {
		rem := l.remaining(r)
		nbytes := b.reg(kB32)
		b.ins("shl.b32 %s, %s, %d", nbytes, rem, log2(es))
		pnz := b.reg(kPred)
		b.ins("setp.ne.s32 %s, %s, 0", pnz, rem)
		src := b.reg(kB64)
		b.ins("selp.b64 %s, %s, %s, %s", src, l.ptr[r], l.base, pnz)
		dst := b.add32(l.sOff[r], stageOff)
		b.insP(l.pV[r], "cp.async.%s.shared.global [%s], [%s], %d, %s", kind, dst, src, size, nbytes)
	}
}

// issueAsyncFull is issueAsync for a tile that lies wholly inside K, in a
// thread none of whose vectors is cut by the M/N edge (see partial): every
// vector is copied whole or, outside M/N, zero-filled with its source
// ignored, so a copy is one address add and one cp.async.
func (l *loader) issueAsyncFull(stageOff string) {
	b, es, o := l.c.b, l.c.g.es, l.o
	size := o.vec * es
	kind := "ca"
	if size == 16 {
		kind = "cg"
	}
	for r := range l.ptr {
		dst := b.add32(l.sOff[r], stageOff)
		b.insP(l.pV[r], "cp.async.%s.shared.global [%s], [%s], %d, %s", kind, dst, l.ptr[r], size, l.pIgnore[r])
	}
}

// issueRegs loads the current tile into the loader's registers.
func (l *loader) issueRegs() {
	b, es, o := l.c.b, l.c.g.es, l.o
	for r := range l.ptr {
		rem := l.remaining(r)
		d := l.data[r]
		ptr := l.ptr[r]
		if o.vec == 1 {
			p := b.reg(kPred)
			b.ins("setp.ne.s32 %s, %s, 0", p, rem)
			z := "mov.b32 %s, 0"
			if l.dataKind() == kB16 {
				z = "mov.b16 %s, 0"
			}
			for _, w := range d {
				b.ins(z, w)
			}
			switch es {
			case 2:
				b.insP(p, "ld.global.nc.b16 %s, [%s]", d[0], ptr)
			case 4:
				b.insP(p, "ld.global.nc.b32 %s, [%s]", d[0], ptr)
			case 8:
				b.insP(p, "ld.global.nc.v2.b32 %s, [%s]", vec(d), ptr)
			}
			continue
		}
		pfull := b.reg(kPred)
		b.ins("setp.eq.s32 %s, %s, %d", pfull, rem, o.vec)
		pnf := b.reg(kPred)
		b.ins("not.pred %s, %s", pnf, pfull)
		for _, w := range d {
			b.ins("mov.b32 %s, 0", w)
		}
		b.insP(pfull, "ld.global.nc%s.b32 %s, [%s]", vsuffix(len(d)), vec(d), ptr)
		// partial vector: element e is loaded when rem > e (and rem < vec)
		var halves []string
		if es == 2 {
			halves = b.regs(kB16, o.vec)
			for _, h := range halves {
				b.ins("mov.b16 %s, 0", h)
			}
		}
		for e := 0; e < o.vec-1; e++ {
			q := b.reg(kPred)
			b.ins("setp.gt.and.s32 %s, %s, %d, %s", q, rem, e, pnf)
			switch es {
			case 2:
				b.insP(q, "ld.global.nc.b16 %s, %s", halves[e], addr(ptr, e*2))
			case 4:
				b.insP(q, "ld.global.nc.b32 %s, %s", d[e], addr(ptr, e*4))
			case 8:
				b.insP(q, "ld.global.nc.v2.b32 {%s, %s}, %s", d[2*e], d[2*e+1], addr(ptr, e*8))
			}
		}
		if es == 2 {
			for w := range d {
				b.insP(pnf, "mov.b32 %s, {%s, %s}", d[w], halves[2*w], halves[2*w+1])
			}
		}
	}
}

// storeRegs writes the loader's registers to shared memory (stage 0).
func (l *loader) storeRegs() {
	b := l.c.b
	for r := range l.ptr {
		d := l.data[r]
		if l.dataKind() == kB16 {
			b.insP(l.pV[r], "st.shared.b16 [%s], %s", l.sOff[r], d[0])
			continue
		}
		b.insP(l.pV[r], "st.shared%s.b32 [%s], %s", vsuffix(len(d)), l.sOff[r], vec(d))
	}
}
