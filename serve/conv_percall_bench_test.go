package serve

import (
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// benchConvCase is a convolution the dispatch forwards on the H100
// (an FP32 FMA 3×3 layer: cuDNN's Winograd is faster), with the buffers'
// addresses the shim would see (aligned, never dereferenced here).
var benchConvCase = convcheck.Case{Type: request.ConvTypes[0], Math: request.CudnnFMAMath, N: 8, C: 64, H: 28, W: 28, K: 64, R: 3, S: 3,
	PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1}

// benchConvRequest is benchConvCase's call as the shim decodes it.
func benchConvRequest() *request.Conv {
	return benchConvCase.RequestAt(0x7f0000000000, 0x7f0001000000, 0x7f0002000000, &[2]float64{1, 0}, 0)
}

// BenchmarkConvShape is the host time of a convolution's shape and
// cuDNN's validity rules (request.Conv.Shape), every call's first step
// (CPU only).
func BenchmarkConvShape(b *testing.B) {
	req := benchConvRequest()
	b.ReportAllocs()
	for b.Loop() {
		if _, r := req.Shape(); r != request.Served {
			b.Fatal(r)
		}
	}
}

// BenchmarkConvKey is the host time of a convolution's decision key
// beyond its shape and target (newConvKey: the window kernel's class
// where it is a candidate, a pointwise convolution's GEMM and its class),
// for benchConvCase and for its pointwise twin (1×1, no padding: the GEMM
// route's class is computed on every call), CPU only.
func BenchmarkConvKey(b *testing.B) {
	pointwise := benchConvCase
	pointwise.R, pointwise.S, pointwise.PadH, pointwise.PadW = 1, 1, 0, 0
	for _, tc := range []struct {
		name string
		c    convcheck.Case
	}{{"3x3", benchConvCase}, {"1x1", pointwise}} {
		b.Run(tc.name, func(b *testing.B) {
			req := tc.c.RequestAt(0x7f0000000000, 0x7f0001000000, 0x7f0002000000, &[2]float64{1, 0}, 0)
			s, r := req.Shape()
			if r != request.Served {
				b.Fatal(r)
			}
			_, gemm := req.PointwiseGemm(s)
			if gemm != (tc.name == "1x1") {
				b.Fatalf("%s: pointwise GEMM %v", tc.name, gemm)
			}
			b.ReportAllocs()
			for b.Loop() {
				newConvKey(1, ptx.InputClass{}, req, s)
			}
		})
	}
}

// BenchmarkGPUConvCachedDecision is the host time the server adds to a
// convolution whose decision is made, split into its steps: the target
// (shape, current context, input class), the decision's lookup, and the
// whole of Server.Conv for a decision to forward (reason request.FwdPredicted)
// and for one a check turned to cuDNN (request.FwdMeasured). Issue 24's
// bound for the last two is 1 µs a call.
func BenchmarkGPUConvCachedDecision(b *testing.B) {
	gemmcheck.GPUThread(b)
	req := benchConvRequest()
	o := FromEnv()
	o.Policy, o.ConvAuto = Auto, On
	srv := NewOn(testRT, o)
	key, _, _, r := srv.convTarget(req)
	if r != request.Served {
		b.Fatal(r)
	}
	b.Run("target", func(b *testing.B) {
		gemmcheck.GPUThread(b) // each sub-benchmark runs on a goroutine of its own
		b.ReportAllocs()
		for b.Loop() {
			if _, _, _, r := srv.convTarget(req); r != request.Served {
				b.Fatal(r)
			}
		}
	})
	forward := &convDecision{reason: request.FwdPredicted}
	srv.convs.Store(key, forward)
	b.Run("decision", func(b *testing.B) {
		gemmcheck.GPUThread(b)
		b.ReportAllocs()
		for b.Loop() {
			if _, _, _, r := srv.convDecision(req); r != request.FwdPredicted {
				b.Fatal(r)
			}
		}
	})
	b.Run("conv-forwarded", func(b *testing.B) { benchConvCalls(b, srv, req, request.FwdPredicted) })
	m := &measurement{}
	m.verdict.Store(vendorFaster)
	srv.convs.Store(key, &convDecision{reason: request.Served, meas: m})
	b.Run("conv-measured", func(b *testing.B) { benchConvCalls(b, srv, req, request.FwdMeasured) })
}

// benchConvCalls times Server.Conv on req, whose reason must be want.
func benchConvCalls(b *testing.B, srv *Server, req *request.Conv, want request.Reason) {
	gemmcheck.GPUThread(b) // each sub-benchmark runs on a goroutine of its own
	b.ReportAllocs()
	for b.Loop() {
		if r, _ := srv.Conv(req); r != want {
			b.Fatal(r)
		}
	}
}
