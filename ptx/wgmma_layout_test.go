package ptx

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// This file checks the wgmma kernels' shared-memory layouts without a GPU.
// It evaluates the emitted PTX of the pipeline prologue for every thread,
// decodes each cp.async of the first tile into the (m/n, k) element of the
// operand it copies and the shared byte it writes, and compares that byte
// with the PTX ISA's canonical layout ("Shared Memory Matrix Layout") of
// the descriptor the kernel builds: the LBO, SBO and swizzle mode are read
// from the emitted descriptor, and the instructions' start offsets from the
// emitted descriptor additions. The canonical layouts here are the ground
// truth that TestGPUWarpgroupLayout (engine) verified on an H100.

// canonicalOffset is the byte offset of element (mn, k) of es bytes of a
// tile in a canonical layout (T = 16/es elements per 16 bytes), before the
// 128-byte swizzle (swizzle applies it: bits 4–6 ^= bits 7–9).
func canonicalOffset(kMajor, swizzle bool, lbo, sbo, mn, k, es int) int {
	t := 16 / es
	var off int
	switch {
	case kMajor && !swizzle: // ((8,m),(T,2k)):((1T,SBO),(1,LBO))
		off = mn%8*16 + mn/8*sbo + k%t*es + k/t*lbo
	case !kMajor && !swizzle: // ((T,1,m),(8,k)):((1,T,SBO),(1T,LBO))
		off = mn%t*es + mn/t*sbo + k%8*16 + k/8*lbo
	case kMajor: // 128B: ((8,m),(T,2k)):((8T,SBO),(1,T))
		off = mn%8*128 + mn/8*sbo + k*es
	default: // 128B: ((T,8,m),(8,k)):((1,T,LBO),(8T,SBO))
		off = mn%(8*t)*es + mn/(8*t)*lbo + k%8*128 + k/8*sbo
	}
	return off
}

func swizzle128(off int) int { return off ^ (off>>7&7)<<4 }

// evalPrologue evaluates the integer and address arithmetic of prog for one
// thread up to the first cp.async.commit_group and returns, for each
// cp.async, its shared destination and global source (0-based operands,
// leading dimension ld for every operand).
func evalPrologue(prog []string, tid int, ld int64) (dst, src []int64, err error) {
	v := map[string]int64{}
	val := func(a string) (int64, bool) {
		a = strings.Trim(a, "[]")
		switch a {
		case "%tid.x":
			return int64(tid), true
		case "%ctaid.x", "%ctaid.y", "%ctaid.z":
			return 0, true
		case "%nctaid.x", "%nctaid.y", "%nctaid.z":
			return 1, true
		case smemSymbol:
			return 0, true
		}
		if x, err := strconv.ParseInt(a, 0, 64); err == nil {
			return x, true
		}
		x, ok := v[a]
		return x, ok
	}
	for _, ln := range prog {
		ln = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(ln), ";"))
		if strings.HasPrefix(ln, "@") { // predicated: the thread's copy may be off; evaluate it anyway
			ln = strings.TrimSpace(ln[strings.Index(ln, " "):])
		}
		sp := strings.IndexByte(ln, ' ')
		if sp < 0 {
			if ln == "cp.async.commit_group" {
				return dst, src, nil
			}
			continue
		}
		op, rest := ln[:sp], ln[sp+1:]
		var args []string
		for _, a := range strings.Split(rest, ",") {
			args = append(args, strings.TrimSpace(a))
		}
		if strings.HasPrefix(op, "cp.async.") && strings.Contains(op, ".shared.global") {
			d, ok1 := val(args[0])
			s, ok2 := val(args[1])
			if !ok1 || !ok2 {
				return nil, nil, fmt.Errorf("cp.async operands unknown: %s", ln)
			}
			dst, src = append(dst, d), append(src, s)
			continue
		}
		if op == "ld.param.s32" {
			switch args[1] {
			case "[p_lda]", "[p_ldb]", "[p_ldc]":
				v[args[0]] = ld
			default:
				v[args[0]] = 1 << 12 // M, N, K: no edge in the first tile
			}
			continue
		}
		if op == "ld.param.u64" {
			v[args[0]] = 0
			continue
		}
		if op == "selp.b64" { // the source pointer: the vector's own when it has elements
			if x, ok := val(args[1]); ok {
				v[args[0]] = x
			} else {
				delete(v, args[0])
			}
			continue
		}
		var x []int64
		ok := true
		for _, a := range args[1:] {
			y, good := val(a)
			if !good {
				ok = false
				break
			}
			x = append(x, y)
		}
		if !ok || len(x) == 0 {
			delete(v, args[0])
			continue
		}
		var r int64
		switch op {
		case "mov.u32", "mov.b32", "cvta.to.global.u64", "cvt.s64.s32", "cvt.u64.u32":
			r = x[0]
		case "and.b32":
			r = x[0] & x[1]
		case "xor.b32":
			r = x[0] ^ x[1]
		case "shr.u32", "shr.s32":
			r = x[0] >> x[1]
		case "shl.b32", "shl.b64":
			r = x[0] << x[1]
		case "add.s32", "add.u32", "add.s64":
			r = x[0] + x[1]
		case "sub.s32", "sub.u32":
			r = x[0] - x[1]
		case "mul.lo.s32", "mul.lo.u32", "mul.wide.s32":
			r = x[0] * x[1]
		case "mad.lo.s32", "mad.lo.u32":
			r = x[0]*x[1] + x[2]
		case "min.s32", "min.u32":
			r = min(x[0], x[1])
		case "max.s32":
			r = max(x[0], x[1])
		case "div.u32":
			r = x[0] / x[1]
		case "rem.u32":
			r = x[0] % x[1]
		default:
			delete(v, args[0])
			continue
		}
		v[args[0]] = r
	}
	return nil, nil, fmt.Errorf("no cp.async.commit_group")
}

// checkWarpgroupLayout verifies (cfg, in): every element of the first tile
// is written once, to its canonical byte; the quarter warps' copies hit
// eight distinct 16-byte bank groups; the instructions start where the
// canonical layout puts their first element.
func checkWarpgroupLayout(cfg GemmConfig, in InputClass) error {
	k, err := GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		return err
	}
	g := newGeometry(cfg, in)
	lines := strings.Split(k.PTX, "\n")
	// the descriptors' constant parts, A's then B's
	var hi []uint64
	for _, ln := range lines {
		if i := strings.Index(ln, "or.b64"); i >= 0 {
			f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(ln), ";"))
			x, err := strconv.ParseUint(f[len(f)-1], 0, 64)
			if err != nil {
				return err
			}
			hi = append(hi, x)
		}
	}
	if len(hi) != 2 {
		return fmt.Errorf("%d descriptors, want 2", len(hi))
	}
	const ld = 1 << 16
	ops := []operandGeom{g.a, g.b}
	written := []map[[2]int]int{{}, {}}
	dsts := make([][]int64, g.threads)
	if cfg.TMA == 1 {
		// The copy engine's boxes (their places and coordinates are
		// TestTMAPipelineSimulated's) with the tensor maps' 128-byte
		// swizzle: element (i, j) of a box at line j, byte i·es of the
		// line, 16-byte chunk c of line j at chunk c ^ j%8.
		var err error
		if written, err = tmaWrites(k, g); err != nil {
			return err
		}
	}
	for tid := 0; tid < g.threads && cfg.TMA != 1; tid++ {
		dst, src, err := evalPrologue(lines, tid, ld)
		if err != nil {
			return err
		}
		dsts[tid] = dst
		if len(dst) != g.a.loads+g.b.loads {
			return fmt.Errorf("thread %d: %d copies in the first tile, want %d", tid, len(dst), g.a.loads+g.b.loads)
		}
		for c := range dst {
			oi := 0
			if c >= g.a.loads {
				oi = 1
			}
			o := ops[oi]
			e := src[c] / int64(g.es)
			outer, inner := int(e/ld), int(e%ld)
			mn, kk := inner, outer
			if o.kContig {
				mn, kk = outer, inner
			}
			if mn >= o.mn || kk >= cfg.U {
				continue // a vector past the tile (predicated off)
			}
			for j := 0; j < o.vec; j++ {
				em, ek := mn, kk+j
				if !o.kContig {
					em, ek = mn+j, kk
				}
				key := [2]int{em, ek}
				if _, dup := written[oi][key]; dup {
					return fmt.Errorf("operand %d element %v copied twice", oi, key)
				}
				written[oi][key] = int(dst[c]) + j*g.es
			}
		}
	}
	for oi, o := range ops {
		lbo, sbo := int(hi[oi]>>16&0x3FFF)<<4, int(hi[oi]>>32&0x3FFF)<<4
		sw := hi[oi]>>62 == 1
		if len(written[oi]) != o.mn*cfg.U {
			return fmt.Errorf("operand %d: %d elements written, want %d", oi, len(written[oi]), o.mn*cfg.U)
		}
		for key, got := range written[oi] {
			want := o.offset + canonicalOffset(o.kContig, sw, lbo, sbo, key[0], key[1], g.es)
			if sw {
				want = o.offset + swizzle128(want-o.offset)
			}
			if got != want {
				return fmt.Errorf("operand %d (k-major %v, swizzle %v, lbo %d, sbo %d): element %v at byte %d, canonical %d", oi, o.kContig, sw, lbo, sbo, key, got, want)
			}
		}
	}
	// Bank groups of each quarter warp's copies (same copy index).
	for c := 0; c < g.a.loads+g.b.loads && cfg.TMA != 1; c++ {
		for q := 0; q < g.threads/8; q++ {
			seen := map[int64]bool{}
			for t := 8 * q; t < 8*q+8; t++ {
				seen[dsts[t][c]/16%8] = true
			}
			if len(seen) != 8 {
				return fmt.Errorf("copy %d, quarter warp %d: %d bank groups of 8", c, q, len(seen))
			}
		}
	}
	// Instruction start offsets: the additions to the descriptors in the
	// first tile, per k-step B's then A's for each of the MS instructions.
	var imms []int
	inTile := false
	for _, ln := range lines {
		switch {
		case strings.Contains(ln, "wgmma.fence"):
			inTile = true
		case strings.Contains(ln, "wgmma.commit_group"):
			inTile = false
		case inTile && strings.Contains(ln, "add.s64"):
			f := strings.Fields(strings.TrimSuffix(strings.TrimSpace(ln), ";"))
			x, err := strconv.Atoi(f[len(f)-1])
			if err != nil {
				return fmt.Errorf("descriptor addition %q", ln)
			}
			imms = append(imms, x)
		}
		if len(imms) > 0 && !inTile {
			break
		}
	}
	var want []int
	for ks := 0; ks < cfg.U; ks += g.mmaK {
		b := ops[1]
		want = append(want, canonicalOffset(b.kContig, hi[1]>>62 == 1, int(hi[1]>>16&0x3FFF)<<4, int(hi[1]>>32&0x3FFF)<<4, 0, ks, g.es)>>4)
		for mi := 0; mi < cfg.MS; mi++ {
			a := ops[0]
			want = append(want, canonicalOffset(a.kContig, hi[0]>>62 == 1, int(hi[0]>>16&0x3FFF)<<4, int(hi[0]>>32&0x3FFF)<<4, mi*64, ks, g.es)>>4)
		}
	}
	if fmt.Sprint(imms) != fmt.Sprint(want) {
		return fmt.Errorf("descriptor additions %v, canonical %v", imms, want)
	}
	return nil
}

// tmaWrites is where the copy engine writes the elements of the first tile
// of each operand: box b of an operand lands at the operand's offset +
// b·(its bytes), the box of a k-contiguous tile starts at (k 0, m/n 0), the
// b-th box of an m/n-contiguous tile at (m/n 64·b, k 0), and the box's
// element (i inner, j outer) goes to byte j·128 + i·es of the box, swizzled
// (the tiles are 1024-byte aligned).
func tmaWrites(k *Kernel, g geometry) ([]map[[2]int]int, error) {
	if len(k.TensorMaps) != 2 {
		return nil, fmt.Errorf("%d tensor maps, want 2", len(k.TensorMaps))
	}
	out := []map[[2]int]int{{}, {}}
	for oi, o := range []operandGeom{g.a, g.b} {
		tm := k.TensorMaps[oi]
		if tm.KInner != o.kContig || tm.Box[0]*g.es != 128 || tm.Box[1] != o.lo {
			return nil, fmt.Errorf("operand %d: tensor map %+v for a tile %d×%d (k-contiguous %v)", oi, tm, o.lc, o.lo, o.kContig)
		}
		boxBytes, boxes := 128*o.lo, 1
		if !o.kContig {
			boxes = o.atoms
		}
		for b := 0; b < boxes; b++ {
			for j := 0; j < tm.Box[1]; j++ {
				for i := 0; i < tm.Box[0]; i++ {
					mn, kk := j, i
					if !o.kContig {
						mn, kk = 64*b+i, j
					}
					key := [2]int{mn, kk}
					if _, dup := out[oi][key]; dup {
						return nil, fmt.Errorf("operand %d element %v copied twice", oi, key)
					}
					out[oi][key] = o.offset + b*boxBytes + swizzle128(j*128+i*g.es)
				}
			}
		}
	}
	return out, nil
}

// TestWarpgroupLayout checks the layouts of wgmma configurations of every
// class wgmma serves (16-bit, and f32 read as tf32): both operand majors, swizzled and unswizzled tiles, one and
// two instructions per warpgroup along m, one to four warpgroups.
func TestWarpgroupLayout(t *testing.T) {
	t.Parallel()
	cfgs := []string{
		"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4",
		"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4",
		"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=5",
		"ms=1,ns=2,ml=64,nl=16,u=64,ks=1,kl=1,kg=8,va=8,vb=8,st=3",
		"ms=1,ns=1,ml=64,nl=8,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3",
		"ms=2,ns=4,ml=128,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3",
	}
	n := checkLayouts(t, cfgs, false)
	t.Logf("%d wgmma configurations checked", n)
}

// TestTMALayout checks where the copy engine's boxes put every element of
// the first tile against the canonical layout of the descriptors the TMA
// kernels build, for every 16-bit class and both operand majors: one and
// several 64-element columns of m/n-contiguous tiles, one and two
// instructions per warpgroup along m, wide and skinny tiles.
func TestTMALayout(t *testing.T) {
	cfgs := []string{
		"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4",
		"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3",
		"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=5",
		"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5",
		"ms=2,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4",
	}
	n := checkLayouts(t, cfgs, true)
	if n < 40 {
		t.Fatalf("only %d TMA configurations checked", n)
	}
	t.Logf("%d TMA configurations checked", n)
}

// checkLayouts runs checkWarpgroupLayout on every configuration of cfgs
// (with each class's first wgmma math) for every class wgmma serves, and
// returns how many it checked. Every configuration must be legal; with tma
// the TMA twins are checked, and a class whose tiles the copy engine cannot
// stage is skipped.
func checkLayouts(t *testing.T, cfgs []string, tma bool) int {
	t.Helper()
	n := 0
	for _, in := range Classes() {
		maths := warpgroupMaths(in)
		if len(maths) == 0 {
			continue
		}
		for _, cs := range cfgs {
			cfg := mustParse(t, cs+",math="+maths[0].String())
			if es := in.AType.Size(); es > 2 {
				// The same lines in bytes: 16-byte vectors, k-slices of
				// as many bytes (at least 16 elements).
				cfg.VecA, cfg.VecB = 16/es, 16/es
				cfg.U = max(cfg.U*2/es, 16)
			}
			if cfg.Math == WGMMA_TF32 && (in.TransA != T || in.TransB != N) {
				continue // no transposes for 32-bit inputs
			}
			if tma {
				cfg = withTMA(cfg)
			}
			if err := Legal(cfg, in, H100()); err != nil {
				if tma {
					continue // an m/n-contiguous B narrower than 64 columns
				}
				t.Fatalf("%s %s: %v", cfg, in, err)
			}
			if err := checkWarpgroupLayout(cfg, in); err != nil {
				t.Errorf("%s %s: %v", cfg, in, err)
			}
			n++
		}
	}
	return n
}

// warpgroupMaths are the wgmma maths of a class whose operands allow the
// 16-byte vectors the wgmma kernels load (none otherwise).
func warpgroupMaths(in InputClass) []Math {
	v := 16 / in.AType.Size()
	if in.AlignA < v || in.AlignB < v {
		return nil
	}
	return WarpgroupMathsFor(in)
}
