package shim

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/request"
)

func readPlan(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "graph", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParseGraphPlan decodes the plans cuDNN 9.19 described for PyTorch's
// convolutions (testdata/graph) into what cudnnConvolutionForward's
// descriptors would say, and request.Conv takes the result as the
// convolution it is.
func TestParseGraphPlan(t *testing.T) {
	tc := []int{noteTensorCore}
	// FP32 NCHW, as cuDNN described it: 2×16×20×20 by 32 filters of 3×3,
	// padding 1.
	nchw := func(t request.CudnnDataType, math int) GraphConv {
		return GraphConv{
			X:    Tensor64{t, [4]int64{2, 16, 20, 20}, [4]int64{6400, 400, 20, 1}},
			W:    Tensor64{t, [4]int64{32, 16, 3, 3}, [4]int64{144, 9, 3, 1}},
			Y:    Tensor64{t, [4]int64{2, 32, 20, 20}, [4]int64{12800, 400, 20, 1}},
			UIDX: 120, UIDW: 119, UIDY: 121, Pad: [2]int64{1, 1}, Stride: [2]int64{1, 1}, Dilation: [2]int64{1, 1},
			Mode: 1, Compute: t, Groups: 1, MathType: math, Alpha: 1}
	}
	nhwc := nchw(request.CudnnHalf, request.CudnnTensorOpMath)
	nhwc.Compute, nhwc.FilterFormat = request.CudnnFloat, 1
	nhwc.X.Strides, nhwc.W.Strides, nhwc.Y.Strides = [4]int64{6400, 1, 320, 16}, [4]int64{144, 1, 48, 16}, [4]int64{12800, 1, 640, 32}
	for _, c := range []struct {
		file  string
		notes []int
		want  GraphConv
	}{
		{"fp32-nchw", nil, nchw(request.CudnnFloat, request.CudnnFMAMath)},
		// The same plan on an engine of tensor cores: TF32.
		{"fp32-nchw", tc, nchw(request.CudnnFloat, request.CudnnTensorOpMath)},
		{"fp16-nhwc", tc, nhwc},
		{"fp64-nchw", nil, nchw(request.CudnnDouble, request.CudnnDefaultMath)},
	} {
		got, r := ParseGraphPlan(readPlan(t, c.file), c.notes)
		if r != request.Served || got != c.want {
			t.Errorf("%s %v: %v\n got %+v\nwant %+v", c.file, c.notes, r, got, c.want)
		}
	}
	// Every plan of the test data is a convolution request.Conv serves.
	for _, c := range []struct {
		file           string
		groups, format int
		stride, dil    int
	}{
		{"fp32-nchw", 1, 0, 1, 1}, {"fp16-nhwc", 1, 1, 1, 1}, {"bf16-nchw", 1, 0, 1, 1}, {"fp64-nchw", 1, 0, 1, 1},
		{"fp16-stride2-dil2", 1, 0, 2, 2}, {"fp16-groups4", 4, 0, 1, 1}, {"fp16-depthwise-nhwc", 32, 0, 1, 1},
	} {
		g, r := ParseGraphPlan(readPlan(t, c.file), tc)
		if r != request.Served {
			t.Errorf("%s: %v", c.file, r)
			continue
		}
		if int(g.Groups) != c.groups || g.FilterFormat != c.format || int(g.Stride[0]) != c.stride || int(g.Dilation[1]) != c.dil {
			t.Errorf("%s: groups %d, filter format %d, stride %v, dilation %v", c.file, g.Groups, g.FilterFormat, g.Stride, g.Dilation)
		}
		conv := graphRequest(g)
		if _, r := conv.Shape(); r != request.Served {
			t.Errorf("%s: request.Conv.Shape: %v (%v)", c.file, r, conv.String())
		}
	}
}

// graphRequest is the request.Conv the shim's C side makes of g (as
// DecodeGraphPlan fills the plan record and DecodeConv reads it).
func graphRequest(g GraphConv) request.Conv {
	ints := func(v []int64) []int {
		out := make([]int, len(v))
		for i, x := range v {
			out[i] = int(x)
		}
		return out
	}
	return request.Conv{
		X:   request.Tensor{Type: g.X.Type, Dims: ints(g.X.Dims[:]), Strides: ints(g.X.Strides[:])},
		Y:   request.Tensor{Type: g.Y.Type, Dims: ints(g.Y.Dims[:]), Strides: ints(g.Y.Strides[:])},
		W:   request.Filter{Type: g.W.Type, Format: g.FilterFormat, Dims: ints(g.W.Dims[:])},
		Pad: ints(g.Pad[:]), Stride: ints(g.Stride[:]), Dilation: ints(g.Dilation[:]),
		Mode: g.Mode, Compute: g.Compute, Groups: int(g.Groups), MathType: g.MathType,
		XPtr: 0x1000, WPtr: 0x2000, YPtr: 0x3000,
		Alpha: request.Scalar{Ptr: 1}, Beta: request.Scalar{Ptr: 1},
	}
}

// TestParseGraphPlanRefuses: anything but one plain convolution of the
// shapes the decoder knows is left to cuDNN.
func TestParseGraphPlanRefuses(t *testing.T) {
	base := string(readPlan(t, "fp16-nhwc"))
	for _, c := range []struct {
		name, old, new string
		notes          []int
	}{
		{"a virtual tensor", `"isVirtual":false`, `"isVirtual":true`, nil},
		{"a tensor by value", `"isByValue":false`, `"isByValue":true`, nil},
		{"vectorized", `"vectCount":1`, `"vectCount":4`, nil},
		{"reordered", `"CUDNN_TENSOR_REORDERING_NONE"`, `"CUDNN_TENSOR_REORDERING_INT8x32"`, nil},
		{"an unknown tensor field", `"isVirtual":false`, `"isVirtual":false,"raggedOffset":"7"`, nil},
		{"an unknown node field", `"alpha":1.0`, `"alpha":1.0,"alpha2":1.0`, nil},
		{"another operation", `CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR`, `CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR`, nil},
		{"two nodes", `"Y":"121"}]`, `"Y":"121"},{"operation":"CUDNN_BACKEND_OPERATION_POINTWISE_DESCRIPTOR"}]`, nil},
		{"an INT8 tensor", `"dataType":"CUDNN_DATA_HALF"`, `"dataType":"CUDNN_DATA_INT8"`, nil},
		{"an unknown mode", `"CUDNN_CROSS_CORRELATION"`, `"CUDNN_SOMETHING"`, nil},
		{"a 3-d convolution", `"pad":[1,1]`, `"pad":[1,1,1]`, nil},
		{"a 5-d tensor", `"dim":[2,16,20,20],"stride":[6400,1,320,16]`, `"dim":[2,16,1,20,20],"stride":[6400,1,6400,320,16]`, nil},
		{"a node naming no tensor", `"X":"120"`, `"X":"122"`, nil},
		{"a name that is no id", `"name":"120"`, `"name":"x"`, nil},
		{"a filter neither KCRS nor KRSC", `"stride":[144,1,48,16]`, `"stride":[144,1,16,48]`, nil},
		{"no alpha", `"alpha":1.0,`, ``, nil},
		{"an engine that converts its inputs", ``, ``, []int{noteTensorCore, noteDownConvertInputs}},
		{"not JSON", `{`, `[`, nil},
	} {
		js := strings.Replace(base, c.old, c.new, 1)
		if c.old != "" && js == base {
			t.Fatalf("%s: %q not in the plan", c.name, c.old)
		}
		if _, r := ParseGraphPlan([]byte(js), c.notes); r != request.FwdUnsupported {
			t.Errorf("%s: %v, want %v", c.name, r, request.FwdUnsupported)
		}
	}
}

// FuzzParseGraphPlan: any text decodes or is refused, and what decodes
// has positive dimensions and strides within 32 bits.
func FuzzParseGraphPlan(f *testing.F) {
	for _, n := range []string{"fp32-nchw", "fp16-nhwc", "fp16-groups4", "fp16-depthwise-nhwc"} {
		f.Add(readPlan(f, n), 0)
	}
	f.Fuzz(func(t *testing.T, js []byte, note int) {
		g, r := ParseGraphPlan(js, []int{note})
		if r != request.Served {
			return
		}
		for _, x := range []Tensor64{g.X, g.W, g.Y} {
			for i := range 4 {
				if x.Dims[i] <= 0 || x.Dims[i] >= 1<<31 || x.Strides[i] < 0 || x.Strides[i] >= 1<<31 {
					t.Fatalf("tensor %+v decoded", x)
				}
			}
		}
	})
}
