package tune

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// ConvSample is one convolution measurement: a configuration's median time
// on a convolution through one of ISAAC's paths, and cuDNN's times on the
// same buffers in the same process (the algorithm
// cudnnGetConvolutionForwardAlgorithm_v7 picks and the fastest of
// cudnnFindConvolutionForwardAlgorithmEx, each with its workspace).
type ConvSample struct {
	Type                   string // a request.ConvTypes name: float, double, pseudo_half, true_half, bfloat16
	Math                   int    // cudnnMathType_t
	Layout                 string // "nchw" or "nhwc" (x, y and the filter's format alike)
	Flip                   bool   // CUDNN_CONVOLUTION
	N, C, H, W, K, R, S, G int
	Pad, Stride, Dil       int // along both dimensions
	// Path is how ISAAC ran it: "implicit" (the implicit GEMM on x as it
	// lies), "nhwc_copies" (on NHWC copies of x and the filter) or
	// "direct" (the grouped direct kernel); empty in a vendor-only row.
	Path           string
	AlignA, AlignB int    // the implicit GEMM's input class's alignments (x, the filter), in elements; the direct kernel's alignment in AlignA
	Config         string // a ptx.GemmConfig ("implicit", "nhwc_copies") or ptx.GroupedConfig ("direct") string
	US             float64
	VendorV7US     float64
	VendorBestUS   float64
}

// Convolution paths of ConvSample.Path.
const (
	PathImplicit   = "implicit"
	PathNHWCCopies = "nhwc_copies"
	PathDirect     = "direct"
)

// ConvColumns are the convolution data set's CSV header.
var ConvColumns = []string{"type", "math", "layout", "flip", "n", "c", "h", "w", "k", "r", "s", "g", "pad", "stride", "dil",
	"path", "align_a", "align_b", "config", "us", "vendor_v7_us", "vendor_best_us"}

// VendorOnly reports a row that times only cuDNN.
func (s ConvSample) VendorOnly() bool { return s.Path == "" }

func (s ConvSample) record() []string {
	i := strconv.Itoa
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	return []string{s.Type, i(s.Math), s.Layout, strconv.FormatBool(s.Flip),
		i(s.N), i(s.C), i(s.H), i(s.W), i(s.K), i(s.R), i(s.S), i(s.G), i(s.Pad), i(s.Stride), i(s.Dil),
		s.Path, i(s.AlignA), i(s.AlignB), s.Config, f(s.US), f(s.VendorV7US), f(s.VendorBestUS)}
}

func parseConvRecord(r []string) (ConvSample, error) {
	if len(r) != len(ConvColumns) {
		return ConvSample{}, fmt.Errorf("%d fields, want %d", len(r), len(ConvColumns))
	}
	s := ConvSample{Type: r[0], Layout: r[2], Path: r[15], Config: r[18]}
	if !slices.ContainsFunc(request.ConvTypes, func(t request.ConvType) bool { return t.Name == s.Type }) {
		return ConvSample{}, fmt.Errorf("type %q", s.Type)
	}
	if s.Layout != "nchw" && s.Layout != "nhwc" {
		return ConvSample{}, fmt.Errorf("layout %q", s.Layout)
	}
	var err error
	if s.Flip, err = strconv.ParseBool(r[3]); err != nil {
		return ConvSample{}, err
	}
	ints := []*int{&s.Math, nil, nil, &s.N, &s.C, &s.H, &s.W, &s.K, &s.R, &s.S, &s.G, &s.Pad, &s.Stride, &s.Dil}
	for j, p := range ints {
		if p == nil {
			continue
		}
		if *p, err = strconv.Atoi(r[1+j]); err != nil {
			return ConvSample{}, err
		}
	}
	if s.AlignA, err = strconv.Atoi(r[16]); err != nil {
		return ConvSample{}, err
	}
	if s.AlignB, err = strconv.Atoi(r[17]); err != nil {
		return ConvSample{}, err
	}
	switch s.Path {
	case PathImplicit, PathNHWCCopies:
		_, err = ptx.ParseConfig(s.Config)
	case PathDirect:
		_, err = ptx.ParseGroupedConfig(s.Config)
	case "":
		if s.Config != "" {
			err = fmt.Errorf("a vendor-only row with the configuration %q", s.Config)
		}
	default:
		err = fmt.Errorf("path %q", s.Path)
	}
	if err != nil {
		return ConvSample{}, err
	}
	for j, p := range []*float64{&s.US, &s.VendorV7US, &s.VendorBestUS} {
		if *p, err = strconv.ParseFloat(r[19+j], 64); err != nil {
			return ConvSample{}, err
		}
	}
	return s, nil
}

// AppendConv opens (creating when needed) a convolution data set file for
// appending, as Append does a GEMM one.
func AppendConv(path string, provenance []string) (*Writer, error) {
	return appendFile(path, provenance, ConvColumns)
}

// WriteConv appends one batch of convolution samples as one frame.
func (w *Writer) WriteConv(batch []ConvSample) error { return writeRows(w, batch) }

// ReadConv reads a convolution data set: its samples and its '#' lines.
func ReadConv(r io.Reader) ([]ConvSample, []string, error) {
	return readRows(r, ConvColumns, parseConvRecord)
}

// ReadConvFile reads a convolution data set file; a missing file is an
// empty data set.
func ReadConvFile(path string) ([]ConvSample, []string, error) { return readFile(path, ReadConv) }

// ConvLaunchOnly is what a convolution data set's method line says when
// each timed span held the configuration's launches alone. Without it
// (files measured before 2026-11-27's fix), the NHWC-copies path's
// transposes kernel and the direct kernel had their PTX generated inside
// the span on every call, so those rows time the host's code generation
// (hundreds of microseconds), not the GPU.
const ConvLaunchOnly = "kernels found before each timed span (no PTX generated in it)"

// WithoutHostTimed is a data set's samples with the rows that timed the
// host's code generation (the NHWC-copies and direct paths of a data set
// whose method lines do not all carry ConvLaunchOnly) made vendor-only:
// their cuDNN times stand, their own are dropped. It also returns how
// many rows it changed.
func WithoutHostTimed(samples []ConvSample, comments []string) ([]ConvSample, int) {
	launchOnly, methods := true, 0
	for _, c := range comments {
		if strings.HasPrefix(c, "method: ") {
			methods++
			launchOnly = launchOnly && strings.Contains(c, ConvLaunchOnly)
		}
	}
	if launchOnly && methods > 0 {
		return samples, 0
	}
	out, changed := slices.Clone(samples), 0
	for i, s := range out {
		if s.Path == PathNHWCCopies || s.Path == PathDirect {
			out[i].Path, out[i].AlignA, out[i].AlignB, out[i].Config, out[i].US = "", 0, 0, "", 0
			changed++
		}
	}
	return out, changed
}
