package serve

import (
	"math"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// A pointwise convolution whose tensors lie as matrices
// (request.Conv.PointwiseGemm) has a route beside the implicit GEMM's: the
// GEMM (or strided batch of GEMMs) its tensors are, run by the GEMM
// kernels with the GEMM model's choice, or the GEMM heuristic's, with no
// gather and no copies. The convolution's check times its kernels beside
// the convolution kernels and cuDNN.

// gemmRoute is a pointwise convolution's GEMM route: the GEMM, its
// target, its configurations best first, and the predicted rate of the
// first (NaN for the heuristic's alone).
type gemmRoute struct {
	g         request.Gemm
	t         kernels.Target
	cfgs      []ptx.GemmConfig
	tflops    float64
	pixelsByK bool // y is pixels × K (pixel-major y: x·w), else K × pixels
}

// convGemmCandidates is how many of the GEMM model's best kernels a
// pointwise convolution's check times beside its other candidates.
const convGemmCandidates = 2

// convGemmTarget is c's pointwise GEMM and its target, where c has one
// that the GEMM kernels serve.
func (s *Server) convGemmTarget(c *request.Conv, shape request.ConvShape) (request.Gemm, kernels.Target, bool) {
	g, ok := c.PointwiseGemm(shape)
	if !ok || g.Empty() {
		return g, kernels.Target{}, false
	}
	t, err := s.rt.Target(&g)
	return g, t, err == nil
}

// convGemmRoute is c's GEMM route, where c has one: with model, the GEMM
// model's ranked choice (the search of GEMM's, its seed pools and cached
// choices); without it or a usable GEMM model, the GEMM heuristic's
// configuration (not Options.Config, which is for GEMM calls).
func (s *Server) convGemmRoute(c *request.Conv, shape request.ConvShape, model bool) (gemmRoute, bool) {
	g, t, ok := s.convGemmTarget(c, shape)
	if !ok {
		return gemmRoute{}, false
	}
	r := gemmRoute{g: g, t: t, tflops: math.NaN(), pixelsByK: g.B == c.WPtr}
	if model {
		if ch, id, err := s.model(t.Dev); err == nil {
			if in, ok := predictor.InputOf(&g, t.Class); ok {
				choice := s.choiceFor(ch, id, in, int(g.Batch), t.Class)
				if r.cfgs = s.candidates(choice, ch.Config.ConfigLayout(), t, &g); len(r.cfgs) > 0 {
					r.tflops = choice.OursTFLOPs
				}
			}
		}
	}
	if len(r.cfgs) == 0 {
		cfg, err := s.defaultConfig(t, &g)
		if err != nil {
			return gemmRoute{}, false
		}
		r.cfgs = []ptx.GemmConfig{cfg}
	}
	return r, true
}

// runs are the route's first want kernels that load, compiled in line
// with compile; without it, pending where one of them is neither loaded
// nor in the disk cache.
func (s *Server) gemmRuns(r gemmRoute, want int, compile bool) (runs []convRun, pending bool) {
	for _, cfg := range r.cfgs {
		if len(runs) == want {
			break
		}
		if !compile && !s.rt.Loaded(r.t, cfg) {
			return nil, true
		}
		if k, err := s.rt.Kernel(r.t, cfg); err == nil {
			runs = append(runs, convRun{k, convGemm, r.t})
		}
	}
	return runs, false
}

// gemmChoiceSoon reports whether c's GEMM route, where it has one, costs
// at most one search of the GEMM model (choiceSoon's rule).
func (s *Server) gemmChoiceSoon(c *request.Conv, shape request.ConvShape) bool {
	g, t, ok := s.convGemmTarget(c, shape)
	if !ok {
		return true
	}
	return s.choiceSoon(t, &g)
}

// gemmPreferred reports whether the heuristic takes a pointwise
// convolution's GEMM route (r, with the GEMM heuristic's configuration):
// one matrix (not a batch of one an image), of 4- or 8-byte elements
// (FLOAT with FMA math, DOUBLE), or of 16-bit elements with a pixel-major
// y (one NCHW image, whose alternative is the NHWC copies) whose columns
// allow 4-byte copies (not an image of an odd number of pixels, read
// element by element). On ResNet-50's
// 1×1 layers and Table 5's conv14 the GEMM heuristic's kernels ran slower
// than the convolution heuristic's elsewhere: the 16-bit channel-vector
// kernels on NHWC tensors and on the copies of batches, and the implicit
// GEMM on batches of NCHW images (gputest/results/h100/conv/call101 and
// call102). The model's choice, checked, may take the route anywhere.
func gemmPreferred(r gemmRoute) bool {
	cls := r.t.Class
	words := min(cls.AlignA*cls.AType.Size(), cls.AlignB*cls.BType.Size(), cls.AlignC*cls.CType.Size()) >= 4
	return r.g.Batch <= 1 && (cls.AType.Size() >= 4 || r.pixelsByK && words)
}
