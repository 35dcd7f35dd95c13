package ptx

import "fmt"

// Activation is an elementwise function an epilogue applies last.
type Activation int

const (
	ActNone Activation = iota
	ActReLU            // max(x, 0), NaN kept
	ActGELU            // the tanh form: x/2·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
)

// Epilogue is what a GEMM kernel does to r = alpha·op(A)·op(B) + beta·C
// before it writes it (cuBLASLt's epilogues): add bias[i] to row i of r,
// then apply Act; and write it to D rather than over C, D lying at a fixed
// byte offset from C with C's layout (cublasLtMatmul with C ≠ D).
type Epilogue struct {
	Bias       bool
	Act        Activation
	OutOfPlace bool
}

// String is the epilogue's addition to kernel names ("" for none).
func (e Epilogue) String() string {
	if e == (Epilogue{}) {
		return ""
	}
	s := "_e"
	if e.Bias {
		s += "b"
	}
	s += [...]string{"", "r", "g"}[e.Act]
	if e.OutOfPlace {
		s += "d"
	}
	return s
}

// valid reports an epilogue the generator emits for class in.
func (e Epilogue) valid(in InputClass) error {
	switch {
	case e.Act < ActNone || e.Act > ActGELU:
		return fmt.Errorf("ptx: unknown activation %d", e.Act)
	case e != (Epilogue{}) && in.Conv != NotConv:
		return fmt.Errorf("ptx: a convolution has no GEMM epilogue")
	case e.Act == ActGELU && in.Compute == F64:
		return fmt.Errorf("ptx: GELU is an f32 epilogue")
	}
	return nil
}

// epilogueParamsOf are the parameters an epilogue adds after the others:
// D's byte offset from C (out of place) and the bias vector (C's type, one
// element per row of C).
func epilogueParamsOf(in InputClass) []Param {
	var out []Param
	if in.Epi.OutOfPlace {
		out = append(out, Param{"dOffset", ".s64", 8})
	}
	if in.Epi.Bias {
		out = append(out, Param{"bias", ".u64", 8})
	}
	return out
}

// epilogueLegal: an epilogue is applied where the kernel writes C itself,
// so not with a grid split of the reduction (its partials are summed by a
// fixup or a second kernel).
func epilogueLegal(cfg GemmConfig, in InputClass) error {
	if err := in.Epi.valid(in); err != nil {
		return illegal("%v", err)
	}
	if in.Epi != (Epilogue{}) && cfg.KG > 1 && !serialSplit(newGeometry(cfg, in)) {
		// The last block of a tile applies the epilogue in the one-pass
		// fixup; the separate reduction kernel takes no epilogue.
		return illegal("ptx: an epilogue (%s) with a two-pass grid split of the reduction (kg=%d)", in.Epi, cfg.KG)
	}
	return nil
}

// rowRef is the row of C an epilogue value belongs to: register reg plus
// imm ("" where the epilogue needs no row: no bias).
type rowRef struct {
	reg string
	imm int
}

// loadEpilogue reads the class's epilogue parameters into e.
func (e *epiOps) loadEpilogue(b *builder, in InputClass) {
	e.act = in.Epi.Act
	if in.Epi.OutOfPlace {
		e.dOff = b.reg(kB64)
		b.ins("ld.param.s64 %s, [p_dOffset]", e.dOff)
	}
	if in.Epi.Bias {
		p := b.reg(kB64)
		b.ins("ld.param.u64 %s, [p_bias]", p)
		e.bias = b.reg(kB64)
		b.ins("cvta.to.global.u64 %s, %s", e.bias, p)
	}
}

// post is v (the epilogue type) after the class's epilogue: plus the bias
// of its row (loaded under pred, "" for always), then the activation.
func (e epiOps) post(b *builder, v string, row rowRef, pred string) string {
	s, k := epiSuffix(e.t), epiKind(e.t)
	if e.bias != "" {
		if row.reg == "" {
			panic("ptx: an epilogue with a bias needs the row")
		}
		r := b.addImm32(row.reg, row.imm)
		a := b.reg(kB64)
		b.ins("mul.wide.s32 %s, %s, %d", a, r, e.cType.Size())
		b.ins("add.s64 %s, %s, %s", a, e.bias, a)
		bv := b.reg(k)
		if e.t == F64 {
			b.ins("mov.f64 %s, 0d0000000000000000", bv)
		} else {
			b.ins("mov.f32 %s, 0f00000000", bv)
		}
		switch e.cType {
		case F16, BF16:
			h := b.reg(kB16)
			b.ins("mov.b16 %s, 0", h)
			b.insP(pred, "ld.global.b16 %s, [%s]", h, a)
			if e.cType == F16 {
				b.ins("cvt.f32.f16 %s, %s", bv, h)
			} else {
				b.ins("mov.b32 %s, {%s, %s}", bv, e.zeroH, h)
			}
		default:
			b.insP(pred, "ld.global.%s %s, [%s]", s, bv, a)
		}
		d := b.reg(k)
		b.ins("add.rn.%s %s, %s, %s", s, d, v, bv)
		v = d
	}
	switch e.act {
	case ActReLU:
		d := b.reg(k)
		if e.t == F64 { // max.NaN is f32 and f16 only
			nan := b.reg(kPred)
			b.ins("setp.nan.f64 %s, %s, %s", nan, v, v)
			b.ins("max.f64 %s, %s, 0d0000000000000000", d, v)
			b.insP(nan, "mov.f64 %s, %s", d, v)
		} else {
			b.ins("max.NaN.f32 %s, %s, 0f00000000", d, v)
		}
		v = d
	case ActGELU:
		v = gelu(b, v)
	}
	return v
}

// gelu is the tanh form of GELU of f32 x: x/2·(1 + tanh(y)), y =
// √(2/π)·(x + 0.044715·x³), with tanh(y) = 1 − 2/(e^{2y} + 1) (the
// exponential by ex2.approx, relative error about 2⁻²²; ±1 where it
// overflows or vanishes).
func gelu(b *builder, x string) string {
	x3 := b.reg(kF32)
	b.ins("mul.rn.f32 %s, %s, %s", x3, x, x)
	b.ins("mul.rn.f32 %s, %s, %s", x3, x3, x)
	y := b.reg(kF32)
	b.ins("fma.rn.f32 %s, %s, 0f3D372713, %s", y, x3, x) // 0.044715
	b.ins("mul.rn.f32 %s, %s, 0f3F4C422A", y, y)         // √(2/π)
	t := b.reg(kF32)
	b.ins("mul.rn.f32 %s, %s, 0f4038AA3B", t, y) // 2·log2(e)
	ex := b.reg(kF32)
	b.ins("ex2.approx.f32 %s, %s", ex, t)
	b.ins("add.rn.f32 %s, %s, 0f3F800000", ex, ex)
	q := b.reg(kF32)
	b.ins("div.rn.f32 %s, 0f40000000, %s", q, ex)
	th := b.reg(kF32)
	b.ins("sub.rn.f32 %s, 0f3F800000, %s", th, q) // tanh(y)
	b.ins("add.rn.f32 %s, %s, 0f3F800000", th, th)
	h := b.reg(kF32)
	b.ins("mul.rn.f32 %s, %s, 0f3F000000", h, x)
	out := b.reg(kF32)
	b.ins("mul.rn.f32 %s, %s, %s", out, h, th)
	return out
}

// dst is the address D's element at addrC is written to: addrC itself in
// place, addrC + D's offset out of place.
func (e epiOps) dst(b *builder, addrC string) string {
	if e.dOff == "" {
		return addrC
	}
	d := b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", d, addrC, e.dOff)
	return d
}
