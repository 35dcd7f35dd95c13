package main

import (
	"encoding/csv"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/tune"
	"github.com/isaacgo/isaac/weights"
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

// The H100 convolution evaluation's eval-conv.csv gives back its 32
// convolutions, in order, with their types, math, layouts and sizes:
// another device is evaluated on the same convolutions (eval-conv -inputs).
func TestReadConvEvalInputs(t *testing.T) {
	bs, err := readConvEvalInputs("../../gputest/results/h100/conv/call104/eval/eval-conv.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 32 {
		t.Fatalf("%d convolutions, want 32", len(bs))
	}
	first, third, last := bs[0], bs[2], bs[len(bs)-1]
	if first.Type.Name != "float" || first.Math != request.CudnnFMAMath || first.Layout != convcheck.NCHW || first.Flip ||
		first.Layers[0] != (suites.Conv{N: 1, C: 128, H: 10, W: 10, K: 336, R: 1, S: 1, Groups: 1, Pad: 0, Stride: 1, Dil: 1}) {
		t.Errorf("first convolution %s math %d %v flip %v %+v", first.Type.Name, first.Math, first.Layout, first.Flip, first.Layers)
	}
	if third.Math != request.CudnnTensorOpMath || third.Layers[0] != (suites.Conv{N: 2, C: 240, H: 8, W: 8, K: 4, R: 1, S: 7, Groups: 1, Pad: 9, Stride: 1, Dil: 3}) {
		t.Errorf("third convolution math %d %+v", third.Math, third.Layers)
	}
	if last.Type.Name != "pseudo_half" || last.Layout != convcheck.NHWC || last.Layers[0].C != 220 || last.Layers[0].W != 53 {
		t.Errorf("last convolution %s %v %+v", last.Type.Name, last.Layout, last.Layers)
	}
	head := "type,math,layout,flip,n,c,h,w,k,r,s,g,pad,stride,dil\n"
	dir := t.TempDir()
	for name, body := range map[string]string{
		"header.csv": "type,math,layout\nfloat,3,nchw\n",
		"type.csv":   head + "int8,3,nchw,false,1,1,1,1,1,1,1,1,0,1,1\n",
		"layout.csv": head + "float,3,chwn,false,1,1,1,1,1,1,1,1,0,1,1\n",
		"sizes.csv":  head + "float,3,nchw,false,1,0,1,1,1,1,1,1,0,1,1\n",
		"stride.csv": head + "float,3,nchw,false,1,1,1,1,1,1,1,1,0,0,1\n",
		"flip.csv":   head + "float,3,nchw,maybe,1,1,1,1,1,1,1,1,0,1,1\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readConvEvalInputs(p); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
	if bs, err := readConvEvalInputs("../../weights/results/conv/eval/eval-conv.csv"); err != nil || len(bs) != 48 {
		t.Errorf("the first H100 evaluation's convolutions: %d, %v; want 48", len(bs), err)
	}
}

// eval-conv's candidates file gives back every timed candidate of every
// convolution, screened or timed again, with its convolution's descriptors,
// its path and alignments; score-conv reads it back and has the model pick.
func TestConvCandidates(t *testing.T) {
	half := request.ConvTypes[2]
	wg := "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,tma=2"
	mma := "ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16"
	rows := []convEvalRow{
		{b: tune.ConvBatch{Type: half, Math: request.CudnnTensorOpMath, Layout: convcheck.NHWC,
			Layers: []suites.Conv{{N: 8, C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, Pad: 1, Stride: 1, Dil: 1, Groups: 1}}},
			screen: map[string]float64{wg: 10.5, mma: 12},
			final:  map[string]float64{wg: 10.25, "served window m64": 11},
			paths:  map[string]convEvalPath{wg: {"implicit", 8, 8}, mma: {"implicit", 8, 8}}},
		{b: tune.ConvBatch{Type: half, Math: request.CudnnFMAMath, Layout: convcheck.NCHW, Flip: true,
			Layers: []suites.Conv{{N: 1, C: 32, H: 56, W: 56, K: 32, R: 3, S: 3, Pad: 1, Stride: 1, Dil: 1, Groups: 32}}},
			screen: map[string]float64{"direct t128 q4": 3, "direct t64 q2": 4},
			paths:  map[string]convEvalPath{"direct t128 q4": {"direct", 2, 0}, "direct t64 q2": {"direct", 2, 0}}},
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
	conv0 := "0|" + half.Name + "|1|nhwc|false|8|64|56|56|64|3|3|1|1|1|1|"
	conv1 := "1|" + half.Name + "|3|nchw|true|1|32|56|56|32|3|3|32|1|1|1|"
	want := []string{
		"row|type|math|layout|flip|n|c|h|w|k|r|s|g|pad|stride|dil|candidate|path|align_a|align_b|screen_us|final_us",
		conv0 + wg + "|implicit|8|8|10.500|10.250",
		conv0 + mma + "|implicit|8|8|12.000|",
		conv0 + "served window m64||||" + "|11.000",
		conv1 + "direct t128 q4|direct|2|0|3.000|",
		conv1 + "direct t64 q2|direct|2|0|4.000|",
	}
	if len(recs) != len(want) {
		t.Fatalf("%d records, want %d: %q", len(recs), len(want), recs)
	}
	for i := range want {
		if got := strings.Join(recs[i], "|"); got != want[i] {
			t.Errorf("record %d:\n%s, want\n%s", i, got, want[i])
		}
	}

	convs, err := readConvCandidates(path)
	if err != nil || len(convs) != 2 || len(convs[0].cands) != 3 || len(convs[1].cands) != 2 {
		t.Fatalf("%d convolutions, %v", len(convs), err)
	}
	if in := convs[0].in; in.Type != half.Name || in.TF32 || !in.NHWC || in.Flip || in.N != 8 || in.C != 64 || in.G != 1 || in.Pad != 1 {
		t.Errorf("convolution 0 read as %+v", in)
	}
	if in := convs[1].in; in.NHWC || !in.Flip || in.G != 32 {
		t.Errorf("convolution 1 read as %+v", in)
	}
	w, err := weights.ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := w.Model("conv-config")
	scored, err := scoreConvCandidates(m, convs)
	if err != nil || len(scored) != 2 {
		t.Fatalf("%d scored, %v", len(scored), err)
	}
	// The pick is the model's best-scored candidate with a path, its time
	// the re-timed one where there is one; the best is every candidate's,
	// the server's plans included.
	for i, cv := range convs {
		best, pick := math.Inf(-1), ""
		for _, c := range cv.cands {
			if c.path == "" {
				continue
			}
			in := cv.in
			in.Path, in.AlignA, in.AlignB = c.path, c.alignA, c.alignB
			var sc float64
			if c.path == "direct" {
				g, _ := ptx.ParseGroupedConfig(c.name)
				x := make([]float64, predictor.ConvConfigFeatures)
				predictor.PutConvDirect(x, in, g)
				sc = m.Nets.Score(x, 1)[0]
			} else {
				cfg, _ := ptx.ParseConfig(c.name)
				cfg.TMA = 0
				sc = m.ConvScores(in, []ptx.GemmConfig{cfg})[0]
			}
			if sc > best {
				best, pick = sc, c.name
			}
		}
		wantUS := map[string]float64{wg: 10.25, mma: 12, "direct t128 q4": 3, "direct t64 q2": 4}[pick]
		wantBest := []float64{10.25, 3}[i]
		if scored[i].pick != pick || scored[i].pickUS != wantUS || scored[i].bestUS != wantBest {
			t.Errorf("convolution %d: %+v, want the pick %s at %g µs, the best %g", i, scored[i], pick, wantUS, wantBest)
		}
		if s := scored[i].S(); math.Abs(s-(wantUS-wantBest)/wantBest) > 1e-12 {
			t.Errorf("convolution %d: S %g", i, s)
		}
	}
}
