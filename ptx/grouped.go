package ptx

import "fmt"

// GroupedClass is what a grouped (or depthwise) convolution's direct kernel
// is specialized for: the tensors' element type, the accumulator's type
// (F32, or F64 for double data) and the order of the threads: with
// ChannelsInner, consecutive threads compute consecutive output channels
// (y, and x for depthwise, channel-contiguous: NHWC), else consecutive
// columns of one output row (NCHW).
//
// With Taps > 0 the kernel is specialized for filters Taps wide, a
// stride StrideW along w and taps TapStepW apart (the dilation, negative
// for a flipped filter): each row's input columns are loaded once into
// registers and reused by the thread's output columns and taps.
//
// With Vec > 1 (depthwise convolutions, ChannelsInner and Taps > 0) each
// thread computes Vec consecutive channels, its inputs and outputs moved
// as vectors of Vec elements: the caller guarantees one channel per group,
// channel-contiguous x and y (unit channel strides), K and x's and y's
// other strides multiples of Vec, and x and y aligned to Vec elements.
type GroupedClass struct {
	Data, Compute DataType
	ChannelsInner bool
	Taps          int // 0: any filter width (the taps looped)
	StrideW       int
	TapStepW      int
	Vec           int // channels per thread (0 or 1: one)
}

// vec is the channels a thread computes.
func (c GroupedClass) vec() int { return max(c.Vec, 1) }

// GroupedConfig is the direct kernel's configuration: threads per block
// and the consecutive output columns each thread computes (the columns
// share their filter taps, and their inputs overlap in L1).
type GroupedConfig struct {
	Threads int // 64, 128, 256 or 512
	Columns int // 1, 2, 4 or 8
}

func (c GroupedConfig) String() string { return fmt.Sprintf("direct t%d q%d", c.Threads, c.Columns) }

// LegalGrouped reports whether cfg and cls make a kernel.
func LegalGrouped(cfg GroupedConfig, cls GroupedClass) error {
	switch {
	case cfg.Threads != 64 && cfg.Threads != 128 && cfg.Threads != 256 && cfg.Threads != 512:
		return fmt.Errorf("ptx: grouped convolution: %d threads per block", cfg.Threads)
	case cfg.Columns != 1 && cfg.Columns != 2 && cfg.Columns != 4 && cfg.Columns != 8:
		return fmt.Errorf("ptx: grouped convolution: %d columns per thread", cfg.Columns)
	case !cls.Data.valid():
		return fmt.Errorf("ptx: grouped convolution of %v", cls.Data)
	case cls.Compute != F32 && cls.Compute != F64 || (cls.Compute == F64) != (cls.Data == F64):
		return fmt.Errorf("ptx: grouped convolution of %v computed in %v", cls.Data, cls.Compute)
	case cls.Taps < 0 || cls.Taps > MaxWindowTaps || cls.Taps > 0 && (cls.StrideW < 1 || cls.StrideW > 4 || cls.TapStepW == 0 || abs(cls.TapStepW) > 4):
		return fmt.Errorf("ptx: grouped convolution window of %d taps, stride %d, step %d", cls.Taps, cls.StrideW, cls.TapStepW)
	case cls.Vec < 0 || cls.vec() > 4 || !isPow2(cls.vec()) || cls.vec()*cls.Data.Size() > 16:
		return fmt.Errorf("ptx: grouped convolution of vectors of %d %v", cls.Vec, cls.Data)
	case cls.vec() > 1 && (!cls.ChannelsInner || cls.Taps == 0):
		return fmt.Errorf("ptx: grouped convolution vectors of channels need channel-inner threads and a window")
	}
	return nil
}

// Grouped is a direct grouped convolution kernel's configuration (zero
// for other kernels).
func (k *Kernel) Grouped() GroupedConfig { return k.grouped }

// GroupedVec is the channels each thread of a direct grouped convolution
// kernel computes (GroupedClass.Vec; 1 for other kernels).
func (k *Kernel) GroupedVec() int { return max(k.groupedVec, 1) }

// MaxWindowTaps is the widest filter a windowed direct kernel takes.
const MaxWindowTaps = 7

// GroupedThreads is the number of threads a direct kernel of cfg runs for
// an output of n×k×p×q: one per image, vec channels (the class's Vec), row
// and cfg.Columns columns.
func GroupedThreads(cfg GroupedConfig, vec, n, k, p, q int) int {
	return n * ceilDiv(k, max(vec, 1)) * p * ceilDiv(q, cfg.Columns)
}

// GroupedGrid is the launch grid of a direct kernel of cfg running threads
// threads (GroupedThreads); ok is false beyond its limits.
func GroupedGrid(cfg GroupedConfig, threads int) (grid [3]int, ok bool) {
	blocks := ceilDiv(threads, cfg.Threads)
	return [3]int{blocks, 1, 1}, threads < 1<<31-cfg.Threads
}

// groupedParams are the direct kernel's parameters in order: the tensors,
// α and β in the compute type, then 32-bit integers (see
// GenerateGroupedConv).
func groupedParams(compute DataType) []Param {
	scalar := Param{"", ".f32", 4}
	if compute == F64 {
		scalar = Param{"", ".f64", 8}
	}
	ps := []Param{{"x", ".u64", 8}, {"w", ".u64", 8}, {"y", ".u64", 8}}
	for _, n := range []string{"alpha", "beta"} {
		s := scalar
		s.Name = n
		ps = append(ps, s)
	}
	for _, n := range GroupedIntParams {
		ps = append(ps, Param{n, ".s32", 4})
	}
	return ps
}

// GroupedIntParams are the direct kernel's integer parameters, in order:
// the threads it runs; y's N, K (all channels), P, Q and Q in groups of
// Columns; the channels and filters per group; the filter's R, S; x's H,
// W; the strides; the first tap's offsets and the taps' steps (dilation,
// negative for a flipped filter); x's and y's element strides (n, c, h,
// w); the filter's element strides (k, c, r, s).
var GroupedIntParams = []string{
	"threads", "N", "K", "P", "Q", "QB", "CG", "KG", "R", "S", "H", "W",
	"strH", "strW", "hOff", "wOff", "hStep", "wStep",
	"xsN", "xsC", "xsH", "xsW", "ysN", "ysC", "ysH", "ysW",
	"wsK", "wsC", "wsR", "wsS",
}

// GroupedProblem is a grouped convolution in the direct kernel's terms:
// x (N×C×H×W), the filter (K×C/G×R×S), y (N×K×P×Q), element strides of x,
// y (n, c, h, w) and the filter (k, c, r, s), the first tap's offsets
// (−padding, moved to the last tap for a flipped filter) and the taps'
// steps (the dilation, negative for a flipped filter).
type GroupedProblem struct {
	N, C, H, W, K, G, R, S, P, Q int
	StrH, StrW                   int
	HOff, WOff, HStep, WStep     int
	X, Y, Filter                 [4]int
	Vec                          int // the kernel class's channels per thread
}

// Ints are the kernel's integer parameters (GroupedIntParams) for pr.
func (pr GroupedProblem) Ints(cfg GroupedConfig) []int {
	qb := ceilDiv(pr.Q, cfg.Columns)
	return []int{
		GroupedThreads(cfg, pr.Vec, pr.N, pr.K, pr.P, pr.Q), pr.N, pr.K, pr.P, pr.Q, qb, pr.C / pr.G, pr.K / pr.G, pr.R, pr.S, pr.H, pr.W,
		pr.StrH, pr.StrW, pr.HOff, pr.WOff, pr.HStep, pr.WStep,
		pr.X[0], pr.X[1], pr.X[2], pr.X[3], pr.Y[0], pr.Y[1], pr.Y[2], pr.Y[3],
		pr.Filter[0], pr.Filter[1], pr.Filter[2], pr.Filter[3],
	}
}
