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

// TensorMap2D describes a two-dimensional tiled tensor map: Dims[0]
// elements along the contiguous dimension, Dims[1] along the other, Stride
// bytes apart, copied in boxes of Box[0]×Box[1] elements.
type TensorMap2D struct {
	Type      TensorMapDataType
	Base      DevicePtr
	Dims      [2]uint64
	Stride    uint64
	Box       [2]uint32
	Swizzle   TensorMapSwizzle
	Promotion TensorMapL2Promotion
}

// Encode writes the map (cuTensorMapEncodeTiled, element strides 1, no
// interleave, out-of-bounds elements read as zeros) into dst, which
// becomes a kernel's by-value CUtensorMap parameter. The driver checks the
// alignments (16-byte base and stride) and the box limits.
func (t TensorMap2D) Encode(dst *[TensorMapBytes]byte) error {
	if err := Load(); err != nil {
		return err
	}
	dims := [2]C.ulonglong{C.ulonglong(t.Dims[0]), C.ulonglong(t.Dims[1])}
	box := [2]C.uint{C.uint(t.Box[0]), C.uint(t.Box[1])}
	r := C.isaac_cuda_tensor_map_2d((*C.uchar)(unsafe.Pointer(&dst[0])), C.int(t.Type), C.CUdeviceptr(t.Base),
		&dims[0], C.ulonglong(t.Stride), &box[0], C.int(t.Swizzle), C.int(t.Promotion))
	return check("cuTensorMapEncodeTiled", r)
}
