package ptx

import "fmt"

// GenerateGroupedConv emits the direct kernel of grouped and depthwise
// convolutions, where each output's reduction (C/G·R·S) is too short for an
// implicit GEMM's tiles: one thread per output segment of cfg.Rows rows
// and cfg.Columns columns of one image and output channel (or vector of
// channels), looping over the channels of the channel's group and the
// filter's taps, x read through its strides (any layout), padding and edges
// predicated (zero), the filter's tap loaded once for the thread's columns
// (and rows), accumulated in cls.Compute, then y = α·acc + β·y (y not read
// when β = 0) through y's strides.
//
// Parameters: u64 x, w, y; α, β in cls.Compute; then the 32-bit integers of
// GroupedIntParams. Launch GroupedGrid's grid of blocks of cfg.Threads.
func GenerateGroupedConv(cls GroupedClass, cfg GroupedConfig, arch string) (*Kernel, error) {
	if err := LegalGrouped(cfg, cls); err != nil {
		return nil, err
	}
	cls = cls.forConfig(cfg)
	order := "cols"
	if cls.ChannelsInner {
		order = "chans"
	}
	name := fmt.Sprintf("isaac_gconv_%s_%s_%s_t%d_q%d", cls.Data, cls.Compute, order, cfg.Threads, cfg.Columns)
	if cls.Taps > 0 {
		step := fmt.Sprint(cls.TapStepW)
		if cls.TapStepW < 0 {
			step = fmt.Sprintf("m%d", -cls.TapStepW)
		}
		name += fmt.Sprintf("_s%dx%d_%s", cls.Taps, cls.StrideW, step)
	}
	vec := cls.vec()
	if vec > 1 {
		name += fmt.Sprintf("_v%d", vec)
	}
	b := &builder{}
	c := &gemmCtx{b: b}
	b.comment("%s %+v", cfg, cls)
	x, w, y := c.globalParam("x"), c.globalParam("w"), c.globalParam("y")
	p := map[string]string{}
	for _, n := range GroupedIntParams {
		p[n] = c.intParam(n)
	}
	acc, ft := kF32, "f32"
	if cls.Compute == F64 {
		acc, ft = kF64, "f64"
	}
	alpha, beta := b.reg(acc), b.reg(acc)
	b.ins("ld.param.%s %s, [p_alpha]", ft, alpha)
	b.ins("ld.param.%s %s, [p_beta]", ft, beta)

	tid, cta, t := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tid)
	b.ins("mov.u32 %s, %%ctaid.x", cta)
	b.ins("mad.lo.s32 %s, %s, %d, %s", t, cta, cfg.Threads, tid)
	out := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", out, t, p["threads"])
	b.insP(out, "ret")

	rows := cfg.rows()
	if rows > 1 {
		name += fmt.Sprintf("_r%d", rows)
	}
	if rows > 1 {
		step := fmt.Sprint(cls.TapStepH)
		if cls.TapStepH < 0 {
			step = fmt.Sprintf("m%d", -cls.TapStepH)
		}
		name += fmt.Sprintf("_h%dx%d_%s", cls.TapsH, cls.StrideH, step)
	}

	b.comment("the thread's image n, channel k, first row p0 and first column q0")
	var n, k, pb, qb string
	if cls.ChannelsInner {
		var r1, r2 string
		if vec > 1 { // a thread per vec channels
			kv := b.reg(kB32)
			b.ins("shr.u32 %s, %s, %d", kv, p["K"], log2(vec))
			r1, k = divmod(b, t, kv)
			b.ins("shl.b32 %s, %s, %d", k, k, log2(vec))
		} else {
			r1, k = divmod(b, t, p["K"])
		}
		r2, qb = divmod(b, r1, p["QB"])
		n, pb = divmod(b, r2, p["PB"])
	} else {
		var r1, r2 string
		r1, qb = divmod(b, t, p["QB"])
		r2, pb = divmod(b, r1, p["PB"])
		n, k = divmod(b, r2, p["K"])
	}
	p0, q0 := b.mulImm(pb, rows), b.mulImm(qb, cfg.Columns)
	group := b.reg(kB32)
	b.ins("div.u32 %s, %s, %s", group, k, p["KG"])
	xC := b.reg(kB32) // x's offset of (n, the group's first channel)
	b.ins("mul.lo.s32 %s, %s, %s", xC, n, p["xsN"])
	c0 := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", c0, group, p["CG"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", xC, c0, p["xsC"], xC)
	wC := b.reg(kB32) // the filter's offset of (k, channel 0 of the group)
	b.ins("mul.lo.s32 %s, %s, %s", wC, k, p["wsK"])
	hBase := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", hBase, p0, p["strH"], p["hOff"])
	cols := make([]string, cfg.Columns) // the first tap's input column of each output column
	qok := make([]string, cfg.Columns)
	for j := range cols {
		qj := b.addImm32(q0, j)
		qok[j] = b.reg(kPred)
		b.ins("setp.lt.s32 %s, %s, %s", qok[j], qj, p["Q"])
		cols[j] = b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", cols[j], qj, p["strW"], p["wOff"])
	}
	sums := make([][][]string, rows) // [row][channel][column]
	for i := range sums {
		sums[i] = make([][]string, vec)
		for j := range sums[i] {
			sums[i][j] = b.regs(acc, cfg.Columns)
			for _, s := range sums[i][j] {
				b.ins("mov.%s %s, %s", ft, s, zeroOf(acc))
			}
		}
	}

	ci := b.reg(kB32)
	b.ins("mov.u32 %s, 0", ci)
	loopC := b.newLabel("GC_C")
	b.label(loopC)
	if rows > 1 {
		b.comment("for each channel of the group: its taps, then each input row the thread's rows read")
		c.groupedRows(cls, cfg, x, w, xC, wC, hBase, cols[0], sums, p)
	} else {
		b.comment("for each channel of the group, each tap row, each tap column")
		loopR, loopS, skipR := b.newLabel("GC_R"), b.newLabel("GC_S"), b.newLabel("GC_SKIP")
		ri, h, wR := b.reg(kB32), b.reg(kB32), b.reg(kB32)
		b.ins("mov.u32 %s, 0", ri)
		b.ins("mov.u32 %s, %s", h, hBase)
		b.ins("mov.u32 %s, %s", wR, wC)
		b.label(loopR)
		hok := b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %s", hok, h, p["H"]) // unsigned: a negative row is out too
		b.insP("!"+hok, "bra %s", skipR)                // not .uni: the rows out of x differ between the warp's threads
		xRow := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", xRow, h, p["xsH"], xC)
		if cls.Taps > 0 {
			win, lo := c.groupedWindow(cls, cfg, x, xRow, cols[0], p)
			taps := c.groupedTaps(cls, w, wR, p)
			groupedProducts(b, cls, ft, win, lo, taps, sums[0])
		} else if vec > 1 {
			panic("ptx: grouped convolution vectors without a window") // LegalGrouped
		} else {
			si, sOff, wS := b.reg(kB32), b.reg(kB32), b.reg(kB32)
			b.ins("mov.u32 %s, 0", si)
			b.ins("mov.u32 %s, 0", sOff)
			b.ins("mov.u32 %s, %s", wS, wR)
			b.label(loopS)
			tap := loadWidened(b, cls.Data, acc, w, wS, "", true)
			for j := range cols {
				col, ok := b.add32(cols[j], sOff), b.reg(kPred)
				b.ins("setp.lt.u32 %s, %s, %s", ok, col, p["W"])
				b.ins("and.pred %s, %s, %s", ok, ok, qok[j])
				off := b.reg(kB32)
				b.ins("mad.lo.s32 %s, %s, %s, %s", off, col, p["xsW"], xRow)
				v := loadWidened(b, cls.Data, acc, x, off, ok, true)
				b.ins("fma.rn.%s %s, %s, %s, %s", ft, sums[0][0][j], v, tap, sums[0][0][j])
			}
			loopNext(b, si, p["S"], loopS, [2]string{sOff, p["wStep"]}, [2]string{wS, p["wsS"]})
		}
		b.label(skipR)
		loopNext(b, ri, p["R"], loopR, [2]string{h, p["hStep"]}, [2]string{wR, p["wsR"]})
	}
	loopNext(b, ci, p["CG"], loopC, [2]string{xC, p["xsC"]}, [2]string{wC, p["wsC"]})

	b.comment("y = alpha*acc + beta*y, y not read when beta == 0")
	pBeta := b.reg(kPred)
	b.ins("setp.neu.%s %s, %s, %s", ft, pBeta, beta, zeroOf(acc))
	yRow := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", yRow, n, p["ysN"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", yRow, k, p["ysC"], yRow)
	b.ins("mad.lo.s32 %s, %s, %s, %s", yRow, p0, p["ysH"], yRow)
	for i := range rows {
		ok := qok
		if rows > 1 { // the rows below P
			pi, pok := b.addImm32(p0, i), b.reg(kPred)
			b.ins("setp.lt.s32 %s, %s, %s", pok, pi, p["P"])
			ok = make([]string, len(qok))
			for j := range ok {
				ok[j] = b.reg(kPred)
				b.ins("and.pred %s, %s, %s", ok[j], qok[j], pok)
			}
		}
		if i > 0 {
			yRow = b.add32(yRow, p["ysH"])
		}
		for j := range cols {
			qj := b.addImm32(q0, j)
			off := b.reg(kB32)
			b.ins("mad.lo.s32 %s, %s, %s, %s", off, qj, p["ysW"], yRow)
			readOld := b.reg(kPred)
			b.ins("and.pred %s, %s, %s", readOld, pBeta, ok[j])
			if vec > 1 {
				a := elemAddr(b, y, off, cls.Data)
				old := loadVecAt(b, cls.Data, acc, a, readOld, false, vec)
				vs := make([]string, vec)
				for ch := range vs {
					vs[ch] = b.reg(acc)
					b.ins("mul.rn.%s %s, %s, %s", ft, vs[ch], alpha, sums[i][ch][j])
					b.insP(readOld, "fma.rn.%s %s, %s, %s, %s", ft, vs[ch], beta, old[ch], vs[ch])
				}
				storeVecAt(b, cls.Data, acc, a, vs, ok[j])
				continue
			}
			old := loadWidened(b, cls.Data, acc, y, off, readOld, false)
			v := b.reg(acc)
			b.ins("mul.rn.%s %s, %s, %s", ft, v, alpha, sums[i][0][j])
			b.insP(readOld, "fma.rn.%s %s, %s, %s, %s", ft, v, beta, old, v)
			storeNarrowed(b, cls.Data, acc, y, off, v, ok[j])
		}
	}
	b.ins("ret")
	return &Kernel{
		Name:       name,
		PTX:        header(arch) + entryMaxReg(name, groupedParams(cls.Compute), min(255, 65536/cfg.Threads), b),
		Block:      [3]int{cfg.Threads, 1, 1},
		Params:     groupedParams(cls.Compute),
		grouped:    cfg,
		groupedVec: vec,
	}, nil
}

// groupedRows is the body of a kernel of several rows a thread (a class
// with TapsH) for one channel of the group: every tap of the thread's channels loaded once
// (wC the filter's offset of the channel), then each input row that the
// thread's output rows read, in order, loaded once into a window
// (groupedWindow) and multiplied by the taps of every (output row, filter
// row) pair that reads it. hBase is the first output row's first input
// row (before the taps' steps); rows outside x are skipped.
func (c *gemmCtx) groupedRows(cls GroupedClass, cfg GroupedConfig, x, w, xC, wC, hBase, col0 string, sums [][][]string, p map[string]string) {
	b := c.b
	ft := "f32"
	if cls.Compute == F64 {
		ft = "f64"
	}
	taps := make([][][]string, cls.TapsH) // [filter row][tap][channel]
	wR := wC
	for r := range taps {
		if r > 0 {
			wR = b.add32(wR, p["wsR"])
		}
		taps[r] = c.groupedTaps(cls, w, wR, p)
	}
	straight := groupedStraightRows(cls, cfg)
	// The input row of output row i and filter row r is hBase + i·StrideH + r·TapStepH.
	lo, hi := 0, 0
	for i := range sums {
		for r := range cls.TapsH {
			o := i*cls.StrideH + r*cls.TapStepH
			lo, hi = min(lo, o), max(hi, o)
		}
	}
	for o := lo; o <= hi; o++ {
		var pairs [][2]int
		for i := range sums {
			for r := range cls.TapsH {
				if i*cls.StrideH+r*cls.TapStepH == o {
					pairs = append(pairs, [2]int{i, r})
				}
			}
		}
		if len(pairs) == 0 {
			continue
		}
		h, hok := b.addImm32(hBase, o), b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %s", hok, h, p["H"]) // unsigned: a negative row is out too
		xRow := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", xRow, h, p["xsH"], xC)
		if straight {
			win, wlo := c.groupedWindowIn(cls, cfg, x, xRow, col0, hok, p)
			for _, ir := range pairs {
				groupedProducts(b, cls, ft, win, wlo, taps[ir[1]], sums[ir[0]])
			}
			continue
		}
		skip := b.newLabel("GC_ROW")
		b.insP("!"+hok, "bra %s", skip) // not .uni: the rows out of x differ between the warp's threads
		win, wlo := c.groupedWindow(cls, cfg, x, xRow, col0, p)
		for _, ir := range pairs {
			groupedProducts(b, cls, ft, win, wlo, taps[ir[1]], sums[ir[0]])
		}
		b.label(skip)
	}
}

// groupedStraightRows reports whether a kernel of cls and cfg (with
// unrolled rows) reads a row outside x as zeros by predicated loads rather
// than branching around it. Straight-line rows let ptxas issue a later
// row's loads before an earlier row's products, and it does, holding more
// registers: that pays where a thread holds few (groupedRegisters'
// estimate), and costs blocks an SM where it already holds many, so
// kernels estimated above 128 keep the branch (the measurement:
// gputest/results/h200/conv/call116).
func groupedStraightRows(cls GroupedClass, cfg GroupedConfig) bool {
	return groupedRegisters(cfg, cls) <= 128
}

// groupedTaps loads one filter row's taps of the thread's channels (Taps
// of them, wsS apart from wR; vec channels wsK apart), widened to the
// accumulator: [tap][channel].
func (c *gemmCtx) groupedTaps(cls GroupedClass, w, wR string, p map[string]string) [][]string {
	b := c.b
	acc := kF32
	if cls.Compute == F64 {
		acc = kF64
	}
	taps := make([][]string, cls.Taps)
	wOff := wR
	for s := range taps {
		if s > 0 {
			wOff = b.add32(wOff, p["wsS"])
		}
		wCh := wOff
		for ch := 0; ch < cls.vec(); ch++ {
			if ch > 0 {
				wCh = b.add32(wCh, p["wsK"])
			}
			taps[s] = append(taps[s], loadWidened(b, cls.Data, acc, w, wCh, "", true))
		}
	}
	return taps
}

// groupedProducts accumulates one input row's products into one output
// row's sums ([channel][column]): column j's tap s reads the window's
// place j·StrideW + s·TapStepW − lo.
func groupedProducts(b *builder, cls GroupedClass, ft string, win [][]string, lo int, taps [][]string, sums [][]string) {
	for s := range taps {
		for ch := range taps[s] {
			for j := range sums[ch] {
				b.ins("fma.rn.%s %s, %s, %s, %s", ft, sums[ch][j], win[j*cls.StrideW+s*cls.TapStepW-lo][ch], taps[s][ch], sums[ch][j])
			}
		}
	}
}

// groupedWindow loads the input columns the thread's outputs read in one
// row (xRow its offset in x) once each into a window of registers
// ((Columns-1)·StrideW + (Taps-1)·|TapStepW| + 1 places, zero outside x),
// [place][channel], and returns it with the tap offset of place 0 (lo ≤ 0:
// the last tap's for a flipped filter). col0 is the first tap's column of
// the first output column. With vectors of channels (cls.Vec) each place
// holds the vec channels' inputs, loaded as one vector.
func (c *gemmCtx) groupedWindow(cls GroupedClass, cfg GroupedConfig, x, xRow, col0 string, p map[string]string) ([][]string, int) {
	return c.groupedWindowIn(cls, cfg, x, xRow, col0, "", p)
}

// groupedWindowIn is groupedWindow of a row that lies inside x where
// predicate rowOK holds ("": always), the window all zeros where not.
func (c *gemmCtx) groupedWindowIn(cls GroupedClass, cfg GroupedConfig, x, xRow, col0, rowOK string, p map[string]string) ([][]string, int) {
	b := c.b
	acc := kF32
	if cls.Compute == F64 {
		acc = kF64
	}
	lo := min(0, (cls.Taps-1)*cls.TapStepW)
	span := (cfg.Columns-1)*cls.StrideW + (cls.Taps-1)*abs(cls.TapStepW) + 1
	first := b.addImm32(col0, lo)
	off := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, first, p["xsW"], xRow)
	a := elemAddr(b, x, off, cls.Data)
	step := b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", step, p["xsW"], cls.Data.Size())
	vec := cls.vec()
	win := make([][]string, span)
	for i := range win {
		col := b.addImm32(first, i)
		ok := b.reg(kPred)
		b.ins("setp.lt.u32 %s, %s, %s", ok, col, p["W"])
		if rowOK != "" {
			b.ins("and.pred %s, %s, %s", ok, ok, rowOK)
		}
		if i > 0 {
			next := b.reg(kB64)
			b.ins("add.s64 %s, %s, %s", next, a, step)
			a = next
		}
		if vec > 1 {
			win[i] = loadVecAt(b, cls.Data, acc, a, ok, true, vec)
		} else {
			win[i] = []string{loadAt(b, cls.Data, acc, a, ok, true)}
		}
	}
	return win, lo
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// loopNext closes a counted loop: each register of steps advanced by its
// step, the counter incremented, and a branch back to label while it is
// below limit.
func loopNext(b *builder, counter, limit, label string, steps ...[2]string) {
	for _, st := range steps {
		b.ins("add.s32 %s, %s, %s", st[0], st[0], st[1])
	}
	b.ins("add.s32 %s, %s, 1", counter, counter)
	more := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", more, counter, limit)
	b.insP(more, "bra.uni %s", label)
}

// zeroOf is the PTX literal 0 of an accumulator kind.
func zeroOf(k regKind) string {
	if k == kF64 {
		return "0d0000000000000000"
	}
	return "0f00000000"
}

// elemAddr is base + off·size(t) (off a 32-bit element offset).
func elemAddr(b *builder, base, off string, t DataType) string {
	wide, a := b.reg(kB64), b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, off, t.Size())
	b.ins("add.s64 %s, %s, %s", a, base, wide)
	return a
}

// loadWidened loads element off of t at base (through the read-only path
// with readOnly: x and the filter, not y), converted to the accumulator kind; with pred, 0 where pred is false.
func loadWidened(b *builder, t DataType, acc regKind, base, off, pred string, readOnly bool) string {
	return loadAt(b, t, acc, elemAddr(b, base, off, t), pred, readOnly)
}

// loadAt is loadWidened of the element at address a.
func loadAt(b *builder, t DataType, acc regKind, a, pred string, readOnly bool) string {
	v := b.reg(acc)
	ld := "ld.global"
	if readOnly {
		ld = "ld.global.nc"
	}
	switch t {
	case F16, BF16:
		h := b.reg(kB16)
		b.ins("mov.b16 %s, 0", h)
		b.insP(pred, "%s.b16 %s, [%s]", ld, h, a)
		if t == F16 {
			b.ins("cvt.f32.f16 %s, %s", v, h)
		} else {
			z := b.reg(kB16)
			b.ins("mov.b16 %s, 0", z)
			b.ins("mov.b32 %s, {%s, %s}", v, z, h)
		}
	case F32:
		b.ins("mov.f32 %s, 0f00000000", v)
		b.insP(pred, "%s.f32 %s, [%s]", ld, v, a)
	case F64:
		b.ins("mov.f64 %s, 0d0000000000000000", v)
		b.insP(pred, "%s.f64 %s, [%s]", ld, v, a)
	}
	return v
}

// storeNarrowed stores accumulator v as element off of t at base where pred.
func storeNarrowed(b *builder, t DataType, acc regKind, base, off, v, pred string) {
	a := elemAddr(b, base, off, t)
	switch t {
	case F16, BF16:
		h, cvt := b.reg(kB16), "cvt.rn.f16.f32"
		if t == BF16 {
			cvt = "cvt.rn.bf16.f32"
		}
		b.ins("%s %s, %s", cvt, h, v)
		b.insP(pred, "st.global.b16 [%s], %s", a, h)
	default:
		b.insP(pred, "st.global.%s [%s], %s", map[regKind]string{kF32: "f32", kF64: "f64"}[acc], a, v)
	}
}

// vecSuffix is the PTX type of a vector access's elements of t.
func vecSuffix(t DataType) string {
	switch t {
	case F16, BF16:
		return "b16"
	case F64:
		return "f64"
	}
	return "f32"
}

// loadVecAt loads the vec consecutive elements of t at address a (through
// the read-only path with readOnly) as one vector (vectors of 4 for 8
// 16-bit elements), each converted to the accumulator kind; with pred,
// zeros where pred is false.
func loadVecAt(b *builder, t DataType, acc regKind, a, pred string, readOnly bool, vec int) []string {
	if vec > 4 {
		hi := b.reg(kB64)
		b.ins("add.s64 %s, %s, %d", hi, a, 4*t.Size())
		return append(loadVecAt(b, t, acc, a, pred, readOnly, 4), loadVecAt(b, t, acc, hi, pred, readOnly, vec-4)...)
	}
	ld := "ld.global"
	if readOnly {
		ld = "ld.global.nc"
	}
	out := b.regs(acc, vec)
	switch t {
	case F16, BF16:
		hs := b.regs(kB16, vec)
		for _, h := range hs {
			b.ins("mov.b16 %s, 0", h)
		}
		b.insP(pred, "%s.v%d.b16 %s, [%s]", ld, vec, braces(hs), a)
		for i, h := range hs {
			if t == F16 {
				b.ins("cvt.f32.f16 %s, %s", out[i], h)
			} else {
				z := b.reg(kB16)
				b.ins("mov.b16 %s, 0", z)
				b.ins("mov.b32 %s, {%s, %s}", out[i], z, h)
			}
		}
	default:
		for _, v := range out {
			b.ins("mov.%s %s, %s", vecSuffix(t), v, zeroOf(acc))
		}
		b.insP(pred, "%s.v%d.%s %s, [%s]", ld, vec, vecSuffix(t), braces(out), a)
	}
	return out
}

// storeVecAt stores accumulators vs as the len(vs) consecutive elements of
// t at address a, one vector (vectors of 4 for 8 16-bit elements), where
// pred.
func storeVecAt(b *builder, t DataType, acc regKind, a string, vs []string, pred string) {
	if len(vs) > 4 {
		hi := b.reg(kB64)
		b.ins("add.s64 %s, %s, %d", hi, a, 4*t.Size())
		storeVecAt(b, t, acc, a, vs[:4], pred)
		storeVecAt(b, t, acc, hi, vs[4:], pred)
		return
	}
	switch t {
	case F16, BF16:
		cvt := "cvt.rn.f16.f32"
		if t == BF16 {
			cvt = "cvt.rn.bf16.f32"
		}
		hs := b.regs(kB16, len(vs))
		for i, h := range hs {
			b.ins("%s %s, %s", cvt, h, vs[i])
		}
		b.insP(pred, "st.global.v%d.b16 [%s], %s", len(vs), a, braces(hs))
	default:
		b.insP(pred, "st.global.v%d.%s [%s], %s", len(vs), vecSuffix(t), a, braces(vs))
	}
}
