package space

import (
	"testing"

	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// A depthwise convolution's direct kernel takes vectors of up to 16 bytes
// of channels where x and y are channel-contiguous, K and their strides
// are multiples of the vector and both are aligned to it; other
// convolutions take one channel a thread.
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
		{depthwise(half, 64, true), 0x1000, 0x2000, 8, "aligned NHWC"},
		{depthwise(half, 68, true), 0x1000, 0x2000, 4, "68 channels"},
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

// The filter's height is built into the class where it is small (the
// flip as a negative step); configurations of several rows a thread only
// where its taps, of as many channels as the configuration takes, fit the
// registers; the heuristic's configuration is legal.
func TestGroupedTapsH(t *testing.T) {
	shape := func(r, s, k int, flip bool) request.ConvShape {
		return request.ConvShape{Type: request.ConvTypes[2], N: 2, C: k, H: 14, W: 14, K: k, R: r, S: s, G: k, P: 16 - r, Q: 16 - s,
			PadH: 1, PadW: 1, StrH: 2, StrW: 1, DilH: 1, DilW: 1, Flip: flip,
			XStrides: [4]int{196 * k, 1, 14 * k, k}, YStrides: [4]int{(16 - r) * (16 - s) * k, 1, (16 - s) * k, k}}
	}
	for _, c := range []struct {
		s          request.ConvShape
		taps, step int
		rowsVec    int // the most channels a configuration of several rows takes
	}{
		{shape(3, 3, 64, false), 3, 1, 4},
		{shape(3, 3, 64, true), 3, -1, 4},
		{shape(5, 3, 64, false), 5, 1, 4}, // 15 taps of 4 channels
		{shape(5, 5, 64, false), 5, 1, 2}, // 25 taps of 2 channels
		{shape(7, 7, 63, false), 7, 1, 1}, // 49 taps of one channel
		{shape(3, 9, 64, false), 0, 0, 0}, // no window
	} {
		cls := GroupedClass(c.s, 16)
		if cls.TapsH != c.taps || cls.TapsH > 0 && (cls.TapStepH != c.step || cls.StrideH != 2) {
			t.Errorf("%dx%d of %d channels, flip %v: %+v", c.s.R, c.s.S, c.s.K, c.s.Flip, cls)
		}
		most := 0
		for _, cfg := range GroupedConfigs(cls) {
			if cfg.Rows > 1 {
				most = max(most, cfg.Vec)
			}
		}
		if most != c.rowsVec {
			t.Errorf("%dx%d of %d channels: rows with up to %d channels a thread, want %d", c.s.R, c.s.S, c.s.K, most, c.rowsVec)
		}
		if err := ptx.LegalGrouped(GroupedDefault(c.s, 16), cls); err != nil {
			t.Errorf("%dx%d: the default: %v", c.s.R, c.s.S, err)
		}
	}
}

// The heuristic's configuration of the depthwise suite's layers: legal in
// every type, layout and alignment; several rows a thread on the large
// outputs, one channel a thread in NHWC, one row on the small outputs.
func TestGroupedDefaultDepthwise(t *testing.T) {
	vectored := 0
	for _, l := range suites.Depthwise() {
		for _, typ := range request.ConvTypes {
			for _, nhwc := range []bool{false, true} {
				s := suiteShape(l, typ, nhwc)
				for _, align := range []int{1, 2, 16 / typ.Data.Size()} {
					cls := GroupedClass(s, align)
					cfg := GroupedDefault(s, align)
					if err := ptx.LegalGrouped(cfg, cls); err != nil {
						t.Fatalf("%s %v nhwc=%v align %d: %v: %v", l.Name, typ, nhwc, align, cfg, err)
					}
					big := l.N > 1 // the suite's batches of 8 and 32: outputs of 2^19 elements or more
					// Vectors of 4 channels for 16-bit data on MobileNet's
					// 56×56 layer at batches 8 and 32 where aligned, one
					// channel a thread elsewhere in NHWC.
					vectors := nhwc && big && typ.Data.Size() == 2 && l.R == 3 && l.Stride == 1 && s.P >= 28 && align >= 4
					if big != (cfg.Rows > 1) && cls.TapsH*cls.Taps <= 64 || nhwc && cfg.Vec != map[bool]int{true: 4, false: 1}[vectors] {
						t.Errorf("%s %v nhwc=%v align %d: %v", l.Name, typ, nhwc, align, cfg)
					}
					if vectors {
						vectored++
					}
				}
			}
		}
	}
	if vectored != 2*3 { // one layer at batches 8 and 32 × three 16-bit types, aligned to 8
		t.Errorf("%d configurations with vectors of channels, want 6", vectored)
	}
}
