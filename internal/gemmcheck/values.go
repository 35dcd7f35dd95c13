package gemmcheck

import (
	"encoding/binary"
	"math"

	"github.com/isaacgo/isaac/request"
)

// HalfBits converts v to IEEE binary16 bits, rounding to nearest even.
func HalfBits(v float64) uint16 { return request.HalfBits(v) }

// BF16Bits converts v to bfloat16 bits, rounding to nearest even.
func BF16Bits(v float64) uint16 {
	f := math.Float32bits(float32(v))
	if math.IsNaN(v) {
		return 0x7fc0
	}
	f += 0x7fff + (f>>16)&1
	return uint16(f >> 16)
}

// BF16Value converts bfloat16 bits to a float64.
func BF16Value(h uint16) float64 { return float64(math.Float32frombits(uint32(h) << 16)) }

// Encode writes values in type t, little-endian.
func Encode(t request.DataType, vals []float64) []byte {
	es := t.Size()
	out := make([]byte, len(vals)*es)
	for i, v := range vals {
		b := out[i*es:]
		switch t {
		case request.R16F:
			binary.LittleEndian.PutUint16(b, HalfBits(v))
		case request.R16BF:
			binary.LittleEndian.PutUint16(b, BF16Bits(v))
		case request.R32F:
			binary.LittleEndian.PutUint32(b, math.Float32bits(float32(v)))
		case request.R64F:
			binary.LittleEndian.PutUint64(b, math.Float64bits(v))
		}
	}
	return out
}

// Decode reads values of type t.
func Decode(t request.DataType, b []byte) []float64 {
	es := t.Size()
	out := make([]float64, len(b)/es)
	for i := range out {
		p := b[i*es:]
		switch t {
		case request.R16F:
			out[i] = request.HalfValue(binary.LittleEndian.Uint16(p))
		case request.R16BF:
			out[i] = BF16Value(binary.LittleEndian.Uint16(p))
		case request.R32F:
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
		case request.R64F:
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p))
		}
	}
	return out
}

// ScalarBits is a scalar's bits in the compute type's scalar type (what
// cuBLAS reads from the alpha/beta pointers).
func ScalarBits(compute request.ComputeType, v float64) (bits uint64, size int) {
	switch compute {
	case request.Compute16F, request.Compute16FPedantic:
		return uint64(HalfBits(v)), 2
	case request.Compute64F, request.Compute64FPedantic:
		return math.Float64bits(v), 8
	}
	return uint64(math.Float32bits(float32(v))), 4
}
