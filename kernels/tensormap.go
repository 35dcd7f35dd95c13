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
// bytes; a batched class's, a third dimension of the batch's matrices. An
// empty extent (k = 0) is encoded as 1.
func tensorMapOf(m ptx.TensorMap, g *request.Gemm) (cuda.TensorMapTiled, error) {
	base, ld, batchStride := g.A, g.LDA, g.StrideA
	if m.Operand == 'B' {
		base, ld, batchStride = g.B, g.LDB, g.StrideB
	}
	inner, outer, stride := m.Dims(int(g.M), int(g.N), int(g.K), int(ld))
	// k = 0 (C = beta·C): the kernel copies nothing, but the driver takes
	// no empty dimension.
	inner, outer = max(inner, 1), max(outer, 1)
	t := cuda.TensorMapTiled{
		Base: cuda.DevicePtr(base), Dims: [2]uint64{uint64(inner), uint64(outer)}, Stride: uint64(stride),
		Box: [2]uint32{uint32(m.Box[0]), uint32(m.Box[1])}, Swizzle: cuda.Swizzle128B, Promotion: cuda.L2Promotion256B,
	}
	if m.Batched {
		// A batch's matrices; an operand of stride 0 is one matrix
		// (the kernel's coordinate is then 0), whose unused stride is
		// the matrix's bytes rounded up to the driver's 16.
		t.Batch, t.BatchStride = uint64(max(g.Batch, 1)), uint64(batchStride)*uint64(m.ElemSize)
		if batchStride == 0 {
			t.Batch, t.BatchStride = 1, uint64(outer*stride+15)/16*16
		}
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
// drivers' descriptions and the bytes (a convolution's: x's im2col map,
// then the filter's tiled map).
type encodedMaps struct {
	desc   []cuda.TensorMapTiled
	im2col cuda.TensorMapIm2col
	buf    [][cuda.TensorMapBytes]byte
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
	var descs [2]cuda.TensorMapTiled
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

// dataTypeOf is the tensor map element type of es-byte elements.
func dataTypeOf(es int) (cuda.TensorMapDataType, error) {
	switch es {
	case 1:
		return cuda.TensorMapUint8, nil
	case 2:
		return cuda.TensorMapUint16, nil
	case 4:
		return cuda.TensorMapUint32, nil
	case 8:
		return cuda.TensorMapUint64, nil
	}
	return 0, fmt.Errorf("kernels: no tensor map type of %d-byte elements", es)
}

// im2colMapOf is the driver's description of convolution c's x for a TMA
// kernel's A map m: x as an NHWC tensor (C, W, H, N innermost first, x
// channel-contiguous), each copy m.Box[0] channels of m.Box[1] pixels; the
// pixel box is the first tap's positions of the output pixels (from
// -padding to the last position whose filter window ends at the padding's
// far side), stepped by the strides.
func im2colMapOf(m ptx.TensorMap, c *request.Conv, s request.ConvShape) (cuda.TensorMapIm2col, error) {
	es := uint64(s.Type.Data.Size())
	ty, err := dataTypeOf(int(es))
	if err != nil {
		return cuda.TensorMapIm2col{}, err
	}
	return cuda.TensorMapIm2col{
		Type: ty, Base: cuda.DevicePtr(c.XPtr),
		Dims:     [4]uint64{uint64(s.C), uint64(s.W), uint64(s.H), uint64(s.N)},
		Strides:  [3]uint64{uint64(s.XStrides[3]) * es, uint64(s.XStrides[2]) * es, uint64(s.XStrides[0]) * es},
		Lower:    [2]int32{int32(-s.PadW), int32(-s.PadH)},
		Upper:    [2]int32{int32(s.PadW - (s.S-1)*s.DilW), int32(s.PadH - (s.R-1)*s.DilH)},
		Channels: uint32(m.Box[0]), Pixels: uint32(m.Box[1]),
		ElemStrides: [4]uint32{1, uint32(s.StrW), uint32(s.StrH), 1},
		Swizzle:     cuda.Swizzle128B, Promotion: cuda.L2Promotion256B,
	}, nil
}

// packConvTensorMaps appends a TMA convolution kernel's maps, encoded for
// c, to its parameters: x's im2col map and the filter's tiled map (a
// K × C·R·S matrix, as GEMM's B). The maps of k's last call are kept, as
// packTensorMaps keeps a GEMM's.
func packConvTensorMaps(p *cuda.Params, c *request.Conv, s request.ConvShape, k *Kernel) error {
	maps := k.gen.TensorMaps
	if len(maps) == 0 {
		return nil
	}
	if len(maps) != 2 || !maps[0].Im2col || maps[1].Operand != 'B' {
		return fmt.Errorf("kernels: a convolution's tensor maps are A's im2col and B's, not %v", maps)
	}
	a, err := im2colMapOf(maps[0], c, s)
	if err != nil {
		return err
	}
	crs := s.ReductionCRS()
	b, err := tensorMapOf(maps[1], &request.Gemm{B: c.WPtr, LDB: int64(crs), M: int64(s.Pixels()), N: int64(s.K), K: int64(crs)})
	if err != nil {
		return err
	}
	e := k.maps.Load()
	if e == nil || e.im2col != a || len(e.desc) != 1 || e.desc[0] != b {
		e = &encodedMaps{desc: []cuda.TensorMapTiled{b}, im2col: a, buf: make([][cuda.TensorMapBytes]byte, 2)}
		if err := a.Encode(&e.buf[0]); err != nil {
			return fmt.Errorf("%w: x's im2col map for %v: %v", ErrUnsupported, s, err)
		}
		if err := b.Encode(&e.buf[1]); err != nil {
			return fmt.Errorf("%w: the filter's tensor map for %v: %v", ErrUnsupported, s, err)
		}
		k.maps.Store(e)
	}
	for i := range e.buf {
		p.Bytes(e.buf[i][:], 64)
	}
	return nil
}
