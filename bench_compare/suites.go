package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/request"
)

// dtype is a served GEMM type (request.GemmTypes) as bench_compare names it
// (the names of ../shared/reference's vendor figures), with the peak that
// bounds it.
type dtype struct {
	Name string
	request.GemmType
	Peak string // which PeakTFLOPs entry bounds it
}

// dtypes are the classes the suites run: cublasSgemm (FP32, default math),
// cublasDgemm, cublasHgemm, and cublasGemmEx FP16 and BF16 with FP32 compute.
var dtypes = []dtype{
	{"s", request.Sgemm, "fp32"},
	{"d", request.Dgemm, "fp64-tensor"},
	{"h", request.Hgemm, "fp16-tensor"},
	{"hgemmex-f32acc", request.GemmExF16F32, "fp16-tensor"},
	{"bf16gemmex-f32acc", request.GemmExBF16F32, "fp16-tensor"},
	{"sgemm-tf32", request.SgemmTF32, "tf32-tensor"},
}

// dtypeByName finds a class by name.
func dtypeByName(name string) (dtype, error) {
	for _, d := range dtypes {
		if d.Name == name {
			return d, nil
		}
	}
	return dtype{}, fmt.Errorf("unknown dtype %q", name)
}

// input is a GEMM input of a suite (internal/suites) in a data type.
type input struct {
	suites.Shape
	DType dtype
}

// inputsOf crosses shapes with data types.
func inputsOf(shapes []suites.Shape, dts []dtype) []input {
	var in []input
	for _, d := range dts {
		for _, s := range shapes {
			in = append(in, input{s, d})
		}
	}
	return in
}

// readShapes reads a user's CSV of inputs: a header naming at least the
// columns m, n, k, and optionally layout (default NN), dtype (one input per
// listed dtype when absent) and suite (default "csv"); '#' lines are skipped.
func readShapes(r io.Reader, defaultDTypes []dtype) ([]input, error) {
	cr := csv.NewReader(r)
	cr.Comment = '#'
	cr.TrimLeadingSpace = true
	cr.FieldsPerRecord = -1
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("shapes CSV: empty")
	}
	col := map[string]int{}
	for i, h := range recs[0] {
		col[strings.ToLower(strings.TrimSpace(h))] = i
	}
	for _, need := range []string{"m", "n", "k"} {
		if _, ok := col[need]; !ok {
			return nil, fmt.Errorf("shapes CSV: no %q column in header %v", need, recs[0])
		}
	}
	get := func(rec []string, name, def string) string {
		if i, ok := col[name]; ok && i < len(rec) && strings.TrimSpace(rec[i]) != "" {
			return strings.TrimSpace(rec[i])
		}
		return def
	}
	var out []input
	for line, rec := range recs[1:] {
		var dims [3]int
		for i, name := range []string{"m", "n", "k"} {
			v, err := strconv.Atoi(get(rec, name, ""))
			if err != nil || v < 1 {
				return nil, fmt.Errorf("shapes CSV line %d: %s = %q", line+2, name, get(rec, name, ""))
			}
			dims[i] = v
		}
		layout := strings.ToUpper(get(rec, "layout", "NN"))
		if len(layout) != 2 || strings.Trim(layout, "NT") != "" {
			return nil, fmt.Errorf("shapes CSV line %d: layout %q", line+2, layout)
		}
		s := suites.Shape{Suite: get(rec, "suite", "csv"), M: dims[0], N: dims[1], K: dims[2], Layout: layout}
		dts := defaultDTypes
		if name := get(rec, "dtype", ""); name != "" {
			d, err := dtypeByName(name)
			if err != nil {
				return nil, fmt.Errorf("shapes CSV line %d: %w", line+2, err)
			}
			dts = []dtype{d}
		}
		for _, d := range dts {
			out = append(out, input{s, d})
		}
	}
	return out, nil
}
