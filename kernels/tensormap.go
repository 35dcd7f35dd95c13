package kernels

import (
	"fmt"
	"slices"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// tensorMapOf is the driver's description of the tensor map m of a TMA
// kernel (ptx.TensorMap) for call g: the operand's pointer, its extents
// with the contiguous one first, its leading dimension in bytes, boxes of
// 128-byte lines with the 128-byte swizzle, lines promoted to L2 in 256
// bytes. An empty extent (k = 0) is encoded as 1.
func tensorMapOf(m ptx.TensorMap, g *request.Gemm) (cuda.TensorMap2D, error) {
	base, ld := g.A, g.LDA
	if m.Operand == 'B' {
		base, ld = g.B, g.LDB
	}
	inner, outer, stride := m.Dims(int(g.M), int(g.N), int(g.K), int(ld))
	// k = 0 (C = beta·C): the kernel copies nothing, but the driver takes
	// no empty dimension.
	inner, outer = max(inner, 1), max(outer, 1)
	t := cuda.TensorMap2D{
		Base: cuda.DevicePtr(base), Dims: [2]uint64{uint64(inner), uint64(outer)}, Stride: uint64(stride),
		Box: [2]uint32{uint32(m.Box[0]), uint32(m.Box[1])}, Swizzle: cuda.Swizzle128B, Promotion: cuda.L2Promotion256B,
	}
	switch m.ElemSize {
	case 1:
		t.Type = cuda.TensorMapUint8
	case 2:
		t.Type = cuda.TensorMapUint16
	case 4:
		t.Type = cuda.TensorMapUint32
	case 8:
		t.Type = cuda.TensorMapUint64
	default:
		return t, fmt.Errorf("kernels: no tensor map type of %d-byte elements", m.ElemSize)
	}
	return t, nil
}

// encodedMaps is a kernel's tensor maps as encoded for one call: the
// drivers' descriptions and the bytes.
type encodedMaps struct {
	desc []cuda.TensorMap2D
	buf  [][cuda.TensorMapBytes]byte
}

// packTensorMaps appends the kernel's tensor maps, encoded for g, to its
// parameters. The maps of k's last call are kept: a call on the same
// operands (pointers, sizes, leading dimensions), as a loop's calls
// usually are, takes them without the driver. Calls from several threads
// replace each other's, each an immutable snapshot.
func packTensorMaps(p *cuda.Params, g *request.Gemm, k *Kernel) error {
	maps := k.gen.TensorMaps
	if len(maps) == 0 {
		return nil
	}
	var descs [2]cuda.TensorMap2D
	if len(maps) > len(descs) {
		return fmt.Errorf("kernels: %d tensor maps", len(maps))
	}
	for i, m := range maps {
		t, err := tensorMapOf(m, g)
		if err != nil {
			return err
		}
		descs[i] = t
	}
	e := k.maps.Load()
	if e == nil || !slices.Equal(e.desc, descs[:len(maps)]) {
		e = &encodedMaps{desc: slices.Clone(descs[:len(maps)]), buf: make([][cuda.TensorMapBytes]byte, len(maps))}
		for i := range maps {
			if err := e.desc[i].Encode(&e.buf[i]); err != nil {
				return fmt.Errorf("kernels: tensor map of %c for %s: %w", maps[i].Operand, g, err)
			}
		}
		k.maps.Store(e)
	}
	for i := range e.buf {
		p.Bytes(e.buf[i][:], 64)
	}
	return nil
}
