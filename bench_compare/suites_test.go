package main

import (
	"math"
	"os"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

func TestTable4(t *testing.T) {
	shapes := suites.Table4()
	count := map[string]int{}
	for _, s := range shapes {
		count[s.Suite]++
	}
	want := map[string]int{"linpack": 5, "deepbench-f": 4, "deepbench-b": 4, "ica": 3, "lapack": 3}
	for k, v := range want {
		if count[k] != v {
			t.Errorf("%s: %d shapes, want %d", k, count[k], v)
		}
	}
	// The paper's layouts: LINPACK, ICA and LAPACK transpose B; DeepBench
	// backward transposes A.
	for _, s := range shapes {
		ta, tb := s.Ops()
		switch s.Suite {
		case "deepbench-f":
			if ta != request.OpN || tb != request.OpN || s.M != 2560 || s.K != 2560 {
				t.Errorf("deepbench-f shape %+v", s)
			}
		case "deepbench-b":
			if ta != request.OpT || tb != request.OpN {
				t.Errorf("deepbench-b shape %+v", s)
			}
		case "ica":
			if s.K != 60000 || s.Layout != "NT" {
				t.Errorf("ica shape %+v", s)
			}
		case "lapack":
			if s.K != 32 || s.Layout != "NT" {
				t.Errorf("lapack shape %+v", s)
			}
		}
	}
	if n := len(inputsOf(shapes, dtypes[:5])); n != 5*19 {
		t.Errorf("%d inputs, want %d", n, 5*19)
	}
}

func TestReadShapes(t *testing.T) {
	in, err := readShapes(strings.NewReader("# my shapes\nm,n,k,layout,dtype\n100,200,300,TN,d\n7, 8, 9,,\n"), dtypes[:2])
	if err != nil {
		t.Fatal(err)
	}
	if len(in) != 3 {
		t.Fatalf("%d inputs, want 3 (one dtype given, two defaulted)", len(in))
	}
	if in[0].M != 100 || in[0].Layout != "TN" || in[0].DType.Name != "d" || in[0].Suite != "csv" {
		t.Errorf("first input %+v", in[0])
	}
	if in[1].Layout != "NN" || in[1].DType.Name != "s" || in[2].DType.Name != "d" {
		t.Errorf("defaults: %+v %+v", in[1], in[2])
	}
	for _, bad := range []string{"m,n\n1,2\n", "m,n,k\n0,1,1\n", "m,n,k,layout\n1,1,1,X\n", "m,n,k,dtype\n1,1,1,q\n"} {
		if _, err := readShapes(strings.NewReader(bad), dtypes[:1]); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func TestRoofline(t *testing.T) {
	// 4096³ FP16 at 1000 TFLOP/s and 3000 GB/s: compute bound.
	in := input{suites.Shape{Suite: "linpack", M: 4096, N: 4096, K: 4096, Layout: "NT"}, dtypes[2]}
	flops, bytes := work(in, true)
	if flops != 2*4096*4096*4096 || bytes != 2*3*4096*4096 {
		t.Errorf("work %v flops %v bytes", flops, bytes)
	}
	if us := rooflineUS(flops, bytes, 1000, 3000); math.Abs(us-flops/1e9) > 1e-9 {
		t.Errorf("compute-bound roofline %v µs, want %v", us, flops/1e9)
	}
	// ICA 32×32×60000 FP32: memory bound, 4·(2·32·60000 + 32·32) bytes.
	ica := input{suites.Shape{Suite: "ica", M: 32, N: 32, K: 60000, Layout: "NT"}, dtypes[0]}
	_, bytes = work(ica, true)
	if want := 4.0 * (2*32*60000 + 32*32); bytes != want {
		t.Errorf("ICA bytes %v, want %v", bytes, want)
	}
	if us := rooflineUS(2*32*32*60000, bytes, 60, 3000); math.Abs(us-bytes/3e6) > 1e-9 {
		t.Errorf("memory-bound roofline %v µs, want %v", us, bytes/3e6)
	}
	if _, withC := work(ica, false); withC != bytes+4*32*32 {
		t.Error("beta ≠ 0 does not add C's read")
	}
	// FP16 DeepBench 2560×16×2560: 2·(2560·2560 + 2560·16) + 2·2560·16 bytes.
	db := input{suites.Shape{Suite: "deepbench-f", M: 2560, N: 16, K: 2560, Layout: "NN"}, dtypes[2]}
	if _, bytes := work(db, true); bytes != 13271040 {
		t.Errorf("DeepBench bytes %v, want 13271040", bytes)
	}
	// H100 SXM: 132 SMs at 1980 MHz, HBM3 2619 MHz × 5120 bits.
	peaks, bw := devbench.Peaks(9, 0, 132, 1980, 2619, 5120)
	if math.Abs(peaks["fp32"]-66.9) > 0.1 || math.Abs(peaks["fp16-tensor"]-1070.5) > 0.5 || math.Abs(bw-3352.3) > 0.5 {
		t.Errorf("H100 peaks %v, bandwidth %v GB/s", peaks, bw)
	}
	if !math.IsNaN(rooflineUS(1, 1, 0, 1)) {
		t.Error("no peak gives a roofline")
	}
}

func TestParseHarness(t *testing.T) {
	r, err := parseCalls("served", 2, "n=16 calls=10000 vendor_ns=7412 shim_ns=6500 added_median_ns=-912 added_mean_ns=-880\n")
	if err != nil || r.N != 16 || r.AddedMedianNS != -912 || r.Round != 2 || r.Mode != "served" {
		t.Errorf("parseCalls: %+v, %v", r, err)
	}
	f, err := parseFirst("cold", "m=333 n=77 k=4099 first_us=151234.5 second_us=45.2\n")
	if err != nil || f.K != 4099 || f.FirstUS != 151234.5 || f.Cache != "cold" {
		t.Errorf("parseFirst: %+v, %v", f, err)
	}
	if _, err := parseCalls("x", 1, "garbage"); err == nil {
		t.Error("garbage parsed")
	}
	var b strings.Builder
	writeOverheadCSV(&b, []overheadRow{r}, []firstCallRow{f})
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[1], "per-call,served,2,16,16,16,7412,6500,-912,-880") ||
		!strings.HasPrefix(lines[2], "first-call,cold,,333,77,4099") {
		t.Errorf("overhead CSV:\n%s", b.String())
	}
}

// TestNoGPU: without a GPU the program says so and measures nothing.
func TestNoGPU(t *testing.T) {
	if _, err := newBench(1, 0, true); err == nil {
		t.Skip("a GPU is present")
	}
	for _, suite := range []string{"table4", "linear"} {
		if err := run(Options{Suites: suite, DTypes: "s", Repeats: 1, Out: t.TempDir(), Limit: 1, Model: true}); err != nil {
			t.Errorf("%s without a GPU: %v", suite, err)
		}
	}
}

// A cases file groups its configurations by input, in file order, and
// refuses malformed lines.
func TestReadCases(t *testing.T) {
	in := `# comment
512 512 512 NT s ms=4,ns=8,ml=64,nl=64,u=16,ks=2,kl=1,kg=1,kc=2,va=4,vb=4,st=4,math=ffma
2048 2048 2048 NT d ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8

512 512 512 nt s ms=4,ns=8,ml=64,nl=64,u=16,ks=2,kl=1,kg=1,kc=2,va=4,vb=4,st=4,math=ffma,pp=1
`
	got, err := readCases(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].M != 512 || got[0].DType.Name != "s" || len(got[0].Configs) != 2 || got[0].Configs[1].PP != 1 ||
		got[1].K != 2048 || got[1].DType.Name != "d" || len(got[1].Configs) != 1 || got[1].Layout != "NT" {
		t.Fatalf("got %+v", got)
	}
	for _, bad := range []string{
		"512 512 NT s ms=4,ns=8,ml=64,nl=64,u=16,ks=2,kl=1,kg=1,va=4,vb=4,st=4,math=ffma",
		"512 512 0 NT s ms=4,ns=8,ml=64,nl=64,u=16,ks=2,kl=1,kg=1,va=4,vb=4,st=4,math=ffma",
		"512 512 512 NX s ms=4,ns=8,ml=64,nl=64,u=16,ks=2,kl=1,kg=1,va=4,vb=4,st=4,math=ffma",
		"512 512 512 NT q ms=4,ns=8,ml=64,nl=64,u=16,ks=2,kl=1,kg=1,va=4,vb=4,st=4,math=ffma",
		"512 512 512 NT s ms=4",
	} {
		if _, err := readCases(strings.NewReader(bad)); err == nil {
			t.Errorf("%q: want an error", bad)
		}
	}
	f, err := os.Open("cases/ab_cases_pp.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if cs, err := readCases(f); err != nil || len(cs) < 20 {
		t.Fatalf("cases/ab_cases_pp.txt: %d inputs, %v", len(cs), err)
	}
}

// The attention suite: QKᵀ and PV of every batch·heads, sequence and head
// dimension within 2²⁸ scores, as cuBLAS computes them (column-major), each
// named; a batch's work is its GEMMs'.
func TestAttention(t *testing.T) {
	shapes := suites.Attention()
	names := map[string]bool{}
	for _, s := range shapes {
		if names[s.Name] || s.Name == "" {
			t.Errorf("name %q twice or empty", s.Name)
		}
		names[s.Name] = true
		if s.Batch < 32 || s.Batch > 1024 || s.Batch*max(s.M, s.N)*max(s.M, s.N) > 1<<28 {
			t.Errorf("%+v: batch or scores out of range", s)
		}
		qk := s.Layout == "TN" && s.M == s.N && (s.K == 64 || s.K == 128)
		pv := s.Layout == "NN" && s.N == s.K && (s.M == 64 || s.M == 128)
		if qk == pv {
			t.Errorf("%+v is neither QKᵀ nor PV", s)
		}
	}
	if len(shapes) < 40 {
		t.Errorf("%d shapes", len(shapes))
	}
	one := input{suites.Shape{Suite: "attention", M: 512, N: 512, K: 64, Layout: "TN"}, dtypes[3]}
	batch := one
	batch.Batch = 96
	f1, b1 := work(one, true)
	fb, bb := work(batch, true)
	if fb != 96*f1 || bb != 96*b1 {
		t.Errorf("a batch of 96: work %v, %v; one: %v, %v", fb, bb, f1, b1)
	}
}

// The linear suite's requests, without a GPU: each the cublasLtMatmul call
// PyTorch's nn.Linear makes (TN, lda = ldb = k, ldc = m, a bias, alpha 1,
// beta 0, in place) of a served type with FP32 compute for FP16 and BF16,
// in an epilogue class with a bias; its traffic counts the bias once.
func TestLinearRequests(t *testing.T) {
	dts := []string{"hgemmex-f32acc", "bf16gemmex-f32acc", "s", "sgemm-tf32"}
	wantType := []request.GemmType{request.GemmExF16F32, request.GemmExBF16F32, request.Sgemm, request.GemmExFastTF32}
	var ds []dtype
	for _, name := range dts {
		d, err := dtypeByName(name)
		if err != nil {
			t.Fatal(err)
		}
		ds = append(ds, d)
	}
	shapes := suites.Linear()
	ins := inputsOf(shapes, ds)
	if len(ins) != len(dts)*len(shapes) {
		t.Fatalf("%d inputs", len(ins))
	}
	const a, b, c, bias, stream = 1 << 20, 2 << 20, 3 << 20, 4 << 20, 77
	for i, in := range ins {
		g := requestOf(in, a, b, c, bias, stream)
		if g.Entry != request.EntryLtMatmul || g.TransA != request.OpT || g.TransB != request.OpN ||
			g.M != int64(in.M) || g.N != int64(in.N) || g.K != int64(in.K) ||
			g.LDA != g.K || g.LDB != g.K || g.LDC != g.M || g.Bias != bias || g.OutOfPlace() || g.Batch != 1 ||
			g.A != a || g.B != b || g.C != c || g.Stream != stream || g.Alpha.Value != 1 || g.Beta.Value != 0 ||
			g.PointerMode != request.PointerHost || g.MathMode != request.MathDefault {
			t.Fatalf("%s %s: %+v", in.Name, in.DType.Name, g)
		}
		if typ, ok := request.TypeOf(g); !ok || typ != wantType[i/len(shapes)] {
			t.Errorf("%s %s: type %v, want %v", in.Name, in.DType.Name, typ.Name, wantType[i/len(shapes)].Name)
		}
		cls, err := space.Class(g)
		if err != nil || !cls.Epi.Bias || cls.Epi.OutOfPlace || cls.Epi.Act != 0 || cls.Batched {
			t.Errorf("%s %s: class %+v, %v", in.Name, in.DType.Name, cls, err)
		}
	}
	// One without a bias keeps cuBLAS's entry point and no epilogue.
	plain := input{suites.Shape{Suite: "x", M: 64, N: 8, K: 32, Layout: "TN"}, ds[0]}
	if g := requestOf(plain, a, b, c, 0, stream); g.Entry != request.EntryGemmEx || g.Bias != 0 {
		t.Errorf("no bias: %+v", g)
	}
	// Bytes: W, x, y in f16, and the bias once.
	in := input{suites.Shape{Suite: "linear", M: 11008, N: 8, K: 4096, Layout: "TN", Bias: true}, ds[0]}
	if _, bytes := work(in, true); bytes != 2*(11008*4096+4096*8+11008*8+11008) {
		t.Errorf("linear bytes %v", bytes)
	}
	in.Batch = 3
	if _, bytes := work(in, true); bytes != 2*(3*(11008*4096+4096*8+11008*8)+11008) {
		t.Errorf("batched linear bytes %v", bytes)
	}
}
