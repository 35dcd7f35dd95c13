package ptx

import (
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// ptxInstr is one instruction of a kernel body: its opcode and the
// registers it writes and reads.
type ptxInstr struct {
	op         string
	defs, uses []string
	text       string
}

var ptxReg = regexp.MustCompile(`%[a-z]+[0-9]+`)

// parseInstr splits one PTX instruction line (no predicate handling beyond
// dropping it): the first operand, or the first brace list, is written;
// for mma.sync the accumulators are read as well.
func parseInstr(line string) (ptxInstr, bool) {
	line = strings.TrimSpace(line)
	if line == "" || strings.HasPrefix(line, "//") || strings.HasSuffix(line, ":") || strings.HasPrefix(line, ".") {
		return ptxInstr{}, false
	}
	line = strings.TrimSuffix(line, ";")
	if strings.HasPrefix(line, "@") {
		_, line, _ = strings.Cut(line, " ")
	}
	op, rest, _ := strings.Cut(line, " ")
	in := ptxInstr{op: op, text: line}
	rest = strings.TrimSpace(rest)
	var first string
	if strings.HasPrefix(rest, "{") {
		end := strings.Index(rest, "}")
		first, rest = rest[:end+1], rest[end+1:]
	} else {
		first, rest, _ = strings.Cut(rest, ",")
	}
	in.defs = ptxReg.FindAllString(first, -1)
	in.uses = ptxReg.FindAllString(rest, -1)
	if strings.HasPrefix(op, "mma.") || strings.HasPrefix(op, "st.") || strings.HasPrefix(op, "cp.") || strings.HasPrefix(op, "bar.") {
		in.uses = append(in.uses, in.defs...)
		if !strings.HasPrefix(op, "mma.") {
			in.defs = nil
		}
	}
	return in, true
}

// mainLoop is the body of the kernel's main loop: the instructions between
// the label $L_loop_N and its back branch.
func mainLoop(t *testing.T, ptx string) []ptxInstr {
	t.Helper()
	lines := strings.Split(ptx, "\n")
	start, label := -1, ""
	for i, l := range lines {
		if strings.HasPrefix(l, "$L_loop_") && strings.HasSuffix(l, ":") {
			start, label = i, strings.TrimSuffix(l, ":")
			break
		}
	}
	if start < 0 {
		t.Fatal("no main loop label")
	}
	var body []ptxInstr
	for _, l := range lines[start+1:] {
		if strings.Contains(l, "bra.uni "+label+";") {
			return body
		}
		if in, ok := parseInstr(l); ok {
			body = append(body, in)
		}
	}
	t.Fatalf("no back branch to %s", label)
	return nil
}

// The pipelined loop (GemmConfig.PP), mma.sync and SIMT, issues the next tile's copies first,
// computes every k-step of the tile with fragments loaded before it, waits
// for the next tile and passes the block's barrier before the tile's last
// mma instructions, loads the next tile's first k-step after that barrier
// (and the last step's mma instructions use none of those registers), and
// carries those fragments around the loop into the registers the first
// step's mma instructions read.
func TestLoopPipelined(t *testing.T) {
	f64 := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: N, TransB: T, AlignA: 2, AlignB: 2, AlignC: 2}
	f16 := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	f16acc := f16
	f16acc.Compute = F16
	bf16 := InputClass{AType: BF16, BType: BF16, CType: BF16, Compute: F32, TransA: T, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	f32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: T, TransB: N, AlignA: 4, AlignB: 4, AlignC: 4, AllowTF32: true}
	for _, tc := range []struct {
		cfg string
		in  InputClass
	}{
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=4,math=mma_f16,pp=1", f16},
		{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16,pp=1", bf16},
		{"ms=1,ns=2,ml=32,nl=32,u=32,ks=2,kl=1,kg=3,va=8,vb=8,st=3,math=mma_bf16,pp=1", bf16},
		{"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=2,math=mma_tf32,pp=1", f32},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16,pp=1", f16},
		{"ms=2,ns=2,ml=64,nl=32,u=32,ks=1,kl=2,kg=1,va=8,vb=8,st=4,math=mma_f16acc,pp=1", f16acc},
		{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32,pp=1", f32},
		// SIMT: f32, f64, f16 widened to f32, f16
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=ffma,pp=1", f16},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=hfma,pp=1", f16acc},
		{"ms=4,ns=8,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=ffma,pp=1", bf16},
		{"ms=8,ns=8,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,pp=1", f32},
		{"ms=4,ns=8,ml=64,nl=32,u=32,ks=2,kl=2,kg=1,va=4,vb=4,st=2,math=ffma,pp=1", f32},
		{"ms=4,ns=4,ml=32,nl=32,u=8,ks=1,kl=1,kg=4,va=2,vb=2,st=4,math=dfma,pp=1", f64},
	} {
		cfg := mustParse(t, tc.cfg)
		if err := Legal(cfg, tc.in, H100()); err != nil {
			t.Fatalf("%s: %v", tc.cfg, err)
		}
		k, err := GenerateGemm(cfg, tc.in, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		body := mainLoop(t, k.PTX)
		g := newGeometry(cfg, tc.in)
		steps, perStep := g.uk/g.mmaK, cfg.MS*cfg.NS
		if !cfg.Math.IsMMA() {
			steps, perStep = g.uk/g.simtVK(), g.simtVK()*cfg.MS*cfg.NS
		}
		var mmas, bars, waits []int
		for i, in := range body {
			switch {
			case strings.HasPrefix(in.op, "mma.") || strings.HasPrefix(in.op, "fma."):
				mmas = append(mmas, i)
			case in.op == "bar.sync":
				bars = append(bars, i)
			case in.op == "cp.async.wait_group":
				waits = append(waits, i)
			}
		}
		if len(mmas) != steps*perStep {
			t.Fatalf("%s: %d mma/fma instructions in the loop, want %d steps × %d", tc.cfg, len(mmas), steps, perStep)
		}
		if len(bars) != 1 || len(waits) != 1 || waits[0] > bars[0] || !strings.HasSuffix(body[waits[0]].text, " "+strconv.Itoa(cfg.Stages-2)) {
			t.Fatalf("%s: want one cp.async.wait_group %d then one bar.sync in the loop, got waits %v bars %v", tc.cfg, cfg.Stages-2, waits, bars)
		}
		bar := bars[0]
		if commit := indexOp(body, "cp.async.commit_group"); commit < 0 || commit > mmas[0] {
			t.Fatalf("%s: the next tile's copies are not issued before the tile's math", tc.cfg)
		}
		last := mmas[len(mmas)-perStep:]
		if last[0] < bar {
			t.Fatalf("%s: the last step's mma instructions come before the barrier", tc.cfg)
		}
		for _, j := range mmas[:len(mmas)-perStep] {
			if j > bar {
				t.Fatalf("%s: an mma of an earlier step after the barrier", tc.cfg)
			}
		}
		// the carried registers: read by the first step, written only by
		// the moves at the end of the loop, from the next tile's loads
		carried := map[string]bool{}
		for _, j := range mmas[:perStep] {
			for _, u := range fragOperands(body[j]) {
				carried[u] = true
			}
		}
		// definitions after the barrier (but the moves into the carried
		// registers): the next tile's first step
		after := map[string]bool{}
		for _, in := range body[bar+1:] {
			if strings.HasPrefix(in.op, "mma.") || strings.HasPrefix(in.op, "fma.") {
				continue
			}
			for _, d := range in.defs {
				if !carried[d] {
					after[d] = true
				}
			}
		}
		for _, j := range last {
			for _, u := range fragOperands(body[j]) {
				if after[u] {
					t.Fatalf("%s: the last step's mma reads %s, loaded after the barrier: %s", tc.cfg, u, body[j].text)
				}
			}
		}
		for i, in := range body {
			for _, d := range in.defs {
				if !carried[d] {
					continue
				}
				if i < mmas[len(mmas)-1] || !strings.HasPrefix(in.op, "mov.") {
					t.Fatalf("%s: carried fragment %s written by %q inside the loop", tc.cfg, d, in.text)
				}
				if src := in.uses[0]; !after[src] {
					t.Fatalf("%s: carried fragment %s comes from %s, not from the next tile's loads", tc.cfg, d, src)
				}
				delete(carried, d)
			}
		}
		if len(carried) != 0 {
			t.Fatalf("%s: %d carried fragment registers never refilled in the loop", tc.cfg, len(carried))
		}
	}
}

// fragOperands are the A and B fragment registers an mma (or a SIMT fma)
// reads, not its accumulators.
func fragOperands(in ptxInstr) []string {
	if strings.HasPrefix(in.op, "fma.") {
		return in.uses[:2] // fma d, a, b, c
	}
	// mma d, {a}, {b}, c: uses holds a, b, c, then d again
	_, rest, _ := strings.Cut(in.text, "}")
	rest = rest[:strings.LastIndex(rest, "{")]
	return ptxReg.FindAllString(rest, -1)
}

func indexOp(body []ptxInstr, op string) int {
	for i, in := range body {
		if in.op == op {
			return i
		}
	}
	return -1
}
