package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// The window kernel's class reads x's rows and the filter's in the widest
// vectors their layout, sizes and addresses allow; the candidates are the
// 16-bit ungrouped convolutions whose x lies in rows of pixels.
func TestWindowClass(t *testing.T) {
	half := request.ConvTypes[2]
	nchw := func(n, c, h, w int) [4]int { return [4]int{c * h * w, h * w, w, 1} }
	nhwc := func(n, c, h, w int) [4]int { return [4]int{h * w * c, 1, w * c, c} }
	s := request.ConvShape{Type: half, N: 2, C: 3, H: 20, W: 64, K: 8, R: 5, S: 4, G: 1, P: 16, Q: 61, StrH: 1, StrW: 1, DilH: 1, DilW: 1}
	s.XStrides, s.YStrides = nchw(2, 3, 20, 64), nchw(2, 8, 16, 61)
	for _, c := range []struct {
		w, x       uintptr
		wNHWC      bool
		W          int
		xVec, wVec int
	}{
		{1 << 20, 1 << 20, false, 64, 8, 4}, // C·R·S = 60: 8-byte filter rows
		{1 << 20, 1<<20 + 4, false, 64, 2, 4},
		{1 << 20, 1 << 20, false, 62, 2, 4},  // W = 62: 4-byte rows
		{1 << 20, 1 << 20, false, 61, 1, 4},  // odd W
		{1<<20 + 2, 1 << 20, true, 64, 8, 1}, // an NHWC-format filter: element by element
	} {
		s := s
		s.W, s.FilterNHWC = c.W, c.wNHWC
		s.XStrides = nchw(2, 3, 20, c.W)
		cls := WindowClass(s, c.x, c.w)
		if cls.XVec != c.xVec || cls.WVec != c.wVec {
			t.Errorf("W %d x %#x w %#x nhwc filter %v: vectors %d, %d, want %d, %d", c.W, c.x, c.w, c.wNHWC, cls.XVec, cls.WVec, c.xVec, c.wVec)
		}
	}
	if !WindowCandidate(s) || !WindowPreferred(s) {
		t.Errorf("an NCHW 3-channel half convolution: candidate %v, preferred %v", WindowCandidate(s), WindowPreferred(s))
	}
	wide := s
	wide.C = 64
	wide.XStrides = nchw(2, 64, 20, 64)
	if !WindowCandidate(wide) || WindowPreferred(wide) {
		t.Errorf("64 channels: candidate %v, preferred %v", WindowCandidate(wide), WindowPreferred(wide))
	}
	for _, other := range []request.ConvShape{
		func() request.ConvShape { o := s; o.XStrides = nhwc(2, 3, 20, 64); return o }(),                          // channels contiguous
		func() request.ConvShape { o := s; o.Type = request.ConvTypes[0]; return o }(),                            // float
		func() request.ConvShape { o := s; o.Type = request.ConvTypes[3]; return o }(),                            // true half
		func() request.ConvShape { o := s; o.C, o.K, o.G = 4, 4, 4; o.XStrides = nchw(2, 4, 20, 64); return o }(), // grouped
	} {
		if WindowCandidate(other) {
			t.Errorf("%+v: a window candidate", other)
		}
	}
}

// The heuristic's configurations are legal, and small grids get small
// blocks.
func TestWindowDefault(t *testing.T) {
	half := request.ConvTypes[2]
	for _, s := range []request.ConvShape{
		{Type: half, N: 1, C: 3, K: 64, P: 112, Q: 112, R: 7, S: 7, G: 1},
		{Type: half, N: 32, C: 3, K: 64, P: 112, Q: 112, R: 7, S: 7, G: 1},
		{Type: half, N: 16, C: 1, K: 32, P: 79, Q: 341, R: 5, S: 20, G: 1},
		{Type: half, N: 1, C: 8, K: 8, P: 9, Q: 9, R: 3, S: 3, G: 1},
		{Type: half, N: 8, C: 32, K: 64, P: 54, Q: 54, R: 3, S: 3, G: 1},
		{Type: half, N: 128, C: 16, K: 32, P: 28, Q: 28, R: 3, S: 3, G: 1},
		{Type: half, N: 1, C: 16, K: 32, P: 28, Q: 28, R: 3, S: 3, G: 1},
		{Type: half, N: 1, C: 64, K: 64, P: 14, Q: 14, R: 3, S: 3, G: 1},
	} {
		cfg := WindowDefault(s)
		if err := ptx.LegalWindow(cfg, WindowClass(s, 0, 0)); err != nil {
			t.Errorf("%+v: %v", s, err)
		}
		blocks := ceilDiv(s.N*s.P*s.Q, cfg.Pixels) * ceilDiv(s.K, cfg.Channels)
		if s.C > windowChannels && s.C <= windowFewChannels {
			blocks128 := ceilDiv(s.N*s.P*s.Q, 128) * ceilDiv(s.K, cfg.Channels)
			if cfg.Shifted || !cfg.Direct || (blocks128 < windowBlocks) != (cfg.Pixels == 64) {
				t.Errorf("%+v: %v, %d blocks", s, cfg, blocks)
			}
			continue
		}
		if s.C > windowChannels {
			blocks256 := ceilDiv(s.N*s.P*s.Q, 256) * ceilDiv(s.K, cfg.Channels)
			if !cfg.Shifted || !cfg.Direct || (blocks256 < windowBlocks) != (cfg.Pixels == 128) || cfg.Pixels != 128 && cfg.Pixels != 256 {
				t.Errorf("%+v: %v, %d blocks", s, cfg, blocks)
			}
			continue
		}
		if small := s.N*s.P*s.Q*s.K < 128*64*windowBlocks; small != (cfg.Pixels == 64) || cfg.Shifted || cfg.Direct {
			t.Errorf("%+v: %v, %d blocks", s, cfg, blocks)
		}
	}
}
