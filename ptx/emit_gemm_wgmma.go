package ptx

import "fmt"

// wgmmaCompute is the warpgroup-mma math (sm_90a): warpgroup (gm, gn) of the
// block computes a (MS·64)×(NS·8) tile of C at (gm·MS·64, gn·NS·8) with MS
// wgmma.mma_async.m64n(8·NS)k16 per k-step of 16 (k8 per step of 8 for
// tf32: the same 32 bytes of each row), both operands read by
// the tensor cores straight from the core-matrix tiles in shared memory
// (newCoreMatrixGeom) through 64-bit matrix descriptors: no fragment loads
// and no ldmatrix. A descriptor holds (PTX ISA, "Matrix Descriptor Format")
// the start address, LBO and SBO, each (x & 0x3FFFF) >> 4, in bits 0–13,
// 16–29 and 32–45, and the swizzle mode in bits 62–63 (0 none, 1 128-byte).
// The start address is advanced by adding (bytes >> 4) to the whole
// descriptor, which cannot carry out of bits 0–13 because a block's shared
// memory ends below 256 KiB.
//
// The accumulators of warp w (of 4) of the warpgroup hold rows 16·w +
// lane/4 (+8) and, per 8 columns i, columns 8·i + 2·(lane%4) (+1): per
// instruction and warp the m16n8 accumulator layout of mma.sync, repeated
// NS times along n.
type wgmmaCompute struct {
	c                *gemmCtx
	descA, descB     string     // descriptors of the warpgroup's operands in stage 0
	transA, transB   int        // 1: the operand is MN-major (m/n-contiguous)
	one              string     // true predicate: scale-d (accumulate into D)
	rowBase, colBase string     // the thread's first row and column of C (origin)
	rowOff, colOff   string     // and their offsets from the block's tile origin
	acc              [][]string // [mi][reg]
	round            bool       // the stages' f32 operands are rounded to TF32 (roundStage)
}

// accRegs is the number of accumulator registers of one instruction per
// thread: n/2 f32 values, or n/4 f16x2 pairs.
func (s *wgmmaCompute) accRegs() int {
	n := s.c.g.wn
	if s.c.g.cfg.Math == WGMMA_F16_F16ACC {
		return n / 4
	}
	return n / 2
}

func (s *wgmmaCompute) instr() string {
	g := s.c.g
	var types string
	switch g.cfg.Math {
	case WGMMA_F16:
		types = "f32.f16.f16"
	case WGMMA_F16_F16ACC:
		types = "f16.f16.f16"
	case WGMMA_BF16:
		types = "f32.bf16.bf16"
	case WGMMA_TF32:
		types = "f32.tf32.tf32"
	default:
		panic(fmt.Sprintf("ptx: %s is not a wgmma math", g.cfg.Math))
	}
	return fmt.Sprintf("wgmma.mma_async.sync.aligned.m64n%dk%d.%s", g.wn, g.mmaK, types)
}

// operands are an instruction's operands after the descriptors: the scale
// of D (accumulate), A's and B's scales and, for 16-bit inputs, whether
// each is MN-major (tf32 reads k-major operands only and takes no
// transposes).
func (s *wgmmaCompute) operands() string {
	if s.c.g.cfg.Math == WGMMA_TF32 {
		return fmt.Sprintf("%s, 1, 1", s.one)
	}
	return fmt.Sprintf("%s, 1, 1, %d, %d", s.one, s.transA, s.transB)
}

// descriptor returns a register with the descriptor of the core-matrix
// tile of o starting at shared address base + off (bytes).
func (s *wgmmaCompute) descriptor(o operandGeom, base string, off string) string {
	b := s.c.b
	a := b.add32(base, off)
	// In a cluster launch the shared::cta address of a block carries its
	// rank above bit 18: the descriptor takes only the low 18 bits.
	b.ins("and.b32 %s, %s, 0x3FFFF", a, a)
	d := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", d, a)
	b.ins("shr.u64 %s, %s, 4", d, d)
	hi := uint64(o.lbo>>4)<<16 | uint64(o.sbo>>4)<<32
	if o.swizzle {
		hi |= 1 << 62 // 128-byte swizzle
	}
	b.ins("or.b64 %s, %s, 0x%016x", d, d, hi)
	return d
}

func (s *wgmmaCompute) setup() {
	c := s.c
	b, g := c.b, c.g
	warp := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 5", warp, c.t)
	wq := b.reg(kB32)
	b.ins("and.b32 %s, %s, 3", wq, warp)
	wgi := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 7", wgi, c.t)
	gm := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", gm, wgi, g.tm-1)
	gn := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", gn, wgi, log2(g.tm))
	lane := b.reg(kB32)
	b.ins("and.b32 %s, %s, 31", lane, c.t)
	gid := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 2", gid, lane)
	tig := b.reg(kB32)
	b.ins("and.b32 %s, %s, 3", tig, lane)
	mW := b.mulImm(gm, g.wm)
	nW := b.mulImm(gn, g.wn)
	s.rowOff = b.add32(b.add32(mW, b.mulImm(wq, 16)), gid)
	s.colOff = b.add32(nW, b.mulImm(tig, 2))
	s.rowBase, s.colBase = b.reg(kB32), b.reg(kB32)
	if g.cfg.PS == 0 {
		s.origin() // a persistent kernel sets it per tile
	}

	// Warpgroup origins in the tiles: m/n offsets are multiples of 64 and
	// 8, whole core matrices along m/n for both layouts.
	offA := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %d", offA, gm, g.a.coreOff(g.wm, 0, g.es))
	b.ins("add.s32 %s, %s, %d", offA, offA, g.a.offset)
	offB := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %d", offB, gn, g.b.coreOff(g.wn, 0, g.es))
	b.ins("add.s32 %s, %s, %d", offB, offB, g.b.offset)
	s.descA = s.descriptor(g.a, c.smem, offA)
	s.descB = s.descriptor(g.b, c.smem, offB)
	if !g.a.kContig {
		s.transA = 1
	}
	if !g.b.kContig {
		s.transB = 1
	}
	s.one = b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, %s", s.one, c.t, c.t)
	s.round = g.cfg.Math == WGMMA_TF32 && g.in.RoundTF32
}

// roundStage rounds the f32 operands in the stage at byte offset stageOff
// to TF32 in place (cvt.rna: to nearest, ties away from zero) where the
// class asks for it (InputClass.RoundTF32), and does nothing otherwise.
// wgmma reads an f32 operand from shared memory by its top 19 bits, which
// truncates; rounding first gives what mma.sync's cvt.rna gives. The
// block's computing threads share the stage's 16-byte vectors whatever
// their layout (swizzled or not: the rounding is elementwise), fence their
// writes into the async proxy that wgmma reads through, and pass the
// computing threads' barrier, so every warpgroup reads rounded operands.
// The caller has waited for the stage's data and reads no other stage's
// rounding: wgmma groups still in flight read stages already rounded.
func (s *wgmmaCompute) roundStage(stageOff string) {
	if !s.round {
		return
	}
	c := s.c
	b, g := c.b, c.g
	vecs, T := g.stageBytes/16, g.threads
	b.comment("round the stage's operands to TF32: %d vectors over %d threads", vecs, T)
	base := b.add32(b.add32(c.smem, stageOff), b.mulImm(c.tid, 16))
	for j := 0; j*T < vecs; j++ {
		pred := ""
		if (j+1)*T > vecs {
			pred = b.reg(kPred)
			b.ins("setp.lt.u32 %s, %s, %d", pred, c.tid, vecs-j*T)
		}
		v := b.regs(kB32, 4)
		a := addr(base, j*T*16)
		b.insP(pred, "ld.shared.v4.b32 %s, %s", braces(v), a)
		for _, r := range v {
			b.insP(pred, "cvt.rna.tf32.f32 %s, %s", r, r)
		}
		b.insP(pred, "st.shared.v4.b32 %s, %s", a, braces(v))
	}
	b.ins("fence.proxy.async.shared::cta")
	c.barrier()
}

// origin sets the thread's first row and column of C from the block's
// tile origin (m0, n0).
func (s *wgmmaCompute) origin() {
	b, c := s.c.b, s.c
	b.ins("add.s32 %s, %s, %s", s.rowBase, c.m0, s.rowOff)
	b.ins("add.s32 %s, %s, %s", s.colBase, c.n0, s.colOff)
}

func (s *wgmmaCompute) zero() {
	b, cfg := s.c.b, s.c.g.cfg
	s.acc = make([][]string, cfg.MS)
	for mi := range s.acc {
		kind := kF32
		if cfg.Math == WGMMA_F16_F16ACC {
			kind = kB32
		}
		s.acc[mi] = b.regs(kind, s.accRegs())
	}
	s.clear()
}

// clear sets the accumulators to zero (a persistent kernel's, per tile).
func (s *wgmmaCompute) clear() {
	b, cfg := s.c.b, s.c.g.cfg
	for mi := range s.acc {
		for _, r := range s.acc[mi] {
			if cfg.Math == WGMMA_F16_F16ACC {
				b.ins("mov.b32 %s, 0", r)
			} else {
				b.ins("mov.f32 %s, 0f00000000", r)
			}
		}
	}
}

// tile issues the wgmma instructions of the k-slice in the stage at byte
// offset stageOff as one wgmma-group and returns at once: the group runs
// while the caller goes on (see loopWarpgroup, which waits for it).
func (s *wgmmaCompute) tile(stageOff string) {
	c := s.c
	b, g := c.b, c.g
	so := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 4", so, stageOff)
	so64 := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", so64, so)
	dA, dB := b.reg(kB64), b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", dA, s.descA, so64)
	b.ins("add.s64 %s, %s, %s", dB, s.descB, so64)
	instr := s.instr()
	b.ins("wgmma.fence.sync.aligned")
	for ks := 0; ks < g.cfg.U; ks += g.mmaK {
		db := b.reg(kB64)
		b.ins("add.s64 %s, %s, %d", db, dB, g.b.coreOff(0, ks, g.es)>>4)
		for mi := 0; mi < g.cfg.MS; mi++ {
			da := b.reg(kB64)
			b.ins("add.s64 %s, %s, %d", da, dA, g.a.coreOff(mi*g.mmaM, ks, g.es)>>4)
			d := braces(s.acc[mi])
			b.ins("%s %s, %s, %s, %s", instr, d, da, db, s.operands())
		}
	}
	b.ins("wgmma.commit_group.sync.aligned")
}

func (s *wgmmaCompute) elements() []accElem {
	b, g := s.c.b, s.c.g
	cfg := g.cfg
	var out []accElem
	lay := layoutM16N8K16.c
	for ni := 0; ni < cfg.NS; ni++ {
		for mi := 0; mi < cfg.MS; mi++ {
			var vals []string
			kind := kF32
			if cfg.Math == WGMMA_F16_F16ACC {
				kind = kB16
				for _, r := range s.acc[mi][2*ni : 2*ni+2] {
					lo, hi := b.reg(kB16), b.reg(kB16)
					b.ins("mov.b32 {%s, %s}, %s", lo, hi, r)
					vals = append(vals, lo, hi)
				}
			} else {
				vals = s.acc[mi][4*ni : 4*ni+4]
			}
			for e, rc := range lay {
				out = append(out, accElem{
					vals: []string{vals[e]}, kind: kind, rowBase: s.rowBase, colBase: s.colBase,
					row: mi*g.mmaM + rc[0], col: ni*g.mmaN + rc[1],
				})
			}
		}
	}
	return out
}

// loopWarpgroup is the cp.async main loop of the wgmma kernels. Tile t is in
// stage t%S. Iteration t waits for its copies and makes them visible to the
// tensor cores (each thread fences its own copies into the async proxy,
// then the block barrier); it issues the copies of tile t+S-2 and the wgmma
// group of tile t, then waits until only that group is pending, which runs
// on while iteration t+1 waits for its data. The copies of iteration t
// refill stage (t+S-2)%S = (t-2)%S: every warpgroup waited for its group
// t-2 in iteration t-1, before the barrier of iteration t. S-2 tiles are
// in flight, so S ≥ 3.
func (c *gemmCtx) loopWarpgroup(la, lb tileLoader, comp *wgmmaCompute) {
	b, S := c.b, c.g.cfg.Stages
	l := c.asyncPrologue(la, lb, S-2, fmt.Sprintf("pipeline prologue: %d stages in flight, one stage under wgmma", S-2))
	b.label(l.loop)
	b.ins("cp.async.wait_group %d", S-3)
	b.ins("fence.proxy.async.shared::cta")
	b.ins("bar.sync 0")
	c.issueTile(la, lb, l.wr, l.issued, l.full)
	comp.roundStage(l.rd)
	comp.tile(l.rd)
	b.ins("wgmma.wait_group.sync.aligned 1")
	c.rotate(l.rd)
	c.next(l)
	b.label(l.done)
	b.ins("wgmma.wait_group.sync.aligned 0")
	b.ins("cp.async.wait_group 0")
	b.ins("bar.sync 0")
}
