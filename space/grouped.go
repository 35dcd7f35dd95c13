package space

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// GroupedClass is the class of a grouped convolution's direct kernel:
// its types, and consecutive threads on consecutive output channels where
// y is channel-contiguous (NHWC), else on consecutive columns.
func GroupedClass(s request.ConvShape) ptx.GroupedClass {
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
	return cls
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
// channels (NHWC) each computes 8 consecutive columns of an output row,
// where they compute consecutive columns (NCHW) 4 (a window of 8 columns
// loads each row's inputs in fewer sectors a lane than 2 columns' window,
// with a thread's reuse that 8 columns spread over too many); fewer for
// narrow outputs. The best of every configuration on the depthwise rows
// of results/h100/conv.
func GroupedDefault(s request.ConvShape) ptx.GroupedConfig {
	cols := 8
	if !GroupedClass(s).ChannelsInner {
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
