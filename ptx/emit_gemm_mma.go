package ptx

import "fmt"

// Fragment layouts of mma.sync (PTX ISA, "Matrix fragments for mma.m16n8k16 /
// m16n8k8 / m8n8k4"), relative to (groupID, threadID_in_group*ka) for A as
// (row, col) and to (threadID_in_group*kb, groupID) for B as (k, n). Each
// register lists its elements from low to high bits.
type mmaLayout struct {
	ka    int        // multiplier of threadID_in_group for the k index
	a     [][][2]int // per register: elements (row m, col k)
	bfrag [][][2]int // per register: elements (row k, col n)
	c     [][2]int   // accumulator elements (row m, col n), relative to (groupID, tig*2)
}

var (
	layoutM16N8K16 = mmaLayout{
		ka: 2,
		a: [][][2]int{
			{{0, 0}, {0, 1}}, {{8, 0}, {8, 1}}, {{0, 8}, {0, 9}}, {{8, 8}, {8, 9}},
		},
		bfrag: [][][2]int{{{0, 0}, {1, 0}}, {{8, 0}, {9, 0}}},
		c:     [][2]int{{0, 0}, {0, 1}, {8, 0}, {8, 1}},
	}
	layoutM16N8K8TF32 = mmaLayout{
		ka:    1,
		a:     [][][2]int{{{0, 0}}, {{8, 0}}, {{0, 4}}, {{8, 4}}},
		bfrag: [][][2]int{{{0, 0}}, {{4, 0}}},
		c:     [][2]int{{0, 0}, {0, 1}, {8, 0}, {8, 1}},
	}
	// f64 m16n8k8 / m16n8k16 (sm_90): A register i holds (groupID + 8·(i%2),
	// tig + 4·(i/2)), B register i holds (tig + 4·i, groupID); C as above.
	layoutM16N8K8F64 = mmaLayout{
		ka:    1,
		a:     [][][2]int{{{0, 0}}, {{8, 0}}, {{0, 4}}, {{8, 4}}},
		bfrag: [][][2]int{{{0, 0}}, {{4, 0}}},
		c:     [][2]int{{0, 0}, {0, 1}, {8, 0}, {8, 1}},
	}
	layoutM16N8K16F64 = mmaLayout{
		ka: 1,
		a: [][][2]int{
			{{0, 0}}, {{8, 0}}, {{0, 4}}, {{8, 4}}, {{0, 8}}, {{8, 8}}, {{0, 12}}, {{8, 12}},
		},
		bfrag: [][][2]int{{{0, 0}}, {{4, 0}}, {{8, 0}}, {{12, 0}}},
		c:     [][2]int{{0, 0}, {0, 1}, {8, 0}, {8, 1}},
	}
	layoutM8N8K4F64 = mmaLayout{
		ka:    1,
		a:     [][][2]int{{{0, 0}}},
		bfrag: [][][2]int{{{0, 0}}},
		c:     [][2]int{{0, 0}, {0, 1}},
	}
)

func (m Math) layout() mmaLayout {
	switch m {
	case MMA_TF32:
		return layoutM16N8K8TF32
	case MMA_F64:
		return layoutM8N8K4F64
	case MMA_F64_K8:
		return layoutM16N8K8F64
	case MMA_F64_K16:
		return layoutM16N8K16F64
	}
	return layoutM16N8K16
}

func (m Math) mmaInstr() string {
	switch m {
	case MMA_F16:
		return "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32"
	case MMA_F16_F16ACC:
		return "mma.sync.aligned.m16n8k16.row.col.f16.f16.f16.f16"
	case MMA_BF16:
		return "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32"
	case MMA_TF32:
		return "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32"
	case MMA_F64:
		return "mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64"
	case MMA_F64_K8:
		return "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64"
	case MMA_F64_K16:
		return "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64"
	}
	panic(fmt.Sprintf("ptx: %s is not an mma math", m))
}

// mmaCompute: warp (wm, wn) of KL group grp computes a (MS*mmaM)×(NS*mmaN)
// warp tile with MS×NS mma instructions per k-step, KS accumulator sets
// (k-step s uses set s % KS). Fragments are read from shared memory with
// ldmatrix where geometry.ldmatrix allows it, otherwise with scalar loads
// following the fragment layout tables above.
type mmaCompute struct {
	c          *gemmCtx
	lay        mmaLayout
	aThr, bThr string
	ldsmA      bool           // A fragments via ldmatrix (geometry.ldmatrix)
	ldsmB      bool           // B fragments via ldmatrix
	rowBase    string         // m0 + wm*WM + groupID
	colBase    string         // n0 + wn*WN + tig*2
	acc        [][][][]string // [set][mi][ni][reg]
}

func (s *mmaCompute) setup() {
	c := s.c
	b, g := c.b, c.g
	s.lay = g.cfg.Math.layout()
	s.ldsmA, s.ldsmB = g.ldmatrix(g.a), g.ldmatrix(g.b)
	lane := b.reg(kB32)
	b.ins("and.b32 %s, %s, 31", lane, c.t)
	warp := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 5", warp, c.t)
	wm := b.reg(kB32)
	b.ins("and.b32 %s, %s, %d", wm, warp, g.tm-1)
	wn := b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", wn, warp, log2(g.tm))
	gid := b.reg(kB32)
	b.ins("shr.u32 %s, %s, 2", gid, lane)
	tig := b.reg(kB32)
	b.ins("and.b32 %s, %s, 3", tig, lane)
	mW := b.mulImm(wm, g.wm)
	nW := b.mulImm(wn, g.wn)
	kG := b.mulImm(c.grp, g.uk)
	kq := b.add32(kG, b.mulImm(tig, s.lay.ka))
	simt := &simtCompute{c: c}
	if s.ldsmA {
		// x4: matrix j = lane/8 holds A rows m + 8*(j&1), k + kb*(j>>1),
		// i.e. registers a0..a3 of the m16n8k16 / m16n8k8 A fragment.
		s.aThr = s.ldsmAddr(g.a, lane, mW, kG, 0, 1)
	} else {
		s.aThr = simt.thrAddr(g.a, b.add32(mW, gid), kq)
	}
	if s.ldsmB {
		// x4 over two n-tiles: matrix j holds n + 8*(j>>1), k + kb*(j&1),
		// i.e. b0, b1 of tile ni and b0, b1 of tile ni+1. x2 (NS == 1):
		// lanes 16..31 repeat the addresses of lanes 0..15.
		mnBit := 1
		if g.cfg.NS == 1 {
			mnBit = -1
		}
		s.bThr = s.ldsmAddr(g.b, lane, nW, kG, mnBit, 0)
	} else {
		s.bThr = simt.thrAddr(g.b, b.add32(nW, gid), kq)
	}
	s.rowBase = b.add32(c.m0, b.add32(mW, gid))
	s.colBase = b.add32(b.add32(c.n0, nW), b.mulImm(tig, 2))
}

// ldsmAddr is the shared address this lane supplies to ldmatrix: lane l
// gives row r = l%8 of matrix j = l/8 (.x4; .x2 uses lanes 0..15). Matrix j
// starts at (mnBase + 8*bit_mnBit(j), kBase + kb*bit_kBit(j)) (mnBit < 0: no
// mn offset), kb = 16/es elements. Its rows run along mn for a k-contiguous
// tile (plain ldmatrix) and along k for an mn-contiguous one (.trans).
func (s *mmaCompute) ldsmAddr(o operandGeom, lane, mnBase, kBase string, mnBit, kBit int) string {
	b, g := s.c.b, s.c.g
	kb := 16 / g.es
	row := b.reg(kB32)
	b.ins("and.b32 %s, %s, 7", row, lane)
	sel := func(bit, scale int) string {
		t := b.reg(kB32)
		b.ins("shr.u32 %s, %s, %d", t, lane, 3+bit)
		b.ins("and.b32 %s, %s, 1", t, t)
		b.ins("shl.b32 %s, %s, %d", t, t, log2(scale))
		return t
	}
	mn, k := mnBase, b.add32(kBase, sel(kBit, kb))
	if mnBit >= 0 {
		mn = b.add32(mn, sel(mnBit, 8))
	}
	if o.kContig {
		mn = b.add32(mn, row)
	} else {
		k = b.add32(k, row)
	}
	return (&simtCompute{c: s.c}).thrAddr(o, mn, k)
}

func (s *mmaCompute) accKind() regKind {
	switch s.c.g.cfg.Math {
	case MMA_F64, MMA_F64_K8, MMA_F64_K16:
		return kF64
	case MMA_F16_F16ACC:
		return kB32
	}
	return kF32
}

func (s *mmaCompute) accRegs() int {
	if s.c.g.cfg.Math == MMA_F16_F16ACC {
		return len(s.lay.c) / 2
	}
	return len(s.lay.c)
}

func (s *mmaCompute) zero() {
	b, cfg := s.c.b, s.c.g.cfg
	k := s.accKind()
	s.acc = make([][][][]string, cfg.KS)
	for q := range s.acc {
		s.acc[q] = make([][][]string, cfg.MS)
		for mi := range s.acc[q] {
			s.acc[q][mi] = make([][]string, cfg.NS)
			for ni := range s.acc[q][mi] {
				regs := b.regs(k, s.accRegs())
				for _, r := range regs {
					switch k {
					case kF64:
						b.ins("mov.f64 %s, 0d0000000000000000", r)
					case kB32:
						b.ins("mov.b32 %s, 0", r)
					default:
						b.ins("mov.f32 %s, 0f00000000", r)
					}
				}
				s.acc[q][mi][ni] = regs
			}
		}
	}
}

// frag loads one fragment register whose elements are at element offsets
// offs (relative to base) in shared memory.
func (s *mmaCompute) frag(base string, offs []int, kContig bool) string {
	b, g := s.c.b, s.c.g
	es := g.es
	switch g.cfg.Math {
	case MMA_F64, MMA_F64_K8, MMA_F64_K16:
		r := b.reg(kF64)
		b.ins("ld.shared.f64 %s, %s", r, addr(base, offs[0]*es))
		return r
	case MMA_TF32:
		f := b.reg(kF32)
		b.ins("ld.shared.f32 %s, %s", f, addr(base, offs[0]*es))
		r := b.reg(kB32)
		b.ins("cvt.rna.tf32.f32 %s, %s", r, f)
		return r
	}
	// two 16-bit elements, consecutive along k
	r := b.reg(kB32)
	if kContig {
		b.ins("ld.shared.b32 %s, %s", r, addr(base, offs[0]*es))
		return r
	}
	lo, hi := b.reg(kB16), b.reg(kB16)
	b.ins("ld.shared.b16 %s, %s", lo, addr(base, offs[0]*es))
	b.ins("ld.shared.b16 %s, %s", hi, addr(base, offs[1]*es))
	b.ins("mov.b32 %s, {%s, %s}", r, lo, hi)
	return r
}

// ldsm loads n (2 or 4) 8x8 b16 matrices with one ldmatrix at byte offset
// off from the lane address base; mn-contiguous tiles use .trans. tf32
// fragments are rounded with cvt.rna like the scalar path.
func (s *mmaCompute) ldsm(base string, o operandGeom, n, off int) []string {
	b := s.c.b
	trans := ""
	if !o.kContig {
		trans = ".trans"
	}
	regs := b.regs(kB32, n)
	b.ins("ldmatrix.sync.aligned.m8n8.x%d%s.shared.b16 %s, %s", n, trans, braces(regs), addr(base, off))
	if s.c.g.cfg.Math != MMA_TF32 {
		return regs
	}
	out := make([]string, n)
	for i, r := range regs {
		f := b.reg(kF32)
		b.ins("mov.b32 %s, %s", f, r)
		out[i] = b.reg(kB32)
		b.ins("cvt.rna.tf32.f32 %s, %s", out[i], f)
	}
	return out
}

func (s *mmaCompute) tile(stageOff string) {
	aAddr, bAddr := s.stageAddrs(stageOff)
	for _, ks := range s.steps() {
		s.mathStep(s.fetchStep(aAddr, bAddr, ks), ks)
	}
}

// mmaFrag is one k-step's fragments: af[mi] and bf[ni] registers.
type mmaFrag struct{ a, b [][]string }

// steps are the k offsets of a tile's k-steps.
func (s *mmaCompute) steps() []int { return kSteps(s.c.g.uk, s.c.g.mmaK) }

// stageAddrs are the thread's fragment base addresses in the stage at
// stageOff.
func (s *mmaCompute) stageAddrs(stageOff string) (string, string) {
	return s.c.b.add32(s.aThr, stageOff), s.c.b.add32(s.bThr, stageOff)
}

// fetchStep loads the fragments of the k-step at ks.
func (s *mmaCompute) fetchStep(aAddr, bAddr string, ks int) mmaFrag {
	g := s.c.g
	cfg := g.cfg
	af := make([][]string, cfg.MS)
	for mi := range af {
		if s.ldsmA {
			af[mi] = s.ldsm(aAddr, g.a, 4, g.a.smemOff(mi*g.mmaM, ks)*g.es)
			continue
		}
		for _, reg := range s.lay.a {
			var offs []int
			for _, e := range reg {
				offs = append(offs, g.a.smemOff(mi*g.mmaM+e[0], ks+e[1]))
			}
			af[mi] = append(af[mi], s.frag(aAddr, offs, g.a.kContig))
		}
	}
	bf := make([][]string, cfg.NS)
	for ni := range bf {
		if s.ldsmB {
			if cfg.NS == 1 {
				bf[ni] = s.ldsm(bAddr, g.b, 2, g.b.smemOff(ni*g.mmaN, ks)*g.es)
			} else if ni%2 == 0 {
				r := s.ldsm(bAddr, g.b, 4, g.b.smemOff(ni*g.mmaN, ks)*g.es)
				bf[ni], bf[ni+1] = r[:2], r[2:]
			}
			continue
		}
		for _, reg := range s.lay.bfrag {
			var offs []int
			for _, e := range reg {
				offs = append(offs, g.b.smemOff(ni*g.mmaN+e[1], ks+e[0]))
			}
			bf[ni] = append(bf[ni], s.frag(bAddr, offs, g.b.kContig))
		}
	}
	return mmaFrag{af, bf}
}

// mathStep issues the k-step's mma instructions.
func (s *mmaCompute) mathStep(f mmaFrag, ks int) {
	b, g := s.c.b, s.c.g
	cfg := g.cfg
	instr := cfg.Math.mmaInstr()
	set := (ks / g.mmaK) % cfg.KS
	for mi := 0; mi < cfg.MS; mi++ {
		for ni := 0; ni < cfg.NS; ni++ {
			d := braces(s.acc[set][mi][ni])
			b.ins("%s %s, %s, %s, %s", instr, d, braces(f.a[mi]), braces(f.b[ni]), d)
		}
	}
}

// fragKind is the register class of a fragment register.
func (s *mmaCompute) fragKind() regKind {
	switch s.c.g.cfg.Math {
	case MMA_F64, MMA_F64_K8, MMA_F64_K16:
		return kF64
	}
	return kB32
}

// moveFrag copies a k-step's fragments into dst's registers (the
// loop-carried fragments of loopPipelined; ptxas coalesces the moves).
func (s *mmaCompute) moveFrag(dst, src mmaFrag) {
	s.c.b.movRegs(s.fragKind(), dst.a, src.a)
	s.c.b.movRegs(s.fragKind(), dst.b, src.b)
}

func (s *mmaCompute) elements() []accElem {
	b, g := s.c.b, s.c.g
	cfg := g.cfg
	var out []accElem
	for ni := 0; ni < cfg.NS; ni++ {
		for mi := 0; mi < cfg.MS; mi++ {
			// per set, the scalar value of each accumulator element
			vals := make([][]string, len(s.lay.c))
			for q := 0; q < cfg.KS; q++ {
				regs := s.acc[q][mi][ni]
				if cfg.Math == MMA_F16_F16ACC {
					for w, r := range regs {
						lo, hi := b.reg(kB16), b.reg(kB16)
						b.ins("mov.b32 {%s, %s}, %s", lo, hi, r)
						vals[2*w] = append(vals[2*w], lo)
						vals[2*w+1] = append(vals[2*w+1], hi)
					}
					continue
				}
				for e, r := range regs {
					vals[e] = append(vals[e], r)
				}
			}
			kind := s.accKind()
			if kind == kB32 {
				kind = kB16
			}
			for e, rc := range s.lay.c {
				out = append(out, accElem{
					vals: vals[e], kind: kind, rowBase: s.rowBase, colBase: s.colBase,
					row: mi*g.mmaM + rc[0], col: ni*g.mmaN + rc[1],
				})
			}
		}
	}
	return out
}
