package tune

import (
	"math"
	"math/rand/v2"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/request"
)

// ConvBatch is a group of convolutions of one served type and math, x, y
// and the filter in one layout (NCHW, or NHWC with the filter in NHWC
// format), in the same mode.
type ConvBatch struct {
	Type   request.ConvType
	Math   int // cudnnMathType_t: FMA, or tensor-op (TF32 allowed for float)
	Layout convcheck.Layout
	Flip   bool // CUDNN_CONVOLUTION
	Layers []suites.Conv
}

// ConvDistribution is where the sampler draws convolutions from: the
// layers programs run (CNN layers of many sizes), not Table 5 alone.
// Batches 1…MaxBatch, square images (or not, a share) of 1…MaxSpatial,
// channels log-uniform 1…MaxChannels mostly rounded to multiples of 16,
// filters mostly 1×1 and 3×3, then 5×5, 7×7 and the separable 1×k, k×1,
// strides mostly 1, dilations mostly 1, "same" padding mostly; a share
// depthwise and a share grouped (up to 8 channels a group: the direct
// kernel's), a share near the suites' layers (each size scaled by up to
// ±35 %, never a suite's exact layer); MaxFlops bounds the direct
// arithmetic per type and MaxBytes each tensor.
type ConvDistribution struct {
	MaxBatch, MaxSpatial, MaxChannels int
	RoundShare                        float64 // channel counts rounded to a multiple of 16
	DepthwiseShare, GroupedShare      float64
	SuiteShare                        float64
	FlipShare                         float64
	MaxFlops                          func(t request.ConvType, math int) float64
	MaxBytes                          int
	// Lines draws only what the copy engine's im2col staging serves:
	// types and maths with wgmma kernels (16-bit, FLOAT with TF32),
	// ungrouped convolutions whose channels fill whole 128-byte lines
	// (ptx.InputClass.ChannelLines), for the staged kernels' data.
	Lines bool
}

// LinesConvDistribution is DefaultConvDistribution drawing only
// convolutions the copy engine stages (ConvDistribution.Lines).
func LinesConvDistribution() ConvDistribution {
	d := DefaultConvDistribution()
	d.Lines, d.DepthwiseShare, d.GroupedShare = true, 0, 0
	return d
}

// DefaultConvDistribution is issue 24's distribution with the GEMM
// tuner's bounds (about a millisecond at the H100's peak).
func DefaultConvDistribution() ConvDistribution {
	return ConvDistribution{
		MaxBatch: 64, MaxSpatial: 256, MaxChannels: 2048,
		RoundShare: 0.7, DepthwiseShare: 0.12, GroupedShare: 0.05, SuiteShare: 0.2, FlipShare: 0.1,
		MaxFlops: func(t request.ConvType, mt int) float64 {
			switch {
			case t.Data.Size() == 2:
				return 6e11
			case t.Data == request.CudnnFloat && mt != request.CudnnFMAMath:
				return 3e11
			}
			return 8e10
		},
		MaxBytes: 512 << 20,
	}
}

// Batch draws a batch of up to layers convolutions of one type, math,
// layout and mode.
func (d ConvDistribution) Batch(rng *rand.Rand, layers int) ConvBatch {
	t := request.ConvTypes[rng.IntN(len(request.ConvTypes))]
	for d.Lines && t.Data == request.CudnnDouble {
		t = request.ConvTypes[rng.IntN(len(request.ConvTypes))] // no wgmma for double
	}
	mt := request.CudnnFMAMath
	if t.Data != request.CudnnDouble && (rng.IntN(2) == 0 || d.Lines && t.Data == request.CudnnFloat) {
		mt = request.CudnnTensorOpMath // TF32 allowed for float
	}
	return d.BatchOf(rng, t, mt, []convcheck.Layout{convcheck.NCHW, convcheck.NHWC}[rng.IntN(2)], layers)
}

// BatchOf draws a batch of up to layers convolutions of one given type,
// math and layout (the mode drawn).
func (d ConvDistribution) BatchOf(rng *rand.Rand, t request.ConvType, mt int, layout convcheck.Layout, layers int) ConvBatch {
	b := ConvBatch{Type: t, Math: mt, Layout: layout, Flip: rng.Float64() < d.FlipShare}
	for len(b.Layers) < layers {
		if l, ok := d.layer(rng, t, mt); ok {
			b.Layers = append(b.Layers, l)
		}
	}
	return b
}

// layer draws one convolution; false when it falls outside the bounds or
// is a suite's layer.
func (d ConvDistribution) layer(rng *rand.Rand, t request.ConvType, mt int) (suites.Conv, bool) {
	var l suites.Conv
	if rng.Float64() < d.SuiteShare {
		all := convSuiteLayers()
		l = all[rng.IntN(len(all))]
		scale := func(v int) int { return max(1, int(float64(v)*math.Exp(0.35*(2*rng.Float64()-1)))) }
		l.N, l.H, l.W, l.K = scale(l.N), scale(l.H), scale(l.W), scale(l.K)
		if l.Groups > 1 { // depthwise stays depthwise
			l.C, l.Groups = l.K, l.K
		} else {
			l.C = scale(l.C)
		}
	} else {
		l = d.freeLayer(rng)
	}
	l.Suite, l.Name = "tune", ""
	if d.Lines {
		// Channels of whole 128-byte lines, ungrouped.
		line := 128 / t.Data.Size()
		l.Groups, l.C = 1, (l.C+line-1)/line*line
	}
	fits := l.H+2*l.Pad >= (l.R-1)*l.Dil+1 && l.W+2*l.Pad >= (l.S-1)*l.Dil+1 // the filter within the padded image
	if isSuiteLayer(l) || !fits || l.C%l.Groups != 0 || l.K%l.Groups != 0 {
		return l, false
	}
	es := t.Data.Size()
	flops := 2 * float64(l.N*l.K) * float64(l.P()*l.Q()) * float64(l.C/l.Groups*l.R*l.S)
	if flops > d.MaxFlops(t, mt) || l.N*l.C*l.H*l.W*es > d.MaxBytes || l.N*l.K*l.P()*l.Q()*es > d.MaxBytes ||
		l.K*l.C/l.Groups*l.R*l.S*es > d.MaxBytes {
		return l, false
	}
	return l, true
}

// freeLayer draws a layer from the distribution's own parameters.
func (d ConvDistribution) freeLayer(rng *rand.Rand) suites.Conv {
	channels := func() int {
		c := logUniform(rng, 1, d.MaxChannels)
		if c >= 16 && rng.Float64() < d.RoundShare {
			c = c / 16 * 16
		}
		return c
	}
	l := suites.Conv{N: logUniform(rng, 1, d.MaxBatch), C: channels(), K: channels(), Groups: 1, Stride: 1, Dil: 1}
	l.H = logUniform(rng, 1, d.MaxSpatial)
	l.W = l.H
	if rng.Float64() < 0.2 {
		l.W = logUniform(rng, 1, d.MaxSpatial)
	}
	switch f := rng.Float64(); {
	case f < 0.3:
		l.R, l.S = 1, 1
	case f < 0.7:
		l.R, l.S = 3, 3
	case f < 0.8:
		l.R, l.S = 5, 5
	case f < 0.88:
		l.R, l.S = 7, 7
	case f < 0.95: // separable: 1×k or k×1
		k := []int{3, 5, 7}[rng.IntN(3)]
		l.R, l.S = 1, k
		if rng.IntN(2) == 0 {
			l.R, l.S = k, 1
		}
	default:
		l.R, l.S = 1+rng.IntN(7), 1+rng.IntN(7)
	}
	switch f := rng.Float64(); {
	case f < 0.2:
		l.Stride = 2
	case f < 0.25:
		l.Stride = 3 + rng.IntN(2)
	}
	if rng.Float64() < 0.1 {
		l.Dil = 2 + rng.IntN(3)
	}
	switch f := rng.Float64(); { // suites.Conv pads both dimensions alike: by the taller filter's half
	case f < 0.6:
		l.Pad = (max(l.R, l.S) - 1) * l.Dil / 2
	case f < 0.9:
		l.Pad = 0
	default:
		l.Pad = rng.IntN(max(l.R, l.S) + 1)
	}
	switch f := rng.Float64(); {
	case f < d.DepthwiseShare:
		l.K = l.C
		l.Groups = l.C
	case f < d.DepthwiseShare+d.GroupedShare:
		per := []int{2, 4, 8}[rng.IntN(3)]
		g := max(1, l.C/per)
		l.C, l.K, l.Groups = g*per, g*max(1, l.K/g), g
	}
	return l
}

// Case is the batch's convolution i as a conformance case (alpha 1, beta
// 0).
func (b ConvBatch) Case(i int) convcheck.Case {
	l := b.Layers[i]
	return convcheck.Case{Type: b.Type, Math: b.Math, N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S, Groups: l.Groups,
		PadH: l.Pad, PadW: l.Pad, StrH: l.Stride, StrW: l.Stride, DilH: l.Dil, DilW: l.Dil, Flip: b.Flip,
		X: b.Layout, Y: b.Layout, FilterNHWC: b.Layout == convcheck.NHWC, Alpha: 1}
}

// convSuiteLayers are the benchmark suites' convolutions.
func convSuiteLayers() []suites.Conv {
	return append(append(suites.Table5(), suites.CNN()...), suites.Depthwise()...)
}

// suiteLayers are the suites' exact layers, which the tuner never measures.
var suiteLayers = func() map[suites.Conv]bool {
	m := map[suites.Conv]bool{}
	for _, l := range convSuiteLayers() {
		m[layerKey(l)] = true
	}
	return m
}()

// layerKey is a layer without its names.
func layerKey(l suites.Conv) suites.Conv {
	l.Suite, l.Name = "", ""
	return l
}

// isSuiteLayer reports whether l is one of the benchmark suites' layers.
func isSuiteLayer(l suites.Conv) bool { return suiteLayers[layerKey(l)] }
