package ptx

// TensorMap is what the host encodes (cuTensorMapEncodeTiled) for one
// operand of a kernel that stages its tiles with the bulk tensor copy
// engine (GemmConfig.TMA): a two-dimensional view of the operand whose
// inner dimension is its contiguous one, copied in boxes of Box elements
// with the 128-byte swizzle, out-of-bounds elements read as zeros. The
// kernel takes the encoded 128-byte map by value, after the ABI's
// parameters, A's then B's (Kernel.TensorMaps lists them in that order).
//
// A convolution's A (Im2col) is instead x in the copy engine's im2col mode
// (cuTensorMapEncodeIm2col): a 4-d NHWC view of x, each copy Box[0]
// channels of Box[1] output pixels' inputs at one filter tap, in the same
// swizzled lines.
type TensorMap struct {
	Operand  byte   // 'A' or 'B'
	KInner   bool   // the inner (contiguous) dimension is k: A 'T', B 'N'; else m (A) or n (B)
	Box      [2]int // box extent in elements, inner then outer
	ElemSize int    // bytes per element
	Im2col   bool   // A of a convolution: x in the im2col mode
	// Batched (a batched class's) adds a third dimension, the batch: the
	// operand's matrices at its stride, or one matrix where the stride is
	// 0 (the kernel's coordinate is then 0). Boxes are one matrix deep.
	Batched bool
}

// TensorMapBytes is the size of an encoded tensor map (CUtensorMap).
const TensorMapBytes = 128

// Dims is the map's view of an m×n×k input whose operand has leading
// dimension ld (elements): the extents of the inner and the outer
// dimension, in elements, and the outer dimension's stride in bytes.
func (t TensorMap) Dims(m, n, k, ld int) (inner, outer, strideBytes int) {
	mn := m
	if t.Operand == 'B' {
		mn = n
	}
	if t.KInner {
		return k, mn, ld * t.ElemSize
	}
	return mn, k, ld * t.ElemSize
}

// tensorMapsOf describes the maps of a TMA kernel: A's tile of ML×U and
// B's of U×NL, in boxes of 128 bytes along the contiguous dimension (one
// box for a k-contiguous tile, one per 64-element column of an
// m/n-contiguous one) by the whole tile along the other.
func tensorMapsOf(g geometry) []TensorMap {
	if g.cfg.TMA == 0 {
		return nil
	}
	var out []TensorMap
	for _, op := range []struct {
		name byte
		o    operandGeom
	}{{'A', g.a}, {'B', g.b}} {
		out = append(out, TensorMap{Operand: op.name, KInner: op.o.kContig, Box: [2]int{128 / g.es, op.o.lo}, ElemSize: g.es,
			Im2col: op.name == 'A' && g.in.Conv != NotConv, Batched: g.in.Batched})
	}
	return out
}

// tensorMapParams are the kernel parameters of a TMA kernel's maps.
func tensorMapParams(maps []TensorMap) []Param {
	var out []Param
	for _, t := range maps {
		out = append(out, Param{Name: "tm" + string(t.Operand), PTXType: ".align 64 .b8", Size: TensorMapBytes})
	}
	return out
}

// TMATwin is c staged by the bulk tensor copy engine (TMA = 1) when c is a
// wgmma configuration whose twin Legal admits for in on dev, and c
// otherwise: the same blocks, k-slice and stages, only the copies differ.
func TMATwin(c GemmConfig, in InputClass, dev DeviceLimits) GemmConfig {
	if !c.Math.IsWGMMA() || c.TMA != 0 {
		return c
	}
	t := c
	t.TMA = 1
	if Legal(t, in, dev) != nil {
		return c
	}
	return t
}
