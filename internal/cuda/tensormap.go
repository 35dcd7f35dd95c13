package cuda

/*
#include "calls.h"
*/
import "C"

import "unsafe"

// TensorMapBytes is the size of an encoded tensor map (CUtensorMap).
const TensorMapBytes = 128

// TensorMapDataType is a CUtensorMapDataType.
type TensorMapDataType int

// CUtensorMapDataType values for the copies' element widths (a copy does
// not look at the values).
const (
	TensorMapUint8  TensorMapDataType = 0
	TensorMapUint16 TensorMapDataType = 1
	TensorMapUint32 TensorMapDataType = 2
	TensorMapUint64 TensorMapDataType = 4
)

// TensorMapSwizzle is a CUtensorMapSwizzle.
type TensorMapSwizzle int

// CUtensorMapSwizzle values.
const (
	SwizzleNone TensorMapSwizzle = 0
	Swizzle32B  TensorMapSwizzle = 1
	Swizzle64B  TensorMapSwizzle = 2
	Swizzle128B TensorMapSwizzle = 3
)

// TensorMapL2Promotion is a CUtensorMapL2promotion.
type TensorMapL2Promotion int

// CUtensorMapL2promotion values.
const (
	L2PromotionNone TensorMapL2Promotion = 0
	L2Promotion64B  TensorMapL2Promotion = 1
	L2Promotion128B TensorMapL2Promotion = 2
	L2Promotion256B TensorMapL2Promotion = 3
)

// TensorMapTiled describes a tiled tensor map: Dims[0] elements along the
// contiguous dimension, Dims[1] along the other, Stride bytes apart, copied
// in boxes of Box[0]×Box[1] elements; with Batch > 0 a third dimension of
// Batch matrices BatchStride bytes apart, boxes one matrix deep.
type TensorMapTiled struct {
	Type        TensorMapDataType
	Base        DevicePtr
	Dims        [2]uint64
	Stride      uint64
	Box         [2]uint32
	Batch       uint64
	BatchStride uint64
	Swizzle     TensorMapSwizzle
	Promotion   TensorMapL2Promotion
}

// Encode writes the map (cuTensorMapEncodeTiled, element strides 1, no
// interleave, out-of-bounds elements read as zeros) into dst, which
// becomes a kernel's by-value CUtensorMap parameter. The driver checks the
// alignments (16-byte base and strides) and the box limits.
func (t TensorMapTiled) Encode(dst *[TensorMapBytes]byte) error {
	if err := Load(); err != nil {
		return err
	}
	rank := 2
	dims := [3]C.ulonglong{C.ulonglong(t.Dims[0]), C.ulonglong(t.Dims[1]), C.ulonglong(t.Batch)}
	strides := [2]C.ulonglong{C.ulonglong(t.Stride), C.ulonglong(t.BatchStride)}
	box := [3]C.uint{C.uint(t.Box[0]), C.uint(t.Box[1]), 1}
	if t.Batch > 0 {
		rank = 3
	}
	r := C.isaac_cuda_tensor_map_tiled((*C.uchar)(unsafe.Pointer(&dst[0])), C.int(t.Type), C.int(rank), C.CUdeviceptr(t.Base),
		&dims[0], &strides[0], &box[0], C.int(t.Swizzle), C.int(t.Promotion))
	return check("cuTensorMapEncodeTiled", r)
}

// TensorMapIm2col describes a four-dimensional im2col tensor map of a
// channel-contiguous tensor (a convolution's x in NHWC): Dims are C, W, H
// and N, Strides the bytes between consecutive W, H and N; each copy
// loads Channels channels of Pixels pixels, stepping through the pixel box
// (Lower to the extent plus Upper, in W and H) by ElemStrides (C, W, H,
// N: the convolution's strides), pixels outside the tensor read as zeros.
type TensorMapIm2col struct {
	Type         TensorMapDataType
	Base         DevicePtr
	Dims         [4]uint64
	Strides      [3]uint64
	Lower, Upper [2]int32
	Channels     uint32
	Pixels       uint32
	ElemStrides  [4]uint32
	Swizzle      TensorMapSwizzle
	Promotion    TensorMapL2Promotion
}

// Encode writes the map (cuTensorMapEncodeIm2col) into dst, a kernel's
// by-value CUtensorMap parameter. The driver checks the alignments, the
// corners' and strides' ranges and the box limits.
func (t TensorMapIm2col) Encode(dst *[TensorMapBytes]byte) error {
	if err := Load(); err != nil {
		return err
	}
	var dims [4]C.ulonglong
	var es [4]C.uint
	for i := range dims {
		dims[i], es[i] = C.ulonglong(t.Dims[i]), C.uint(t.ElemStrides[i])
	}
	strides := [3]C.ulonglong{C.ulonglong(t.Strides[0]), C.ulonglong(t.Strides[1]), C.ulonglong(t.Strides[2])}
	lower := [2]C.int{C.int(t.Lower[0]), C.int(t.Lower[1])}
	upper := [2]C.int{C.int(t.Upper[0]), C.int(t.Upper[1])}
	r := C.isaac_cuda_tensor_map_im2col_4d((*C.uchar)(unsafe.Pointer(&dst[0])), C.int(t.Type), C.CUdeviceptr(t.Base),
		&dims[0], &strides[0], &lower[0], &upper[0], C.uint(t.Channels), C.uint(t.Pixels), &es[0], C.int(t.Swizzle), C.int(t.Promotion))
	return check("cuTensorMapEncodeIm2col", r)
}
