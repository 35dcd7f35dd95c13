package space

import (
	"testing"

	"github.com/isaacgo/isaac/request"
)

// A depthwise convolution's direct kernel takes vectors of channels where
// x and y are channel-contiguous, K and their strides are multiples of
// the vector and both are aligned to it; other convolutions take one
// channel a thread.
func TestGroupedVec(t *testing.T) {
	depthwise := func(t request.ConvType, k int, nhwc bool) request.ConvShape {
		s := request.ConvShape{Type: t, N: 2, C: k, H: 14, W: 14, K: k, R: 3, S: 3, G: k, P: 14, Q: 14,
			PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1,
			XStrides: [4]int{k * 196, 196, 14, 1}, YStrides: [4]int{k * 196, 196, 14, 1}}
		if nhwc {
			s.XStrides, s.YStrides = [4]int{196 * k, 1, 14 * k, k}, [4]int{196 * k, 1, 14 * k, k}
		}
		return s
	}
	half, float, double := request.ConvTypes[2], request.ConvTypes[0], request.ConvTypes[1]
	for _, c := range []struct {
		s      request.ConvShape
		x, y   uintptr
		want   int
		reason string
	}{
		{depthwise(half, 64, true), 0x1000, 0x2000, 4, "aligned NHWC"},
		{depthwise(float, 64, true), 0x1000, 0x2000, 4, "16 bytes of floats"},
		{depthwise(double, 64, true), 0x1000, 0x2000, 2, "16 bytes of doubles"},
		{depthwise(half, 64, true), 0x1004, 0x2000, 2, "x aligned to 2 halves"},
		{depthwise(half, 64, true), 0x1000, 0x2002, 1, "y aligned to 1 half"},
		{depthwise(half, 66, true), 0x1000, 0x2000, 2, "66 channels"},
		{depthwise(half, 64, false), 0x1000, 0x2000, 1, "NCHW"},
		{func() request.ConvShape { s := depthwise(half, 64, true); s.C, s.G = 128, 64; return s }(), 0x1000, 0x2000, 1, "two channels a group"},
		{func() request.ConvShape { s := depthwise(half, 64, true); s.S, s.Q = 9, 8; return s }(), 0x1000, 0x2000, 1, "no window (9 taps)"},
	} {
		cls := GroupedClass(c.s, GroupedAlign(c.x, c.y, c.s))
		if cls.Vec != c.want && !(c.want == 1 && cls.Vec == 0) {
			t.Errorf("%s: Vec %d, want %d", c.reason, cls.Vec, c.want)
		}
	}
}
