package space

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// WindowServes reports whether the window kernel computes convolution s:
// ungrouped, 16-bit data with float compute (PSEUDO_HALF, BFLOAT16), any
// layout (x is staged through its strides; rows of contiguous pixels, NCHW,
// load fastest).
func WindowServes(s request.ConvShape) bool {
	d := s.Type.Data
	return s.G == 1 && (d == request.CudnnHalf || d == request.CudnnBFloat16) && s.Type.Compute == request.CudnnFloat
}

// WindowCandidate reports whether the window kernel is worth timing for
// convolution s: it serves s and x lies with rows of pixels contiguous,
// not channels (NCHW): its staging reads x's rows.
func WindowCandidate(s request.ConvShape) bool {
	return WindowServes(s) && s.XStrides[3] == 1 && s.XStrides[1] != 1
}

// WindowPreferred reports whether the heuristic runs convolution s
// through the window kernel: a candidate (WindowCandidate) of at most
// windowChannels channels, where the implicit GEMM's reduction is short
// and its gathers of x's pixels costly (gputest/results/h100/conv/call81).
func WindowPreferred(s request.ConvShape) bool {
	return WindowCandidate(s) && s.C <= windowChannels
}

// windowChannels is the most channels WindowPreferred takes.
const windowChannels = 4

// WindowClass is the window kernel's class of convolution s with x at x
// and its filter at w: x's rows read in vectors of up to 16 bytes where
// they are contiguous and W, x's strides and its address allow, the
// filter's where it is in K×C×R×S order and C·R·S and its address allow.
func WindowClass(s request.ConvShape, x, w uintptr) ptx.WindowClass {
	cls := ptx.WindowClass{Data: convTypes[s.Type.Data], XVec: 1, WVec: 1}
	es := s.Type.Data.Size()
	if s.XStrides[3] == 1 {
		a := int(gcdPow2(uint64(x), uint64(s.W*es)))
		for _, st := range s.XStrides[:3] {
			a = min(a, int(gcdPow2(uint64(st*es), 16)))
		}
		cls.XVec = max(1, a/es)
	}
	if !s.FilterNHWC {
		cls.WVec = max(1, int(gcdPow2(uint64(w), uint64(s.C*s.R*s.S*es)))/es)
	}
	return cls
}

// WindowDefault is the heuristic's configuration of the window kernel for
// s: blocks of 128 pixels and as many output channels as K fills (16, 32
// or 64), four warps, 96 KiB of shared memory (two blocks an SM); where
// those blocks would not fill two on each SM of an H100 (windowBlocks),
// blocks of 64 pixels and at most 32 channels (the ResNet-50 stem at batch
// 1: 12.1 µs against 21.8, gputest/results/h100/conv/call82).
//
// Up to 16 channels (windowFewChannels): Direct (y from the registers),
// blocks of 128 pixels and 32 or 64 channels, eight warps along the pixels,
// 200 KiB (64 pixels, four warps by two, where those would not fill two
// blocks on each SM); beyond: Shifted (the A operand by ldmatrix from the
// window's shifted copies) and Direct, blocks of 256 pixels (128 where
// those would not fill two on each SM), eight warps, 200 KiB. These are
// the configurations that came first or within a few percent of the best
// on the Table 5 layers of 16 and 32 channels
// (gputest/results/h100/conv/call87).
func WindowDefault(s request.ConvShape) ptx.WindowConfig {
	if s.C <= windowChannels {
		return windowDefault(s)
	}
	channels := 64
	if s.K <= 32 {
		channels = 32
	}
	small := func(pixels int) bool { return ceilDiv(s.N*s.P*s.Q, pixels)*ceilDiv(s.K, channels) < windowBlocks }
	if s.C <= windowFewChannels {
		if small(128) {
			return ptx.WindowConfig{Pixels: 64, Channels: channels, WarpsM: 4, WarpsN: 2, KB: 200, Direct: true}
		}
		return ptx.WindowConfig{Pixels: 128, Channels: channels, WarpsM: 8, WarpsN: 1, KB: 200, Direct: true}
	}
	cfg := ptx.WindowConfig{Pixels: 256, Channels: channels, WarpsM: 4, WarpsN: 2, KB: 200, Shifted: true, Direct: true}
	if small(cfg.Pixels) {
		cfg.Pixels = 128
	}
	return cfg
}

// windowFewChannels is the most channels WindowDefault takes without
// Shifted copies.
const windowFewChannels = 16

func windowDefault(s request.ConvShape) ptx.WindowConfig {
	var cfg ptx.WindowConfig
	switch {
	case s.K <= 16:
		cfg = ptx.WindowConfig{Pixels: 128, Channels: 16, WarpsM: 4, WarpsN: 1, KB: 96}
	case s.K <= 32:
		cfg = ptx.WindowConfig{Pixels: 128, Channels: 32, WarpsM: 4, WarpsN: 1, KB: 96}
	default:
		cfg = ptx.WindowConfig{Pixels: 128, Channels: 64, WarpsM: 2, WarpsN: 2, KB: 96}
	}
	if blocks := ceilDiv(s.N*s.P*s.Q, cfg.Pixels) * ceilDiv(s.K, cfg.Channels); blocks < windowBlocks {
		if s.K <= 16 {
			return ptx.WindowConfig{Pixels: 64, Channels: 16, WarpsM: 4, WarpsN: 1, KB: 96}
		}
		return ptx.WindowConfig{Pixels: 64, Channels: 32, WarpsM: 4, WarpsN: 2, KB: 96}
	}
	return cfg
}

// windowBlocks is the fewest blocks WindowDefault's larger tiles take.
const windowBlocks = 264

// WindowConfigs are the window kernel's legal configurations a sweep
// tries: blocks of 64 to 256 pixels and 16 to 128 channels, 4 or 8 warps
// in every arrangement, 48, 96 or 200 KiB of shared memory, Shifted or
// not, Direct or not.
func WindowConfigs(cls ptx.WindowClass) []ptx.WindowConfig {
	var out []ptx.WindowConfig
	for _, m := range []int{64, 128, 256} {
		for _, k := range []int{16, 32, 64, 128} {
			for _, wm := range []int{1, 2, 4, 8} {
				for _, wn := range []int{1, 2, 4, 8} {
					for _, kb := range []int{48, 96, 200} {
						for mode := range 4 {
							cfg := ptx.WindowConfig{Pixels: m, Channels: k, WarpsM: wm, WarpsN: wn, KB: kb, Shifted: mode&1 != 0, Direct: mode&2 != 0}
							if ptx.LegalWindow(cfg, cls) == nil {
								out = append(out, cfg)
							}
						}
					}
				}
			}
		}
	}
	return out
}
