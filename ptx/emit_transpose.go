package ptx

import "fmt"

// TransposeJob is how one job of a transposes kernel (GenerateTransposes)
// moves its tensor: a 4-d (A, B, C, D) with element strides (sA, sB, sC, sD)
// into a packed (A, C, D, B), the second dimension moved last. A
// convolution's x in NCHW (any strides) becomes a packed NHWC copy, and its
// filter in NCHW format (K, C, R, S) one in NHWC format, so that the
// implicit GEMM gathers vectors of channels (see im2colLoader).
type TransposeJob int

const (
	// TransposeTiles moves tiles of 32 B-elements by 32 D-elements of one
	// (a, c) through shared memory, so that both the reads (along D) and
	// the writes (along B) are coalesced where the strides allow.
	// Parameters: u64 src, dst; s32 dA, dB, dC, dD, sA, sB, sC, sD, and
	// the tiles along D and along B (TransposeTileBlocks).
	TransposeTiles TransposeJob = iota
	// TransposeRows is for a short D (at most RowsMaxD; the caller merges C
	// into D): a thread per (a, b) reads its D elements and writes each to
	// its row of B, so consecutive threads write consecutive elements. A
	// filter's (K, C, R·S) becomes (K, R·S, C) with whole lines written,
	// where tiles would fill R·S of their columns. Parameters: u64 src,
	// dst; s32 dA, dB, dD, sA, sB, sD, and the blocks along B
	// (TransposeRowsBlocks).
	TransposeRows
	// TransposePairs is TransposeTiles for 2-byte elements moved in 4-byte
	// words: D contiguous (sD = 1) and even, B even, the other strides
	// even and src 4-byte aligned. A thread loads a word (two elements
	// along D) of two consecutive rows of B, swaps their halves (prmt) into
	// the two pairs along B, and the block writes whole words of B: a
	// tenth of the instructions a tiles job spends on each element, which
	// that job's 2-byte loads and stores made its limit. Tiles of 64 B- by
	// 64 D-elements. Parameters: u64 src, dst; s32 dA, dB, dC, dD, sA, sB,
	// sC, and the tiles along D and along B (TransposePairsBlocks).
	TransposePairs
)

// RowsMaxD is the longest last dimension a TransposeRows job takes.
const RowsMaxD = 32

// shortRows is the first of the TransposeRows jobs for rows shorter than
// RowsMaxD (RowsJob): shortRows + g - 1 takes rows of at most g groups of
// loads (rowsGroup).
const shortRows TransposeJob = 16

// RowsJob is the TransposeRows job for rows of at most d elements (1 ≤ d ≤
// RowsMaxD): its threads issue only as many groups of loads as such a row
// needs, so that it holds no more registers than it uses. A kernel's
// registers are those of its largest job, and the job beside it (x's copy
// beside a 3×3 filter's) runs with fewer blocks an SM for each group more.
func RowsJob(d int) TransposeJob {
	g := ceilDiv(max(d, 1), rowsGroup)
	if g >= RowsMaxD/rowsGroup {
		return TransposeRows
	}
	return shortRows + TransposeJob(g-1)
}

// Rows reports whether j is a TransposeRows job (RowsJob's included).
func (j TransposeJob) Rows() bool {
	return j == TransposeRows || j >= shortRows && j < shortRows+RowsMaxD/rowsGroup-1
}

// rowsMax is the longest row a rows job j takes.
func (j TransposeJob) rowsMax() int {
	if j == TransposeRows {
		return RowsMaxD
	}
	return int(j-shortRows+1) * rowsGroup
}

// suffix is j's letters in its kernel's name ("" for no job).
func (j TransposeJob) suffix() string {
	switch {
	case j == TransposeTiles:
		return "t"
	case j == TransposePairs:
		return "p"
	case j == TransposeRows:
		return "r"
	case j.Rows():
		return fmt.Sprintf("r%d", j.rowsMax())
	}
	return ""
}

// transposeThreads is the threads of a transposes kernel's block: a tile
// job's threads are 8 rows of 32.
const transposeThreads = 256

// transposeParams are the parameters of one job of kind j, after its src
// and dst.
func transposeParams(j TransposeJob) []string {
	switch {
	case j.Rows():
		return []string{"dA", "dB", "dD", "sA", "sB", "sD", "gx"}
	case j == TransposePairs:
		return []string{"dA", "dB", "dC", "dD", "sA", "sB", "sC", "gx", "gy"}
	}
	return []string{"dA", "dB", "dC", "dD", "sA", "sB", "sC", "sD", "gx", "gy"}
}

// GenerateTransposes emits the kernel that runs one or two transposes (the
// jobs, see TransposeJob) in one launch: the convolution's x and its
// filter without a second launch between them. Job 0's blocks are the
// grid's first z0 slices, indexed as its TransposeJob says (TransposeGrid);
// job 1's are the n1 first of the slices after them, numbered x fastest,
// then y, then z (its block index divided out; the rest of those slices
// exit). Parameters: job i's as its TransposeJob says, prefixed "j<i>_",
// then s32 z0 and n1 (two jobs only). On sm_90, trigger says when the
// kernel after it, launched as its programmatic dependent, may be
// scheduled.
func GenerateTransposes(es int, jobs []TransposeJob, arch string, trigger Trigger) (*Kernel, error) {
	return generateTransposes(es, jobs, arch, false, trigger)
}

// Trigger is when a transposes kernel lets the kernel after it in the
// stream, launched as its programmatic dependent (one that waits for it:
// Kernel.WaitsOnPrior), be scheduled on sm_90.
type Trigger int

const (
	// TriggerAtStart: each block executes griddepcontrol.launch_dependents
	// first, so that the dependent's blocks may be scheduled once every
	// block of the transposes has started, and wait on the SMs beside the
	// last of them.
	TriggerAtStart Trigger = iota
	// TriggerAtEnd: no griddepcontrol.launch_dependents, so that the
	// dependent's blocks are scheduled as the transposes' blocks end (the
	// launch's latency hidden, the SMs not shared with blocks that wait).
	TriggerAtEnd
)

// GenerateTransposesTF32 is GenerateTransposes for 4-byte floats that
// rounds each element to TF32 (cvt.rna: to nearest, ties away from zero)
// as it copies it: the copies of a convolution whose math allows TF32,
// which wgmma reads from shared memory by their top 19 bits (truncated, a
// bias of half a TF32 unit toward zero in every product).
func GenerateTransposesTF32(jobs []TransposeJob, arch string, trigger Trigger) (*Kernel, error) {
	return generateTransposes(4, jobs, arch, true, trigger)
}

func generateTransposes(es int, jobs []TransposeJob, arch string, roundTF32 bool, trigger Trigger) (*Kernel, error) {
	ty, ok := map[int]string{2: "b16", 4: "b32", 8: "b64"}[es]
	if !ok {
		return nil, fmt.Errorf("ptx: no transpose of %d-byte elements", es)
	}
	if len(jobs) < 1 || len(jobs) > 2 {
		return nil, fmt.Errorf("ptx: a transposes kernel of %d jobs (want 1 or 2)", len(jobs))
	}
	name := fmt.Sprintf("isaac_transposes_%s_", ty)
	if roundTF32 {
		name = "isaac_transposes_tf32_"
	}
	var params []Param
	for i, j := range jobs {
		if j == TransposePairs && (es != 2 || roundTF32) {
			return nil, fmt.Errorf("ptx: a pairs transpose of %d-byte elements (want 2)", es)
		}
		if j.suffix() == "" {
			return nil, fmt.Errorf("ptx: no transpose job %d", j)
		}
		name += j.suffix()
		params = append(params, Param{fmt.Sprintf("j%d_src", i), ".u64", 8}, Param{fmt.Sprintf("j%d_dst", i), ".u64", 8})
		for _, n := range transposeParams(j) {
			params = append(params, Param{fmt.Sprintf("j%d_%s", i, n), ".s32", 4})
		}
	}
	if len(jobs) == 2 {
		params = append(params, Param{"z0", ".s32", 4}, Param{"n1", ".s32", 4})
	}
	switch trigger {
	case TriggerAtStart:
	case TriggerAtEnd:
		name += "_te"
	default:
		return nil, fmt.Errorf("ptx: no transposes trigger %d", trigger)
	}
	b := &builder{}
	c := &gemmCtx{b: b}
	if arch == "sm_90" && trigger == TriggerAtStart {
		// The kernel after it (the implicit GEMM on the copies, which waits
		// for this grid to end: Kernel.WaitsOnPrior) may be scheduled once
		// every block of this one has started.
		b.ins("griddepcontrol.launch_dependents")
	}
	tid := b.reg(kB32)
	b.ins("mov.u32 %s, %%tid.x", tid)
	var blk [3]string
	for i, d := range []string{"x", "y", "z"} {
		blk[i] = b.reg(kB32)
		b.ins("mov.u32 %s, %%ctaid.%s", blk[i], d)
	}
	second := ""
	if len(jobs) == 2 {
		z0 := c.intParam("z0")
		isSecond := b.reg(kPred)
		b.ins("setp.ge.s32 %s, %s, %s", isSecond, blk[2], z0)
		second = b.newLabel("second_job")
		b.insP(isSecond, "bra %s", second)
	}
	shared := 0
	for i, j := range jobs {
		if i == 1 {
			b.label(second)
			blk = secondJobBlock(b, c, j)
		}
		pre := fmt.Sprintf("j%d_", i)
		src, dst := c.globalParam(pre+"src"), c.globalParam(pre+"dst")
		p := map[string]string{}
		for _, n := range transposeParams(j) {
			p[n] = c.intParam(pre + n)
		}
		b.comment("job %d", i)
		switch {
		case j.Rows():
			transposeRowsJob(b, es, ty, src, dst, p, tid, blk, j.rowsMax(), roundTF32)
		case j == TransposePairs:
			shared = max(shared, transposePairsJob(b, src, dst, p, tid, blk))
		default:
			shared = max(shared, transposeTileJob(b, es, ty, src, dst, p, tid, blk, roundTF32))
		}
		b.ins("ret")
	}
	ptx := header(arch)
	if shared > 0 {
		ptx += fmt.Sprintf(".extern .shared .align 16 .b8 %s[];\n\n", smemSymbol)
	}
	return &Kernel{
		Name:        name,
		PTX:         ptx + entryMaxReg(name, params, 0, b),
		Block:       [3]int{transposeThreads, 1, 1},
		SharedBytes: shared,
		Params:      params,
	}, nil
}

// transposeTile is the elements of a TransposeTiles job's tile along B and
// along D (64-element tiles of 2- and 4-byte elements, each thread's 16
// loads in flight, ran slower on the H100: gputest/results/h100/conv/call48).
const transposeTile = 32

// transposeRowStride is the bytes of a tile's padded row in shared
// memory: an odd number of 4-byte words (8-byte ones for 8-byte
// elements), so that the threads of a warp reading a column of the tile
// hit distinct banks.
func transposeRowStride(es int) int {
	if es == 8 {
		return (transposeTile + 1) * es
	}
	return transposeTile*es + 4
}

// secondJobBlock is the block index (x, y, z) of the second job's block
// from the grid's: its number among the slices after the first job's,
// divided by the job's blocks along its x (and y) dimensions. The blocks
// past the job's exit.
func secondJobBlock(b *builder, c *gemmCtx, j TransposeJob) [3]string {
	z0, n1 := c.intParam("z0"), c.intParam("n1")
	l := b.reg(kB32) // ((ctaid.z - z0)·nctaid.y + ctaid.y)·nctaid.x + ctaid.x
	ny, nx, v := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("mov.u32 %s, %%nctaid.y", ny)
	b.ins("mov.u32 %s, %%nctaid.x", nx)
	b.ins("mov.u32 %s, %%ctaid.z", v)
	b.ins("sub.s32 %s, %s, %s", l, v, z0)
	b.ins("mov.u32 %s, %%ctaid.y", v)
	b.ins("mad.lo.s32 %s, %s, %s, %s", l, l, ny, v)
	b.ins("mov.u32 %s, %%ctaid.x", v)
	b.ins("mad.lo.s32 %s, %s, %s, %s", l, l, nx, v)
	past := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", past, l, n1)
	b.insP(past, "ret")
	gx := c.intParam("j1_gx")
	bx, rest := divmodRem(b, l, gx)
	if j.Rows() {
		return [3]string{bx, rest, ""}
	}
	by, bz := divmodRem(b, rest, c.intParam("j1_gy"))
	return [3]string{bx, by, bz}
}

// tileOrigin is what both tile jobs (TransposeTiles, TransposePairs)
// start from: the thread's lane and warp, the block's a and c (its z is
// a·C + c), its tile's first elements along D and B, and the base of
// shared memory.
type tileOrigin struct{ lane, warp, a, c, d0, b0, smem string }

// tileJobOrigin emits the start of a tile job of tile×tile elements for
// block blk (tile along D, tile along B, a·C + c).
func tileJobOrigin(b *builder, p map[string]string, tid string, blk [3]string, tile int) tileOrigin {
	o := tileOrigin{lane: b.reg(kB32), warp: b.reg(kB32)}
	b.ins("and.b32 %s, %s, 31", o.lane, tid)
	b.ins("shr.u32 %s, %s, 5", o.warp, tid)
	o.a, o.c = divmod(b, blk[2], p["dC"])
	o.d0, o.b0 = b.mulImm(blk[0], tile), b.mulImm(blk[1], tile)
	o.smem = b.reg(kB32)
	b.ins("mov.u32 %s, %s", o.smem, smemSymbol)
	return o
}

// transposeTileJob emits a TransposeTiles job for block blk (tile along D,
// tile along B, a·C + c) and returns the shared memory it uses. Each
// thread moves 4 elements each way, its loads in flight before its shared
// stores.
func transposeTileJob(b *builder, es int, ty, src, dst string, p map[string]string, tid string, blk [3]string, roundTF32 bool) int {
	kind := map[int]regKind{2: kB16, 4: kB32, 8: kB64}[es]
	o := tileJobOrigin(b, p, tid, blk, transposeTile)
	tx, trow, bz, a, cc, d0, b0, smem := o.lane, o.warp, blk[2], o.a, o.c, o.d0, o.b0, o.smem
	stride := transposeRowStride(es)
	base := b.reg(kB32) // the source's part of (a, c)
	b.ins("mul.lo.s32 %s, %s, %s", base, a, p["sA"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", base, cc, p["sC"], base)
	type elem struct{ ok, v, sa string }
	var elems []elem
	b.comment("read rows of D into tile[b][d]")
	tileWalk(b, smem, tx, trow, d0, b0, p["dD"], p["dB"], false, stride, es, func(ok, dIdx, bIdx, sa string) {
		off := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, bIdx, p["sB"], base)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, dIdx, p["sD"], off)
		v := b.reg(kind)
		b.insP(ok, "ld.global.nc.%s %s, [%s]", ty, v, byteAddr(b, src, off, es))
		if roundTF32 {
			b.insP(ok, "cvt.rna.tf32.f32 %s, %s", v, v)
		}
		elems = append(elems, elem{ok, v, sa})
	})
	for _, e := range elems {
		b.insP(e.ok, "st.shared.%s [%s], %s", ty, e.sa, e.v)
	}
	b.ins("bar.sync 0")
	b.comment("write tile[b][d] as rows of B: dst[((a*C + c)*D + d)*B + b]")
	rowBase := b.reg(kB32) // (a·C + c)·D
	b.ins("mul.lo.s32 %s, %s, %s", rowBase, bz, p["dD"])
	tileWalk(b, smem, tx, trow, b0, d0, p["dB"], p["dD"], true, stride, es, func(ok, bOut, dOut, sa string) {
		v := b.reg(kind)
		b.insP(ok, "ld.shared.%s %s, [%s]", ty, v, sa)
		off := b.reg(kB32)
		b.ins("add.s32 %s, %s, %s", off, rowBase, dOut)
		b.ins("mad.lo.s32 %s, %s, %s, %s", off, off, p["dB"], bOut)
		b.insP(ok, "st.global.%s [%s], %s", ty, byteAddr(b, dst, off, es), v)
	})
	return transposeTile * stride
}

// tileWalk visits a thread's elements of a transpose tile: along one
// dimension its lane's (laneBase + tx), along the other the rows trow,
// trow + 8, … (rowBase + those). For each it passes the predicate that
// both indices are inside the tensor (below laneLim and rowLim), the two
// indices and the element's address in the tile, whose rows run along D:
// tile[b][d] at smem + b·stride + d·es (laneIsB: the lane walks B).
func tileWalk(b *builder, smem, tx, trow, laneBase, rowBase, laneLim, rowLim string, laneIsB bool, stride, es int, visit func(ok, laneIdx, rowIdx, sa string)) {
	laneIdx := b.add32(laneBase, tx)
	inLane := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", inLane, laneIdx, laneLim)
	for i := 0; i < transposeTile; i += transposeThreads / 32 {
		rowLocal := b.addImm32(trow, i)
		rowIdx := b.add32(rowBase, rowLocal)
		ok := b.reg(kPred)
		b.ins("setp.lt.and.s32 %s, %s, %s, %s", ok, rowIdx, rowLim, inLane)
		bl, dl := rowLocal, tx
		if laneIsB {
			bl, dl = tx, rowLocal
		}
		sa := b.reg(kB32)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, bl, stride, smem)
		b.ins("mad.lo.s32 %s, %s, %d, %s", sa, dl, es, sa)
		visit(ok, laneIdx, rowIdx, sa)
	}
}

// pairsTile is the elements of a TransposePairs job's tile along B and
// along D: a row of 32 words.
const pairsTile = 64

// pairsRowWords is the 4-byte words of a pairs tile's row in shared
// memory: its 32 and one more, so that a warp reading a row (one word a
// lane) or writing a column (the lanes' rows one or two apart, see
// transposePairsJob) hits distinct banks.
const pairsRowWords = pairsTile/2 + 1

// pairsReads are a thread's loads of each of its two rows in a pairs job:
// 8 warps over the tile's 32 pairs of rows.
const pairsReads = pairsTile / 2 / (transposeThreads / 32)

// transposePairsJob emits a TransposePairs job for block blk (tile along
// D, tile along B, a·C + c) and returns the shared memory it uses. The
// tile lies in shared memory as tile[d][b/2]: word (d, k) holds the
// elements (b0 + 2k, b0 + 2k + 1) of column d0 + d. A thread's 8 loads
// are in flight before its shared stores, and its 8 stores of the
// transposed words each write a warp's 128 contiguous bytes.
func transposePairsJob(b *builder, src, dst string, p map[string]string, tid string, blk [3]string) int {
	org := tileJobOrigin(b, p, tid, blk, pairsTile)
	lane, warp, bz, a, cc, d0, b0, smem := org.lane, org.warp, blk[2], org.a, org.c, org.d0, org.b0, org.smem

	b.comment("read word lane of rows b0 + 2*(warp + 8i) and the next, i < %d", pairsReads)
	d := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 2, %s", d, lane, d0)
	dIn := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", dIn, d, p["dD"])
	row := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 2, %s", row, warp, b0)
	off := b.reg(kB32) // a·sA + c·sC + row·sB + d
	b.ins("mul.lo.s32 %s, %s, %s", off, a, p["sA"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, cc, p["sC"], off)
	b.ins("mad.lo.s32 %s, %s, %s, %s", off, row, p["sB"], off)
	b.ins("add.s32 %s, %s, %s", off, off, d)
	g := byteAddr(b, src, off, 2)
	next, step := b.reg(kB64), b.reg(kB64) // a row's bytes; 16 rows'
	b.ins("mul.wide.s32 %s, %s, 2", next, p["sB"])
	b.ins("mul.wide.s32 %s, %s, 32", step, p["sB"])
	oks := make([]string, pairsReads)
	words := make([][2]string, pairsReads)
	for i := range pairsReads {
		g = advance64(b, g, step, i)
		g1 := b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", g1, g, next)
		oks[i] = b.reg(kPred)
		b.ins("setp.lt.and.s32 %s, %s, %s, %s", oks[i], b.addImm32(row, 16*i), p["dB"], dIn)
		words[i] = [2]string{b.reg(kB32), b.reg(kB32)}
		b.insP(oks[i], "ld.global.nc.b32 %s, [%s]", words[i][0], g)
		b.insP(oks[i], "ld.global.nc.b32 %s, [%s]", words[i][1], g1)
	}
	b.comment("tile[2*lane + e][warp + 8i] first, then tile[2*lane + 1 - e][...], e = lane / 16: banks 2*lane + e + warp, distinct")
	hiFirst := b.reg(kPred)
	b.ins("setp.ge.u32 %s, %s, 16", hiFirst, lane)
	first, second, delta := b.reg(kB32), b.reg(kB32), b.reg(kB32)
	b.ins("selp.b32 %s, 1, 0, %s", first, hiFirst)
	b.ins("mad.lo.s32 %s, %s, 2, %s", first, lane, first)
	b.ins("mad.lo.s32 %s, %s, %d, %s", first, first, pairsRowWords, warp)
	b.ins("shl.b32 %s, %s, 2", first, first)
	b.ins("add.s32 %s, %s, %s", first, first, smem)
	b.ins("selp.s32 %s, %d, %d, %s", delta, -4*pairsRowWords, 4*pairsRowWords, hiFirst)
	b.ins("add.s32 %s, %s, %s", second, first, delta)
	for i, w := range words {
		lo, hi := b.reg(kB32), b.reg(kB32) // (b, b+1) of column d; of d+1
		b.ins("prmt.b32 %s, %s, %s, 0x5410", lo, w[0], w[1])
		b.ins("prmt.b32 %s, %s, %s, 0x7632", hi, w[0], w[1])
		v1, v2 := b.reg(kB32), b.reg(kB32)
		b.ins("selp.b32 %s, %s, %s, %s", v1, hi, lo, hiFirst)
		b.ins("selp.b32 %s, %s, %s, %s", v2, lo, hi, hiFirst)
		b.insP(oks[i], "st.shared.b32 %s, %s", addr(first, 4*8*i), v1)
		b.insP(oks[i], "st.shared.b32 %s, %s", addr(second, 4*8*i), v2)
	}
	b.ins("bar.sync 0")

	writes := pairsTile / (transposeThreads / 32)
	b.comment("write word lane of tile columns warp + 8j (j < %d): dst[((a*C + c)*D + d)*B + b0 + 2*lane]", writes)
	ch := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, 2, %s", ch, lane, b0)
	chIn := b.reg(kPred)
	b.ins("setp.lt.s32 %s, %s, %s", chIn, ch, p["dB"])
	pix := b.add32(d0, warp)
	o := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %s, %s", o, bz, p["dD"], pix)
	b.ins("mad.lo.s32 %s, %s, %s, %s", o, o, p["dB"], ch)
	ga := byteAddr(b, dst, o, 2)
	gstep := b.reg(kB64) // 8 columns of B elements
	b.ins("mul.wide.s32 %s, %s, 16", gstep, p["dB"])
	sa := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", sa, warp, pairsRowWords, lane)
	b.ins("shl.b32 %s, %s, 2", sa, sa)
	b.ins("add.s32 %s, %s, %s", sa, sa, smem)
	for j := range writes {
		ga = advance64(b, ga, gstep, j)
		ok := b.reg(kPred)
		b.ins("setp.lt.and.s32 %s, %s, %s, %s", ok, b.addImm32(pix, 8*j), p["dD"], chIn)
		v := b.reg(kB32)
		b.insP(ok, "ld.shared.b32 %s, %s", v, addr(sa, 4*pairsRowWords*8*j))
		b.insP(ok, "st.global.b32 [%s], %s", ga, v)
	}
	return pairsTile * pairsRowWords * 4
}

// advance64 is the address of the i-th of a run of accesses step bytes
// apart, given the (i-1)-th's at addr: addr itself for the first.
func advance64(b *builder, addr, step string, i int) string {
	if i == 0 {
		return addr
	}
	d := b.reg(kB64)
	b.ins("add.s64 %s, %s, %s", d, addr, step)
	return d
}

// TransposePairsBlocks are a TransposePairs job's tiles along D (gx) and
// along B (gy) and its blocks (n) for dimensions (A, B, C, D).
func TransposePairsBlocks(dA, dB, dC, dD int) (gx, gy, n int) {
	gx, gy = ceilDiv(dD, pairsTile), ceilDiv(dB, pairsTile)
	return gx, gy, gx * gy * dA * dC
}

// PairsFit reports whether a TransposePairs job moves the 2-byte tensor at
// src (a byte address; 0 where it is not known yet) of dims (A, B, C, D)
// and element strides: D contiguous, B and D even, whole words.
func PairsFit(src uintptr, dims, strides [4]int) bool {
	even := func(i int) bool { return dims[i] == 1 || strides[i]%2 == 0 }
	return src%4 == 0 && strides[3] == 1 && dims[1]%2 == 0 && dims[3]%2 == 0 && even(0) && even(1) && even(2)
}

// divmodRem is (a mod d, a / d).
func divmodRem(b *builder, a, d string) (rem, quo string) {
	quo, rem = divmod(b, a, d)
	return rem, quo
}

// rowsGroup is the loads a TransposeRows job issues between its checks of
// the row's length: a thread's loads of a short row stop at the first
// group past it, so a 3×3 filter's 9 taps cost two groups, not RowsMaxD
// predicated-off loads.
const rowsGroup = 8

// transposeRowsJob emits a TransposeRows job for block blk (along B, a).
// Every load of the thread's row is issued before its first store, so the
// row costs one round trip to memory whatever its length (issued in
// batches of 8 with the stores between, a 5×5 filter's 25 taps took four:
// gputest/results/h200/conv/call105). Loads and stores come in groups of
// rowsGroup; the loads branch to the stores, and the stores return, after
// the group that reaches D. The job takes rows of at most maxD elements
// (RowsMaxD, or RowsJob's bound).
func transposeRowsJob(b *builder, es int, ty, src, dst string, p map[string]string, tid string, blk [3]string, maxD int, roundTF32 bool) {
	kind := map[int]regKind{2: kB16, 4: kB32, 8: kB64}[es]
	bx, a := blk[0], blk[1]
	bi := b.reg(kB32)
	b.ins("mad.lo.s32 %s, %s, %d, %s", bi, bx, transposeThreads, tid)
	out := b.reg(kPred)
	b.ins("setp.ge.s32 %s, %s, %s", out, bi, p["dB"])
	b.insP(out, "ret")
	in := b.reg(kB32)
	b.ins("mul.lo.s32 %s, %s, %s", in, a, p["sA"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", in, bi, p["sB"], in)
	o := b.reg(kB32) // dst: (a·D + d)·B + b
	b.ins("mul.lo.s32 %s, %s, %s", o, a, p["dD"])
	b.ins("mad.lo.s32 %s, %s, %s, %s", o, o, p["dB"], bi)
	// past[g]: the row ends within group g (D <= its last index + 1).
	past := func(g int) string {
		q := b.reg(kPred)
		b.ins("setp.le.s32 %s, %s, %d", q, p["dD"], (g+1)*rowsGroup)
		return q
	}
	stores := b.newLabel("rows_store")
	b.comment("the row's elements, every load in flight before the first store")
	// Running addresses (one 64-bit add an element) and each predicate
	// set where it is used: fewer registers held across the loads.
	ga, step := byteAddr(b, src, in, es), b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", step, p["sD"], es)
	vals := make([]string, maxD)
	for d := range maxD {
		ok := b.reg(kPred)
		b.ins("setp.gt.s32 %s, %s, %d", ok, p["dD"], d)
		ga = advance64(b, ga, step, d)
		vals[d] = b.reg(kind)
		b.insP(ok, "ld.global.nc.%s %s, [%s]", ty, vals[d], ga)
		if g := d / rowsGroup; d%rowsGroup == rowsGroup-1 && d+1 < maxD {
			b.insP(past(g), "bra %s", stores)
		}
	}
	b.label(stores)
	da, dstep := byteAddr(b, dst, o, es), b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", dstep, p["dB"], es)
	for d := range maxD {
		ok := b.reg(kPred)
		b.ins("setp.gt.s32 %s, %s, %d", ok, p["dD"], d)
		if roundTF32 {
			b.insP(ok, "cvt.rna.tf32.f32 %s, %s", vals[d], vals[d])
		}
		da = advance64(b, da, dstep, d)
		b.insP(ok, "st.global.%s [%s], %s", ty, da, vals[d])
		if g := d / rowsGroup; d%rowsGroup == rowsGroup-1 && d+1 < maxD {
			b.insP(past(g), "ret")
		}
	}
}

// TransposeTileBlocks are a TransposeTiles job's tiles along D (gx) and
// along B (gy) and its blocks (n) for dimensions (A, B, C, D).
func TransposeTileBlocks(dA, dB, dC, dD int) (gx, gy, n int) {
	gx, gy = ceilDiv(dD, transposeTile), ceilDiv(dB, transposeTile)
	return gx, gy, gx * gy * dA * dC
}

// TransposeRowsBlocks are a TransposeRows job's blocks along B (gx) and
// its blocks (n) for dimensions (A, B, D); ok is false beyond RowsMaxD.
func TransposeRowsBlocks(dA, dB, dD int) (gx, n int, ok bool) {
	gx = ceilDiv(dB, transposeThreads)
	return gx, gx * dA, dD >= 1 && dD <= RowsMaxD
}

// TransposeGrid is the grid of a transposes kernel whose first job has
// the dims (A, B, C, D; C = 1 for a rows job) and blocks along D or B (gx)
// and B (gy, tiles only) and whose second job, if n1 > 0, has n1 blocks;
// z0 is the first job's z slices. ok is false beyond the grid's limits.
func TransposeGrid(first TransposeJob, dims [4]int, gx, gy, n1 int) (grid [3]int, z0 int, ok bool) {
	grid = [3]int{gx, gy, dims[0] * dims[2]}
	if first.Rows() {
		grid = [3]int{gx, dims[0], 1}
	}
	z0 = grid[2]
	if n1 > 0 {
		grid[2] += ceilDiv(n1, grid[0]*grid[1])
	}
	return grid, z0, grid[0] < 1<<31-1 && grid[1] <= 65535 && grid[2] <= 65535
}

// byteAddr is base + off·es (off a 32-bit element offset).
func byteAddr(b *builder, base, off string, es int) string {
	wide, a := b.reg(kB64), b.reg(kB64)
	b.ins("mul.wide.s32 %s, %s, %d", wide, off, es)
	b.ins("add.s64 %s, %s, %s", a, base, wide)
	return a
}
