package ptx

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// This file checks the f64 mma kernels' fragment permutation (fragPerm)
// without a GPU: it emits the mma part of a kernel (setup, one tile, the
// accumulators' coordinates), evaluates every thread's shared-memory
// addresses with the interpreter of ldmatrix_sim_test.go, and checks, for
// every mma instruction, that what the fragment tables call A(r, s),
// B(s, c) and C(r, c) are, in the tile, A(m(r), k(s)), B(k(s), n(c)) and
// C(m(r), n(c)) with k a bijection onto the k-step and m, n the same for
// every operand: the instruction then computes the block tile's product.
// It also checks that the warps' C elements cover the block tile once, and
// that every 16-byte load is aligned.

type tilePos struct{ mn, k int }

// checkF64Fragments emits and checks (cfg, in); it returns the counts of
// 8- and 16-byte fragment loads.
func checkF64Fragments(cfg GemmConfig, in InputClass) (int, int, error) {
	g := newGeometry(cfg, in)
	b := &builder{}
	c := &gemmCtx{g: g, b: b}
	c.tid = b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", c.tid)
	c.grp, c.t = b.reg(kB32), b.reg(kB32)
	b.ins("shr.u32 %s, %s, %d", c.grp, c.tid, log2(g.tg))
	b.ins("and.b32 %s, %s, %d", c.t, c.tid, g.tg-1)
	c.m0, c.n0, c.smem = b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, 0", c.m0)
	b.ins("mov.b32 %s, 0", c.n0)
	b.ins("mov.u32 %s, %s", c.smem, smemSymbol)
	comp := &mmaCompute{c: c}
	comp.setup()
	comp.zero()
	stage := b.reg(kB32)
	b.ins("mov.b32 %s, 0", stage)
	comp.tile(stage)
	elems := comp.elements()
	prog := parsePTX(b.body.String())

	accOf := map[string]accElem{}
	for _, e := range elems {
		for _, v := range e.vals {
			accOf[v] = e
		}
	}
	lay := cfg.Math.layout()
	n8, n16 := 0, 0
	for _, ins := range prog {
		switch ins.op {
		case "ld.shared.f64":
			n8++
		case "ld.shared.v2.f64":
			n16++
		}
	}
	type loc struct {
		a   bool // loaded from A's tile (else B's)
		pos tilePos
	}
	// decode gives, for one thread, where each fragment register was
	// loaded from.
	decode := func(vals map[string]int64) (map[string]loc, error) {
		from := map[string]loc{}
		for _, ins := range prog {
			if ins.op != "ld.shared.f64" && ins.op != "ld.shared.v2.f64" {
				continue
			}
			ref := strings.TrimSuffix(strings.TrimPrefix(ins.args[1], "["), "]")
			base, off := ref, int64(0)
			if p := strings.IndexByte(ref, '+'); p >= 0 {
				base = ref[:p]
				off, _ = strconv.ParseInt(ref[p+1:], 10, 64)
			}
			x, ok := vals[base]
			if !ok {
				return nil, fmt.Errorf("address %s not evaluable", base)
			}
			addr := int(x + off)
			regs := splitBraces(ins.args[0])
			if len(regs) == 2 && addr%16 != 0 {
				return nil, fmt.Errorf("16-byte load at %d", addr)
			}
			for i, r := range regs {
				a := addr + 8*i
				o, isA := g.a, true
				if a >= g.b.offset {
					o, isA = g.b, false
				}
				e := (a - o.offset) / g.es
				p := tilePos{mn: e % o.stride, k: e / o.stride}
				if o.kContig {
					p = tilePos{mn: e / o.stride, k: e % o.stride}
				}
				if p.mn >= o.mn || p.k >= cfg.U {
					return nil, fmt.Errorf("%s loaded from outside its tile (%+v)", r, p)
				}
				from[r] = loc{isA, p}
			}
		}
		return from, nil
	}
	covered := map[[2]int]int{}
	for w := 0; w < g.threads/32; w++ {
		lanes := make([]map[string]int64, 32)
		lanesFrom := make([]map[string]loc, 32)
		for l := range lanes {
			lanes[l] = simInts(prog, 32*w+l)
			from, err := decode(lanes[l])
			if err != nil {
				return 0, 0, fmt.Errorf("thread %d: %v", 32*w+l, err)
			}
			lanesFrom[l] = from
		}
		kSeen := map[[2]int]map[int]bool{} // C position → physical k summed into it
		for _, ins := range prog {
			if !strings.HasPrefix(ins.op, "mma.sync") {
				continue
			}
			d, ra, rb := splitBraces(ins.args[0]), splitBraces(ins.args[1]), splitBraces(ins.args[2])
			A := map[[2]int]tilePos{} // logical (r, s) → tile (m, k)
			B := map[[2]int]tilePos{} // logical (s, c) → tile (n, k)
			C := map[[2]int][2]int{}  // logical (r, c) → tile (row, col)
			for l := 0; l < 32; l++ {
				gid, tig := l/4, l%4
				for i, r := range ra {
					src, ok := lanesFrom[l][r]
					if !ok || !src.a {
						return 0, 0, fmt.Errorf("lane %d: A register %s not loaded from A", l, r)
					}
					e := lay.a[i][0]
					A[[2]int{gid + e[0], tig*lay.ka + e[1]}] = src.pos
				}
				for i, r := range rb {
					src, ok := lanesFrom[l][r]
					if !ok || src.a {
						return 0, 0, fmt.Errorf("lane %d: B register %s not loaded from B", l, r)
					}
					e := lay.bfrag[i][0]
					B[[2]int{tig + e[0], gid + e[1]}] = src.pos
				}
				for i, r := range d {
					e, ok := accOf[r]
					if !ok {
						return 0, 0, fmt.Errorf("accumulator %s has no element", r)
					}
					rb, ok1 := lanes[l][e.rowBase]
					cb, ok2 := lanes[l][e.colBase]
					if !ok1 || !ok2 {
						return 0, 0, fmt.Errorf("coordinates %s, %s not evaluable", e.rowBase, e.colBase)
					}
					rc := lay.c[i]
					C[[2]int{gid + rc[0], 2*tig + rc[1]}] = [2]int{int(rb) + e.row, int(cb) + e.col}
				}
			}
			for r := 0; r < g.mmaM; r++ {
				for cc := 0; cc < g.mmaN; cc++ {
					pos := C[[2]int{r, cc}]
					ks := map[int]bool{}
					for s := 0; s < g.mmaK; s++ {
						a, b := A[[2]int{r, s}], B[[2]int{s, cc}]
						if a.k != b.k {
							return 0, 0, fmt.Errorf("mma %v: A(%d,%d) is k %d, B(%d,%d) is k %d", d, r, s, a.k, s, cc, b.k)
						}
						if a.mn != pos[0] || b.mn != pos[1] {
							return 0, 0, fmt.Errorf("mma %v: C(%d,%d) at %v, from A row %d and B column %d", d, r, cc, pos, a.mn, b.mn)
						}
						ks[a.k] = true
					}
					if len(ks) != g.mmaK {
						return 0, 0, fmt.Errorf("mma %v: C(%d,%d) sums %d distinct k of %d", d, r, cc, len(ks), g.mmaK)
					}
					if kSeen[pos] == nil {
						kSeen[pos] = map[int]bool{}
					}
					for k := range ks {
						if kSeen[pos][k] {
							return 0, 0, fmt.Errorf("C %v sums k %d twice", pos, k)
						}
						kSeen[pos][k] = true
					}
				}
			}
		}
		for pos, ks := range kSeen {
			if len(ks) != g.uk {
				return 0, 0, fmt.Errorf("warp %d: C %v sums %d of the tile's %d k", w, pos, len(ks), g.uk)
			}
			covered[pos]++
		}
	}
	if len(covered) != cfg.ML*cfg.NL {
		return 0, 0, fmt.Errorf("C elements cover %d of %d×%d", len(covered), cfg.ML, cfg.NL)
	}
	for pos, n := range covered {
		if n != cfg.KL {
			return 0, 0, fmt.Errorf("C %v owned by %d warps, want %d (KL)", pos, n, cfg.KL)
		}
	}
	return n8, n16, nil
}

func TestF64FragmentsSimulated(t *testing.T) {
	base := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, AlignA: 2, AlignB: 2, AlignC: 2}
	cases := []GemmConfig{
		{MS: 2, NS: 4, ML: 64, NL: 64, U: 8, KS: 1, KL: 1, KG: 1, VecA: 2, VecB: 2, Stages: 3, Math: MMA_F64_K8},
		{MS: 2, NS: 4, ML: 64, NL: 64, U: 32, KS: 1, KL: 1, KG: 1, VecA: 2, VecB: 2, Stages: 3, Math: MMA_F64_K16},
		{MS: 1, NS: 2, ML: 32, NL: 32, U: 16, KS: 2, KL: 2, KG: 1, VecA: 1, VecB: 1, Stages: 3, Math: MMA_F64_K8},
		{MS: 2, NS: 1, ML: 64, NL: 16, U: 32, KS: 1, KL: 1, KG: 1, VecA: 2, VecB: 2, Stages: 3, Math: MMA_F64_K8},
		{MS: 1, NS: 3, ML: 16, NL: 48, U: 16, KS: 1, KL: 1, KG: 1, VecA: 1, VecB: 1, Stages: 2, Math: MMA_F64_K16},
		{MS: 2, NS: 2, ML: 32, NL: 32, U: 32, KS: 2, KL: 1, KG: 1, VecA: 1, VecB: 1, Stages: 3, Math: MMA_F64},
	}
	for _, cfg := range cases {
		for _, ta := range []Op{N, T} {
			for _, tb := range []Op{N, T} {
				in := base
				in.TransA, in.TransB = ta, tb
				n8, n16, err := checkF64Fragments(cfg, in)
				if err != nil {
					t.Errorf("%s %s: %v", cfg, in, err)
					continue
				}
				g := newGeometry(cfg, in)
				p := g.fragPerm()
				// Every register of a permuted operand comes in a pair.
				wantPairs := p.kStep > 1 && (ta == T || tb == N) || p.m || p.n
				if wantPairs != (n16 > 0) {
					t.Errorf("%s %s: %d 16-byte and %d 8-byte loads, perm %+v", cfg, in, n16, n8, p)
				}
				if p.kStep > 1 && ta == T && tb == N && n8 != 0 {
					t.Errorf("%s %s: k-contiguous A and B still take %d 8-byte loads", cfg, in, n8)
				}
			}
		}
	}
}
