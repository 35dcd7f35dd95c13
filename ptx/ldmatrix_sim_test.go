package ptx

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// This file checks the ldmatrix fragment loads without a GPU: a tiny
// interpreter evaluates the integer address arithmetic of the generated PTX
// for every thread of the block, applies the PTX ISA semantics of
// ldmatrix.m8n8[.trans].b16 (lane 8*i+r supplies row r of matrix i; lane l
// receives in register i row l/4, b16 columns 2*(l%4), 2*(l%4)+1, or with
// .trans column l/4, rows 2*(l%4), 2*(l%4)+1), follows each fragment register
// into the mma.sync instructions, and compares the shared-memory bytes every
// lane receives with the fragment tables of the scalar path (layout*), which
// are the ground truth verified on a GPU.

type simIns struct {
	op   string
	args []string
}

var simLine = regexp.MustCompile(`^\t([a-z][a-z0-9._:]*) (.*);$`)

func parsePTX(src string) []simIns {
	var out []simIns
	for _, ln := range strings.Split(src, "\n") {
		m := simLine.FindStringSubmatch(ln)
		if m == nil {
			continue // labels, comments, predicated instructions, declarations
		}
		// split on commas outside braces
		var args []string
		depth, start := 0, 0
		s := m[2]
		for i, ch := range s {
			switch ch {
			case '{', '[':
				depth++
			case '}', ']':
				depth--
			case ',':
				if depth == 0 {
					args = append(args, strings.TrimSpace(s[start:i]))
					start = i + 1
				}
			}
		}
		args = append(args, strings.TrimSpace(s[start:]))
		out = append(out, simIns{op: m[1], args: args})
	}
	return out
}

// simInts evaluates the integer instructions for one thread; registers whose
// value depends on anything else are absent from the result.
func simInts(prog []simIns, tid int) map[string]int64 {
	v := map[string]int64{}
	val := func(a string) (int64, bool) {
		switch a {
		case "%tid.x":
			return int64(tid), true
		case "%ctaid.x", "%ctaid.y", "%ctaid.z":
			return 0, true
		case smemSymbol:
			return 0, true
		}
		if x, err := strconv.ParseInt(a, 10, 64); err == nil {
			return x, true
		}
		x, ok := v[a]
		return x, ok
	}
	for _, in := range prog {
		if len(in.args) == 0 || !strings.HasPrefix(in.args[0], "%r") || strings.HasPrefix(in.args[0], "%rd") {
			continue
		}
		d := in.args[0]
		var ops []int64
		ok := true
		for _, a := range in.args[1:] {
			x, good := val(a)
			if !good {
				ok = false
				break
			}
			ops = append(ops, x)
		}
		if !ok {
			delete(v, d)
			continue
		}
		var r int64
		switch in.op {
		case "mov.u32", "mov.b32":
			r = ops[0]
		case "and.b32":
			r = ops[0] & ops[1]
		case "shr.u32", "shr.s32":
			r = ops[0] >> ops[1]
		case "shl.b32":
			r = ops[0] << ops[1]
		case "add.s32":
			r = ops[0] + ops[1]
		case "sub.s32":
			r = ops[0] - ops[1]
		case "mul.lo.s32":
			r = ops[0] * ops[1]
		case "mad.lo.s32":
			r = ops[0]*ops[1] + ops[2]
		case "min.s32":
			r = min(ops[0], ops[1])
		case "max.s32":
			r = max(ops[0], ops[1])
		default:
			delete(v, d)
			continue
		}
		v[d] = r
	}
	return v
}

type ldsmSite struct {
	idx   int // instruction index
	n     int
	trans bool
	base  string
	off   int64
}

func splitBraces(s string) []string {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	var out []string
	for _, p := range strings.Split(s, ",") {
		out = append(out, strings.TrimSpace(p))
	}
	return out
}

// checkLdmatrix verifies every ldmatrix-fed mma operand of (cfg, in) and
// returns the number of ldmatrix instructions and the worst bank-conflict
// degree of one 8x8 matrix.
func checkLdmatrix(cfg GemmConfig, in InputClass) (int, int, error) {
	g := newGeometry(cfg, in)
	k, err := GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		return 0, 0, err
	}
	prog := parsePTX(k.PTX)
	// source of each register: ldmatrix output (site, position) through mov/cvt chains
	type src struct {
		site *ldsmSite
		pos  int
	}
	from := map[string]src{}
	alias := map[string]string{}
	var mmas []simIns
	for i, ins := range prog {
		switch {
		case strings.HasPrefix(ins.op, "ldmatrix."):
			addr := strings.TrimSuffix(strings.TrimPrefix(ins.args[1], "["), "]")
			site := &ldsmSite{idx: i, trans: strings.Contains(ins.op, ".trans"), base: addr}
			if p := strings.IndexByte(addr, '+'); p >= 0 {
				site.base = addr[:p]
				site.off, _ = strconv.ParseInt(addr[p+1:], 10, 64)
			}
			regs := splitBraces(ins.args[0])
			site.n = len(regs)
			for p, r := range regs {
				from[r] = src{site, p}
			}
		case ins.op == "cvt.rna.tf32.f32" || ins.op == "mov.b32" && len(ins.args) == 2 && strings.HasPrefix(ins.args[1], "%"):
			alias[ins.args[0]] = ins.args[1]
		case strings.HasPrefix(ins.op, "mma.sync"):
			mmas = append(mmas, ins)
		}
	}
	resolve := func(r string) (src, bool) {
		for range 4 {
			if s, ok := from[r]; ok {
				return s, true
			}
			a, ok := alias[r]
			if !ok {
				return src{}, false
			}
			r = a
		}
		return src{}, false
	}
	nK := g.uk / g.mmaK
	if len(mmas) != nK*cfg.MS*cfg.NS {
		return 0, 0, fmt.Errorf("found %d mma, want %d", len(mmas), nK*cfg.MS*cfg.NS)
	}
	lay := cfg.Math.layout()
	nLd := 0
	for _, ins := range prog {
		if strings.HasPrefix(ins.op, "ldmatrix.") {
			nLd++
		}
	}
	if nLd == 0 {
		return 0, 0, nil
	}
	worst := 1
	for w := 0; w < g.threads/32; w++ {
		var vals [32]map[string]int64
		for l := range 32 {
			vals[l] = simInts(prog, w*32+l)
		}
		tid0 := w * 32
		grp, t := tid0/g.tg, tid0%g.tg
		warp := t / 32
		wm, wn := warp%g.tm, warp/g.tm
		// provider addresses per site
		addrOf := func(s *ldsmSite, lane int) (int64, error) {
			x, ok := vals[lane][s.base]
			if !ok {
				return 0, fmt.Errorf("ldmatrix base %s not evaluable", s.base)
			}
			return x + s.off, nil
		}
		checked := map[*ldsmSite]bool{}
		for mIdx, ins := range mmas {
			ks := (mIdx / (cfg.MS * cfg.NS)) * g.mmaK
			mi := (mIdx / cfg.NS) % cfg.MS
			ni := mIdx % cfg.NS
			for opnd, regs := range [][]string{splitBraces(ins.args[1]), splitBraces(ins.args[2])} {
				o, table := g.a, lay.a
				if opnd == 1 {
					o, table = g.b, lay.bfrag
				}
				for q, r := range regs {
					s, ok := resolve(r)
					if !ok {
						if g.ldmatrix(o) {
							return 0, 0, fmt.Errorf("operand %d reg %s not from ldmatrix", opnd, r)
						}
						continue
					}
					if !g.ldmatrix(o) {
						return 0, 0, fmt.Errorf("operand %d uses ldmatrix but geometry says scalar", opnd)
					}
					if s.site.trans == o.kContig {
						return 0, 0, fmt.Errorf("operand %d: .trans=%v for kContig=%v", opnd, s.site.trans, o.kContig)
					}
					if !checked[s.site] {
						checked[s.site] = true
						// alignment, bounds and bank conflicts of every row
						lo := int64(o.offset)
						hi := lo + int64(o.lo*o.stride*g.es)
						for mat := 0; mat < 4; mat++ {
							banks := map[int64]int{}
							for rr := range 8 {
								a, err := addrOf(s.site, 8*mat+rr)
								if err != nil {
									return 0, 0, err
								}
								if a%16 != 0 || a < lo || a+16 > hi {
									return 0, 0, fmt.Errorf("lane %d row address %d misaligned or outside [%d,%d)", 8*mat+rr, a, lo, hi)
								}
								banks[(a/16)%8]++
								if mat < s.site.n {
									worst = max(worst, banks[(a/16)%8])
								}
							}
						}
					}
					for l := range 32 {
						gid, tig := l/4, l%4
						// expected byte addresses of the 16-bit halves (or the 32-bit element)
						var want []int64
						for _, e := range table[q] {
							var off int
							if opnd == 0 {
								off = o.smemOff(wm*g.wm+gid+mi*g.mmaM+e[0], grp*g.uk+tig*lay.ka+ks+e[1])
							} else {
								off = o.smemOff(wn*g.wn+gid+ni*g.mmaN+e[1], grp*g.uk+tig*lay.ka+ks+e[0])
							}
							want = append(want, int64(o.offset+off*g.es))
						}
						if g.es == 4 {
							want = []int64{want[0], want[0] + 2}
						}
						var got []int64
						for h := range 2 {
							var a int64
							var err error
							if s.site.trans {
								a, err = addrOf(s.site, 8*s.pos+2*tig+h)
								a += int64(2 * gid)
							} else {
								a, err = addrOf(s.site, 8*s.pos+gid)
								a += int64(4*tig + 2*h)
							}
							if err != nil {
								return 0, 0, err
							}
							got = append(got, a)
						}
						if got[0] != want[0] || got[1] != want[1] {
							return 0, 0, fmt.Errorf("warp %d lane %d mma %d operand %d reg %d: ldmatrix bytes %v, fragment wants %v", w, l, mIdx, opnd, q, got, want)
						}
					}
				}
			}
		}
	}
	return nLd, worst, nil
}

// checkLdmatrixConfig checks the ldmatrix addresses of an mma
// configuration's kernel against its fragments (checkLdmatrix), that it
// uses ldmatrix exactly where its geometry says, and its bank conflicts;
// it reports whether the kernel uses ldmatrix. TestLdmatrixSimulated (in
// drawn_test.go) runs it on drawn and heuristic configurations.
func checkLdmatrixConfig(t *testing.T, c GemmConfig, in InputClass) bool {
	t.Helper()
	ld, worst, err := checkLdmatrix(c, in)
	if err != nil {
		t.Errorf("%s %s: %v", c, in, err)
		return false
	}
	g := newGeometry(c, in)
	if (ld > 0) != (g.ldmatrix(g.a) || g.ldmatrix(g.b)) {
		t.Errorf("%s %s: %d ldmatrix, geometry says A=%v B=%v", c, in, ld, g.ldmatrix(g.a), g.ldmatrix(g.b))
	}
	// conflict-free unless a 16-bit mn-contiguous line is 16 bytes (nl=8)
	if ld > 0 && (worst > 2 || worst == 2 && !(g.b.lc*g.es == 16 && g.ldmatrix(g.b) && !g.b.kContig)) {
		t.Errorf("%s %s: %d-way bank conflict in ldmatrix", c, in, worst)
	}
	return ld > 0
}
