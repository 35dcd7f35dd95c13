package ptx

import (
	"strings"
	"testing"
)

// epilogueClasses are classes of every served type (k-contiguous A and B,
// 16-byte alignments) with each epilogue that type takes.
func epilogueClasses() []InputClass {
	var out []InputClass
	for _, in := range alignedClasses(false) {
		for _, e := range []Epilogue{{Bias: true}, {Act: ActReLU}, {Bias: true, Act: ActReLU, OutOfPlace: true},
			{Bias: true, Act: ActGELU}, {Act: ActGELU, OutOfPlace: true}, {OutOfPlace: true}} {
			in.Epi = e
			if in.Validate() == nil {
				out = append(out, in)
			}
		}
	}
	return out
}

// epilogueConfigs are configurations of every family an epilogue class
// takes: SIMT (vector stores of C), mma.sync, wgmma with cp.async and with
// tensor copies (staged stores), a cluster split, a grid split summed in
// the kernel's one-pass fixup (whose last block applies the epilogue); and
// a grid split of partials too large for the fixup, summed by the separate
// reduction kernel, which it refuses.
var epilogueConfigs = []struct {
	cfg   string
	legal bool
}{
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=2,math=ffma", true},
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=1,math=dfma", true},
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=4,vb=4,st=2,math=ffma", true},
	{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", true},
	{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16", true},
	{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", true},
	{"ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_bf16,tma=1", true},
	{"ms=1,ns=16,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=wgmma_tf32,tma=2", true},
	{"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1", true},
	{"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=4,va=4,vb=4,st=2,math=ffma", true},
	{"ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=8,va=4,vb=4,st=2,math=ffma", false},
}

// An epilogue class's kernels: a name of their own, D's offset and the
// bias after the other parameters, each read where the class has them; a
// bias load and the activation's instructions for every value written
// (none in the class without the epilogue); no two-pass grid split.
func TestEpilogueKernels(t *testing.T) {
	n := 0
	for _, in := range epilogueClasses() {
		plain := in
		plain.Epi = Epilogue{}
		for _, ec := range epilogueConfigs {
			cfg, err := ParseConfig(ec.cfg)
			if err != nil {
				t.Fatal(err)
			}
			if Legal(cfg, plain, H100()) != nil {
				continue
			}
			if err := Legal(cfg, in, H100()); (err == nil) != ec.legal {
				t.Errorf("%s %s: legal %v, want %v", in, ec.cfg, err == nil, ec.legal)
				continue
			}
			if !ec.legal {
				continue
			}
			n++
			k, err := GenerateGemm(cfg, in, "sm_90")
			if err != nil {
				t.Fatal(err)
			}
			p, _ := GenerateGemm(cfg, plain, "sm_90")
			if k.Name == p.Name || !strings.Contains(k.Name, in.Epi.String()) {
				t.Errorf("%s: name %s", in, k.Name)
			}
			want := append(abiParams(in.Compute), tensorMapParams(k.TensorMaps)...)
			if in.Epi.OutOfPlace {
				want = append(want, Param{"dOffset", ".s64", 8})
			}
			if in.Epi.Bias {
				want = append(want, Param{"bias", ".u64", 8})
			}
			if len(k.Params) != len(want) {
				t.Fatalf("%s: %d parameters, want %d", k.Name, len(k.Params), len(want))
			}
			for i := range want {
				if k.Params[i] != want[i] {
					t.Errorf("%s: parameter %d is %v, want %v", k.Name, i, k.Params[i], want[i])
				}
			}
			has := func(ptx, s string) bool { return strings.Contains(ptx, s) }
			for _, c := range []struct {
				what string
				in   bool
			}{{"[p_dOffset]", in.Epi.OutOfPlace}, {"[p_bias]", in.Epi.Bias}, {relu(in), in.Epi.Act == ActReLU},
				{"ex2.approx.f32", in.Epi.Act == ActGELU}} {
				if has(k.PTX, c.what) != c.in || has(p.PTX, c.what) && c.what != "ex2.approx.f32" {
					t.Errorf("%s: %q in the kernel %v (want %v), in the plain one %v", k.Name, c.what, has(k.PTX, c.what), c.in, has(p.PTX, c.what))
				}
			}
			// One activation per value written: the plain kernel's stores
			// of C, each a value (vector stores count their elements); with
			// a grid split, those of the fixup (the blocks' stores before
			// it write their partials to the workspace).
			if in.Epi.Act == ActReLU {
				cStores := p.PTX
				if cfg.KG > 1 {
					_, cStores, _ = strings.Cut(p.PTX, "one-pass split-K")
				}
				if acts, stores := strings.Count(k.PTX, relu(in)), storedValues(cStores); acts != stores || stores == 0 {
					t.Errorf("%s: %d activations for %d values stored", k.Name, acts, stores)
				}
			}
		}
	}
	if n < 30 {
		t.Errorf("%d epilogue kernels generated", n)
	}
}

// relu is the instruction of a ReLU epilogue in in's kernels.
func relu(in InputClass) string {
	if in.Compute == F64 {
		return "max.f64"
	}
	return "max.NaN.f32"
}

// storedValues counts the values a kernel's global stores write.
func storedValues(ptx string) int {
	n := 0
	for _, line := range strings.Split(ptx, "\n") {
		i := strings.Index(line, "st.global")
		if i < 0 || strings.Contains(line, "st.global.cg") {
			continue
		}
		op := strings.Fields(line[i:])[0]
		w := 1
		switch {
		case strings.Contains(op, ".v4"):
			w = 4
		case strings.Contains(op, ".v2"):
			w = 2
		}
		if strings.HasSuffix(op, ".b32") && (strings.Contains(ptx, "cvt.rn.f16.f32") || strings.Contains(ptx, "cvt.rn.bf16.f32")) && w > 1 {
			w *= 2 // halves travel as words
		}
		n += w
	}
	return n
}

// The epilogue kernels assemble for sm_80 and sm_90.
func TestPTXASEpilogue(t *testing.T) {
	var jobs []PTXASJob
	for _, in := range epilogueClasses() {
		for _, ec := range epilogueConfigs {
			cfg, _ := ParseConfig(ec.cfg)
			if ec.legal && Legal(cfg, in, H100()) == nil {
				jobs = append(jobs, PTXASJob{Cfg: cfg, In: in})
			}
		}
	}
	runPTXAS(t, jobs, 64)
}
