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
// consecutive matrices of A, B and C. Blocks of grid slice z compute
// matrix z / (KG·KC) of the batch; a stride may be 0 (one matrix of A or
// B for the whole batch).
func batchParamsOf(in InputClass) []Param {
	if !in.Batched {
		return nil
	}
	return []Param{{"strideA", ".s64", 8}, {"strideB", ".s64", 8}, {"strideC", ".s64", 8}}
}

// batchLegal are the rules of a batched class: no split of the reduction
// across blocks of the grid (its workspace and counters are per problem),
// no tensor copies (their maps are two-dimensional) and no persistent grid.
func batchLegal(cfg GemmConfig, in InputClass) error {
	switch {
	case !in.Batched:
		return nil
	case cfg.KG > 1:
		return illegal("ptx: a batched GEMM has no grid split of the reduction (kg=%d)", cfg.KG)
	case cfg.TMA != 0 || cfg.PS != 0:
		return illegal("ptx: a batched GEMM has no tensor copies or persistent grid (tma=%d ps=%d)", cfg.TMA, cfg.PS)
	}
	return nil
}

// batchOffsets moves the block's A, B and C to matrix bz of the batch
// (bz = ctaid.z / splits, the grid's z slices per matrix) and returns the
// block's slice within its matrix (ctaid.z % splits; "" when splits is 1).
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
	return rest
}
