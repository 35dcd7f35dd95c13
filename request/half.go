package request

import "math"

// HalfValue converts IEEE binary16 bits (an f16 scalar or element) to a
// float64, exactly.
func HalfValue(h uint16) float64 {
	sign := 1.0
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	frac := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * math.Ldexp(frac, -24)
	case 0x1f:
		if frac != 0 {
			return math.NaN()
		}
		return math.Inf(int(sign))
	}
	return sign * math.Ldexp(1+frac/1024, exp-15)
}

// HalfBits converts v to IEEE binary16 bits, rounding to nearest even.
func HalfBits(v float64) uint16 {
	f := math.Float32bits(float32(v))
	sign := uint16(f>>16) & 0x8000
	exp := int(f>>23&0xff) - 127 + 15
	mant := f & 0x7fffff
	switch {
	case math.IsNaN(v):
		return 0x7e00
	case exp >= 31:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint(14 - exp)
		h := mant >> shift
		rem := mant & (1<<shift - 1)
		half := uint32(1) << (shift - 1)
		if rem > half || (rem == half && h&1 == 1) {
			h++
		}
		return sign | uint16(h)
	}
	h := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && h&1 == 1) {
		h++
	}
	return sign | uint16(h)
}
