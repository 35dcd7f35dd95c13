package ptx

// tmaOperand is one operand staged by the bulk tensor copy engine: the
// generic address of its tensor map (a kernel parameter, see TensorMap),
// the block's origin along m (A) or n (B) (and a batched class's matrix),
// and the boxes of one tile: one
// for a k-contiguous tile, one per 64-element column of an m/n-contiguous
// one, each of boxBytes at box·boxBytes in the tile.
type tmaOperand struct {
	o        operandGeom
	tmap     string
	mn0      string
	boxes    int
	boxBytes int
	im2col   *im2colOrigin // a convolution's A: x in the im2col mode
	bz       string        // a batched class's: the matrix's coordinate (TensorMap.Batched)
}

// im2colOrigin is where a convolution block's im2col copies start: the
// input position (w, h) of the first tap of its first output pixel, with
// the padding's side of a flipped filter folded in so that every tap's
// offset is non-negative, and that pixel's image; and the offsets' bases.
type im2colOrigin struct {
	w, h, n    string
	wAdj, hAdj string // added to s·wStep and r·hStep: the taps' offsets
}

func (c *gemmCtx) newTMAOperand(isA bool) *tmaOperand {
	b, g := c.b, c.g
	t := &tmaOperand{o: g.b, mn0: c.n0, bz: c.batch.bzB}
	name := "tmB"
	if isA {
		t.o, t.mn0, t.bz, name = g.a, c.m0, c.batch.bzA, "tmA"
	}
	p := b.reg(kB64)
	b.ins("mov.b64 %s, p_%s", p, name)
	t.tmap = b.reg(kB64)
	b.ins("cvta.param.u64 %s, %s", t.tmap, p)
	t.boxes = 1
	if !t.o.kContig {
		t.boxes = t.o.atoms
	}
	t.boxBytes = 128 * t.o.lo
	if isA && c.conv != nil && c.g.cfg.PS == 0 {
		t.im2col = c.im2colOrigin() // a persistent kernel's, per tile
	}
	return t
}

// im2colOrigin computes the block's im2col origin (in every thread; the
// producer thread uses it). The copy engine steps from the origin through
// the map's pixel box in output order (w, then h, then the image, by the
// strides), so one copy of ML pixels follows the block's output rows.
func (c *gemmCtx) im2colOrigin() *im2colOrigin {
	b, cv := c.b, c.conv.p
	n, p, q := c.pixel(c.m0)
	o := &im2colOrigin{n: n}
	// min(0, (R-1)·step): the first tap's offset is the lowest unless the
	// filter is flipped (negative step).
	low := func(extent, step string) string {
		l := b.reg(kB32)
		b.ins("add.s32 %s, %s, -1", l, extent)
		b.ins("mul.lo.s32 %s, %s, %s", l, l, step)
		b.ins("min.s32 %s, %s, 0", l, l)
		return l
	}
	lowH, lowW := low(cv["cR"], cv["hStep"]), low(cv["cS"], cv["wStep"])
	o.h, o.w = b.reg(kB32), b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", o.h, p, cv["strH"], cv["hOff"])
	b.ins("add.s32 %s, %s, %s", o.h, o.h, lowH)
	b.ins("mad.lo.s32 %s, %s, %s, %s", o.w, q, cv["strW"], cv["wOff"])
	b.ins("add.s32 %s, %s, %s", o.w, o.w, lowW)
	o.hAdj, o.wAdj = b.reg(kB32), b.reg(kB32)
	b.ins("neg.s32 %s, %s", o.hAdj, lowH)
	b.ins("neg.s32 %s, %s", o.wAdj, lowW)
	return o
}

// issueIm2col issues the copy of A's tile at reduction index k (a multiple
// of U: its channels lie within one tap, ChannelLines) to dst: tap t = k/C
// (by the DivMagic parameters)
// and channel k - t·C, the tap's offsets (s·wStep, r·hStep) made
// non-negative.
func (c *gemmCtx) issueIm2col(t *tmaOperand, dst, bar, k string) {
	b, cv, o := c.b, c.conv.p, t.im2col
	tap, ch := divmodMagic(b, k, cv["cC"], cv["cM"], cv["cL"])
	r, s := divmodMagic(b, tap, cv["cS"], cv["sM"], cv["sL"])
	offH, offW := b.reg(kB32), b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", offH, r, cv["hStep"], o.hAdj)
	b.ins("mad.lo.s32 %s, %s, %s, %s", offW, s, cv["wStep"], o.wAdj)
	h16, w16 := b.reg(kB16), b.reg(kB16)
	b.ins("cvt.u16.u32 %s, %s", h16, offH)
	b.ins("cvt.u16.u32 %s, %s", w16, offW)
	b.ins("cp.async.bulk.tensor.4d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [%s], [%s, {%s, %s, %s, %s}], [%s], {%s, %s}",
		dst, t.tmap, ch, o.w, o.h, o.n, bar, w16, h16)
}

// issueTMA makes the producer thread arm the stage's mbarrier with the
// tile's bytes and issue the tile's boxes for k-coordinate k into the stage
// at byte offset stageOff. The copies complete the barrier's phase when
// they have all landed.
func (c *gemmCtx) issueTMA(ops []*tmaOperand, stageOff, bar, k string) {
	b := c.b
	tx := 0
	for _, t := range ops {
		tx += t.boxes * t.boxBytes
	}
	state := b.reg(kB64)
	b.ins("mbarrier.arrive.expect_tx.shared.b64 %s, [%s], %d", state, bar, tx)
	base := b.add32(c.smem, stageOff)
	for _, t := range ops {
		if t.im2col != nil {
			c.issueIm2col(t, b.addImm32(base, t.o.offset), bar, k)
			continue
		}
		for box := 0; box < t.boxes; box++ {
			dst := b.addImm32(base, t.o.offset+box*t.boxBytes)
			var x, y string
			if t.o.kContig {
				x, y = k, t.mn0
			} else {
				x, y = b.addImm32(t.mn0, 64*box), k
			}
			if t.bz != "" {
				b.ins("cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%s, {%s, %s, %s}], [%s]",
					dst, t.tmap, x, y, t.bz, bar)
				continue
			}
			b.ins("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%s], [%s, {%s, %s}], [%s]",
				dst, t.tmap, x, y, bar)
		}
	}
}

// rotateBar advances an mbarrier address in place to the next stage's,
// wrapping after the last; with phase it flips the parity on the wrap.
func (c *gemmCtx) rotateBar(bar, first, phase string) {
	b, S := c.b, c.g.cfg.Stages
	b.ins("add.s32 %s, %s, 8", bar, bar)
	end := b.reg(kB32)
	b.ins("add.s32 %s, %s, %d", end, first, 8*S)
	w := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %s", w, bar, end)
	b.ins("selp.b32 %s, %s, %s, %s", bar, first, bar, w)
	if phase != "" {
		f := b.reg(kB32)
		b.ins("selp.b32 %s, 1, 0, %s", f, w)
		b.ins("xor.b32 %s, %s, %s", phase, phase, f)
	}
}

// loopTMA is the main loop of the wgmma kernels whose tiles the bulk tensor
// copy engine stages (GemmConfig.TMA). Stage s has an mbarrier that thread
// 0 arms with the tile's bytes before it issues the tile's boxes; the
// copies complete the barrier's phase, and every thread waits for that
// phase (its parity flips each time the stages wrap) before the tile's
// wgmma group reads the stage: no fence, since the copies and the tensor
// cores are both the async proxy. Tile t is in stage t%S. Iteration t
// waits for tile t, issues its wgmma group, waits until only that group is
// pending (group t-1 has retired) and passes the block barrier, after
// which no warpgroup reads stage (t-1)%S and thread 0 issues tile t+S-1
// into it: S-1 tiles in flight while one is under the tensor cores, where
// the cp.async loop keeps S-2. Out-of-bounds elements (the m, n and k
// edges) arrive as zeros, so no copy needs a bound.
func (c *gemmCtx) loopTMA(comp *wgmmaCompute) {
	b, g := c.b, c.g
	S := g.cfg.Stages
	ops := []*tmaOperand{c.newTMAOperand(true), c.newTMAOperand(false)}
	bars := b.addImm32(c.smem, g.barOff)
	prod := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", prod, c.tid)
	b.comment("tensor-copy pipeline: %d mbarriers, %d tiles in flight, one under wgmma", S, S-1)
	skip := b.newLabel("tma_init")
	b.insP("!"+prod, "bra %s", skip)
	for s := 0; s < S; s++ {
		b.ins("mbarrier.init.shared.b64 %s, 1", addr(bars, 8*s))
	}
	b.ins("fence.mbarrier_init.release.cluster")
	for _, t := range ops {
		b.ins("prefetch.tensormap [%s]", t.tmap)
	}
	b.label(skip)
	b.ins("bar.sync 0")
	for s := 0; s < S-1; s++ {
		p := b.reg(kPred)
		b.ins("setp.gt.s32 %s, %s, %d", p, c.nTiles, s)
		b.ins("and.pred %s, %s, %s", p, p, prod)
		skip := b.newLabel("tma_first")
		b.insP("!"+p, "bra %s", skip)
		off := b.reg(kB32)
		b.ins("mov.b32 %s, %d", off, s*g.stageBytes)
		c.issueTMA(ops, off, b.addImm32(bars, 8*s), b.addImm32(c.kBeg, s*g.cfg.U))
		b.label(skip)
	}
	rd, wr := b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, 0", rd)
	b.ins("mov.b32 %s, %d", wr, (S-1)*g.stageBytes)
	barR, barW := b.reg(kB32), b.reg(kB32)
	b.ins("mov.b32 %s, %s", barR, bars)
	b.ins("add.s32 %s, %s, %d", barW, bars, 8*(S-1))
	phase := b.reg(kB32)
	b.ins("mov.b32 %s, 0", phase)
	kNext := b.addImm32(c.kBeg, (S-1)*g.cfg.U) // S ≥ 3: a register of its own
	left := b.reg(kB32)                        // tiles not issued yet
	b.ins("sub.s32 %s, %s, %d", left, c.nTiles, S-1)
	loop, done := b.newLabel("loop"), b.newLabel("done")
	pz := b.reg(kPred)
	b.ins("setp.le.s32 %s, %s, 0", pz, c.nTiles)
	b.insP(pz, "bra.uni %s", done)
	cnt := b.reg(kB32)
	b.ins("mov.b32 %s, %s", cnt, c.nTiles)
	b.label(loop)
	c.waitPhase(barR, phase, "tma_wait")
	comp.roundStage(rd)
	comp.tile(rd)
	b.ins("wgmma.wait_group.sync.aligned 1")
	b.ins("bar.sync 0")
	pi := b.reg(kPred)
	b.ins("setp.gt.s32 %s, %s, 0", pi, left)
	b.ins("and.pred %s, %s, %s", pi, pi, prod)
	skipI := b.newLabel("tma_next")
	b.insP("!"+pi, "bra %s", skipI)
	c.issueTMA(ops, wr, barW, kNext)
	b.label(skipI)
	b.ins("sub.s32 %s, %s, 1", left, left)
	b.ins("add.s32 %s, %s, %d", kNext, kNext, g.cfg.U)
	c.rotate(wr)
	c.rotateBar(barW, bars, "")
	c.rotate(rd)
	c.rotateBar(barR, bars, phase)
	b.ins("sub.s32 %s, %s, 1", cnt, cnt)
	pl := b.reg(kPred)
	b.ins("setp.gt.s32 %s, %s, 0", pl, cnt)
	b.insP(pl, "bra.uni %s", loop)
	b.label(done)
	b.ins("wgmma.wait_group.sync.aligned 0")
	b.ins("bar.sync 0")
}

// loopTMAProducer is loopTMA with a producer warp (GemmConfig.TMA = 2):
// the block's last warp, past the warpgroups that compute, issues every
// tile's copies from its first lane and leaves; the warpgroups only wait
// and compute, with no block barrier in the loop. Stage s has two
// mbarriers: full[s], which the producer arms with the tile's bytes and
// the copies complete, and empty[s], which each computing thread arrives
// at once the wgmma group that read the stage has retired. The producer
// waits for empty[s] before it refills stage s, from parity 1 (the phase
// before a fresh barrier's first counts as complete, so the first S tiles
// go at once); the threads that compute wait for full[s] from parity 0.
// Tile t is in stage t%S; iteration t issues tile t's wgmma group, waits
// until only it is pending and releases stage (t-1)%S. The producer thus
// runs up to S tiles ahead, and no computing warp waits for its address
// arithmetic or the copies' issue.
func (c *gemmCtx) loopTMAProducer(comp *wgmmaCompute) {
	b := c.b
	r := c.newProducerRing("tensor-copy pipeline with a producer warp")
	some := b.reg(kPred) // slices to compute
	b.ins("setp.gt.s32 %s, %s, 0", some, c.nTiles)
	consumer, done := b.newLabel("compute"), b.newLabel("done")
	b.insP("!"+r.isProducer(), "bra.uni %s", consumer)

	// The producer warp: its first lane issues every tile, the others leave.
	lead := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, %d", lead, c.tid, c.g.threads)
	b.ins("and.pred %s, %s, %s", lead, lead, some)
	b.insP("!"+lead, "exit")
	p := r.producer()
	b.ins("mov.b32 %s, %s", p.k, c.kBeg)
	p.loop(c.nTiles, "produce")
	b.ins("exit")

	// The warpgroups that compute.
	b.label(consumer)
	b.insP("!"+some, "bra.uni %s", done)
	s := r.consumer()
	s.loop(comp, c.nTiles, "loop")
	b.label(done)
	b.ins("wgmma.wait_group.sync.aligned 0")
	c.barrier()
}

// producerRing is the stages of a producer warp's pipeline (TMA = 2): the
// operands' tensor maps and the addresses of the full and empty mbarriers.
type producerRing struct {
	c           *gemmCtx
	ops         []*tmaOperand
	full, empty string
}

// newProducerRing initializes the ring's mbarriers (full[s] completed by
// the copies, empty[s] by every computing thread's arrival) and prefetches
// the tensor maps from thread 0, then passes the block barrier.
func (c *gemmCtx) newProducerRing(what string) *producerRing {
	b, g := c.b, c.g
	S, T := g.cfg.Stages, g.threads
	r := &producerRing{c: c, ops: []*tmaOperand{c.newTMAOperand(true), c.newTMAOperand(false)}}
	r.full = b.addImm32(c.smem, g.barOff)
	r.empty = b.addImm32(c.smem, g.barOff+8*S)
	first := b.reg(kPred)
	b.ins("setp.eq.u32 %s, %s, 0", first, c.tid)
	b.comment("%s: %d full and %d empty mbarriers", what, S, S)
	skip := b.newLabel("tma_init")
	b.insP("!"+first, "bra %s", skip)
	for s := 0; s < S; s++ {
		b.ins("mbarrier.init.shared.b64 %s, 1", addr(r.full, 8*s))
		b.ins("mbarrier.init.shared.b64 %s, %d", addr(r.empty, 8*s), T)
	}
	b.ins("fence.mbarrier_init.release.cluster")
	for _, t := range r.ops {
		b.ins("prefetch.tensormap [%s]", t.tmap)
	}
	b.label(skip)
	b.ins("bar.sync 0")
	return r
}

// isProducer is a predicate: the thread is the producer warp's.
func (r *producerRing) isProducer() string {
	b := r.c.b
	p := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, %d", p, r.c.tid, r.c.g.threads)
	return p
}

// ringProducer is the producer's place in the ring: the stage it fills
// next (byte offset and full and empty barriers), the empty barriers'
// parity it waits for, and the reduction index of the next slice.
type ringProducer struct {
	r                      *producerRing
	off, barF, barE, phase string
	k, cnt                 string
}

// producer starts the producer at stage 0, waiting from parity 1 (a fresh
// barrier's preceding phase counts as complete, so the first S slices go
// at once).
func (r *producerRing) producer() *ringProducer {
	b := r.c.b
	p := &ringProducer{r: r, off: b.reg(kB32), barF: b.reg(kB32), barE: b.reg(kB32), phase: b.reg(kB32), k: b.reg(kB32), cnt: b.reg(kB32)}
	b.ins("mov.b32 %s, 0", p.off)
	b.ins("mov.b32 %s, %s", p.barF, r.full)
	b.ins("mov.b32 %s, %s", p.barE, r.empty)
	b.ins("mov.b32 %s, 1", p.phase)
	return p
}

// loop issues n slices (n > 0) from reduction index k on: each waits for
// its stage's release, then its copies arm the stage's full barrier.
func (p *ringProducer) loop(n, label string) {
	c := p.r.c
	b := c.b
	b.ins("mov.b32 %s, %s", p.cnt, n)
	top := b.newLabel(label)
	b.label(top)
	c.waitPhase(p.barE, p.phase, label+"_wait")
	c.issueTMA(p.r.ops, p.off, p.barF, p.k)
	b.ins("add.s32 %s, %s, %d", p.k, p.k, c.g.cfg.U)
	c.rotate(p.off)
	c.rotateBar(p.barF, p.r.full, "")
	c.rotateBar(p.barE, p.r.empty, p.phase)
	b.ins("sub.s32 %s, %s, 1", p.cnt, p.cnt)
	more := b.reg(kPred)
	b.ins("setp.gt.s32 %s, %s, 0", more, p.cnt)
	b.insP(more, "bra.uni %s", top)
}

// ringConsumer is a computing thread's place in the ring: the stage it
// reads next (byte offset and full barrier), the full barriers' parity it
// waits for, and the empty barrier of the stage whose release is due.
type ringConsumer struct {
	r                     *producerRing
	rd, barR, barP, phase string
	first, cnt            string
}

// consumer starts a computing thread at stage 0, waiting from parity 0.
func (r *producerRing) consumer() *ringConsumer {
	b := r.c.b
	s := &ringConsumer{r: r, rd: b.reg(kB32), barR: b.reg(kB32), barP: b.reg(kB32), phase: b.reg(kB32), first: b.reg(kPred), cnt: b.reg(kB32)}
	b.ins("mov.b32 %s, 0", s.rd)
	b.ins("mov.b32 %s, %s", s.barR, r.full)
	b.ins("mov.b32 %s, %s", s.barP, r.empty)
	b.ins("mov.b32 %s, 0", s.phase)
	return s
}

// loop consumes n slices (n > 0): each waits for its stage's copies,
// issues its wgmma group, waits until only that group is pending and
// releases the stage the previous group read (the first slice releases
// nothing); barP is left at the last slice's stage, not yet released.
func (s *ringConsumer) loop(comp *wgmmaCompute, n, label string) {
	c := s.r.c
	b := c.b
	b.ins("mov.b32 %s, %s", s.cnt, n)
	b.ins("setp.eq.u32 %s, %s, %s", s.first, c.tid, c.tid)
	top := b.newLabel(label)
	b.label(top)
	c.waitPhase(s.barR, s.phase, "tma_wait")
	comp.roundStage(s.rd)
	comp.tile(s.rd)
	b.ins("wgmma.wait_group.sync.aligned 1")
	s.release("!" + s.first)
	b.ins("setp.ne.u32 %s, %s, %s", s.first, c.tid, c.tid)
	// barP follows barR one stage behind: the stage whose group retired.
	b.ins("sub.s32 %s, %s, %s", s.barP, s.barR, s.r.full)
	b.ins("add.s32 %s, %s, %s", s.barP, s.barP, s.r.empty)
	c.rotate(s.rd)
	c.rotateBar(s.barR, s.r.full, s.phase)
	b.ins("sub.s32 %s, %s, 1", s.cnt, s.cnt)
	more := b.reg(kPred)
	b.ins("setp.gt.s32 %s, %s, 0", more, s.cnt)
	b.insP(more, "bra.uni %s", top)
}

// release arrives at the empty barrier barP (under pred, "" for always).
func (s *ringConsumer) release(pred string) {
	b := s.r.c.b
	state := b.reg(kB64)
	if pred == "" {
		b.ins("mbarrier.arrive.shared.b64 %s, [%s]", state, s.barP)
		return
	}
	b.insP(pred, "mbarrier.arrive.shared.b64 %s, [%s]", state, s.barP)
}

// barrier is a barrier of the block's computing threads: the whole block,
// or, where a producer warp has left it (TMA = 2), named barrier 1 over
// the threads that compute.
func (c *gemmCtx) barrier() {
	if c.g.cfg.TMA == 2 {
		c.b.ins("bar.sync 1, %d", c.g.threads)
		return
	}
	c.b.ins("bar.sync 0")
}

// waitPhase spins until the mbarrier at bar has completed the phase of
// parity parity (its own label, named after prefix).
func (c *gemmCtx) waitPhase(bar, parity, prefix string) {
	b := c.b
	wait := b.newLabel(prefix)
	b.label(wait)
	ready := b.reg(kPred)
	b.ins("mbarrier.try_wait.parity.shared.b64 %s, [%s], %s", ready, bar, parity)
	b.insP("!"+ready, "bra %s", wait)
}
