package ptx

// batchSuffix is a batched class's addition to kernel names.
func (in InputClass) batchSuffix() string {
	if in.Batched {
		return "_batched"
	}
	return ""
}

// batchParamsOf are the parameters a batched class's kernel takes after
// the others (the ABI's, its tensor maps'): the element strides between
// consecutive matrices of A, B and C, and the launch's matrices. Blocks of
// grid slice z compute matrix z / (KG·KC) of the batch, or a persistent
// kernel's tile t matrix t / (tiles of one); a stride may be 0 (one matrix
// of A or B for the whole batch).
func batchParamsOf(in InputClass) []Param {
	if !in.Batched {
		return nil
	}
	return []Param{{"strideA", ".s64", 8}, {"strideB", ".s64", 8}, {"strideC", ".s64", 8}, {"batch", ".s32", 4}}
}

// batchLegal are the rules of a batched class: no split of the reduction
// across blocks of the grid (its workspace and counters are per problem).
// Tensor copies address the batch through their maps' third dimension, a
// persistent grid through its tiles' index.
func batchLegal(cfg GemmConfig, in InputClass) error {
	if in.Batched && cfg.KG > 1 {
		return illegal("ptx: a batched GEMM has no grid split of the reduction (kg=%d)", cfg.KG)
	}
	return nil
}

// batchOffsets moves the block's A, B and C to matrix bz of the batch
// (bz = ctaid.z / splits, the grid's z slices per matrix) and returns the
// block's slice within its matrix (ctaid.z % splits; "" when splits is 1).
// A kernel with tensor copies also gets bz as its copies' batch
// coordinates (batchCoords).
func (c *gemmCtx) batchOffsets(splits int) string {
	b, es := c.b, c.g.es
	z := b.reg(kB32)
	b.ins("mov.u32 %s, %%ctaid.z", z)
	bz, rest := z, ""
	if splits > 1 {
		bz, rest = b.reg(kB32), b.reg(kB32)
		b.ins("div.u32 %s, %s, %d", bz, z, splits)
		b.ins("rem.u32 %s, %s, %d", rest, z, splits)
	}
	bz64 := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", bz64, bz)
	b.comment("the block's matrices of the batch")
	for _, op := range []struct {
		reg  *string
		name string
		size int
	}{{&c.A, "strideA", es}, {&c.B, "strideB", es}, {&c.C, "strideC", c.g.in.CType.Size()}} {
		st := b.reg(kB64)
		b.ins("ld.param.s64 %s, [p_%s]", st, op.name)
		b.ins("mul.lo.s64 %s, %s, %s", st, st, bz64)
		b.ins("mul.lo.s64 %s, %s, %d", st, st, op.size)
		moved := b.reg(kB64)
		b.ins("add.s64 %s, %s, %s", moved, *op.reg, st)
		*op.reg = moved
	}
	if c.g.cfg.TMA >= 1 {
		c.batchCoords(bz)
	}
	return rest
}

// batchRegs are a batched kernel's registers for its tensor copies and
// its persistent grid: the copies' batch coordinates of A and B (the
// matrix's index, or 0 where the operand's stride is 0: kernels encodes
// such an operand's map with a batch of one), whether A's and B's strides
// are 0, and, persistent, C's first matrix, C's stride in bytes and the
// tiles of one matrix.
type batchRegs struct {
	bzA, bzB       string
	bcastA, bcastB string
	cBase, cStride string
	tilesPerMatrix string
}

// batchCoordRegs makes the copies' batch coordinate registers (before the
// tensor copies' operands take them: newTMAOperand) and reads which
// strides are 0.
func (c *gemmCtx) batchCoordRegs() {
	b, r := c.b, &c.batch
	r.bzA, r.bzB = b.reg(kB32), b.reg(kB32)
	r.bcastA, r.bcastB = b.reg(kPred), b.reg(kPred)
	for _, op := range []struct{ p, name string }{{r.bcastA, "strideA"}, {r.bcastB, "strideB"}} {
		st := b.reg(kB64)
		b.ins("ld.param.s64 %s, [p_%s]", st, op.name)
		b.ins("setp.eq.s64 %s, %s, 0", op.p, st)
	}
}

// batchCoords sets the copies' batch coordinates for matrix bz.
func (c *gemmCtx) batchCoords(bz string) {
	b, r := c.b, &c.batch
	if r.bzA == "" {
		c.batchCoordRegs()
	}
	b.ins("selp.b32 %s, 0, %s, %s", r.bzA, bz, r.bcastA)
	b.ins("selp.b32 %s, 0, %s, %s", r.bzB, bz, r.bcastB)
}

// batchPersistent sets up a persistent batched kernel (after the tiles'
// count of one matrix): the launch's tiles are every matrix's, tile t of
// matrix t / tilesPerMatrix; C is moved per tile (batchTile).
func (c *gemmCtx) batchPersistent() {
	b, r := c.b, &c.batch
	n := b.reg(kB32)
	b.ins("ld.param.s32 %s, [p_batch]", n)
	r.tilesPerMatrix = b.reg(kB32)
	b.ins("mov.b32 %s, %s", r.tilesPerMatrix, c.tiles)
	b.ins("mul.lo.u32 %s, %s, %s", c.tiles, c.tiles, n)
	r.cBase, r.cStride = c.C, b.reg(kB64)
	b.ins("ld.param.s64 %s, [p_strideC]", r.cStride)
	b.ins("mul.lo.s64 %s, %s, %d", r.cStride, r.cStride, c.g.in.CType.Size())
	c.C = b.reg(kB64)
	b.ins("mov.b64 %s, %s", c.C, r.cBase)
	c.batchCoordRegs()
}

// batchTile takes persistent tile lin to its matrix: C moved there and the
// copies' batch coordinates set; it returns the tile's index within its
// matrix.
func (c *gemmCtx) batchTile(lin string) string {
	b, r := c.b, &c.batch
	bz, in := b.reg(kB32), b.reg(kB32)
	b.ins("div.u32 %s, %s, %s", bz, lin, r.tilesPerMatrix)
	b.ins("rem.u32 %s, %s, %s", in, lin, r.tilesPerMatrix)
	bz64 := b.reg(kB64)
	b.ins("cvt.u64.u32 %s, %s", bz64, bz)
	b.ins("mad.lo.s64 %s, %s, %s, %s", c.C, bz64, r.cStride, r.cBase)
	c.batchCoords(bz)
	return in
}
