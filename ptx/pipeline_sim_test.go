package ptx

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A stage-level simulation of the cp.async main loops, without a GPU. One
// thread of block (0, 0, 0) runs the kernel up to the main loop's end with
// its integer arithmetic evaluated. Every cp.async lands in its stage only
// when a cp.async.wait_group lets its group complete (as late as the PTX
// ISA allows), a shared-memory load reads the tile its stage holds then,
// and the loaded values carry (tile, byte offset in the stage) through
// moves and conversions into the mma.sync and fma instructions; wgmma
// instructions read the stages their descriptors point at, until a
// wgmma.wait_group retires them. It fails when a copy overwrites a stage
// this thread read since the last barrier (another thread may still read
// it) or that a wgmma in flight reads, when a math instruction reads values
// of two tiles or of no tile, and it reports for every math instruction the
// (tile, offset) of its A and B operands, so that two loops can be compared
// instruction by instruction.

// pipeSim is one thread's state.
type pipeSim struct {
	ints       map[string]int64 // known integer and predicate registers
	tags       map[string]fragTag
	stageBytes int
	pending    [][]int     // committed groups not yet landed: the stage each fills
	open       []int       // the stages of this thread's copies since the last commit
	groups     int         // groups committed
	landed     int         // groups landed
	holds      map[int]int // stage → the group (tile) it holds
	readSince  map[int]bool
	wgOpen     []int    // stages the wgmma instructions since the last commit read
	wgPending  [][]int  // committed wgmma groups still reading: their stages
	math       []string // per math instruction: its operands' (tile, offset)
	tma        tmaSim   // mbarriers and bulk tensor copies (loopTMA)
}

// fragTag is where a loaded value came from.
type fragTag struct {
	tile, off int
}

var (
	simReg  = regexp.MustCompile(`^%[a-z]+[0-9]+$`)
	simAddr = regexp.MustCompile(`^\[([%a-z_0-9.]+)(?:\+(-?[0-9]+))?\]$`)
)

// simOperands splits an instruction's operands on commas outside braces
// and brackets.
func simOperands(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, ch := range s {
		switch ch {
		case '{', '[':
			depth++
		case '}', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, strings.TrimSpace(s[start:i]))
				start = i + 1
			}
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

func braceRegs(s string) []string {
	return strings.Fields(strings.NewReplacer("{", " ", "}", " ", ",", " ").Replace(s))
}

type simInstr struct {
	pred, neg bool
	predReg   string
	op        string
	args      []string
}

// simulatePipeline runs the kernel's thread tid up to the main loop's end
// and returns its math instructions' operand provenance.
func simulatePipeline(ptxSrc string, g geometry, params map[string]int64, grid [3]int64, tid int64) ([]string, error) {
	st := &pipeSim{ints: map[string]int64{}, tags: map[string]fragTag{}, stageBytes: g.stageBytes,
		holds: map[int]int{}, readSince: map[int]bool{}}
	return st.run(ptxSrc, g, params, grid, tid)
}

// run is simulatePipeline on a prepared state (a TMA consumer's holds the
// producer's copies, see tmaSim).
func (st *pipeSim) run(ptxSrc string, g geometry, params map[string]int64, grid [3]int64, tid int64) ([]string, error) {
	var prog []simInstr
	labels := map[string]int{}
	done := ""
	for _, ln := range strings.Split(ptxSrc, "\n") {
		if strings.HasPrefix(ln, "$L_") && strings.HasSuffix(ln, ":") {
			name := strings.TrimSuffix(ln, ":")
			labels[name] = len(prog)
			if done == "" && strings.HasPrefix(name, "$L_done_") {
				done = name
			}
			continue
		}
		if !strings.HasPrefix(ln, "\t") {
			continue
		}
		s := strings.TrimSuffix(strings.TrimSpace(ln), ";")
		if s == "" || strings.HasPrefix(s, "//") || strings.HasPrefix(s, ".") {
			continue
		}
		var in simInstr
		if strings.HasPrefix(s, "@") {
			p, rest, _ := strings.Cut(s, " ")
			in.pred, in.neg, in.predReg = true, strings.HasPrefix(p, "@!"), strings.TrimLeft(p, "@!")
			s = rest
		}
		op, rest, _ := strings.Cut(s, " ")
		in.op, in.args = op, simOperands(rest)
		prog = append(prog, in)
	}
	if done == "" {
		return nil, fmt.Errorf("no main loop end label")
	}
	end := labels[done]
	val := func(a string) (int64, bool) {
		switch a {
		case "%tid.x":
			return tid, true
		case "%ctaid.x", "%ctaid.y", "%ctaid.z", "%cluster_ctarank", "%tid.y", "%tid.z":
			return 0, true
		case "%nctaid.x":
			return grid[0], true
		case "%nctaid.y":
			return grid[1], true
		case "%nctaid.z":
			return grid[2], true
		case smemSymbol:
			return 0, true
		}
		if x, err := strconv.ParseInt(a, 0, 64); err == nil {
			return x, true
		}
		if x, err := strconv.ParseUint(a, 0, 64); err == nil { // descriptor bits
			return int64(x), true
		}
		if r, ok := strings.CutPrefix(a, "!"); ok { // a negated predicate
			x, ok := st.ints[r]
			return 1 - x, ok
		}
		x, ok := st.ints[a]
		return x, ok
	}
	addrOf := func(a string) (int64, bool) {
		m := simAddr.FindStringSubmatch(a)
		if m == nil {
			return 0, false
		}
		base, ok := val(m[1])
		if !ok {
			return 0, false
		}
		off, _ := strconv.ParseInt(m[2], 10, 64)
		return base + off, true
	}
	stageOf := func(addr int64) int { return int(addr) / g.stageBytes }
	for pc, steps := 0, 0; pc < end; steps++ {
		if steps > 5_000_000 {
			return nil, fmt.Errorf("no end after %d instructions", steps)
		}
		in := prog[pc]
		pc++
		if in.pred {
			p, ok := st.ints[in.predReg]
			if !ok {
				if strings.HasPrefix(in.op, "bra") {
					return nil, fmt.Errorf("branch on unknown %s", in.predReg)
				}
				p = 1 // an effect of unknown guard: take it (never a branch)
			}
			if (p != 0) == in.neg {
				continue
			}
		}
		op, a := in.op, in.args
		base := op
		if i := strings.Index(op, "."); i > 0 {
			base = op[:i]
		}
		ints := func() ([]int64, bool) {
			var out []int64
			for _, x := range a[1:] {
				v, ok := val(x)
				if !ok {
					return nil, false
				}
				out = append(out, v)
			}
			return out, true
		}
		set := func(v int64) {
			if strings.Contains(op, ".u32") || strings.Contains(op, ".b32") || strings.Contains(op, ".s32") {
				v = int64(int32(v))
				if strings.Contains(op, ".u32") {
					v = int64(uint32(v))
				}
			}
			st.ints[a[0]] = v
			delete(st.tags, a[0])
		}
		switch {
		case base == "bra":
			pc = labels[a[0]]
		case base == "ld" && strings.HasPrefix(op, "ld.param"):
			name := strings.Trim(a[1], "[]")
			if v, ok := params[name]; ok {
				st.ints[a[0]] = v
			} else {
				delete(st.ints, a[0])
			}
		case strings.HasPrefix(op, "cp.async.bulk.tensor"):
			if err := st.bulkCopy(g, a, addrOf, val); err != nil {
				return nil, err
			}
		case strings.HasPrefix(op, "mbarrier."):
			if err := st.mbarrier(g, op, a, addrOf, val); err != nil {
				return nil, err
			}
		case strings.HasPrefix(op, "cp.async.commit_group"):
			// Group g fills stage g mod S in every loop; this thread's
			// copies of it (it may have none) must go there.
			stage := st.groups % g.cfg.Stages
			for _, s := range st.open {
				if s != stage {
					return nil, fmt.Errorf("a copy of tile %d goes to stage %d, not %d", st.groups, s, stage)
				}
			}
			st.pending = append(st.pending, []int{stage})
			st.open = nil
			st.groups++
		case strings.HasPrefix(op, "cp.async.wait_group"):
			n, _ := strconv.Atoi(a[0])
			for len(st.pending) > n {
				for _, s := range st.pending[0] {
					st.holds[s] = st.landed
				}
				st.pending = st.pending[1:]
				st.landed++
			}
		case strings.HasPrefix(op, "cp.async"):
			addr, ok := addrOf(a[0])
			if !ok {
				return nil, fmt.Errorf("cp.async to an unknown address %s", a[0])
			}
			s := stageOf(addr)
			if st.readSince[s] {
				return nil, fmt.Errorf("a copy of tile %d overwrites stage %d, read since the last barrier", st.groups, s)
			}
			for _, grp := range append(st.wgPending, st.wgOpen) {
				if slices.Contains(grp, s) {
					return nil, fmt.Errorf("a copy of tile %d overwrites stage %d, which a wgmma in flight reads", st.groups, s)
				}
			}
			st.open = append(st.open, s)
		case op == "bar.sync":
			st.readSince = map[int]bool{}
			if err := st.passBarrier(g); err != nil {
				return nil, err
			}
		case strings.HasPrefix(op, "ld.shared") || strings.HasPrefix(op, "ldmatrix"):
			addr, ok := addrOf(a[1])
			if !ok {
				return nil, fmt.Errorf("%s from an unknown address %s", op, a[1])
			}
			s := stageOf(addr)
			st.readSince[s] = true
			tile, held := st.holds[s]
			if !held {
				tile = -1
			}
			for _, r := range braceRegs(a[0]) {
				delete(st.ints, r)
				st.tags[r] = fragTag{tile, int(addr) - s*g.stageBytes}
			}
		case strings.HasPrefix(op, "wgmma.mma_async"):
			// A and B through matrix descriptors: bits 0–13 hold the
			// shared address / 16; read asynchronously until the group
			// is waited for.
			var sig []string
			tile := -2
			for _, d := range a[1:3] {
				desc, ok := val(d)
				if !ok {
					return nil, fmt.Errorf("%s with an unknown descriptor %s", op, d)
				}
				addr := desc & 0x3FFF << 4
				s := stageOf(addr)
				tg, held := st.holds[s]
				if !held {
					return nil, fmt.Errorf("%s reads stage %d, which holds no tile's data", op, s)
				}
				if tile != -2 && tg != tile {
					return nil, fmt.Errorf("%s mixes tiles %d and %d", op, tile, tg)
				}
				tile = tg
				st.wgOpen = append(st.wgOpen, s)
				sig = append(sig, strconv.Itoa(int(addr)-s*g.stageBytes))
			}
			st.math = append(st.math, fmt.Sprintf("tile %d: %s", tile, strings.Join(sig, " ")))
		case strings.HasPrefix(op, "wgmma.commit_group"):
			st.wgPending = append(st.wgPending, st.wgOpen)
			st.wgOpen = nil
		case strings.HasPrefix(op, "wgmma.wait_group"):
			n, _ := strconv.Atoi(a[0])
			for len(st.wgPending) > n { // done reading: a barrier frees the stage
				for _, s := range st.wgPending[0] {
					st.readSince[s] = true
				}
				st.wgPending = st.wgPending[1:]
			}
		case strings.HasPrefix(op, "wgmma.") || strings.HasPrefix(op, "fence."):
		case base == "mma" || base == "fma" && len(a) == 4:
			var srcs []string
			if base == "mma" {
				srcs = append(braceRegs(a[1]), braceRegs(a[2])...)
			} else {
				srcs = []string{a[1], a[2]}
			}
			tile := -2
			var sig []string
			for _, r := range srcs {
				tg, ok := st.tags[r]
				if !ok || tg.tile < 0 {
					return nil, fmt.Errorf("%s reads %s, which holds no tile's data", op, r)
				}
				if tile != -2 && tg.tile != tile {
					return nil, fmt.Errorf("%s mixes tiles %d and %d", op, tile, tg.tile)
				}
				tile = tg.tile
				sig = append(sig, strconv.Itoa(tg.off))
			}
			st.math = append(st.math, fmt.Sprintf("tile %d: %s", tile, strings.Join(sig, " ")))
		case base == "mov" || base == "cvt" || base == "cvta":
			if strings.HasPrefix(a[1], "{") { // pack halves (bf16 widening: a zero and the value)
				delete(st.ints, a[0])
				delete(st.tags, a[0])
				for _, h := range braceRegs(a[1]) {
					if tg, ok := st.tags[h]; ok {
						st.tags[a[0]] = tg
					}
				}
				continue
			}
			if tg, ok := st.tags[a[1]]; ok {
				st.tags[a[0]] = tg
				delete(st.ints, a[0])
				continue
			}
			if v, ok := val(a[1]); ok && simReg.MatchString(a[0]) {
				st.ints[a[0]] = v
				delete(st.tags, a[0])
				continue
			}
			delete(st.ints, a[0])
			delete(st.tags, a[0])
		default:
			if len(a) == 0 || strings.HasPrefix(a[0], "{") || strings.HasPrefix(a[0], "[") {
				continue
			}
			x, ok := ints()
			if !ok {
				delete(st.ints, a[0])
				delete(st.tags, a[0])
				continue
			}
			cmp := func(c string, l, r int64) bool {
				if strings.HasSuffix(op, ".u32") {
					l, r = int64(uint32(l)), int64(uint32(r))
				}
				switch c {
				case "eq":
					return l == r
				case "ne":
					return l != r
				case "lt":
					return l < r
				case "le":
					return l <= r
				case "gt":
					return l > r
				case "ge":
					return l >= r
				}
				panic(c)
			}
			b2i := func(b bool) int64 {
				if b {
					return 1
				}
				return 0
			}
			switch {
			case base == "add":
				set(x[0] + x[1])
			case base == "sub":
				set(x[0] - x[1])
			case strings.HasPrefix(op, "mul.lo"), strings.HasPrefix(op, "mul.wide"):
				set(x[0] * x[1])
			case strings.HasPrefix(op, "mad.lo"):
				set(x[0]*x[1] + x[2])
			case base == "shl":
				set(x[0] << x[1])
			case base == "shr":
				set(x[0] >> x[1])
			case op == "and.pred":
				set(b2i(x[0] != 0 && x[1] != 0))
			case op == "or.pred":
				set(b2i(x[0] != 0 || x[1] != 0))
			case op == "not.pred":
				set(b2i(x[0] == 0))
			case base == "and":
				set(x[0] & x[1])
			case base == "or":
				set(x[0] | x[1])
			case base == "xor":
				set(x[0] ^ x[1])
			case base == "min":
				set(min(x[0], x[1]))
			case base == "max":
				set(max(x[0], x[1]))
			case base == "div":
				if x[1] == 0 {
					return nil, fmt.Errorf("division by zero")
				}
				set(x[0] / x[1])
			case base == "rem":
				if x[1] == 0 {
					return nil, fmt.Errorf("division by zero")
				}
				set(x[0] % x[1])
			case base == "selp":
				if x[2] != 0 {
					set(x[0])
				} else {
					set(x[1])
				}
			case base == "setp":
				set(b2i(cmp(strings.Split(op, ".")[1], x[0], x[1])))
			default:
				delete(st.ints, a[0])
				delete(st.tags, a[0])
			}
		}
	}
	return st.math, nil
}

// simulateConfig runs simulatePipeline on cfg's kernel for an m×n×k input
// (threads 0 and the last one).
func simulateConfig(t *testing.T, cfg GemmConfig, in InputClass, m, n, k int) [][]string {
	t.Helper()
	kern, err := GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	g := newGeometry(cfg, in)
	lda, ldb := int64(m), int64(k)
	if in.TransA == T {
		lda = int64(k)
	}
	if in.TransB == T {
		ldb = int64(n)
	}
	params := map[string]int64{"p_M": int64(m), "p_N": int64(n), "p_K": int64(k), "p_lda": lda, "p_ldb": ldb, "p_ldc": int64(m),
		"p_A": 1 << 20, "p_B": 1 << 30, "p_C": 1 << 40}
	grid := [3]int64{int64(ceilDiv(m, cfg.ML)), int64(ceilDiv(n, cfg.NL)), int64(max(cfg.KG, 1) * max(cfg.KC, 1))}
	if cfg.TMA == 1 {
		return simulateTMA(t, kern.PTX, g, params, grid, int64(kern.Block[0]-1))
	}
	var out [][]string
	for _, tid := range []int64{0, int64(kern.Block[0] - 1)} {
		math, err := simulatePipeline(kern.PTX, g, params, grid, tid)
		if err != nil {
			t.Fatalf("%s, thread %d: %v", cfg, tid, err)
		}
		out = append(out, math)
	}
	return out
}

// Every cp.async main loop, plain and pipelined (PP), consumes each tile's
// data exactly once, in order, after its copies have landed, without
// overwriting a stage read since the last barrier; and the pipelined loop's
// math instructions read exactly what the plain loop's read, instruction
// by instruction: for chosen configurations (every mma and SIMT math, KS,
// KL, grid and cluster splits) and 60 random ones of the classes' spaces.
func TestPipelineSimulated(t *testing.T) {
	f64 := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: N, TransB: T, AlignA: 2, AlignB: 2, AlignC: 2}
	f16 := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	f16acc := f16
	f16acc.Compute = F16
	f32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: T, TransB: N, AlignA: 4, AlignB: 4, AlignC: 4, AllowTF32: true}
	f32nt := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: T, AlignA: 4, AlignB: 4, AlignC: 4}
	bf16 := InputClass{AType: BF16, BType: BF16, CType: BF16, Compute: F32, TransA: T, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, tc := range []struct {
		cfg     string
		in      InputClass
		m, n, k int
	}{
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=mma_f16", f16, 100, 70, 203},
		{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16", bf16, 64, 64, 128},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=2,math=mma_bf16", bf16, 64, 64, 100},
		{"ms=1,ns=2,ml=32,nl=32,u=32,ks=2,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16", bf16, 40, 40, 300},
		{"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=2,math=mma_tf32", f32, 32, 32, 48},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", f16, 64, 64, 200},
		{"ms=2,ns=2,ml=64,nl=32,u=32,ks=1,kl=2,kg=1,va=8,vb=8,st=4,math=mma_f16acc", f16acc, 64, 32, 256},
		{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32", f32, 64, 64, 96},
		{"ms=8,ns=8,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma", f32nt, 64, 128, 40},
		{"ms=8,ns=16,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=ffma", f32nt, 64, 128, 33},
		{"ms=4,ns=8,ml=64,nl=32,u=32,ks=2,kl=2,kg=1,va=4,vb=4,st=2,math=ffma", f32, 64, 32, 128},
		{"ms=4,ns=4,ml=32,nl=32,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=dfma", f64, 32, 32, 64},
		{"ms=4,ns=8,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=ffma", bf16, 64, 64, 80},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=hfma", f16acc, 64, 64, 64},
		// splits: block (0, 0, 0) runs its share of K
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=4,math=mma_f16", f16, 64, 64, 160},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=3,va=8,vb=8,st=3,math=mma_f16", f16, 64, 64, 400},
	} {
		comparePipelined(t, mustParse(t, tc.cfg), tc.in, tc.m, tc.n, tc.k)
	}
}

// The wgmma loop (descriptors, reads in flight until wgmma.wait_group):
// every tile read whole and in order, no copy into a stage a wgmma group
// still reads or that was read since the last barrier; chosen
// configurations (swizzled and core-matrix tiles, both operand layouts,
// two warpgroups, grid and cluster splits) and 20 random ones.
func TestWarpgroupPipelineSimulated(t *testing.T) {
	nn := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	tt := InputClass{AType: BF16, BType: BF16, CType: BF16, Compute: F32, TransA: T, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, tc := range []struct {
		cfg     string
		in      InputClass
		m, n, k int
	}{
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", nn, 64, 64, 300},
		{"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=5,math=wgmma_f16", nn, 100, 64, 200},
		{"ms=2,ns=16,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", nn, 128, 256, 256},
		{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=3,va=8,vb=8,st=4,math=wgmma_bf16", tt, 128, 64, 900},
		{"ms=1,ns=4,ml=64,nl=32,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=3,math=wgmma_bf16", tt, 64, 32, 512},
	} {
		checkLoop(t, mustParse(t, tc.cfg), tc.in, tc.m, tc.n, tc.k)
	}
}

func withPP(c GemmConfig) GemmConfig {
	c.PP = 1
	return c
}

// comparePipelined checks plain's loop in the simulation (each tile read
// whole, in order) on an m×n×k input, then its pipelined twin's against it
// instruction by instruction.
func comparePipelined(t *testing.T, plain GemmConfig, in InputClass, m, n, k int) {
	t.Helper()
	want := checkLoop(t, plain, in, m, n, k)
	pp := withPP(plain)
	if err := Legal(pp, in, H100()); err != nil {
		t.Fatalf("%s: %v", pp, err)
	}
	got := simulateConfig(t, pp, in, m, n, k)
	for th := range got {
		if len(got[th]) != len(want[th]) {
			t.Fatalf("%s: %d math instructions, the plain loop %d", pp, len(got[th]), len(want[th]))
		}
		for i := range got[th] {
			if got[th][i] != want[th][i] {
				t.Fatalf("%s: math instruction %d reads %s, the plain loop's %s", pp, i, got[th][i], want[th][i])
			}
		}
	}
}

// checkLoop runs cfg's loop in the simulation on an m×n×k input and checks
// that it reads each tile whole and in order; it returns what each
// simulated thread's math instructions read.
func checkLoop(t *testing.T, plain GemmConfig, in InputClass, m, n, k int) [][]string {
	t.Helper()
	if err := Legal(plain, in, H100()); err != nil {
		t.Fatalf("%s: %v", plain, err)
	}
	g := newGeometry(plain, in)
	perTile := (g.uk / g.mmaK) * plain.MS * plain.NS
	switch {
	case plain.Math.IsWGMMA():
		perTile = plain.U / g.mmaK * plain.MS
	case !plain.Math.IsMMA():
		perTile = g.uk * plain.MS * plain.NS
	}
	want := simulateConfig(t, plain, in, m, n, k)
	for _, math := range want {
		tiles := ceilDiv(k, plain.U)
		if plain.KG > 1 || plain.KC > 1 {
			tiles = max(len(math)/perTile, 1) // block (0, 0, 0)'s share of K
		}
		if len(math) != tiles*perTile {
			t.Fatalf("%s: %d math instructions, want %d tiles × %d", plain, len(math), tiles, perTile)
		}
		for i, s := range math {
			if !strings.HasPrefix(s, fmt.Sprintf("tile %d:", i/perTile)) {
				t.Fatalf("%s: math instruction %d reads %s, want tile %d", plain, i, s, i/perTile)
			}
		}
	}
	return want
}
