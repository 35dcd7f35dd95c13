package space

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// GroupedClass is the class of a grouped convolution's direct kernel:
// its types, and consecutive threads on consecutive output channels where
// y is channel-contiguous (NHWC), else on consecutive columns; for a
// depthwise one, the channels a thread computes (groupedVec) with x and y
// aligned to align elements (GroupedAlign); the filter's width and height
// built into the kernel where they are small.
func GroupedClass(s request.ConvShape, align int) ptx.GroupedClass {
	cls := ptx.GroupedClass{Data: convTypes[s.Type.Data], Compute: ptx.F32, ChannelsInner: s.YStrides[1] == 1 && s.K > 1}
	if s.Type.Data == request.CudnnDouble {
		cls.Compute = ptx.F64
	}
	if s.S <= ptx.MaxWindowTaps && s.StrW <= 4 && s.DilW <= 4 {
		// The window of input columns in registers: filters up to 7 wide,
		// strides and dilations up to 4.
		cls.Taps, cls.StrideW, cls.TapStepW = s.S, s.StrW, s.DilW
		if s.Flip {
			cls.TapStepW = -s.DilW
		}
	}
	cls.Vec = groupedVec(s, cls, align)
	if cls.Taps > 0 && s.R <= ptx.MaxWindowTaps && s.StrH <= 4 && s.DilH <= 4 {
		// The filter's rows unrolled too, for configurations of several rows.
		cls.TapsH, cls.StrideH, cls.TapStepH = s.R, s.StrH, s.DilH
		if s.Flip {
			cls.TapStepH = -s.DilH
		}
	}
	return cls
}

// GroupedAlign is the elements (a power of two, up to 16 bytes' worth) that
// a grouped convolution's x at x and y at y are both aligned to.
func GroupedAlign(x, y uintptr, s request.ConvShape) int {
	es := s.Type.Data.Size()
	return max(1, int(gcdPow2(uint64(x), uint64(y)))/es)
}

// groupedVec is the most channels each thread of a depthwise convolution's
// windowed direct kernel may compute, as vectors of x's and y's consecutive
// channels: up to 16 bytes of them, as many as K, x's and y's strides and
// their alignment allow; 1 for other convolutions.
func groupedVec(s request.ConvShape, cls ptx.GroupedClass, align int) int {
	if !cls.ChannelsInner || cls.Taps == 0 || s.C != s.G || s.K != s.G || s.XStrides[1] != 1 || s.YStrides[1] != 1 {
		return 1
	}
	for v := 16 / s.Type.Data.Size(); v > 1; v /= 2 {
		ok := s.K%v == 0 && align%v == 0
		for _, st := range []int{s.XStrides[0], s.XStrides[2], s.XStrides[3], s.YStrides[0], s.YStrides[2], s.YStrides[3]} {
			ok = ok && st%v == 0
		}
		if ok {
			return v
		}
	}
	return 1
}

// GroupedDirect reports whether the direct kernel takes a grouped
// convolution: one whose groups each reduce over few channels (depthwise
// and its multiples); wider groups are GEMMs cuDNN's grouped kernels run
// better than a thread per output can.
func GroupedDirect(s request.ConvShape) bool { return s.G > 1 && s.C/s.G <= MaxDirectChannels }

// MaxDirectChannels is the most channels per group the direct kernel takes.
const MaxDirectChannels = 8

// GroupedDefault is the heuristic's configuration of the direct kernel
// for shape s with x and y aligned to align elements (GroupedAlign), the
// best of every configuration on the depthwise suite's rows
// (gputest/results/h100/conv/call27, each variant's time) by layout and
// size. Outputs of 2^19 elements or more: where consecutive threads compute
// consecutive columns (NCHW) blocks of 128 threads of 2 columns and 4 rows
// each; where they compute consecutive channels (NHWC) one channel a thread
// (vectors of channels lost to it on the strided and 5×5 layers), 8 columns
// and 2 rows of a filter up to 3 wide, 4 and 4 of a wider one; but 16-bit
// data on large images (groupedVectorsPay) 4 channels, 4 columns and 4 rows
// a thread (faster on MobileNet's 56×56 layer, slower on its 14×14 one:
// gputest/results/h100/conv/call28's variants, and on the H200 call115's). Smaller
// outputs keep more threads: one row, 4 columns, 256 threads (NCHW) or 128
// of one channel (NHWC). Rows only where the filter's taps fit the
// registers; fewer columns for narrow outputs, or where a wide window of
// doubles would not fit.
func GroupedDefault(s request.ConvShape, align int) ptx.GroupedConfig {
	cls := GroupedClass(s, align)
	big := s.N*s.K*s.P*s.Q >= 1<<19
	var cfg ptx.GroupedConfig
	switch {
	case !cls.ChannelsInner && big:
		cfg = ptx.GroupedConfig{Threads: 128, Columns: 2, Rows: 4}
	case !cls.ChannelsInner:
		cfg = ptx.GroupedConfig{Threads: 256, Columns: 4}
	case big && s.S <= 3 && groupedVectorsPay(s, cls):
		cfg = ptx.GroupedConfig{Threads: 128, Columns: 4, Rows: 4, Vec: 4}
	case big && s.S <= 3:
		cfg = ptx.GroupedConfig{Threads: 128, Columns: 8, Rows: 2, Vec: 1}
	case big:
		cfg = ptx.GroupedConfig{Threads: 128, Columns: 4, Rows: 4, Vec: 1}
	default:
		cfg = ptx.GroupedConfig{Threads: 128, Columns: 4, Vec: 1}
	}
	if ptx.LegalGrouped(cfg, cls) != nil {
		cfg.Rows = 1
	}
	for cfg.Columns > 1 && cfg.Columns/2 >= s.Q {
		cfg.Columns /= 2
	}
	for ptx.LegalGrouped(cfg, cls) != nil && cfg.Columns > 1 {
		cfg.Columns /= 2
	}
	return cfg
}

// groupedVectorsPay reports whether the heuristic gives each thread of a
// depthwise NHWC convolution 4 channels as one vector: 16-bit data whose
// class allows 4, a filter at unit stride, on outputs of at least 28×28
// (where 4×4 pixels a thread tile the image with little waste).
func groupedVectorsPay(s request.ConvShape, cls ptx.GroupedClass) bool {
	return s.Type.Data.Size() == 2 && cls.Vec >= 4 && s.StrH == 1 && s.StrW == 1 && s.P >= 28 && s.Q >= 28
}

// GroupedConfigs are the direct kernel's configurations of class cls a
// sweep tries: every legal one.
func GroupedConfigs(cls ptx.GroupedClass) []ptx.GroupedConfig {
	var out []ptx.GroupedConfig
	for _, t := range []int{64, 128, 256} {
		for _, c := range []int{1, 2, 4, 8} {
			for _, r := range []int{1, 2, 4} {
				for v := 1; v <= max(cls.Vec, 1); v *= 2 {
					cfg := ptx.GroupedConfig{Threads: t, Columns: c, Rows: r, Vec: v}
					if ptx.LegalGrouped(cfg, cls) == nil {
						out = append(out, cfg)
					}
				}
			}
		}
	}
	return out
}
