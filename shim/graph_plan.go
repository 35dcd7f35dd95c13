package shim

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/isaacgo/isaac/request"
)

// GraphConv is the one convolution a cuDNN execution plan computes, as its
// JSON representation (cudnnBackendGetAttribute's
// CUDNN_ATTR_EXECUTION_PLAN_JSON_REPRESENTATION) and its engine's numerical
// notes describe it: what cudnnConvolutionForward's descriptors would say,
// and the unique ids by which a variant pack names x, w and y.
type GraphConv struct {
	X, W, Y               Tensor64
	UIDX, UIDW, UIDY      int64
	Pad, Stride, Dilation [2]int64
	Mode                  int // 0 CUDNN_CONVOLUTION, 1 CUDNN_CROSS_CORRELATION
	Compute               request.CudnnDataType
	Groups                int64
	FilterFormat          int // 0 K×C×R×S in memory, 1 K×R×S×C
	MathType              int // the cudnnMathType_t of the engine's arithmetic
	Alpha, Beta           float64
}

// Tensor64 is a tensor of the graph: its type, dimensions and element
// strides (in the order n, c, h, w whatever the layout).
type Tensor64 struct {
	Type          request.CudnnDataType
	Dims, Strides [4]int64
}

// cuDNN's numerical notes (cudnnBackendNumericalNote_t) that decide what
// the engine computes.
const (
	noteTensorCore        = 0 // CUDNN_NUMERICAL_NOTE_TENSOR_CORE
	noteDownConvertInputs = 1 // CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS
)

// The JSON representation's operation graph: the fields cuDNN 9 writes for
// a convolution. Any other field, in a tensor or the node, makes the plan
// one the shim does not know, and cuDNN keeps it.
type graphJSON struct {
	FinalizeMode string       `json:"finalizeMode"`
	Tensors      []tensorJSON `json:"tensors"`
	Nodes        []nodeJSON   `json:"nodes"`
}

type tensorJSON struct {
	Name         string  `json:"name"`
	DataType     string  `json:"dataType"`
	Dim          []int64 `json:"dim"`
	Stride       []int64 `json:"stride"`
	IsVirtual    bool    `json:"isVirtual"`
	IsByValue    bool    `json:"isByValue"`
	VectCount    *int64  `json:"vectCount"`
	VectDim      *int64  `json:"vectDim"`
	PtrAlignment int64   `json:"ptrAlignment"`
	Reordering   string  `json:"reordering"`
}

type nodeJSON struct {
	Operation  string   `json:"operation"`
	Mode       string   `json:"mode"`
	MathPrec   string   `json:"mathPrec"`
	Alpha      *float64 `json:"alpha"`
	Beta       *float64 `json:"beta"`
	Pad        []int64  `json:"pad"`
	Stride     []int64  `json:"stride"`
	Dilation   []int64  `json:"dilation"`
	X          string   `json:"X"`
	W          string   `json:"W"`
	Y          string   `json:"Y"`
	GroupCount *int64   `json:"groupCount"`
}

var graphDataTypes = map[string]request.CudnnDataType{
	"CUDNN_DATA_FLOAT":    request.CudnnFloat,
	"CUDNN_DATA_DOUBLE":   request.CudnnDouble,
	"CUDNN_DATA_HALF":     request.CudnnHalf,
	"CUDNN_DATA_BFLOAT16": request.CudnnBFloat16,
}

// ParseGraphPlan is the convolution of a plan whose JSON representation is
// plan and whose engine has the numerical notes notes, or
// request.FwdUnsupported where the plan is anything else: more than one
// operation, virtual or by-value tensors, vectorized or reordered layouts,
// other types, ranks other than 4, a filter neither K×C×R×S nor K×R×S×C in
// memory, an engine that converts its inputs to a narrower type, or a field
// this decoder does not know.
func ParseGraphPlan(plan []byte, notes []int) (GraphConv, request.Reason) {
	var g GraphConv
	var top struct {
		OperationGraph json.RawMessage `json:"operationGraph"`
	}
	if err := json.Unmarshal(plan, &top); err != nil || len(top.OperationGraph) == 0 {
		return g, request.FwdUnsupported
	}
	var og graphJSON
	dec := json.NewDecoder(bytes.NewReader(top.OperationGraph))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&og); err != nil || len(og.Nodes) != 1 || len(og.Tensors) != 3 {
		return g, request.FwdUnsupported
	}
	n := og.Nodes[0]
	if n.Operation != "CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR" || n.Alpha == nil || n.Beta == nil ||
		len(n.Pad) != 2 || len(n.Stride) != 2 || len(n.Dilation) != 2 {
		return g, request.FwdUnsupported
	}
	switch n.Mode {
	case "CUDNN_CONVOLUTION":
		g.Mode = 0
	case "CUDNN_CROSS_CORRELATION":
		g.Mode = 1
	default:
		return g, request.FwdUnsupported
	}
	var ok bool
	if g.Compute, ok = graphDataTypes[n.MathPrec]; !ok {
		return g, request.FwdUnsupported
	}
	byName := map[string]tensorJSON{}
	for _, t := range og.Tensors {
		byName[t.Name] = t
	}
	if len(byName) != 3 {
		return g, request.FwdUnsupported
	}
	for _, c := range []struct {
		name string
		t    *Tensor64
		uid  *int64
	}{{n.X, &g.X, &g.UIDX}, {n.W, &g.W, &g.UIDW}, {n.Y, &g.Y, &g.UIDY}} {
		t, found := byName[c.name]
		if !found || !plainTensor(t) {
			return g, request.FwdUnsupported
		}
		uid, err := strconv.ParseInt(t.Name, 10, 64)
		if err != nil {
			return g, request.FwdUnsupported
		}
		*c.uid = uid
		if c.t.Type, ok = graphDataTypes[t.DataType]; !ok {
			return g, request.FwdUnsupported
		}
		copy(c.t.Dims[:], t.Dim)
		copy(c.t.Strides[:], t.Stride)
	}
	copy(g.Pad[:], n.Pad)
	copy(g.Stride[:], n.Stride)
	copy(g.Dilation[:], n.Dilation)
	g.Groups = 1
	if n.GroupCount != nil {
		g.Groups = *n.GroupCount
	}
	g.Alpha, g.Beta = *n.Alpha, *n.Beta
	if g.FilterFormat, ok = filterFormat(g.W); !ok {
		return g, request.FwdUnsupported
	}
	tensorCore := false
	for _, v := range notes {
		switch v {
		case noteTensorCore:
			tensorCore = true
		case noteDownConvertInputs:
			return g, request.FwdUnsupported
		}
	}
	// FLOAT data: TF32 where the engine runs on tensor cores (PyTorch
	// leaves those out unless allow_tf32), true FP32 otherwise.
	switch {
	case g.X.Type == request.CudnnFloat && !tensorCore:
		g.MathType = request.CudnnFMAMath
	case tensorCore:
		g.MathType = request.CudnnTensorOpMath
	default:
		g.MathType = request.CudnnDefaultMath
	}
	return g, request.Served
}

// plainTensor reports whether t is a real 4-d tensor in memory, of one
// element a position and no reordering.
func plainTensor(t tensorJSON) bool {
	if t.IsVirtual || t.IsByValue || len(t.Dim) != 4 || len(t.Stride) != 4 {
		return false
	}
	if t.VectCount != nil && *t.VectCount != 1 || t.Reordering != "" && t.Reordering != "CUDNN_TENSOR_REORDERING_NONE" {
		return false
	}
	for i := range 4 {
		if t.Dim[i] <= 0 || t.Dim[i] >= 1<<31 || t.Stride[i] < 0 || t.Stride[i] >= 1<<31 {
			return false
		}
	}
	return true
}

// filterFormat is the legacy format of a filter K×C×R×S with strides
// w.Strides: 0 where its elements lie as K×C×R×S, 1 as K×R×S×C (strides
// of dimensions of one element do not count).
func filterFormat(w Tensor64) (int, bool) {
	c, r, s := w.Dims[1], w.Dims[2], w.Dims[3]
	nchw := [4]int64{c * r * s, r * s, s, 1}
	nhwc := [4]int64{r * s * c, 1, s * c, c}
	same := func(want [4]int64) bool {
		for i := range 4 {
			if w.Dims[i] > 1 && w.Strides[i] != want[i] {
				return false
			}
		}
		return true
	}
	switch {
	case same(nchw):
		return 0, true
	case same(nhwc):
		return 1, true
	}
	return 0, false
}
