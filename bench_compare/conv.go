package main

import (
	"fmt"
	"io"
	"math"
	"time"

	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// convType is a served convolution configuration as bench_compare names it
// (the names of ../shared/reference's cuDNN figures), with the math type a
// caller sets and the peak that bounds it.
type convType struct {
	Name string
	request.ConvType
	Math int
	Peak string
}

// convTypes are the configurations the convolution suites run: FP32 with
// FMA math (true FP32) and with default math (TF32 allowed), FP16 data with
// FP32 compute and BF16, both with tensor-op math (what PyTorch sets).
var convTypes = []convType{
	{"s_fma", request.ConvTypes[0], request.CudnnFMAMath, "fp32"},
	{"s_tf32", request.ConvTypes[0], request.CudnnDefaultMath, "tf32-tensor"},
	{"h_pseudo", request.ConvTypes[2], request.CudnnTensorOpMath, "fp16-tensor"},
	{"bf16", request.ConvTypes[4], request.CudnnTensorOpMath, "fp16-tensor"},
}

// convInput is a suite's convolution in one type and layout (x, y and the
// filter's format).
type convInput struct {
	suites.Conv
	Type   convType
	Layout convcheck.Layout
}

// convInputsOf crosses a suite's layers with the types and both layouts.
func convInputsOf(layers []suites.Conv) []convInput {
	var out []convInput
	for _, t := range convTypes {
		for _, l := range []convcheck.Layout{convcheck.NCHW, convcheck.NHWC} {
			for _, c := range layers {
				out = append(out, convInput{c, t, l})
			}
		}
	}
	return out
}

// convCase is the input as a conformance case (alpha 1, beta 0).
func (in convInput) convCase() convcheck.Case {
	return convcheck.Case{Type: in.Type.ConvType, Math: in.Type.Math, N: in.N, C: in.C, H: in.H, W: in.W, K: in.K, R: in.R, S: in.S,
		PadH: in.Pad, PadW: in.Pad, StrH: in.Stride, StrW: in.Stride, DilH: in.Dil, DilW: in.Dil,
		X: in.Layout, Y: in.Layout, FilterNHWC: in.Layout == convcheck.NHWC, Alpha: 1, Seed: 1}
}

// convWork is a convolution's arithmetic (direct: 2·N·K·P·Q·C/G·R·S) and its
// minimum traffic (x and the filter read once, y written).
func convWork(in convInput) (flops, bytes float64) {
	es := float64(in.Type.Data.Size())
	p, q := float64(in.P()), float64(in.Q())
	flops = 2 * float64(in.N*in.K) * p * q * float64(in.C/in.Groups*in.R*in.S)
	bytes = es * (float64(in.N*in.C*in.H*in.W) + float64(in.K*in.C/in.Groups*in.R*in.S) + float64(in.N*in.K)*p*q)
	return flops, bytes
}

// measureConv times one convolution: cuDNN through the legacy entry point
// with the algorithm cudnnGetConvolutionForwardAlgorithm_v7 picks and with
// the fastest of cudnnFindConvolutionForwardAlgorithmEx (each with its
// workspace), and ISAAC's kernel of the heuristic's configuration (none for
// what the kernels do not serve: grouped convolutions), interleaved. The
// vendor's time is the faster cuDNN algorithm's, both are Alt columns.
func (b *bench) measureConv(h cudnn.Handle, ws cuda.DevicePtr, wsBytes int, in convInput) (report.Row, error) {
	c := in.convCase()
	var row report.Row
	buf, err := convcheck.Upload(c, convcheck.Fill(c))
	if err != nil {
		return row, err
	}
	defer buf.Free()
	req := buf.Request(b.stream)
	req.Groups = in.Groups
	req.W.Dims[1] = in.C / in.Groups
	desc, err := h.Describe(req)
	if err != nil {
		return row, err
	}
	defer desc.Destroy()
	v7, err := desc.Heuristic()
	if err != nil {
		return row, err
	}
	find, err := desc.Fastest(uintptr(ws), wsBytes)
	if err != nil {
		return row, err
	}
	runs := []func() error{
		func() error { return desc.Forward(v7, uintptr(ws)) },
		func() error { return desc.Forward(find, uintptr(ws)) },
	}
	shape, reason := req.Shape()
	var cfg ptx.GemmConfig
	if reason == request.Served {
		t, err := b.Kernels.ConvTarget(req, shape)
		if err != nil {
			return row, err
		}
		cfg = space.ConvDefault(t.Class, shape, t.Dev.Limits)
		runs = append(runs, func() error { return b.Kernels.Conv(req, shape, cfg) })
	}
	for i := 0; i < b.Warmup; i++ {
		for _, run := range runs {
			if err := run(); err != nil {
				return row, err
			}
		}
	}
	if err := b.stream.Synchronize(); err != nil {
		return row, err
	}
	if reason == request.Served {
		if err := convAgree(buf, b.stream, runs, c); err != nil {
			return row, err
		}
	}
	times := make([][]float64, len(runs))
	for rep := 0; rep < b.Repeats; rep++ {
		for j := range runs {
			k := (j + rep) % len(runs)
			us, err := b.time(runs[k])
			if err != nil {
				return row, err
			}
			times[k] = append(times[k], us)
		}
	}
	flops, bytes := convWork(in)
	row = report.Row{
		Suite: in.Suite, Op: "conv", Name: in.Name, DType: in.Type.Name, Layout: in.Layout.String(),
		M: in.N * in.P() * in.Q(), N: in.K, K: in.C / in.Groups * in.R * in.S, Flops: flops, Bytes: bytes,
		VendorUS:   min(median(times[0]), median(times[1])),
		OursUS:     math.NaN(),
		RooflineUS: rooflineUS(flops, bytes, b.Env.PeakTFLOPs[in.Type.Peak], b.Env.BandwidthGBs),
		Alt: []report.Alt{
			{Name: "cudnn_v7", US: median(times[0]), Config: fmt.Sprintf("algo %d", v7.Algo)},
			{Name: "cudnn_find", US: median(times[1]), Config: fmt.Sprintf("algo %d", find.Algo)},
		},
	}
	if reason == request.Served {
		row.OursUS, row.Config = median(times[2]), cfg.String()
	} else {
		row.Config = "not served: " + reason.String()
	}
	row.Speedup = row.VendorUS / row.OursUS
	return row, nil
}

// convAgree checks, before timing, that ours computes what cuDNN's v7
// algorithm computes (normwise, within the data type's tolerance): a
// benchmark of a wrong result is worthless.
func convAgree(buf *convcheck.Buffers, stream cuda.Stream, runs []func() error, c convcheck.Case) error {
	var outs [][]float64
	for _, i := range []int{0, 2} {
		if err := buf.ResetY(); err != nil {
			return err
		}
		if err := runs[i](); err != nil {
			return err
		}
		y, err := buf.ReadY(stream)
		if err != nil {
			return err
		}
		outs = append(outs, y)
	}
	var diff, norm float64
	for i := range outs[0] {
		d := outs[0][i] - outs[1][i]
		diff += d * d
		norm += outs[0][i] * outs[0][i]
	}
	// Normwise, as bench_compare's GEMMs: cuDNN's Winograd and FFT
	// algorithms round more than a direct reduction.
	tol := map[request.CudnnDataType]float64{request.CudnnDouble: 1e-9, request.CudnnFloat: 1e-3}[c.Type.Data]
	if tol == 0 {
		tol = 5e-2
	}
	if diff > tol*tol*max(norm, 1e-30) {
		return fmt.Errorf("ISAAC and cuDNN disagree: relative difference %.3g, tolerance %.3g", math.Sqrt(diff/max(norm, 1e-30)), tol)
	}
	return nil
}

// measureConvs times a convolution suite's inputs.
func measureConvs(b *bench, inputs []convInput, progress io.Writer) ([]report.Row, error) {
	h, err := cudnn.New()
	if err != nil {
		return nil, err
	}
	defer h.Destroy()
	const wsBytes = 1 << 30
	ws, err := cuda.Alloc(wsBytes)
	if err != nil {
		return nil, err
	}
	defer ws.Free()
	var rows []report.Row
	start := time.Now()
	for i, in := range inputs {
		row, err := b.measureConv(h, ws, wsBytes, in)
		if err != nil {
			return nil, fmt.Errorf("%s %s %s: %w", in.Name, in.Type.Name, in.Layout, err)
		}
		rows = append(rows, row)
		done := i + 1
		eta := time.Duration(float64(time.Since(start)) / float64(done) * float64(len(inputs)-done)).Round(time.Second)
		fmt.Fprintf(progress, "[%3d/%d] %-24s %-9s %s  cuDNN %9.1f µs  ISAAC %9.1f µs  %5.2f×  (ETA %v)\n",
			done, len(inputs), in.Name, in.Type.Name, in.Layout, row.VendorUS, row.OursUS, row.Speedup, eta)
	}
	return rows, nil
}

// convSuite is a convolution suite's inputs by name, nil for a GEMM suite.
func convSuite(name string) []convInput {
	switch name {
	case "table5":
		return convInputsOf(suites.Table5())
	case "cnn":
		return convInputsOf(suites.CNN())
	}
	return nil
}
