package ptx

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// A simulation of a convolution kernel's address arithmetic, without a
// GPU: every thread of a block runs the kernel with its integer and
// predicate arithmetic evaluated (floating-point values are not), and the
// copies of x into shared memory and the stores to y are recorded with
// their addresses and guards. The test then checks them against the
// im2col reference: every element of every tile of A that a thread copies
// is x's element at the pixel and tap its place in the tile stands for
// (or zero where that lies in the padding or beyond M or K), and the
// block's stores cover its tile of y exactly once, at y's strided
// addresses.

// convSimProblem is a convolution in the kernel's terms.
type convSimProblem struct {
	N, C, H, W, K, R, S, PadH, PadW, StrH, StrW, DilH, DilW int
	Flip                                                    bool
	X, Y                                                    [4]int // strides n, c, h, w
}

func (p convSimProblem) P() int { return (p.H+2*p.PadH-((p.R-1)*p.DilH+1))/p.StrH + 1 }
func (p convSimProblem) Q() int { return (p.W+2*p.PadW-((p.S-1)*p.DilW+1))/p.StrW + 1 }

const (
	simX = int64(1) << 40 // the tensors' base addresses
	simW = int64(2) << 40
	simY = int64(3) << 40
)

func (p convSimProblem) params() map[string]int64 {
	hOff, wOff, hStep, wStep := -p.PadH, -p.PadW, p.DilH, p.DilW
	if p.Flip {
		hOff, hStep = hOff+(p.R-1)*p.DilH, -p.DilH
		wOff, wStep = wOff+(p.S-1)*p.DilW, -p.DilW
	}
	v := map[string]int{
		"M": p.N * p.P() * p.Q(), "N": p.K, "K": p.C * p.R * p.S, "lda": 0, "ldb": p.C * p.R * p.S, "ldc": 0,
		"cC": p.C, "cH": p.H, "cW": p.W, "cP": p.P(), "cQ": p.Q(), "cR": p.R, "cS": p.S, "strH": p.StrH, "strW": p.StrW,
		"hOff": hOff, "wOff": wOff, "hStep": hStep, "wStep": wStep,
		"xN": p.X[0], "xC": p.X[1], "xH": p.X[2], "xW": p.X[3], "yN": p.Y[0], "yC": p.Y[1], "yH": p.Y[2], "yW": p.Y[3],
	}
	out := map[string]int64{"p_A": simX, "p_B": simW, "p_C": simY, "p_alpha": 0x3f800000, "p_beta": 0x3f800000,
		"p_alphaPtr": 0, "p_betaPtr": 0, "p_workspace": 0, "p_counters": 0}
	for k, x := range v {
		out["p_"+k] = int64(x)
	}
	for i, x := range ConvMagic(p.C, p.R, p.S) {
		out["p_"+convParamNames[len(convParamNames)-8+i]] = int64(x)
	}
	return out
}

// simCopy is one element (or vector) a thread copies from global memory to
// shared memory, or stores to global memory.
type simCopy struct {
	global int64 // address (0: none, the copy zero-fills)
	shared int64 // address (stores: -1)
}

type simInstr2 struct {
	guard  string // predicate register ("" none)
	neg    bool
	op     string
	args   []string
	target int // branch target index
}

// simThread runs one thread of block (bx, by) and returns its copies from x
// (in order) and its stores' addresses.
// simStore is one store to global memory: its address, its bytes, the
// global address its value was loaded from (0: not a loaded value), and
// its value where the simulation knows it (scalar stores of a thread run
// with simHooks.load).
type simStore struct {
	addr, bytes, from int64
	val               int64
	known             bool
}

// storeBytes is the bytes one st.global op writes: its type's size times
// its vector length.
func storeBytes(op string) int64 {
	n := int64(1)
	switch {
	case strings.Contains(op, ".v2."):
		n = 2
	case strings.Contains(op, ".v4."):
		n = 4
	}
	i := strings.LastIndexByte(op, '.')
	bits, err := strconv.Atoi(op[i+2:])
	if err != nil {
		panic(op)
	}
	return n * int64(bits) / 8
}

func simThread(prog []simInstr2, params map[string]int64, tid, bx, by int64, grid [3]int64) (copies []simCopy, stores []simStore, err error) {
	return simThreadShared(prog, params, tid, bx, by, grid, nil, false)
}

// simThreadShared is simThread with the block's shared memory's known
// 32-bit integers in smem (nil: none): a scalar st.shared.s32 or .b32 of a
// known value records it, and a scalar ld.shared.s32 or .b32 reads it (a
// .b16 store and load likewise, for the 2-byte elements of a transpose's
// tiles; an address no thread has written leaves the register unknown). Threads run
// one after another, so a value another thread writes is there only if
// that thread ran first (or in an earlier pass over the block). With
// lenient, an instruction guarded by an unknown predicate is skipped (a
// first pass that only fills smem) rather than an error.
func simThreadShared(prog []simInstr2, params map[string]int64, tid, bx, by int64, grid [3]int64, smem map[int64]int64, lenient bool) (copies []simCopy, stores []simStore, err error) {
	return simThreadSharedFrom(prog, params, tid, [3]int64{bx, by, 0}, grid, smem, nil, lenient)
}

// simThreadSharedFrom is simThreadShared for block (x, y, z) that also carries, in smemFrom
// (nil: not), which global address each shared address's value was loaded
// from: any st.shared of a register loaded from global records it, and any
// ld.shared hands it on to its register (a kernel that moves data through
// shared memory, such as a transpose's tiles).
func simThreadSharedFrom(prog []simInstr2, params map[string]int64, tid int64, block, grid [3]int64, smem, smemFrom map[int64]int64, lenient bool) (copies []simCopy, stores []simStore, err error) {
	return simRun(prog, params, tid, block, grid, smem, smemFrom, lenient, nil)
}

// simHooks observe a simulated thread's memory accesses: shared is called
// for every shared load or store whose address is known (its bytes, and
// whether it stores), global for every global load (its bytes); with
// stopAtBarrier the thread ends at its first bar.sync (a first pass that
// only writes a block's tables). load, where set, gives the value a scalar
// global load reads (ok false: unknown), so that a kernel that moves data
// (a transpose) is simulated with its values.
type simHooks struct {
	shared        func(op string, addr, bytes int64, store bool)
	global        func(op string, addr, bytes int64)
	load          func(op string, addr, bytes int64) (int64, bool)
	stopAtBarrier bool
}

// simRun is simThreadSharedFrom with hooks (nil: none).
func simRun(prog []simInstr2, params map[string]int64, tid int64, block, grid [3]int64, smem, smemFrom map[int64]int64, lenient bool, hooks *simHooks) (copies []simCopy, stores []simStore, err error) {
	bx, by, bz := block[0], block[1], block[2]
	regs := map[string]int64{}
	from := map[string]int64{} // register → the global address it was loaded from (0: zero)
	val := func(a string) (int64, bool) {
		switch a {
		case "%tid.x":
			return tid, true
		case "%ctaid.x":
			return bx, true
		case "%ctaid.y":
			return by, true
		case "%nctaid.x":
			return grid[0], true
		case "%nctaid.y":
			return grid[1], true
		case "%ctaid.z":
			return bz, true
		case "%tid.y", "%tid.z", "%cluster_ctarank":
			return 0, true
		case "%nctaid.z":
			return grid[2], true
		case smemSymbol:
			return 0, true
		}
		neg := strings.HasPrefix(a, "!")
		a = strings.TrimPrefix(a, "!")
		if x, err := strconv.ParseInt(a, 0, 64); err == nil {
			return x, true
		}
		if len(a) > 2 && (a[:2] == "0f" || a[:2] == "0d") { // float bits
			if x, err := strconv.ParseUint(a[2:], 16, 64); err == nil {
				return int64(x), true
			}
		}
		x, ok := regs[a]
		if neg {
			x = 1 - x
		}
		return x, ok
	}
	addr := func(a string) (int64, bool) {
		a = strings.Trim(a, "[]")
		base, off, _ := strings.Cut(a, "+")
		v, ok := val(base)
		o, _ := strconv.ParseInt(off, 10, 64)
		return v + o, ok
	}
	width := func(op string, v int64) int64 {
		switch {
		case strings.HasSuffix(op, ".u32"), strings.HasSuffix(op, ".b32"):
			return int64(uint32(v))
		case strings.HasSuffix(op, ".s32"):
			return int64(int32(v))
		}
		return v
	}
	for pc, steps := 0, 0; pc < len(prog); steps++ {
		if steps > 2_000_000 {
			return nil, nil, fmt.Errorf("thread %d: no end", tid)
		}
		in := prog[pc]
		pc++
		if in.guard != "" {
			g, ok := regs[in.guard]
			if !ok {
				if lenient {
					continue
				}
				if strings.HasPrefix(in.op, "bra") || strings.HasPrefix(in.op, "ld.global") || strings.HasPrefix(in.op, "st.global") ||
					strings.HasPrefix(in.op, "cp.async.ca") || strings.HasPrefix(in.op, "cp.async.cg") || in.op == "ret" || in.op == "exit" {
					return nil, nil, fmt.Errorf("thread %d: %s guarded by unknown %s", tid, in.op, in.guard)
				}
				continue
			}
			if (g != 0) == in.neg {
				continue
			}
		}
		op, a := in.op, in.args
		base, _, _ := strings.Cut(op, ".")
		if hooks != nil {
			switch {
			case op == "bar.sync" && hooks.stopAtBarrier:
				return copies, stores, nil
			case strings.HasPrefix(op, "ld.shared") || strings.HasPrefix(op, "st.shared"):
				st := strings.HasPrefix(op, "st.")
				if s, ok := addr(a[map[bool]int{true: 0, false: 1}[st]]); ok && hooks.shared != nil {
					hooks.shared(op, s, storeBytes(op), st)
				} else if !ok && !lenient {
					return nil, nil, fmt.Errorf("thread %d: %s at an unknown address", tid, op)
				}
			case strings.HasPrefix(op, "cp.async.ca") || strings.HasPrefix(op, "cp.async.cg"):
				s, ok1 := addr(a[0])
				g, ok2 := addr(a[1])
				n, ok3 := val(a[3])
				size, _ := strconv.Atoi(a[2])
				if ok1 && hooks.shared != nil {
					hooks.shared(op, s, int64(size), true)
				}
				if ignore := strings.HasPrefix(a[3], "%p"); ok2 && ok3 && hooks.global != nil && (ignore && n == 0 || !ignore && n != 0) {
					hooks.global(op, g, int64(size))
				}
			case strings.HasPrefix(op, "ldmatrix"): // this lane's row of 16 bytes
				if s, ok := addr(a[1]); ok && hooks.shared != nil {
					hooks.shared(op, s, 16, false)
				} else if !ok && !lenient {
					return nil, nil, fmt.Errorf("thread %d: %s at an unknown address", tid, op)
				}
			case strings.HasPrefix(op, "ld.global"):
				if g, ok := addr(a[1]); ok && hooks.global != nil {
					hooks.global(op, g, storeBytes(op))
				}
			}
		}
		x := make([]int64, 0, 4)
		known := true
		for _, s := range a[min(1, len(a)):] {
			v, ok := val(s)
			if !ok {
				known = false
			}
			x = append(x, v)
		}
		set := func(v int64) { regs[a[0]] = width(op, v) }
		switch {
		case op == "ret" || op == "exit":
			return copies, stores, nil
		case base == "bra":
			pc = in.target
		case strings.HasPrefix(op, "ld.param"):
			if v, ok := params[strings.Trim(a[1], "[]")]; ok {
				regs[a[0]] = v
			} else {
				delete(regs, a[0])
			}
		case strings.HasPrefix(op, "ld.global"):
			g, ok := addr(a[1])
			if !ok && lenient {
				continue
			}
			if !ok {
				return nil, nil, fmt.Errorf("thread %d: %s from an unknown address", tid, op)
			}
			for _, r := range braceRegs(a[0]) {
				from[r] = g
				delete(regs, r)
			}
			if hooks != nil && hooks.load != nil && !strings.HasPrefix(a[0], "{") {
				if v, ok := hooks.load(op, g, storeBytes(op)); ok {
					regs[a[0]] = v
				}
			}
		case strings.HasPrefix(op, "st.shared"):
			s, ok := addr(a[0])
			if !ok && lenient {
				continue
			}
			if !ok {
				return nil, nil, fmt.Errorf("thread %d: %s to an unknown address", tid, op)
			}
			if g, ok := from[braceRegs(a[1])[0]]; ok {
				copies = append(copies, simCopy{global: g, shared: s})
				if smemFrom != nil {
					smemFrom[s] = g
				}
			} else if smemFrom != nil {
				delete(smemFrom, s)
			}
			if scalar32 := op == "st.shared.s32" || op == "st.shared.b32"; smem != nil && scalar32 {
				if v, ok := val(a[1]); ok {
					smem[s] = int64(int32(v))
				} else {
					delete(smem, s)
				}
			}
			if smem != nil && op == "st.shared.b16" { // a 2-byte element (a transpose's tile)
				if v, ok := val(a[1]); ok {
					smem[s] = v & 0xffff
				} else {
					delete(smem, s)
				}
			}
		case smemFrom != nil && strings.HasPrefix(op, "ld.shared"):
			s, ok := addr(a[1])
			delete(regs, a[0])
			if g, known := smemFrom[s]; ok && known {
				from[a[0]] = g
			} else {
				delete(from, a[0])
			}
		case smem != nil && op == "ld.shared.b16":
			s, ok := addr(a[1])
			if v, known := smem[s]; ok && known {
				regs[a[0]] = v
			} else {
				delete(regs, a[0])
			}
		case smem != nil && (op == "ld.shared.s32" || op == "ld.shared.b32" || op == "ld.shared.v2.b32"):
			s, ok := addr(a[1])
			for i, r := range braceRegs(a[0]) {
				if v, known := smem[s+4*int64(i)]; ok && known {
					regs[r] = v
				} else {
					delete(regs, r)
				}
			}
		case strings.HasPrefix(op, "st.global"):
			g, ok := addr(a[0])
			if !ok && lenient {
				continue
			}
			if !ok {
				return nil, nil, fmt.Errorf("thread %d: %s to an unknown address", tid, op)
			}
			v, known := val(a[1])
			stores = append(stores, simStore{addr: g, bytes: storeBytes(op), from: from[a[1]], val: v, known: known})
		case strings.HasPrefix(op, "cp.async.ca") || strings.HasPrefix(op, "cp.async.cg"):
			s, ok1 := addr(a[0])
			g, ok2 := addr(a[1])
			n, ok3 := val(a[3])
			if !ok1 || !ok2 || !ok3 {
				return nil, nil, fmt.Errorf("thread %d: %v with unknown operands", tid, a)
			}
			// The fourth operand is the bytes to read (the rest zero-filled)
			// or, a predicate, ignore-src.
			if ignore := strings.HasPrefix(a[3], "%p"); ignore && n != 0 || !ignore && n == 0 {
				g = 0
			}
			copies = append(copies, simCopy{global: g, shared: s})
		case base == "mov" || base == "cvt" || base == "cvta":
			var f int64
			var fromOK bool
			if len(a) == 2 {
				f, fromOK = from[a[1]] // before a[0] is cleared: a[0] may be a[1] (cvt in place)
			}
			delete(from, a[0])
			if len(a) != 2 || strings.HasPrefix(a[1], "{") {
				delete(regs, a[0])
				continue
			}
			if fromOK {
				from[a[0]] = f
			} else if !strings.HasPrefix(a[1], "%") {
				from[a[0]] = 0 // an immediate: what a guarded load leaves when it does not load
			}
			if v, ok := val(a[1]); ok && op == "cvt.f32.f16" { // a scalar: only its zeroness matters here
				regs[a[0]] = map[bool]int64{false: 0, true: 0x3f800000}[v&0x7fff != 0]
			} else if ok && !strings.HasSuffix(op, "16") {
				regs[a[0]] = width(op, v)
			} else {
				delete(regs, a[0])
			}
		case len(a) == 0 || strings.HasPrefix(a[0], "{") || strings.HasPrefix(a[0], "["):
		case !known:
			delete(regs, a[0])
			delete(from, a[0])
		case base == "setp":
			f := strings.Split(op, ".")
			l, r := x[0], x[1]
			if f[len(f)-1] == "u32" {
				l, r = int64(uint32(l)), int64(uint32(r))
			} else if f[len(f)-1] == "s32" {
				l, r = int64(int32(l)), int64(int32(r))
			}
			var b bool
			switch f[1] {
			case "eq", "equ":
				b = l == r
			case "ne", "neu":
				b = l != r
			case "lt":
				b = l < r
			case "le":
				b = l <= r
			case "gt":
				b = l > r
			case "ge":
				b = l >= r
			default:
				delete(regs, a[0])
				continue
			}
			if len(f) == 4 { // setp.cmp.bool.type d, a, b, c
				switch f[2] {
				case "and":
					b = b && x[2] != 0
				case "or":
					b = b || x[2] != 0
				}
			}
			regs[a[0]] = map[bool]int64{false: 0, true: 1}[b]
		case op == "and.pred":
			regs[a[0]] = x[0] & x[1] & 1
		case op == "or.pred":
			regs[a[0]] = (x[0] | x[1]) & 1
		case op == "not.pred":
			regs[a[0]] = 1 - x[0]
		case base == "add":
			set(x[0] + x[1])
		case base == "sub":
			set(x[0] - x[1])
		case strings.HasPrefix(op, "mul.lo"):
			set(x[0] * x[1])
		case strings.HasPrefix(op, "mul.hi.u32"):
			set(int64(uint64(uint32(x[0])) * uint64(uint32(x[1])) >> 32))
		case strings.HasPrefix(op, "mul.wide.s32"):
			regs[a[0]] = int64(int32(x[0])) * int64(int32(x[1]))
		case strings.HasPrefix(op, "mul.wide.u32"):
			regs[a[0]] = int64(uint32(x[0])) * int64(uint32(x[1]))
		case strings.HasPrefix(op, "mad.lo"):
			set(x[0]*x[1] + x[2])
		case base == "shl":
			set(x[0] << x[1])
		case base == "shr":
			if strings.HasSuffix(op, ".u32") {
				set(int64(uint32(x[0]) >> x[1]))
			} else {
				set(x[0] >> x[1])
			}
		case base == "and":
			set(x[0] & x[1])
		case base == "or":
			set(x[0] | x[1])
		case base == "xor":
			set(x[0] ^ x[1])
		case base == "min":
			set(min(width(op, x[0]), width(op, x[1])))
		case base == "max":
			set(max(width(op, x[0]), width(op, x[1])))
		case base == "div" || base == "rem":
			l, r := width(op, x[0]), width(op, x[1])
			if r == 0 {
				return nil, nil, fmt.Errorf("thread %d: division by zero", tid)
			}
			if base == "div" {
				set(l / r)
			} else {
				set(l % r)
			}
		case base == "prmt": // prmt.b32 d, a, b, c: byte i of d is byte c[4i+2:4i] of {b, a}
			bytes := uint64(uint32(x[0])) | uint64(uint32(x[1]))<<32
			var r uint32
			for i := range 4 {
				r |= uint32(bytes>>(8*((x[2]>>(4*i))&7))&0xff) << (8 * i)
			}
			set(int64(r))
		case base == "selp":
			if x[2] != 0 {
				set(x[0])
			} else {
				set(x[1])
			}
			if f, ok := from[a[map[bool]int{true: 1, false: 2}[x[2] != 0]]]; ok {
				from[a[0]] = f
			}
		default:
			delete(regs, a[0])
			delete(from, a[0])
		}
	}
	return copies, stores, nil
}

// parseProgram splits a kernel's body into instructions with resolved
// branch targets.
func parseProgram(src string) []simInstr2 {
	var prog []simInstr2
	labels := map[string]int{}
	var pending []int
	for _, ln := range strings.Split(src, "\n") {
		ln = strings.TrimSpace(ln)
		if strings.HasPrefix(ln, "$L_") && strings.HasSuffix(ln, ":") {
			labels[strings.TrimSuffix(ln, ":")] = len(prog)
			continue
		}
		s := strings.TrimSuffix(ln, ";")
		if s == "" || strings.HasPrefix(s, "//") || strings.HasPrefix(s, ".") || strings.HasPrefix(s, "{") || strings.HasPrefix(s, "}") || strings.HasPrefix(s, ")") {
			continue
		}
		var in simInstr2
		if strings.HasPrefix(s, "@") {
			p, rest, _ := strings.Cut(s, " ")
			in.neg, in.guard = strings.HasPrefix(p, "@!"), strings.TrimLeft(p, "@!")
			s = rest
		}
		op, rest, _ := strings.Cut(s, " ")
		if !strings.Contains(op, ".") && !strings.HasPrefix(op, "bra") && op != "ret" && op != "exit" {
			continue // not an instruction (a declaration's continuation)
		}
		in.op, in.args = op, simOperands(rest)
		if strings.HasPrefix(op, "bra") {
			pending = append(pending, len(prog))
		}
		prog = append(prog, in)
	}
	for _, i := range pending {
		prog[i].target = labels[prog[i].args[0]]
	}
	return prog
}

// checkConvAddressing simulates every thread of block (bx, 0) of cfg's
// kernel on problem p and checks its copies of x and its stores to y.
func checkConvAddressing(t *testing.T, cfg GemmConfig, in InputClass, p convSimProblem, bx int64) {
	t.Helper()
	k, err := GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	g := newGeometry(cfg, in)
	prog := parseProgram(k.PTX)
	M, CRS := p.N*p.P()*p.Q(), p.C*p.R*p.S
	grid := [3]int64{70000, int64(ceilDiv(p.K, cfg.NL)), 1} // wider than 65535: no rasterization
	es := int64(in.AType.Size())
	o := g.a
	stored := map[int64]int{}
	for tid := int64(0); tid < int64(g.threads); tid++ {
		copies, stores, err := simThread(prog, p.params(), tid, bx, 0, grid)
		if err != nil {
			t.Fatalf("%s %s: %v", cfg, in, err)
		}
		var tileA []simCopy
		ob := g.b
		for _, c := range copies { // the filter's copies: w[n][j] at n·C·R·S + j
			at := int(c.shared) % g.stageBytes
			if at < ob.offset || at >= ob.offset+ob.bytes || c.global == 0 {
				continue
			}
			off := int64(at-ob.offset) / es
			mnIdx, kIdx := off/int64(ob.stride), off%int64(ob.stride)
			if !ob.kContig {
				kIdx, mnIdx = mnIdx, kIdx
			}
			// the tile is not known here: the address must be that of some
			// tile's (k, n) at this place
			rel := (c.global - simW) / es
			n, j := rel/int64(CRS), rel%int64(CRS)
			if n != mnIdx || j%int64(cfg.U) != kIdx || n >= int64(min(p.K, cfg.NL)) {
				t.Fatalf("%s %s thread %d: the filter's tile place (%d, %d) copied from w[%d][%d]", cfg, in, tid, kIdx, mnIdx, n, j)
			}
		}
		for _, c := range copies { // A's copies land in A's part of a stage
			if at := int(c.shared) % g.stageBytes; at >= o.offset && at < o.offset+o.bytes {
				if c.global != 0 && (c.global < simX || c.global >= simW) {
					t.Fatalf("%s %s thread %d: a copy into A's tile from %#x, outside x", cfg, in, tid, c.global)
				}
				tileA = append(tileA, c)
			}
		}
		// Copies of A come o.loads (or fewer, at the tile's end) per tile,
		// the tiles in order.
		perTile := 0
		for r := 0; r < o.loads; r++ {
			if int(tid)+r*g.threads < o.total {
				perTile++
			}
		}
		if perTile == 0 && len(tileA) > 0 {
			t.Fatalf("%s %s thread %d: %d copies into A's tile from a thread without elements of it", cfg, in, tid, len(tileA))
		}
		// The loops copy a few tiles beyond the last (prefetches, masked).
		if tiles := ceilDiv(CRS, cfg.U); perTile > 0 && (len(tileA)%perTile != 0 || len(tileA) < perTile*tiles) {
			t.Fatalf("%s %s thread %d: %d copies of A, want %d tiles × %d or more", cfg, in, tid, len(tileA), tiles, perTile)
		}
		for i, c := range tileA {
			tile := i / perTile
			off := c.shared % int64(g.stageBytes) / es
			off -= int64(o.offset) / es
			var mnIdx, kIdx int64
			if o.kContig {
				mnIdx, kIdx = off/int64(o.stride), off%int64(o.stride)
			} else {
				kIdx, mnIdx = off/int64(o.stride), off%int64(o.stride)
			}
			m, j := bx*int64(cfg.ML)+mnIdx, int64(tile*cfg.U)+kIdx
			want := int64(0)
			if m < int64(M) && j < int64(CRS) {
				n, pq := m/int64(p.P()*p.Q()), m%int64(p.P()*p.Q())
				pp, q := pq/int64(p.Q()), pq%int64(p.Q())
				var ch, r, s int64
				if in.Conv == ConvRSC {
					r, s, ch = j/int64(p.S*p.C), j/int64(p.C)%int64(p.S), j%int64(p.C)
				} else {
					ch, r, s = j/int64(p.R*p.S), j/int64(p.S)%int64(p.R), j%int64(p.S)
				}
				if p.Flip {
					r, s = int64(p.R-1)-r, int64(p.S-1)-s
				}
				h := pp*int64(p.StrH) - int64(p.PadH) + r*int64(p.DilH)
				w := q*int64(p.StrW) - int64(p.PadW) + s*int64(p.DilW)
				if h >= 0 && h < int64(p.H) && w >= 0 && w < int64(p.W) {
					want = simX + es*(n*int64(p.X[0])+ch*int64(p.X[1])+h*int64(p.X[2])+w*int64(p.X[3]))
				}
			}
			if c.global != want {
				t.Fatalf("%s %s thread %d tile %d: A(%d, %d) copied from %#x, want %#x", cfg, in, tid, tile, m, j, c.global, want)
			}
		}
		ys := int64(in.CType.Size())
		for _, s := range stores {
			if s.bytes%ys != 0 {
				t.Fatalf("%s %s thread %d: a store of %d bytes to y of %d-byte elements", cfg, in, tid, s.bytes, ys)
			}
			for b := int64(0); s.addr >= simY && b < s.bytes; b += ys {
				stored[s.addr+b]++
			}
		}
	}
	checkTileStored(t, cfg, in, p, bx, stored)
}

// checkTileStored checks that stored (the count of stores of each y
// address) holds block bx's tile of y, each element once, and nothing
// else.
func checkTileStored(t *testing.T, cfg GemmConfig, in InputClass, p convSimProblem, bx int64, stored map[int64]int) {
	t.Helper()
	M := p.N * p.P() * p.Q()
	want := 0
	for m := bx * int64(cfg.ML); m < min(int64(M), (bx+1)*int64(cfg.ML)); m++ {
		n, pq := m/int64(p.P()*p.Q()), m%int64(p.P()*p.Q())
		pp, q := pq/int64(p.Q()), pq%int64(p.Q())
		for kk := int64(0); kk < int64(min(p.K, cfg.NL)); kk++ {
			a := simY + int64(in.CType.Size())*(n*int64(p.Y[0])+kk*int64(p.Y[1])+pp*int64(p.Y[2])+q*int64(p.Y[3]))
			if stored[a] != 1 {
				t.Fatalf("%s %s block %d: y(%d, %d) stored %d times", cfg, in, bx, m, kk, stored[a])
			}
			want++
		}
	}
	if len(stored) != want {
		t.Fatalf("%s %s block %d: %d addresses of y stored, want %d", cfg, in, bx, len(stored), want)
	}
}

// Every configuration family of a convolution copies the right elements of
// x and stores the right elements of y, on problems with padding, strides,
// dilation, flipped filters and NCHW, NHWC and sliced layouts.
func TestConvAddressingSimulated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 6))
	problems := []convSimProblem{
		{N: 2, C: 3, H: 7, W: 9, K: 5, R: 3, S: 3, PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1},
		{N: 3, C: 2, H: 11, W: 6, K: 3, R: 2, S: 3, PadH: 4, PadW: 0, StrH: 2, StrW: 3, DilH: 2, DilW: 1, Flip: true},
		{N: 1, C: 5, H: 5, W: 5, K: 7, R: 1, S: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1},
		{N: 2, C: 16, H: 6, W: 5, K: 9, R: 3, S: 2, PadH: 1, PadW: 2, StrH: 1, StrW: 2, DilH: 1, DilW: 2, Flip: true},
		// An even number of channels in NHWC: the mma epilogue's pairs of channels.
		{N: 2, C: 16, H: 6, W: 5, K: 10, R: 3, S: 2, PadH: 1, PadW: 2, StrH: 1, StrW: 2, DilH: 1, DilW: 2},
		// No padding (sliced NCHW): every pixel's taps inside x, the copies without bounds.
		{N: 2, C: 4, H: 9, W: 10, K: 6, R: 3, S: 3, StrH: 1, StrW: 1, DilH: 1, DilW: 1},
	}
	for i := range problems {
		p := &problems[i]
		P, Q := p.P(), p.Q()
		switch i % 3 {
		case 0: // NCHW
			if i == 3 { // channel vectors: NHWC
				p.X, p.Y = [4]int{p.H * p.W * p.C, 1, p.W * p.C, p.C}, [4]int{P * Q * p.K, 1, Q * p.K, p.K}
				continue
			}
			p.X, p.Y = [4]int{p.C * p.H * p.W, p.H * p.W, p.W, 1}, [4]int{p.K * P * Q, P * Q, Q, 1}
		case 1: // NHWC
			p.X, p.Y = [4]int{p.H * p.W * p.C, 1, p.W * p.C, p.C}, [4]int{P * Q * p.K, 1, Q * p.K, p.K}
		case 2: // sliced NCHW
			p.X, p.Y = [4]int{(p.C + 2) * (p.H + 1) * (p.W + 3), (p.H + 1) * (p.W + 3), p.W + 3, 1}, [4]int{(p.K + 1) * P * (Q + 2), P * (Q + 2), Q + 2, 1}
		}
	}
	// Which of the loader's ways of sharing a thread's pixel or tap
	// (im2colModeOf, by k-contiguity) the checked configurations took.
	type way struct {
		kContig bool
		mode    im2colMode
	}
	ways := map[way]int{}
	for _, in := range convClasses() {
		if in.AType != F32 && in.AType != F16 {
			continue // the addressing does not depend on the type beyond its size
		}
		for i, cfg := range convConfigs(in) {
			if cfg.KG > 1 || cfg.Math.IsWGMMA() {
				// The one-pass fixup's arrival is not simulated, nor are the
				// core-matrix layouts decoded: the GPU tests run them.
				continue
			}
			g := newGeometry(cfg, in)
			ways[way{g.a.kContig, im2colModeOf(g.a, g.threads)}]++
			p := problems[(i+int(in.Conv))%3]
			if in.AlignA > 1 {
				p = problems[3] // channels a multiple of every vector
			}
			checkConvAddressing(t, cfg, in, p, 0)
			if cfg.Math.IsMMA() { // the epilogue's pairs of channels too
				checkConvAddressing(t, cfg, in, problems[4], 0)
			}
			if last := int64(ceilDiv(p.N*p.P()*p.Q(), cfg.ML) - 1); last > 0 {
				checkConvAddressing(t, cfg, in, p, last)
			}
		}
	}
	// Blocks of more threads than elements of A's tile (kl = 4, 8), and
	// FP32 FMA tiles of Table 5's fastest (bench_compare/cases/
	// conv_ffma_tiles.txt): a thread's loads sharing one tap, one of them
	// staged through registers (st=1); sharing one pixel (16 loads); not
	// sharing (256 pixels a tile line, 128 threads); each also on x
	// without padding (the copies without bounds).
	in := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: N, AlignA: 1, AlignB: 4, AlignC: 1, Conv: ConvCRS}
	for _, s := range []string{
		"ms=2,ns=2,ml=64,nl=16,u=4,ks=1,kl=4,kg=1,va=1,vb=2,st=3,math=ffma",
		"ms=1,ns=1,ml=8,nl=8,u=16,ks=1,kl=8,kg=1,va=1,vb=2,st=2,math=ffma",
		"ms=1,ns=1,ml=8,nl=8,u=16,ks=1,kl=8,kg=1,va=1,vb=2,st=1,math=ffma",
		"ms=4,ns=8,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=4,st=3,math=ffma",
		"ms=4,ns=8,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=4,st=1,math=ffma",
		"ms=8,ns=4,ml=256,nl=16,u=8,ks=1,kl=1,kg=1,va=1,vb=4,st=3,math=ffma",
		"ms=4,ns=8,ml=128,nl=32,u=16,ks=1,kl=1,kg=1,va=1,vb=4,st=3,math=ffma",
	} {
		cfg, err := ParseConfig(s)
		if err != nil || Legal(cfg, in, H100()) != nil {
			t.Fatalf("%s: %v %v", s, err, Legal(cfg, in, H100()))
		}
		g := newGeometry(cfg, in)
		ways[way{g.a.kContig, im2colModeOf(g.a, g.threads)}]++
		checkConvAddressing(t, cfg, in, problems[rng.IntN(len(problems)-1)], 0)
		checkConvAddressing(t, cfg, in, problems[5], 0)
	}
	// Channel vectors in NHWC: a thread's loads sharing one tap, and not
	// (64 taps a tile line, 32 threads).
	nhwc := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: T, TransB: N, AlignA: 4, AlignB: 4, AlignC: 1, Conv: ConvRSC}
	for _, s := range []string{
		"ms=16,ns=8,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma",
		"ms=1,ns=2,ml=8,nl=8,u=64,ks=1,kl=1,kg=1,va=1,vb=4,st=2,math=ffma",
	} {
		cfg, _ := ParseConfig(s)
		if err := Legal(cfg, nhwc, H100()); err != nil {
			t.Fatal(err)
		}
		g := newGeometry(cfg, nhwc)
		ways[way{g.a.kContig, im2colModeOf(g.a, g.threads)}]++
		checkConvAddressing(t, cfg, nhwc, problems[3], 0)
		unpadded := problems[5]
		unpadded.X = [4]int{unpadded.H * unpadded.W * unpadded.C, 1, unpadded.W * unpadded.C, unpadded.C}
		checkConvAddressing(t, cfg, nhwc, unpadded, 0)
	}
	for _, w := range []way{{false, im2colOwn}, {false, im2colPixelShared}, {false, im2colTapShared}, {true, im2colOwn}, {true, im2colTapShared}} {
		if ways[w] == 0 {
			t.Errorf("no configuration checked with k-contiguous %v, mode %d (%v)", w.kContig, w.mode, ways)
		}
	}
	t.Logf("configurations by (k-contiguous, mode): %v", ways)
}

// checkConvStagedStores runs every thread of block bx of a wgmma
// convolution kernel with cp.async copies through the whole kernel, twice
// (the first pass fills the shared pixel offsets the staged epilogues
// write, the second reads them), and checks that the second pass's stores
// cover the block's tile of y each element once, at y's strided addresses,
// and that at least vectors of vecBytes were stored where vecBytes > 0
// (the staged epilogue's path was taken).
func checkConvStagedStores(t *testing.T, cfg GemmConfig, in InputClass, p convSimProblem, bx int64, vecBytes int64) {
	t.Helper()
	k, err := GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	g := newGeometry(cfg, in)
	prog := parseProgram(k.PTX)
	grid := [3]int64{70000, int64(ceilDiv(p.K, cfg.NL)), 1} // wider than 65535: no rasterization
	smem := map[int64]int64{}
	stored := map[int64]int{}
	vectors := 0
	for pass := 0; pass < 2; pass++ {
		for tid := int64(0); tid < int64(g.threads); tid++ {
			_, stores, err := simThreadShared(prog, p.params(), tid, bx, 0, grid, smem, pass == 0)
			if err != nil {
				t.Fatalf("%s %s: %v", cfg, in, err)
			}
			if pass == 0 {
				continue
			}
			ys := int64(in.CType.Size())
			for _, s := range stores {
				if s.bytes == vecBytes {
					vectors++
				}
				for b := int64(0); s.addr >= simY && b < s.bytes; b += ys {
					stored[s.addr+b]++
				}
			}
		}
	}
	checkTileStored(t, cfg, in, p, bx, stored)
	if vecBytes > 0 && vectors == 0 {
		t.Fatalf("%s %s block %d: no store of %d bytes (the staged epilogue not taken)", cfg, in, bx, vecBytes)
	}
}

// The wgmma convolutions' staged epilogues in the simulation: y
// channel-contiguous (by rows: whole 16-byte vectors of a pixel's
// channels, and a vector across the channels' end element by element), y
// in NCHW with images of whole vectors (by columns: vectors of a channel's
// pixels), and y in layouts neither takes (the unstaged epilogue): every
// element of the block's tile stored once, at its address in y, for 16-bit
// and tf32 kernels, the first and the last block (the values are not
// simulated: the GPU tests check them).
func TestConvStagedEpilogueSimulated(t *testing.T) {
	t.Parallel()
	base := convSimProblem{N: 2, C: 16, H: 6, W: 6, R: 3, S: 3, PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1}
	P, Q := base.P(), base.Q() // 6×6: 36 pixels an image
	nhwc := func(k, kPad int) convSimProblem {
		p := base
		p.K = k
		p.X = [4]int{p.H * p.W * p.C, 1, p.W * p.C, p.C}
		p.Y = [4]int{P * Q * kPad, 1, Q * kPad, kPad}
		return p
	}
	nchw := func(k, n, h, w int) convSimProblem {
		p := base
		p.K, p.N, p.H, p.W = k, n, h, w
		pp, qq := p.P(), p.Q()
		p.X = [4]int{p.H * p.W * p.C, 1, p.W * p.C, p.C}
		p.Y = [4]int{k * pp * qq, pp * qq, qq, 1}
		return p
	}
	for _, c := range []struct {
		ty   DataType
		math string
		v    int
	}{{F16, "wgmma_f16", 8}, {BF16, "wgmma_bf16", 8}, {F32, "wgmma_tf32", 4}} {
		in := InputClass{AType: c.ty, BType: c.ty, CType: c.ty, Compute: F32, TransA: T, TransB: N, AlignA: c.v, AlignB: c.v, AlignC: 1,
			AllowTF32: c.ty == F32, Conv: ConvRSC}
		u := 8 * c.v / 2 // half a line of k
		cfg, err := ParseConfig(fmt.Sprintf("ms=1,ns=8,ml=64,nl=64,u=%d,ks=1,kl=1,kg=1,va=%d,vb=%d,st=3,math=%s", u, c.v, c.v, c.math))
		if err != nil {
			t.Fatal(err)
		}
		if err := Legal(cfg, in, H100()); err != nil {
			t.Fatalf("%s %s: %v", cfg, in, err)
		}
		if !newGeometry(cfg, in).convStage {
			t.Fatalf("%s %s: no staged epilogue", cfg, in)
		}
		vec := int64(16)
		es := in.CType.Size()
		for _, pc := range []struct {
			name string
			p    convSimProblem
			vec  int64
		}{
			{"rows", nhwc(2*c.v, 2*c.v), vec},
			{"rows, channels ending inside a vector", nhwc(c.v+c.v/2, 2*c.v), vec},
			{"columns", nchw(10, 2, 8, 8), vec}, // 8×8 pixels an image
			{"unstaged (an odd channel stride)", nhwc(5, 5), 0},
			{"unstaged (images not whole vectors)", nchw(10, 2, 7, 7), 0}, // 7×7
		} {
			p := pc.p
			if pc.vec > 0 && pc.name == "columns" && (p.P()*p.Q())%(16/es) != 0 {
				t.Fatalf("%s: %d pixels an image", pc.name, p.P()*p.Q())
			}
			last := int64(ceilDiv(p.N*p.P()*p.Q(), cfg.ML) - 1)
			for _, bx := range []int64{0, last} {
				checkConvStagedStores(t, cfg, in, p, bx, pc.vec)
			}
		}
	}
}

// FuzzConvAddressingSimulated runs checkConvAddressing (every thread of a
// block simulated: each copy of x's and the filter's tiles from the element
// the implicit GEMM's (pixel, tap) stands for, zeros outside x, and each
// element of the block's tile of y stored once) on drawn problems: any
// padding, stride, dilation and mode, x and y in NCHW, NHWC or as slices,
// for a drawn class and configuration of convClasses and convConfigs (not
// split over the grid, not wgmma: the GPU tests run those), at the first
// block or the last. A class of channel vectors gets NHWC tensors whose
// channels its vectors divide.
func FuzzConvAddressingSimulated(f *testing.F) {
	f.Add(uint16(0), uint8(2), uint8(3), uint8(7), uint8(9), uint8(5), uint8(3), uint8(3), uint8(1), uint8(1), uint8(0), uint8(0), false)
	f.Add(uint16(37), uint8(3), uint8(2), uint8(11), uint8(6), uint8(3), uint8(2), uint8(3), uint8(4), uint8(2), uint8(1), uint8(1), true)
	f.Add(uint16(101), uint8(1), uint8(16), uint8(6), uint8(5), uint8(9), uint8(3), uint8(2), uint8(1), uint8(1), uint8(2), uint8(2), true)
	type job struct {
		cfg GemmConfig
		in  InputClass
	}
	var jobs []job
	for _, in := range convClasses() {
		if in.AType != F32 && in.AType != F16 {
			continue
		}
		for _, cfg := range convConfigs(in) {
			if cfg.KG == 1 && !cfg.Math.IsWGMMA() {
				jobs = append(jobs, job{cfg, in})
			}
		}
	}
	f.Fuzz(func(t *testing.T, which uint16, n, c, h, w, k, r, s, pad, str, dil, layout uint8, last bool) {
		j := jobs[int(which)%len(jobs)]
		p := convSimProblem{N: 1 + int(n)%3, C: 1 + int(c)%6, H: 1 + int(h)%12, W: 1 + int(w)%12, K: 1 + int(k)%12,
			R: 1 + int(r)%4, S: 1 + int(s)%4, PadH: int(pad) % 4, PadW: int(pad) / 4 % 3,
			StrH: 1 + int(str)%3, StrW: 1 + int(str)/3%3, DilH: 1 + int(dil)%2, DilW: 1 + int(dil)/2%2, Flip: layout&8 != 0}
		vec := max(j.in.AlignA, 1)
		if j.in.ChannelLines {
			vec = 128 / j.in.AType.Size()
		}
		if vec > 1 {
			p.C = vec * (1 + int(c)%2)
		}
		P, Q := p.P(), p.Q()
		if P < 1 || Q < 1 {
			t.Skip("no output")
		}
		switch {
		case vec > 1 || layout%3 == 1: // NHWC
			p.X, p.Y = [4]int{p.H * p.W * p.C, 1, p.W * p.C, p.C}, [4]int{P * Q * p.K, 1, Q * p.K, p.K}
		case layout%3 == 0: // NCHW
			p.X, p.Y = [4]int{p.C * p.H * p.W, p.H * p.W, p.W, 1}, [4]int{p.K * P * Q, P * Q, Q, 1}
		default: // slices of larger NCHW tensors
			p.X, p.Y = [4]int{(p.C + 2) * (p.H + 1) * (p.W + 3), (p.H + 1) * (p.W + 3), p.W + 3, 1}, [4]int{(p.K + 1) * P * (Q + 2), P * (Q + 2), Q + 2, 1}
		}
		bx := int64(0)
		if last {
			bx = int64(ceilDiv(p.N*P*Q, j.cfg.ML) - 1)
		}
		checkConvAddressing(t, j.cfg, j.in, p, bx)
	})
}
