package space

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// GroupedClass is the class of a grouped convolution's direct kernel:
// its types, and consecutive threads on consecutive output channels where
// y is channel-contiguous (NHWC), else on consecutive columns; for a
// depthwise one, the channels a thread computes (groupedVec) with x and y
// aligned to align elements (GroupedAlign).
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
	return cls
}

// GroupedAlign is the elements (a power of two, up to 16 bytes' worth) that
// a grouped convolution's x at x and y at y are both aligned to.
func GroupedAlign(x, y uintptr, s request.ConvShape) int {
	es := s.Type.Data.Size()
	return max(1, int(gcdPow2(uint64(x), uint64(y)))/es)
}

// groupedVec is the channels each thread of a depthwise convolution's
// windowed direct kernel computes, as vectors of x's and y's consecutive
// channels: up to 4 (2 for double), as many as K, x's and y's strides and
// their alignment allow; 1 for other convolutions.
func groupedVec(s request.ConvShape, cls ptx.GroupedClass, align int) int {
	if !cls.ChannelsInner || cls.Taps == 0 || s.C != s.G || s.K != s.G || s.XStrides[1] != 1 || s.YStrides[1] != 1 {
		return 1
	}
	for v := min(4, 16/s.Type.Data.Size()); v > 1; v /= 2 {
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

// GroupedDefault is the heuristic's configuration of the direct kernel:
// blocks of 256 threads; where consecutive threads compute consecutive
// channels (NHWC) each computes 8 consecutive columns of an output row
// (4 where it computes 16-bit channels in vectors: its window and sums
// take 4 registers a place), where they compute consecutive columns
// (NCHW) 4 (a window of 8 columns loads each row's inputs in fewer sectors
// a lane than 2 columns' window, with a thread's reuse that 8 columns
// spread over too many); fewer for narrow outputs. The best of every
// configuration on the depthwise rows of results/h100/conv.
func GroupedDefault(s request.ConvShape) ptx.GroupedConfig {
	cols := 8
	switch cls := GroupedClass(s, 16/s.Type.Data.Size()); {
	case !cls.ChannelsInner:
		cols = 4
	case cls.Vec > 1 && s.Type.Data.Size() == 2:
		cols = 4
	}
	for cols > 1 && cols/2 >= s.Q {
		cols /= 2
	}
	return ptx.GroupedConfig{Threads: 256, Columns: cols}
}

// GroupedConfigs are the direct kernel's configurations a sweep tries.
func GroupedConfigs() []ptx.GroupedConfig {
	var out []ptx.GroupedConfig
	for _, t := range []int{128, 256, 512} {
		for _, c := range []int{1, 2, 4, 8} {
			out = append(out, ptx.GroupedConfig{Threads: t, Columns: c})
		}
	}
	return out
}
