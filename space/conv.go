package space

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// convTypes are the generator's names of cuDNN's served data types.
var convTypes = map[request.CudnnDataType]ptx.DataType{
	request.CudnnHalf: ptx.F16, request.CudnnBFloat16: ptx.BF16, request.CudnnFloat: ptx.F32, request.CudnnDouble: ptx.F64,
}

// ConvClass is the generator's input class of a convolution's implicit
// GEMM (see ptx.ConvOrder) with x at x and its filter at w: the tensors'
// and compute types, the filter's order, the im2col tile staged along the
// dimension x is contiguous in (channels for NHWC: k-contiguous, with the
// alignment its vectors of channels may rely on), the filter rows'
// alignment.
func ConvClass(s request.ConvShape, x, w uintptr) ptx.InputClass {
	t := convTypes[s.Type.Data]
	es := s.Type.Data.Size()
	crs := s.ReductionCRS()
	in := ptx.InputClass{
		AType: t, BType: t, CType: t, Compute: convTypes[s.Type.Compute],
		TransA: ptx.N, TransB: ptx.N,
		AlignA: 1, AlignC: 1,
		AlignB:    elementAlignment(int(gcdPow2(uint64(w), uint64(crs*es))), es),
		AllowTF32: s.TF32,
		RoundTF32: s.TF32 && es == 4,
		Conv:      ptx.ConvCRS,
	}
	if s.XStrides[1] == 1 {
		in.TransA = ptx.T
	}
	if s.FilterNHWC {
		in.Conv = ptx.ConvRSC
	}
	if in.TransA == ptx.T && in.Conv == ptx.ConvRSC {
		// Vectors of channels: x's address, its strides and the channels
		// (so a vector stays within one tap) set their alignment.
		a := gcdPow2(uint64(x), uint64(s.C/s.G*es))
		for _, st := range []int{s.XStrides[0], s.XStrides[2], s.XStrides[3]} {
			a = min(a, gcdPow2(uint64(st*es), 16))
		}
		in.AlignA = elementAlignment(int(a), es)
		in.ChannelLines = channelLines(s, in.AlignA*es)
	}
	return in
}

// channelLines reports whether a channel-contiguous convolution's x, with
// vectors of vecBytes, suits the bulk tensor copies' im2col mode
// (ptx.InputClass.ChannelLines): 16-byte aligned pixels, channels that
// fill whole 128-byte lines, not grouped, and a pixel box, strides and tap
// offsets within the mode's ranges for a 4-d tensor (corners in 8 signed
// bits, offsets in 8 unsigned bits, traversal strides up to 8).
func channelLines(s request.ConvShape, vecBytes int) bool {
	es := s.Type.Data.Size()
	reachH, reachW := (s.R-1)*s.DilH, (s.S-1)*s.DilW
	in8 := func(v int) bool { return v >= -128 && v <= 127 }
	return vecBytes == 16 && s.G == 1 && s.C*es%128 == 0 &&
		in8(-s.PadH) && in8(-s.PadW) && in8(s.PadH-reachH) && in8(s.PadW-reachW) &&
		reachH <= 255 && reachW <= 255 && s.StrH <= 8 && s.StrW <= 8
}

// gcdPow2 is the largest power of two (up to 16) dividing both a and b.
func gcdPow2(a, b uint64) uint64 {
	p := uint64(1)
	for p < 16 && a%(2*p) == 0 && b%(2*p) == 0 {
		p *= 2
	}
	return p
}

// ConvDefault is the heuristic's configuration of a convolution: for
// vectors of 16-byte channels on sm_90 a wgmma one (convWarpgroupCandidates;
// staged by the copy engine where the class's channels fill whole lines),
// else Default's for its implicit GEMM (M = N·P·Q, N = K, K = C·R·S): the
// first candidate with its grid split halved until the split finishes in
// one pass, else without; for a deep reduction (deepReduction taps or
// more) first the first candidate whose whole split does, so that a small
// grid takes smaller blocks split further rather than its large blocks
// split less (Table 5's conv8 in FP32, 20,800 taps on 7 blocks of 128×128:
// 2.1-3.1× faster on 64×64 blocks split 8 ways than on 128×128 ones split 4
// ways; conv13, 4,608 taps, 10-35 % slower: call 24).
func ConvDefault(in ptx.InputClass, s request.ConvShape, dev ptx.DeviceLimits) ptx.GemmConfig {
	m, n, k := s.Pixels(), s.K, s.ReductionCRS()
	cands := append(convWarpgroupCandidates(in, m, n, k, dev), convFMACandidates(in, m, n, k, dev)...)
	cands = append(cands, candidates(in, m, n, k, 1, dev)...)
	pick := func(c ptx.GemmConfig) ptx.GemmConfig { return ConvStaged(c, in, s, dev) }
	for _, c := range cands {
		if k >= deepReduction && ptx.Legal(c, in, dev) == nil {
			return pick(c)
		}
	}
	for _, c := range cands {
		for ; c.KG >= 1; c.KG /= 2 {
			if ptx.Legal(c, in, dev) == nil {
				return pick(c)
			}
		}
	}
	return fallbackConfig(in)
}

// convFMACandidates is the FP32 FMA convolution's tile for reductions
// short of deepReduction, tried before the GEMM candidates: 4×8 elements
// a thread, 32 output channels a block for K ≤ 32 (128 pixels, k-slices
// of 8), 64 for K ≤ 64 and 128 beyond (64 pixels, k-slices of 16) where x
// is not channel-contiguous, 64 pixels × 32 channels in k-slices of 16
// where it is; elements gathered one by one, three stages; none where the
// tiles do not fill the device once (the GEMM candidates split those).
// The rule that came closest to each Table 5 row's best of a grid of
// thread tiles in FP32 FMA (gputest/results/h100/conv/call99, the
// figures in docs/method.md).
func convFMACandidates(in ptx.InputClass, m, n, k int, dev ptx.DeviceLimits) []ptx.GemmConfig {
	if simtMath(in) != ptx.FFMA || preferredMath(in, dev) != ptx.FFMA || k >= deepReduction {
		return nil
	}
	c := ptx.GemmConfig{MS: 4, NS: 8, ML: 64, NL: 32, U: 16, KS: 1, KL: 1, KG: 1, KC: 1, VecA: 1, VecB: 4, Stages: 3, Math: ptx.FFMA}
	if in.TransA != ptx.T { // pixels contiguous
		switch {
		case n <= 32:
			c.ML, c.U = 128, 8
		case n <= 64:
			c.NL = 64
		default:
			c.NL = 128
		}
	}
	c.VecB = min(4, in.AlignB)
	if ceilDiv(m, c.ML)*ceilDiv(n, c.NL) < dev.SMCount {
		return nil // a grid short of a wave: the GEMM candidates' splits
	}
	return []ptx.GemmConfig{c}
}

// ConvStaged is a configuration as the server runs it on a convolution of
// class in (the heuristic's, or the model's choice, which is scored as its
// cp.async twin): x's tiles by the copy engine's im2col mode where its
// lines allow it (convCopyEngine), except tf32 with one line a pixel (32
// channels), which the cp.async copies fetched faster
// (gputest/results/h100/conv/call33); c itself elsewhere.
func ConvStaged(c ptx.GemmConfig, in ptx.InputClass, s request.ConvShape, dev ptx.DeviceLimits) ptx.GemmConfig {
	if !in.ChannelLines || in.AType == ptx.F32 && s.C/s.G == 32 {
		return c
	}
	return convCopyEngine(c, in, s.Pixels(), s.K, dev)
}

// convCopyEngine is c staged by the copy engine's im2col mode for an
// m×n implicit GEMM: with a producer warp (ptx.GemmConfig.TMA = 2) for
// 64-pixel blocks, whose small grids leave the copies' issue on the
// critical path; persistent (PS = 1) with a deep pipeline, one block an SM,
// for 16-bit 128-pixel blocks without a grid split whose tiles fill the SMs at
// least twice (persistentWaves); else from the computing threads (TMA = 1);
// c where none is legal.
func convCopyEngine(c ptx.GemmConfig, in ptx.InputClass, m, n int, dev ptx.DeviceLimits) ptx.GemmConfig {
	t := ptx.TMATwin(c, in, dev)
	if p := t; t.TMA == 1 && c.ML == 64 {
		if p.TMA = 2; ptx.Legal(p, in, dev) == nil {
			return p
		}
	}
	// Not for tf32: the driver's JIT gives its persistent 2×128-pixel
	// kernels more registers than 288 threads a block leave (it allows 256:
	// gputest/results/h100/conv/call41), so the runtime refuses them and
	// the server forwards the call.
	if t.TMA == 1 && c.ML == 128 && c.KG == 1 && in.AType.Size() == 2 && ceilDiv(m, c.ML)*ceilDiv(n, c.NL) >= persistentWaves*dev.SMCount {
		p := t
		p.TMA, p.PS = 2, 1
		for _, st := range []int{8, 6, 5, 4} { // the deepest that fits
			if p.Stages = st; ptx.Legal(p, in, dev) == nil {
				return p
			}
		}
	}
	return t
}

// persistentWaves is how many times a convolution's tiles must fill the
// SMs for the heuristic to take a persistent kernel: on Table 5's and
// ResNet's layers of two or three waves of 128-pixel tiles, persistent
// kernels with 6-8 stages ran faster than the heuristic's blocks; on
// grids of a wave or less they did not (gputest/results/h100/conv/call35).
const persistentWaves = 2

// deepReduction is the reduction length (C·R·S) from which a convolution
// whose grid leaves SMs idle splits it across the grid.
const deepReduction = 8192

// convWarpgroupCandidates are the wgmma configurations tried first for a
// convolution whose im2col and filter tiles are copied in 16-byte vectors
// on sm_90 (channel-contiguous x, filter rows of whole vectors), the
// fastest of a grid of blocks, stages, splits and copy loops on Table 5's
// and ResNet's FP16 NHWC layers (gputest/results/h100/conv/call17):
// blocks of 64 channels where K fits, else 128; of 256 pixels (two
// instructions along m per warpgroup) for reductions of 1,536 taps or more
// on 128 channels, of 128 pixels otherwise; where that grid would leave SMs
// idle, 64 pixels, then 64 channels; 3 stages for 128 by 128 blocks and 6
// for 64 by 64 ones (two blocks an SM), 4 otherwise (tf32, from the grid of
// call33: 4 for 128 by 128, 8 for 64 pixels); k-slices of one 128-byte line
// of taps (64 16-bit, 32 tf32); a grid split only for deep reductions on a grid still short of the SMs (the smallest
// power of two, up to 16, that fills them), since a split's one-pass fixup
// costs more than it gains on short ones.
func convWarpgroupCandidates(in ptx.InputClass, m, n, k int, dev ptx.DeviceLimits) []ptx.GemmConfig {
	maths := ptx.WarpgroupMathsFor(in)
	v := 16 / in.AType.Size()
	if len(maths) == 0 || dev.SMMajor != 9 || dev.SMMinor != 0 || in.AlignA < v || in.AlignB < v || m < 128 {
		return nil
	}
	c := ptx.GemmConfig{MS: 1, ML: 128, NL: 64, U: 64, KS: 1, KL: 1, KG: 1, KC: 1, VecA: v, VecB: v, Stages: 4, Math: maths[0]}
	blocks := func() int { return ceilDiv(m, c.ML) * ceilDiv(n, c.NL) }
	if n > 64 {
		c.NL, c.Stages = 128, 3
		if k >= 1536 {
			c.MS, c.ML, c.Stages = 2, 256, 4
			if blocks() < dev.SMCount {
				c.MS, c.ML, c.Stages = 1, 128, 3
			}
		}
	}
	if blocks() < dev.SMCount {
		c.MS, c.ML, c.Stages = 1, 64, 4
		if blocks() < dev.SMCount && c.NL > 64 {
			c.NL = 64
		}
		if c.NL == 64 {
			c.Stages = 6 // 96 KiB: still two blocks an SM
		}
	}
	if k >= deepReduction {
		for b := blocks(); c.KG < 16 && b*c.KG < dev.SMCount; {
			c.KG *= 2
		}
	}
	c.NS = c.NL / 8
	c.U = 8 * v // one 128-byte line of channels: 64 16-bit, 32 tf32
	if v == 4 {
		// tf32: a line holds half the taps of a 16-bit one, so more stages
		// keep as many taps in flight: 8 for blocks of 64 pixels, 4 for
		// 128 by 128 (the grid of call33).
		switch {
		case c.ML == 64:
			c.Stages = 8
		case c.ML == 128 && c.NL == 128:
			c.Stages = 4
		}
	}
	if k < c.U {
		c.U, c.Stages = max(4*v, 16), 3
	}
	return []ptx.GemmConfig{c}
}

// ConvThroughCopies reports whether the heuristic runs a convolution whose
// x is not channel-contiguous on NHWC copies of x and its filter (a
// transpose each, then the channel-vector kernel: wgmma for 16-bit types and tf32)
// rather than gathering x element by element: for 16-bit types with 16
// channels or more (Table 5's conv3, 16 channels, 23 % faster through the
// copies; ResNet's stem, 3 channels, 11-36 % slower), 1×1 filters too
// (Table 5's conv14 ran its gather at a third of cuDNN's speed and its
// NHWC kernel faster than cuDNN's): the rule the measurements of both paths
// suggest (gputest/results/h100/conv/README.md). FP32 with TF32 allowed
// takes the copies too, for the wgmma kernel's k-contiguous tiles, and
// even where x is channel-contiguous: the copies round x and the filter
// to TF32 in one pass over memory, which costs less than rounding every
// stage in shared memory (InputClass.RoundTF32).
func ConvThroughCopies(s request.ConvShape) bool {
	tf32 := s.Type.Data == request.CudnnFloat && s.TF32
	tensorCores := s.Type.Data.Size() == 2 || tf32
	return tensorCores && (s.XStrides[1] != 1 || tf32) && s.G == 1 && s.C >= 16
}
