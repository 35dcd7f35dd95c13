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
// With TapsH > 0 as well the kernel is specialized for filters TapsH
// tall, a stride StrideH along h and rows TapStepH apart: the thread's
// taps are loaded once into registers, the filter's rows unrolled, and
// each input row the thread's output rows (GroupedConfig.Rows) read is
// loaded once for all of them.
//
// With Vec > 1 (depthwise convolutions, ChannelsInner and Taps > 0) each
// thread may compute up to Vec consecutive channels (GroupedConfig.Vec
// chooses), its inputs and outputs moved as vectors (of up to 16 bytes;
// 8 16-bit elements as two vectors of 4): the caller guarantees one
// channel per group, channel-contiguous x and y (unit channel strides), K
// and x's and y's other strides multiples of Vec, and x and y aligned to
// Vec elements.
type GroupedClass struct {
	Data, Compute DataType
	ChannelsInner bool
	Taps          int // 0: any filter width (the taps looped)
	StrideW       int
	TapStepW      int
	TapsH         int // 0: any filter height (the rows looped)
	StrideH       int
	TapStepH      int
	Vec           int // the most channels a thread may compute (0 or 1: one)
}

// vec is the channels a thread computes.
func (c GroupedClass) vec() int { return max(c.Vec, 1) }

// GroupedConfig is the direct kernel's configuration: threads per block,
// the consecutive output columns each thread computes (the columns share
// their filter taps, and their inputs overlap in L1), the consecutive
// output rows (Rows > 1 needs a class with TapsH: the filter's rows
// unrolled, the taps held in registers for all the rows, and the input
// rows they overlap on loaded once) and the channels (Vec, up to the
// class's; 0: the class's).
type GroupedConfig struct {
	Threads int // 64, 128, 256 or 512
	Columns int // 1, 2, 4 or 8
	Rows    int // 0 or 1 (one), 2 or 4
	Vec     int // 0 (the class's Vec), 1, 2, 4 or 8
}

func (c GroupedConfig) String() string {
	s := fmt.Sprintf("direct t%d q%d", c.Threads, c.Columns)
	if c.rows() > 1 {
		s += fmt.Sprintf(" r%d", c.Rows)
	}
	if c.Vec > 0 {
		s += fmt.Sprintf(" v%d", c.Vec)
	}
	return s
}

// rows is the output rows a thread computes.
func (c GroupedConfig) rows() int { return max(c.Rows, 1) }

// forConfig is cls with the channels a thread computes that cfg chooses.
func (cls GroupedClass) forConfig(cfg GroupedConfig) GroupedClass {
	if cfg.Vec > 0 {
		cls.Vec = cfg.Vec
	}
	return cls
}

// maxGroupedTapRegisters bounds the taps (TapsH·Taps·Vec) a kernel of
// several rows a thread holds in registers, and maxGroupedSums its sums
// (Rows·Columns·Vec).
const maxGroupedTapRegisters, maxGroupedSums = 64, 64

// groupedRegisters is an upper estimate of the registers a thread of the
// kernel of cfg and cls (cls.forConfig(cfg)) holds: its sums, its taps
// (all of them with Rows > 1, else a row's with a window), its window of
// inputs and about 40 of addresses, counters and predicates (64-bit values
// count twice).
func groupedRegisters(cfg GroupedConfig, cls GroupedClass) int {
	vec := cls.vec()
	n := cfg.rows() * cfg.Columns * vec
	if cls.Taps > 0 {
		span := (cfg.Columns-1)*cls.StrideW + (cls.Taps-1)*abs(cls.TapStepW) + 1
		rows := 1
		if cfg.rows() > 1 {
			rows = cls.TapsH
		}
		n += span*vec + cls.Taps*vec*rows
	}
	if cls.Compute == F64 {
		n *= 2
	}
	return n + 40
}

// LegalGrouped reports whether cfg and cls make a kernel.
func LegalGrouped(cfg GroupedConfig, cls GroupedClass) error {
	if cfg.Vec < 0 || cfg.Vec > cls.vec() || cfg.Vec > 0 && !isPow2(cfg.Vec) {
		return fmt.Errorf("ptx: grouped convolution: %d channels a thread of at most %d", cfg.Vec, cls.vec())
	}
	cls = cls.forConfig(cfg)
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
	case cls.Vec < 0 || cls.vec() > 8 || !isPow2(cls.vec()) || cls.vec()*cls.Data.Size() > 16:
		return fmt.Errorf("ptx: grouped convolution of vectors of %d %v", cls.Vec, cls.Data)
	case cls.vec() > 1 && (!cls.ChannelsInner || cls.Taps == 0):
		return fmt.Errorf("ptx: grouped convolution vectors of channels need channel-inner threads and a window")
	case cls.TapsH < 0 || cls.TapsH > MaxWindowTaps || cls.TapsH > 0 && (cls.Taps == 0 || cls.StrideH < 1 || cls.StrideH > 4 || cls.TapStepH == 0 || abs(cls.TapStepH) > 4):
		return fmt.Errorf("ptx: grouped convolution of %d rows of taps, stride %d, step %d", cls.TapsH, cls.StrideH, cls.TapStepH)
	case cfg.Rows != 0 && cfg.Rows != 1 && cfg.Rows != 2 && cfg.Rows != 4:
		return fmt.Errorf("ptx: grouped convolution: %d rows per thread", cfg.Rows)
	case cfg.rows() > 1 && cls.TapsH == 0:
		return fmt.Errorf("ptx: grouped convolution: rows per thread need a filter of fixed height")
	case cfg.rows() > 1 && cls.TapsH*cls.Taps*cls.vec() > maxGroupedTapRegisters:
		return fmt.Errorf("ptx: grouped convolution: %d×%d taps of %d channels in registers", cls.TapsH, cls.Taps, cls.vec())
	case cfg.rows()*cfg.Columns*cls.vec() > maxGroupedSums:
		return fmt.Errorf("ptx: grouped convolution: %d sums a thread", cfg.rows()*cfg.Columns*cls.vec())
	case groupedRegisters(cfg, cls) > min(255, 65536/cfg.Threads):
		return fmt.Errorf("ptx: grouped convolution: about %d registers a thread in blocks of %d", groupedRegisters(cfg, cls), cfg.Threads)
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
// an output of n×k×p×q: one per image, vec channels (the kernel's,
// Kernel.GroupedVec), cfg.Rows rows and cfg.Columns columns.
func GroupedThreads(cfg GroupedConfig, vec, n, k, p, q int) int {
	return n * ceilDiv(k, max(vec, 1)) * ceilDiv(p, cfg.rows()) * ceilDiv(q, cfg.Columns)
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
// the threads it runs; y's N, K (all channels), P, Q, Q in groups of
// Columns and P in groups of Rows; the channels and filters per group; the filter's R, S; x's H,
// W; the strides; the first tap's offsets and the taps' steps (dilation,
// negative for a flipped filter); x's and y's element strides (n, c, h,
// w); the filter's element strides (k, c, r, s).
var GroupedIntParams = []string{
	"threads", "N", "K", "P", "Q", "QB", "PB", "CG", "KG", "R", "S", "H", "W",
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
	qb, pb := ceilDiv(pr.Q, cfg.Columns), ceilDiv(pr.P, cfg.rows())
	return []int{
		GroupedThreads(cfg, pr.Vec, pr.N, pr.K, pr.P, pr.Q), pr.N, pr.K, pr.P, pr.Q, qb, pb, pr.C / pr.G, pr.K / pr.G, pr.R, pr.S, pr.H, pr.W,
		pr.StrH, pr.StrW, pr.HOff, pr.WOff, pr.HStep, pr.WStep,
		pr.X[0], pr.X[1], pr.X[2], pr.X[3], pr.Y[0], pr.Y[1], pr.Y[2], pr.Y[3],
		pr.Filter[0], pr.Filter[1], pr.Filter[2], pr.Filter[3],
	}
}
