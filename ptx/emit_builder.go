package ptx

import (
	"fmt"
	"strings"
)

// regKind is a PTX virtual register class.
type regKind int

const (
	kPred regKind = iota
	kB16
	kB32
	kB64
	kF32
	kF64
	nRegKinds
)

var regPrefix = [nRegKinds]string{"%p", "%h", "%r", "%rd", "%f", "%fd"}
var regDecl = [nRegKinds]string{".pred", ".b16", ".b32", ".b64", ".f32", ".f64"}

// builder accumulates the body of one PTX entry function: it allocates
// virtual registers and labels and formats instructions. ptxas does the real
// register allocation, so registers are never reused.
type builder struct {
	body   strings.Builder
	n      [nRegKinds]int
	labels int
}

func (b *builder) reg(k regKind) string {
	r := fmt.Sprintf("%s%d", regPrefix[k], b.n[k])
	b.n[k]++
	return r
}

func (b *builder) regs(k regKind, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = b.reg(k)
	}
	return out
}

// movRegs copies src[i][j] into dst[i][j], registers of class k.
func (b *builder) movRegs(k regKind, dst, src [][]string) {
	ty := strings.TrimPrefix(regDecl[k], ".")
	for i := range dst {
		for j := range dst[i] {
			b.ins("mov.%s %s, %s", ty, dst[i][j], src[i][j])
		}
	}
}

// ins emits one instruction (the trailing semicolon is added).
func (b *builder) ins(format string, args ...any) {
	b.body.WriteByte('\t')
	fmt.Fprintf(&b.body, format, args...)
	b.body.WriteString(";\n")
}

// insP emits an instruction guarded by predicate pred ("" = unguarded;
// a leading '!' negates).
func (b *builder) insP(pred string, format string, args ...any) {
	if pred == "" {
		b.ins(format, args...)
		return
	}
	fmt.Fprintf(&b.body, "\t@%s ", pred)
	fmt.Fprintf(&b.body, format, args...)
	b.body.WriteString(";\n")
}

func (b *builder) comment(format string, args ...any) {
	b.body.WriteString("\t// ")
	fmt.Fprintf(&b.body, format, args...)
	b.body.WriteByte('\n')
}

func (b *builder) newLabel(prefix string) string {
	b.labels++
	return fmt.Sprintf("$L_%s_%d", prefix, b.labels)
}

func (b *builder) label(l string) { fmt.Fprintf(&b.body, "%s:\n", l) }

// decls returns the register declarations for everything allocated so far.
func (b *builder) decls() string {
	var s strings.Builder
	for k := regKind(0); k < nRegKinds; k++ {
		if b.n[k] > 0 {
			fmt.Fprintf(&s, "\t.reg %s %s<%d>;\n", regDecl[k], regPrefix[k], b.n[k])
		}
	}
	return s.String()
}

// vec formats a PTX vector operand {a, b, ...} (or a plain register).
func vec(regs []string) string {
	if len(regs) == 1 {
		return regs[0]
	}
	return "{" + strings.Join(regs, ", ") + "}"
}

// braces formats a PTX vector operand, braced even for one register.
func braces(regs []string) string { return "{" + strings.Join(regs, ", ") + "}" }

// vsuffix is ".vN" for N > 1, "" for 1.
func vsuffix(n int) string {
	if n == 1 {
		return ""
	}
	return fmt.Sprintf(".v%d", n)
}

// addr formats [reg+imm].
func addr(reg string, imm int) string {
	if imm == 0 {
		return "[" + reg + "]"
	}
	return fmt.Sprintf("[%s+%d]", reg, imm)
}

func log2(v int) int {
	n := 0
	for v > 1 {
		v >>= 1
		n++
	}
	return n
}

// Helpers for common sequences.

// mulImm sets d = a * imm (s32), using a shift for powers of two.
func (b *builder) mulImm(a string, imm int) string {
	d := b.reg(kB32)
	switch {
	case imm == 1:
		b.ins("mov.b32 %s, %s", d, a)
	case isPow2(imm):
		b.ins("shl.b32 %s, %s, %d", d, a, log2(imm))
	default:
		b.ins("mul.lo.s32 %s, %s, %d", d, a, imm)
	}
	return d
}

func (b *builder) add32(a, c string) string {
	d := b.reg(kB32)
	b.ins("add.s32 %s, %s, %s", d, a, c)
	return d
}

func (b *builder) addImm32(a string, imm int) string {
	if imm == 0 {
		return a
	}
	d := b.reg(kB32)
	b.ins("add.s32 %s, %s, %d", d, a, imm)
	return d
}

// elemAddr64 returns base + (contig + other*ld) * es as a 64-bit address.
func (b *builder) elemAddr64(base, contig, other, ld string, es int) string {
	w := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %s", w, other, ld)
	c := b.reg(kB64)
	b.ins("cvt.s64.s32 %s, %s", c, contig)
	s := b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", s, w, c)
	if es > 1 {
		b.ins("shl.b64 %s, %s, %d", s, s, log2(es))
	}
	d := b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", d, base, s)
	return d
}
