package ptx

import (
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// convClasses are the served convolution type configurations in both
// reduction orders and both staging layouts of the im2col tile.
func convClasses() []InputClass {
	var out []InputClass
	for _, base := range typeCombos {
		if base.CType != base.AType {
			continue // y has x's type
		}
		for _, order := range []ConvOrder{ConvCRS, ConvRSC} {
			for _, ta := range []Op{N, T} {
				in := base
				in.TransA, in.TransB = ta, N
				in.AlignA, in.AlignB, in.AlignC = 1, 2, 1
				in.Conv = order
				out = append(out, in)
				if order == ConvRSC && ta == T { // channel vectors of 16 bytes, and filter rows too
					in.AlignA = min(8, 16/in.AType.Size())
					out = append(out, in)
					in.AlignB = in.AlignA
					out = append(out, in)
					in.ChannelLines = true // the copy engine's im2col mode
					out = append(out, in)
				}
			}
		}
	}
	return out
}

// convConfigs are configurations of every math a convolution class takes.
func convConfigs(in InputClass) []GemmConfig {
	var out []GemmConfig
	for _, s := range []string{
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=2,st=3,math=ffma",
		"ms=2,ns=2,ml=32,nl=32,u=8,ks=2,kl=2,kg=1,va=1,vb=1,st=2,math=ffma",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=6,va=1,vb=1,st=2,math=ffma",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=4,va=1,vb=2,st=1,math=mma_f16",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=dfma",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=hfma",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=mma_f16",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=mma_f16acc",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=1,math=mma_bf16",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=2,st=3,math=mma_tf32",
		"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=2,kg=1,va=1,vb=2,st=2,math=mma_f64k8",
		"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=2,st=3,math=ffma",
		"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=2,st=3,math=mma_f16",
		"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=2,st=1,math=mma_bf16",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=2,va=4,vb=2,st=3,math=mma_tf32",
		"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=2,va=8,vb=8,st=4,math=wgmma_f16acc",
		"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_bf16",
		"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=2,va=8,vb=8,st=4,math=wgmma_bf16,tma=1",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2",
		"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=3,math=wgmma_bf16,tma=2",
		"ms=1,ns=8,ml=128,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32",
		"ms=1,ns=16,ml=128,nl=128,u=16,ks=1,kl=1,kg=2,va=4,vb=4,st=3,math=wgmma_tf32",
		"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32,tma=1",
		"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=4,va=4,vb=4,st=6,math=wgmma_tf32,tma=2",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1",
		"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=8,math=wgmma_tf32,tma=2,ps=1",
		"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=5,math=wgmma_tf32,mr=224,tma=2,ps=1",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,math=wgmma_f16,mr=224,tma=2,ps=1",
	} {
		cfg, err := ParseConfig(s)
		if err != nil {
			panic(err)
		}
		if Legal(cfg, in, H100()) == nil {
			out = append(out, cfg)
		}
	}
	return out
}

// Every convolution class has legal configurations of its maths, and the
// rules only convolutions have hold.
func TestConvLegal(t *testing.T) {
	for _, in := range convClasses() {
		if len(convConfigs(in)) == 0 {
			t.Errorf("%s: no legal configuration", in)
		}
	}
	in := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: N, AlignA: 1, AlignB: 2, AlignC: 1, Conv: ConvCRS}
	for _, s := range []string{
		"ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=512,va=1,vb=1,st=1,math=ffma",  // a grid split beyond one pass
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=2,kc=2,va=1,vb=1,st=1,math=ffma", // a cluster split
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=1,st=1,math=ffma",      // a vector of A
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=3,math=ffma,pp=1", // pipelined fragments
	} {
		cfg, _ := ParseConfig(s)
		if Legal(cfg, in, H100()) == nil {
			t.Errorf("%s legal for %s", s, in)
		}
	}
	vec, _ := ParseConfig("ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=1,st=1,math=ffma")
	for _, c := range []InputClass{in, {AType: F32, BType: F32, CType: F32, Compute: F32, TransA: T, TransB: N, AlignA: 2, AlignB: 2, AlignC: 1, Conv: ConvCRS}} {
		if Legal(vec, c, H100()) == nil {
			t.Errorf("vectors of A legal for %s", c)
		}
	}
	bad := in
	bad.AlignC = 2
	cfg, _ := ParseConfig("ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma")
	if Legal(cfg, bad, H100()) == nil {
		t.Errorf("a convolution class with C alignment 2 is legal")
	}
}

// A convolution kernel takes the GEMM ABI's parameters and then
// ConvParams, and its name says it is one.
func TestConvKernelABI(t *testing.T) {
	in := convClasses()[0]
	cfg := convConfigs(in)[0]
	k, err := GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	want := append(abiParams(in.Compute), ConvParams()...)
	if len(k.Params) != len(want) {
		t.Fatalf("%d parameters, want %d", len(k.Params), len(want))
	}
	for i := range want {
		if k.Params[i] != want[i] || !strings.Contains(k.PTX, want[i].decl()) {
			t.Errorf("parameter %d is %v, want %v declared", i, k.Params[i], want[i])
		}
	}
	if !strings.Contains(k.Name, "_convcrs") {
		t.Errorf("name %s does not say convolution", k.Name)
	}
}

// Every convolution class's kernels assemble for sm_80 and sm_90 without
// spilling much.
func TestPTXASConv(t *testing.T) {
	var jobs []PTXASJob
	for _, in := range convClasses() {
		for _, cfg := range convConfigs(in) {
			jobs = append(jobs, PTXASJob{Cfg: cfg, In: in, Heuristic: true})
		}
	}
	runPTXAS(t, jobs, 64)
}

// Generated PTX is ASCII: the driver's JIT rejects any other byte, even in
// a comment (ptxas 12.4 does not).
func TestConvPTXASCII(t *testing.T) {
	var kernels []*Kernel
	for _, es := range []int{2, 4, 8} {
		for _, gen := range []func(int, string) (*Kernel, error){GenerateTranspose, GenerateTransposeRows} {
			k, err := gen(es, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			kernels = append(kernels, k)
		}
	}
	for _, in := range convClasses() {
		for _, cfg := range convConfigs(in) {
			k, err := GenerateGemm(cfg, in, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			kernels = append(kernels, k)
		}
	}
	for _, k := range kernels {
		for i, r := range k.PTX {
			if r > 0x7e || r < 0x20 && r != '\n' && r != '\t' {
				t.Fatalf("%s: byte %d is %q", k.Name, i, r)
			}
		}
	}
}

// The transpose kernels of every element size assemble.
func TestPTXASTranspose(t *testing.T) {
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	for _, es := range []int{2, 4, 8} {
		for _, gen := range []func(int, string) (*Kernel, error){GenerateTranspose, GenerateTransposeRows} {
			k, err := gen(es, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := ptxas.Compile(k.PTX, "sm_90"); err != nil {
				t.Errorf("%s: %v", k.Name, err)
			}
		}
	}
	if _, err := GenerateTranspose(3, "sm_90"); err == nil {
		t.Errorf("a transpose of 3-byte elements")
	}
	if _, ok := TransposeGrid(1000, 64, 100, 100); ok {
		t.Errorf("a grid of 100,000 blocks along z")
	}
}

// The rows transpose, simulated thread by thread: every element of a
// (A, B, D) tensor with padded strides lands once at its place in the
// packed (A, D, B) copy, and nothing else is written.
func TestTransposeRowsSimulated(t *testing.T) {
	const src, dst = int64(1) << 40, int64(2) << 40
	for _, es := range []int{2, 4, 8} {
		k, err := GenerateTransposeRows(es, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		prog := parseProgram(k.PTX)
		for _, d := range [][3]int{{3, 300, 9}, {2, 70, 1}, {1, 513, 25}, {2, 33, 32}} {
			A, B, D := d[0], d[1], d[2]
			sA, sB, sD := B*D*2+5, D*2, 2 // every other element, rows apart
			grid, ok := TransposeRowsGrid(A, B, D)
			if !ok {
				t.Fatalf("%v: no grid", d)
			}
			params := map[string]int64{"p_src": src, "p_dst": dst, "p_dA": int64(A), "p_dB": int64(B), "p_dD": int64(D),
				"p_sA": int64(sA), "p_sB": int64(sB), "p_sD": int64(sD)}
			got := map[int64]int64{}
			for by := 0; by < grid[1]; by++ {
				for bx := 0; bx < grid[0]; bx++ {
					for tid := 0; tid < k.Block[0]; tid++ {
						_, stores, err := simThread(prog, params, int64(tid), int64(bx), int64(by), [3]int64{int64(grid[0]), int64(grid[1]), 1})
						if err != nil {
							t.Fatalf("%s %v: %v", k.Name, d, err)
						}
						for _, s := range stores {
							if s.bytes != int64(es) {
								t.Fatalf("%s %v: a store of %d bytes", k.Name, d, s.bytes)
							}
							if _, dup := got[s.addr]; dup {
								t.Fatalf("%s %v: %#x stored twice", k.Name, d, s.addr)
							}
							got[s.addr] = s.from
						}
					}
				}
			}
			if len(got) != A*B*D {
				t.Fatalf("%s %v: %d elements stored, want %d", k.Name, d, len(got), A*B*D)
			}
			for a := 0; a < A; a++ {
				for b := 0; b < B; b++ {
					for x := 0; x < D; x++ {
						at := dst + int64(es*((a*D+x)*B+b))
						if want := src + int64(es*(a*sA+b*sB+x*sD)); got[at] != want {
							t.Fatalf("%s %v: (%d, %d, %d) stored from %#x, want %#x", k.Name, d, a, b, x, got[at], want)
						}
					}
				}
			}
		}
	}
}
