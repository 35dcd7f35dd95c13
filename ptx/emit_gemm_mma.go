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
	}
	panic(fmt.Sprintf("ptx: %s is not an mma math", m))
}

// mmaCompute: warp (wm, wn) of KL group grp computes a (MS*mmaM)×(NS*mmaN)
// warp tile with MS×NS mma instructions per k-step, KS accumulator sets
// (k-step s uses set s % KS). Fragments are read from shared memory with
// scalar loads following the fragment layout tables above.
type mmaCompute struct {
	c          *gemmCtx
	lay        mmaLayout
	aThr, bThr string
	rowBase    string         // m0 + wm*WM + groupID
	colBase    string         // n0 + wn*WN + tig*2
	acc        [][][][]string // [set][mi][ni][reg]
}

func (s *mmaCompute) setup() {
	c := s.c
	b, g := c.b, c.g
	s.lay = g.cfg.Math.layout()
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
	mRow := b.add32(b.mulImm(wm, g.wm), gid)
	nCol := b.add32(b.mulImm(wn, g.wn), gid)
	kq := b.add32(b.mulImm(c.grp, g.uk), b.mulImm(tig, s.lay.ka))
	s.aThr = (&simtCompute{c: c}).thrAddr(g.a, mRow, kq)
	s.bThr = (&simtCompute{c: c}).thrAddr(g.b, nCol, kq)
	s.rowBase = b.add32(c.m0, mRow)
	s.colBase = b.add32(b.add32(c.n0, b.mulImm(wn, g.wn)), b.mulImm(tig, 2))
}

func (s *mmaCompute) accKind() regKind {
	switch s.c.g.cfg.Math {
	case MMA_F64:
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
	case MMA_F64:
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

func (s *mmaCompute) tile(stageOff string) {
	c := s.c
	b, g := c.b, c.g
	cfg := g.cfg
	aAddr := b.add32(s.aThr, stageOff)
	bAddr := b.add32(s.bThr, stageOff)
	instr := cfg.Math.mmaInstr()
	for ks := 0; ks < g.uk; ks += g.mmaK {
		set := (ks / g.mmaK) % cfg.KS
		af := make([][]string, cfg.MS)
		for mi := range af {
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
			for _, reg := range s.lay.bfrag {
				var offs []int
				for _, e := range reg {
					offs = append(offs, g.b.smemOff(ni*g.mmaN+e[1], ks+e[0]))
				}
				bf[ni] = append(bf[ni], s.frag(bAddr, offs, g.b.kContig))
			}
		}
		for mi := 0; mi < cfg.MS; mi++ {
			for ni := 0; ni < cfg.NS; ni++ {
				d := braces(s.acc[set][mi][ni])
				b.ins("%s %s, %s, %s, %s", instr, d, braces(af[mi]), braces(bf[ni]), d)
			}
		}
	}
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
