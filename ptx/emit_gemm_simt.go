package ptx

// simtCompute is the SIMT inner product: thread (tm, tn) of KL group grp
// computes MS rows and NS columns of the block tile over the k-range
// [grp*U/KL, (grp+1)*U/KL) of every tile, with KS accumulator sets (k index
// kk uses set kk % KS). The rows come in runs of one shared-memory vector
// (g.simtRun), run j of thread tm at j*run*(ML/MS) + tm*run (columns
// likewise): neighbouring threads read neighbouring vectors, so a warp's
// fragment load is one contiguous span, and its C stores coalesce.
type simtCompute struct {
	c          *gemmCtx
	aThr, bThr string // shared address of the thread's first A / B element in stage 0
	rowBase    string // m0 + i0
	colBase    string // n0 + j0
	acc        [][][]string
	zeroH      string // b16 zero, for bf16 -> f32
}

func (s *simtCompute) accKind() regKind {
	switch s.c.g.cfg.Math {
	case DFMA:
		return kF64
	case HFMA:
		return kB16
	}
	return kF32
}

func (s *simtCompute) setup() {
	c := s.c
	b, g := c.b, c.g
	cfg := g.cfg
	tm := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", tm, c.t, g.tm-1)
	tn := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", tn, c.t, log2(g.tm))
	i0 := b.mulImm(tm, g.simtRun(cfg.MS))
	j0 := b.mulImm(tn, g.simtRun(cfg.NS))
	kq := b.mulImm(c.grp, g.uk)
	s.aThr = s.thrAddr(g.a, i0, kq)
	s.bThr = s.thrAddr(g.b, j0, kq)
	s.rowBase = b.add32(c.m0, i0)
	s.colBase = b.add32(c.n0, j0)
	if g.in.AType == BF16 {
		s.zeroH = b.reg(kB16)
		b.ins("mov.b16 %s, 0", s.zeroH)
	}
}

// thrAddr is smem + o.offset + smemOff(mn, k)*es.
func (s *simtCompute) thrAddr(o operandGeom, mn, k string) string {
	b, es := s.c.b, s.c.g.es
	r := b.reg(kB32)
	if o.kContig {
		b.ins("mad.lo.s32 %s, %s, %d, %s", r, mn, o.stride, k)
	} else {
		b.ins("mad.lo.s32 %s, %s, %d, %s", r, k, o.stride, mn)
	}
	b.ins("mad.lo.s32 %s, %s, %d, %s", r, r, es, s.c.smem)
	if o.offset != 0 {
		b.ins("add.s32 %s, %s, %d", r, r, o.offset)
	}
	return r
}

func (s *simtCompute) zero() {
	b, cfg := s.c.b, s.c.g.cfg
	k := s.accKind()
	s.acc = make([][][]string, cfg.KS)
	for q := range s.acc {
		s.acc[q] = make([][]string, cfg.MS)
		for r := range s.acc[q] {
			s.acc[q][r] = b.regs(k, cfg.NS)
			for _, a := range s.acc[q][r] {
				switch k {
				case kF64:
					b.ins("mov.f64 %s, 0d0000000000000000", a)
				case kB16:
					b.ins("mov.b16 %s, 0", a)
				default:
					b.ins("mov.f32 %s, 0f00000000", a)
				}
			}
		}
	}
}

// loadKind is the register class of values read from shared memory.
func (s *simtCompute) loadKind() regKind {
	switch s.c.g.es {
	case 2:
		return kB16
	case 8:
		return kF64
	}
	return kF32
}

func (s *simtCompute) ldType() string {
	switch s.c.g.es {
	case 2:
		return "b16"
	case 8:
		return "f64"
	}
	return "f32"
}

// fetch loads values v[q][x] = operand(mn = off(x), k = kk+q) for x < n,
// q < vk from shared memory, vectorised along the contiguous dimension;
// off(x) is the thread's x-th row (A) or column (B) relative to its first
// (g.simtOffset with the thread count along the dimension, threads).
func (s *simtCompute) fetch(o operandGeom, base string, n, threads, kk, vk int) [][]string {
	b, g := s.c.b, s.c.g
	es := g.es
	maxv := g.simtRun(n)
	off := func(x int) int { return g.simtOffset(x, n, threads) }
	v := make([][]string, vk)
	for q := range v {
		v[q] = b.regs(s.loadKind(), n)
	}
	if o.kContig {
		ch := min(vk, maxv)
		for x := 0; x < n; x++ {
			for q := 0; q < vk; q += ch {
				regs := make([]string, ch)
				for i := range regs {
					regs[i] = v[q+i][x]
				}
				b.ins("ld.shared%s.%s %s, %s", vsuffix(ch), s.ldType(), vec(regs), addr(base, o.smemOff(off(x), kk+q)*es))
			}
		}
	} else {
		ch := min(n, maxv)
		for q := 0; q < vk; q++ {
			for x := 0; x < n; x += ch {
				b.ins("ld.shared%s.%s %s, %s", vsuffix(ch), s.ldType(), vec(v[q][x:x+ch]), addr(base, o.smemOff(off(x), kk+q)*es))
			}
		}
	}
	return v
}

// widen converts loaded values to the FMA operand type where needed.
func (s *simtCompute) widen(v [][]string) [][]string {
	b, g := s.c.b, s.c.g
	if g.es != 2 || g.cfg.Math == HFMA {
		return v
	}
	out := make([][]string, len(v))
	for q := range v {
		out[q] = make([]string, len(v[q]))
		for x, h := range v[q] {
			f := b.reg(kF32)
			if g.in.AType == BF16 {
				b.ins("mov.b32 %s, {%s, %s}", f, s.zeroH, h)
			} else {
				b.ins("cvt.f32.f16 %s, %s", f, h)
			}
			out[q][x] = f
		}
	}
	return out
}

func (s *simtCompute) tile(stageOff string) {
	aAddr, bAddr := s.stageAddrs(stageOff)
	for _, kk := range s.steps() {
		s.mathStep(s.fetchStep(aAddr, bAddr, kk), kk)
	}
}

// simtFrag is one k-step's operand values as the FMAs take them (loaded
// from shared memory, widened where needed): a[q][r] and b[q][c] for the
// step's vk k values.
type simtFrag struct{ a, b [][]string }

// steps are the k offsets of a tile's steps (vk k values each).
func (s *simtCompute) steps() []int { return kSteps(s.c.g.uk, s.c.g.simtVK()) }

// stageAddrs are the thread's first A and B addresses in the stage at
// stageOff.
func (s *simtCompute) stageAddrs(stageOff string) (string, string) {
	return s.c.b.add32(s.aThr, stageOff), s.c.b.add32(s.bThr, stageOff)
}

// fetchStep loads the k-step at kk of the stage whose thread addresses are
// aAddr, bAddr.
func (s *simtCompute) fetchStep(aAddr, bAddr string, kk int) simtFrag {
	g := s.c.g
	vk := g.simtVK()
	av := s.widen(s.fetch(g.a, aAddr, g.cfg.MS, g.tm, kk, vk))
	bv := s.widen(s.fetch(g.b, bAddr, g.cfg.NS, g.tn, kk, vk))
	return simtFrag{av, bv}
}

// mathStep issues the FMAs of the k-step at kk on its loaded values.
func (s *simtCompute) mathStep(f simtFrag, kk int) {
	b, cfg := s.c.b, s.c.g.cfg
	op := "fma.rn.f32"
	switch cfg.Math {
	case DFMA:
		op = "fma.rn.f64"
	case HFMA:
		op = "fma.rn.f16"
	}
	av, bv := f.a, f.b
	for q := range av {
		set := (kk + q) % cfg.KS
		for r := 0; r < cfg.MS; r++ {
			for cc := 0; cc < cfg.NS; cc++ {
				a := s.acc[set][r][cc]
				b.ins("%s %s, %s, %s, %s", op, a, av[q][r], bv[q][cc], a)
			}
		}
	}
}

// moveFrag copies a step's values into dst's registers (the loop-carried
// values of loopPipelined; ptxas coalesces the moves).
func (s *simtCompute) moveFrag(dst, src simtFrag) {
	k := s.loadKind()
	if g := s.c.g; g.es == 2 && g.cfg.Math != HFMA {
		k = kF32 // widened (widen)
	}
	s.c.b.movRegs(k, dst.a, src.a)
	s.c.b.movRegs(k, dst.b, src.b)
}

func (s *simtCompute) elements() []accElem {
	g := s.c.g
	cfg := g.cfg
	var out []accElem
	for cc := 0; cc < cfg.NS; cc++ {
		for r := 0; r < cfg.MS; r++ {
			e := accElem{kind: s.accKind(), rowBase: s.rowBase, colBase: s.colBase,
				row: g.simtOffset(r, cfg.MS, g.tm), col: g.simtOffset(cc, cfg.NS, g.tn)}
			for q := 0; q < cfg.KS; q++ {
				e.vals = append(e.vals, s.acc[q][r][cc])
			}
			out = append(out, e)
		}
	}
	return out
}
