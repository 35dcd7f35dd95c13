package ptx

import (
	"fmt"
	"strings"
	"testing"
)

func mustParse(t *testing.T, s string) GemmConfig {
	t.Helper()
	c, err := ParseConfig(s)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestLegal(t *testing.T) {
	f32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, AlignA: 4, AlignB: 4, AlignC: 4}
	f32tf32 := f32
	f32tf32.AllowTF32 = true
	f16 := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, AlignA: 8, AlignB: 8, AlignC: 8}
	f16a1 := f16
	f16a1.AlignA, f16a1.AlignB = 1, 1
	f64 := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, AlignA: 2, AlignB: 2, AlignC: 2}
	dev := H100()
	cases := []struct {
		cfg  string
		in   InputClass
		want string // "" = legal, else a substring of the error
	}{
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma", f32, ""},
		{"ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=2,math=ffma", f32, ""},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", f16, ""},
		{"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=4,va=2,vb=2,st=1,math=mma_f64", f64, ""},
		// pp=1 with an f64 mma.sync: the compiled loop's accumulator hazard
		{"ms=1,ns=1,ml=16,nl=16,u=8,ks=1,kl=1,kg=48,kc=2,va=1,vb=1,st=4,math=mma_f64,pp=1", f64, "f64 mma.sync"},
		{"ms=1,ns=1,ml=16,nl=16,u=8,ks=1,kl=1,kg=48,kc=2,va=1,vb=1,st=4,math=mma_f64", f64, ""},
		{"ms=1,ns=1,ml=16,nl=16,u=8,ks=1,kl=1,kg=48,va=1,vb=1,st=4,math=mma_f64,pp=1", f64, "f64 mma.sync"},
		{"ms=1,ns=1,ml=16,nl=32,u=16,ks=1,kl=1,kg=1,va=1,vb=1,st=4,math=mma_f64k8,pp=1", f64, "f64 mma.sync"},
		{"ms=1,ns=1,ml=16,nl=32,u=16,ks=1,kl=1,kg=1,va=1,vb=1,st=4,math=mma_f64k16,pp=1", f64, "f64 mma.sync"},
		{"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=1,kg=48,kc=2,va=1,vb=1,st=4,math=dfma,pp=1", f64, ""},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32", f32, "incompatible"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_f16", f32, "incompatible"},
		{"ms=3,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma", f32, "ms=3"},
		{"ms=4,ns=4,ml=256,nl=256,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=1,math=ffma", f32, "threads per block exceeds"},
		{"ms=2,ns=2,ml=8,nl=8,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=1,math=ffma", f32, "multiple of 32"},
		{"ms=4,ns=4,ml=64,nl=64,u=8,ks=4,kl=4,kg=1,va=4,vb=4,st=1,math=ffma", f32, "multiple of kl*ks"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=8,vb=4,st=1,math=ffma", f32, "exceeds the alignment"},
		{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=1,vb=1,st=3,math=mma_f16", f16a1, "cp.async needs"},
		{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", f16, "mma k"},
		{"ms=8,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", f16, "warp tile"},
		{"ms=4,ns=8,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=mma_f16", f16, ""},
		{"ms=8,ns=8,ml=256,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=mma_f16", f16, "shared memory"},
		{"ms=8,ns=8,ml=128,nl=128,u=16,ks=4,kl=1,kg=1,va=4,vb=4,st=3,math=ffma", f32, "registers per thread"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=3,va=4,vb=4,st=3,math=ffma", f32, ""},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=513,va=4,vb=4,st=3,math=ffma", f32, "kg=513"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=6,math=ffma", f32, ""},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=9,math=ffma", f32, "st=9"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=3,kc=8,va=4,vb=4,st=3,math=ffma", f32, ""},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,kc=3,va=4,vb=4,st=3,math=ffma", f32, "kc=3"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=2,kg=1,kc=2,va=4,vb=4,st=3,math=ffma", f32, "kl=2"},
		{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8,pp=1", f64, "f64 mma.sync"},
		{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_tf32,pp=1", f32tf32, ""},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16,pp=1", f16, ""},
		{"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=4,va=2,vb=2,st=1,math=mma_f64,pp=1", f64, "cp.async stages"},
		// tma=1: wgmma with both tiles swizzled (the class is NN: A m-contiguous, B k-contiguous)
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1", f16, ""},
		{"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16,tma=1", f16, ""},
		{"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1", f16, "128-byte swizzled"},
		{"ms=1,ns=2,ml=32,nl=16,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1", f16, "128-byte swizzled"},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16,tma=1", f16, "needs wgmma"},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=3", f16, "tma=3"},
		// tma=2: a producer warp, no cluster split
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2", f16, ""},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=4,math=wgmma_f16,tma=2", f16, "cluster"},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16,tma=2", f16, "needs wgmma"},
		// ps=1: persistent, a producer warp's pipeline without a split of the reduction
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1", f16, ""},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1,ps=1", f16, "ps=1"},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1", f16, "ps=1"},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=2", f16, "ps=2"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,pp=1", f32, ""},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=1,math=ffma,pp=1", f32, "cp.async stages"},
		{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8,pp=2", f64, "pp=2"},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,pp=1", f16, "needs mma.sync or SIMT"},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16,pp=1,mr=128", f16, ""},
		{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8,mr=100", f64, "mr=100"},
		{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8,mr=256", f64, "mr=256"},
		// the cap admits a block the estimate alone would not: 1024 threads of ≤ 64 registers
		{"ms=4,ns=4,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma", f32, "register file"},
		{"ms=4,ns=4,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,mr=64", f32, ""},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", f16, ""},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=1,math=ffma", InputClass{AType: F32, BType: F16, CType: F32, Compute: F32, AlignA: 4, AlignB: 4, AlignC: 4}, "A and B types differ"},
		{"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=1,math=ffma", InputClass{AType: F32, BType: F32, CType: F16, Compute: F32, AlignA: 4, AlignB: 4, AlignC: 4}, "unsupported type combination"},
	}
	for _, c := range cases {
		err := Legal(mustParse(t, c.cfg), c.in, dev)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s %s: want legal, got %v", c.cfg, c.in, err)
		case c.want != "" && err == nil:
			t.Errorf("%s %s: want error containing %q, got legal", c.cfg, c.in, c.want)
		case c.want != "" && !strings.Contains(err.Error(), c.want):
			t.Errorf("%s %s: want error containing %q, got %v", c.cfg, c.in, c.want, err)
		}
	}
}

// A wgmma block of four warpgroups whose f16 accumulators the epilogue
// unpacks into 159 registers (ptxas 12.4) cannot run 512 threads: Legal
// says so, and keeps the four-warpgroup blocks that fit (88–96 registers).
func TestLegalWarpgroupRegisters(t *testing.T) {
	in := InputClass{AType: F16, BType: F16, CType: F16, Compute: F16, TransA: N, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	big := GemmConfig{MS: 2, NS: 16, ML: 256, NL: 256, U: 32, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 5, Math: WGMMA_F16_F16ACC}
	if err := Legal(big, in, H100()); err == nil {
		t.Errorf("%s: legal, but its 512 threads need more registers than an SM has", big)
	}
	for _, ok := range []GemmConfig{
		{MS: 2, NS: 8, ML: 256, NL: 128, U: 64, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 4, Math: WGMMA_F16_F16ACC},
		{MS: 1, NS: 16, ML: 128, NL: 256, U: 64, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 4, Math: WGMMA_F16_F16ACC},
	} {
		if err := Legal(ok, in, H100()); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
}

// TMATwin turns a wgmma configuration into its tensor-copy twin where both
// of its tiles are in 128-byte lines, and leaves every other configuration
// as it is.
func TestTMATwin(t *testing.T) {
	nn := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	nt := nn
	nt.TransB = T
	for _, tc := range []struct {
		cfg  string
		in   InputClass
		twin bool
	}{
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", nn, true},
		{"ms=1,ns=2,ml=64,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16", nn, true},
		{"ms=1,ns=2,ml=64,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16", nt, false}, // B n-contiguous, 32-byte lines
		{"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", nn, false}, // B k-contiguous, 64-byte lines
		{"ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", nt, true},  // both m/n-contiguous
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", nn, false},
	} {
		c := mustParse(t, tc.cfg)
		if err := Legal(c, tc.in, H100()); err != nil {
			t.Fatalf("%s %s: %v", c, tc.in, err)
		}
		got := TMATwin(c, tc.in, H100())
		want := c
		if tc.twin {
			want.TMA = 1
		}
		if got != want {
			t.Errorf("%s %s: twin %s, want %s", c, tc.in, got, want)
		}
		if TMATwin(got, tc.in, H100()) != got {
			t.Errorf("%s: the twin of a twin changed", got)
		}
	}
}

// TestLegalOtherGenerations: the generator's PTX targets sm_80, and sm_90
// from compute capability 9.0 on, so a device of another generation gets a
// target its driver loads (sm_89 and sm_100 the older target, wgmma only on
// 9.0 exactly), and one below sm_80 no legal configuration at all (the
// driver could load none of its kernels).
func TestLegalOtherGenerations(t *testing.T) {
	f16 := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, AlignA: 8, AlignB: 8, AlignC: 8}
	f32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, AlignA: 4, AlignB: 4, AlignC: 4}
	with := func(major, minor int) DeviceLimits {
		d := A100()
		d.SMMajor, d.SMMinor = major, minor
		return d
	}
	simt := mustParse(t, "ms=2,ns=2,ml=16,nl=16,u=8,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma")
	mma := mustParse(t, "ms=4,ns=8,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=mma_f16")
	wgmma := mustParse(t, "ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	for _, tc := range []struct {
		dev              DeviceLimits
		arch             string
		simt, mma, wgmma bool
	}{
		{with(7, 0), "", false, false, false},
		{with(7, 5), "", false, false, false},
		{with(8, 0), "sm_80", true, true, false},
		{with(8, 9), "sm_80", true, true, false},
		{H100(), "sm_90", true, true, true},
		{with(10, 0), "sm_90", true, true, false},
		{with(12, 0), "sm_90", true, true, false},
	} {
		name := fmt.Sprintf("sm_%d%d", tc.dev.SMMajor, tc.dev.SMMinor)
		if err := tc.dev.Supported(); (err == nil) != (tc.arch != "") {
			t.Errorf("%s: Supported() = %v", name, err)
		} else if err == nil && tc.dev.Arch() != tc.arch {
			t.Errorf("%s: Arch() = %s, want %s", name, tc.dev.Arch(), tc.arch)
		}
		for _, c := range []struct {
			cfg  GemmConfig
			in   InputClass
			want bool
		}{{simt, f32, tc.simt}, {mma, f16, tc.mma}, {wgmma, f16, tc.wgmma}} {
			err := Legal(c.cfg, c.in, tc.dev)
			if (err == nil) != c.want {
				t.Errorf("%s: Legal(%s) = %v, want legal %v", name, c.cfg, err, c.want)
			}
			if err != nil && !c.want && tc.arch == "" && !strings.Contains(err.Error(), "sm_80 or newer") {
				t.Errorf("%s: Legal(%s) = %v, want the device's generation named", name, c.cfg, err)
			}
		}
	}
}
