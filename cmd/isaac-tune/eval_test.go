package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/tune"
	"github.com/klauspost/compress/zstd"
)

// The H100 evaluation's eval.csv gives back its 56 inputs, in order, with
// their types, layouts and alignments: another device is evaluated on the
// same inputs (eval -inputs).
func TestReadEvalInputs(t *testing.T) {
	bs, err := readEvalInputs("../../weights/results/eval/eval.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 56 {
		t.Fatalf("%d inputs, want 56", len(bs))
	}
	first, last := bs[0], bs[len(bs)-1]
	if first.Type.Name != "sgemm" || first.TransA != request.OpN || first.TransB != request.OpN || first.Align != 4 || first.Shapes[0] != [3]int{3, 630, 16} {
		t.Errorf("first input %s %v %v align %d %v", first.Type.Name, first.TransA, first.TransB, first.Align, first.Shapes)
	}
	if last.Type.Name != "gemmex_f32_fasttf32" || last.TransA != request.OpT || last.TransB != request.OpT || last.Shapes[0] != [3]int{376, 88, 1000} {
		t.Errorf("last input %s %v %v %v", last.Type.Name, last.TransA, last.TransB, last.Shapes)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"header.csv": "m,n,k\n1,2,3\n",
		"type.csv":   "type,ta,tb,m,n,k,align_a\nzgemm,N,N,1,2,3,4\n",
		"dims.csv":   "type,ta,tb,m,n,k,align_a\nsgemm,N,N,0,2,3,4\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readEvalInputs(p); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}

// eval-conv's candidates file gives back every timed candidate of every
// convolution, screened or timed again, with its convolution's descriptors
// and its row in eval-conv.csv.
func TestWriteConvCandidates(t *testing.T) {
	half := request.ConvTypes[2]
	rows := []convEvalRow{
		{b: tune.ConvBatch{Type: half, Math: request.CudnnTensorOpMath, Layout: convcheck.NHWC,
			Layers: []suites.Conv{{N: 8, C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, Pad: 1, Stride: 1, Dil: 1, Groups: 1}}},
			screen: map[string]float64{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2": 10.5, "nhwc copies ms=2,ns=2": 12},
			final:  map[string]float64{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2": 10.25, "served window m64": 11}},
		{b: tune.ConvBatch{Type: half, Layout: convcheck.NCHW, Flip: true,
			Layers: []suites.Conv{{N: 1, C: 3, H: 224, W: 224, K: 64, R: 7, S: 7, Pad: 3, Stride: 2, Dil: 1, Groups: 1}}},
			screen: map[string]float64{"direct t128 q4": 3}},
	}
	path := filepath.Join(t.TempDir(), "c.csv.zst")
	if err := writeConvCandidates(path, rows); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	dec, err := zstd.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	recs, err := csv.NewReader(dec).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{"row", "type", "math", "layout", "flip", "n", "c", "h", "w", "k", "r", "s", "g", "pad", "stride", "dil", "candidate", "screen_us", "final_us"},
		{"0", half.Name, "1", "nhwc", "false", "8", "64", "56", "56", "64", "3", "3", "1", "1", "1", "1", "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2", "10.500", "10.250"},
		{"0", half.Name, "1", "nhwc", "false", "8", "64", "56", "56", "64", "3", "3", "1", "1", "1", "1", "nhwc copies ms=2,ns=2", "12.000", ""},
		{"0", half.Name, "1", "nhwc", "false", "8", "64", "56", "56", "64", "3", "3", "1", "1", "1", "1", "served window m64", "", "11.000"},
		{"1", half.Name, "0", "nchw", "true", "1", "3", "224", "224", "64", "7", "7", "1", "3", "2", "1", "direct t128 q4", "3.000", ""},
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %q", len(recs), len(want), recs)
	}
	for i := range want {
		if strings.Join(recs[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("record %d: %q, want %q", i, recs[i], want[i])
		}
	}
}
