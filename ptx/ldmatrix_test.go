package ptx

import (
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// TestLdmatrixUse checks which mma configurations read fragments with
// ldmatrix (16-bit inputs in every layout, tf32 only for k-contiguous
// operands, never f64), and that they assemble without spills within 255
// registers.
func TestLdmatrixUse(t *testing.T) {
	f16 := InputClass{AType: F16, BType: F16, CType: F32, Compute: F32, AlignA: 8, AlignB: 8, AlignC: 8}
	f16acc := InputClass{AType: F16, BType: F16, CType: F16, Compute: F16, AlignA: 8, AlignB: 8, AlignC: 8}
	bf16 := InputClass{AType: BF16, BType: BF16, CType: BF16, Compute: F32, AlignA: 8, AlignB: 8, AlignC: 8}
	tf32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, AllowTF32: true, AlignA: 4, AlignB: 4, AlignC: 4}
	f64 := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, AlignA: 2, AlignB: 2, AlignC: 2}
	with := func(in InputClass, ta, tb Op) InputClass { in.TransA, in.TransB = ta, tb; return in }
	cases := []struct {
		cfg  string
		in   InputClass
		a, b bool // ldmatrix expected for A / B
	}{
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", with(f16, N, N), true, true},
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", with(f16, N, T), true, true},
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", with(f16, T, N), true, true},
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16", with(f16, T, T), true, true},
		{"ms=1,ns=1,ml=16,nl=8,u=16,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=mma_f16", with(f16, N, T), true, true},
		{"ms=2,ns=1,ml=32,nl=16,u=64,ks=2,kl=2,kg=1,va=2,vb=4,st=2,math=mma_f16", with(f16, T, N), true, true},
		{"ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16acc", with(f16acc, T, T), true, true},
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16", with(bf16, N, N), true, true},
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_bf16", with(bf16, T, T), true, true},
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32", with(tf32, T, N), true, true},
		{"ms=4,ns=4,ml=128,nl=128,u=32,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32", with(tf32, N, T), false, false},
		{"ms=2,ns=2,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=mma_tf32", with(tf32, T, T), true, false},
		{"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64", with(f64, T, N), false, false},
	}
	for _, tc := range cases {
		cfg, err := ParseConfig(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := Legal(cfg, tc.in, H100()); err != nil {
			t.Fatalf("%s %s: %v", cfg, tc.in, err)
		}
		g := newGeometry(cfg, tc.in)
		if g.ldmatrix(g.a) != tc.a || g.ldmatrix(g.b) != tc.b {
			t.Errorf("%s %s: ldmatrix A=%v B=%v, want %v %v", cfg, tc.in, g.ldmatrix(g.a), g.ldmatrix(g.b), tc.a, tc.b)
		}
		k, err := GenerateGemm(cfg, tc.in, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(k.PTX, "ldmatrix"); has != (tc.a || tc.b) {
			t.Errorf("%s %s: PTX contains ldmatrix = %v", cfg, tc.in, has)
		}
		if (tc.a && tc.in.TransA == N || tc.b && tc.in.TransB == T) != strings.Contains(k.PTX, ".trans") {
			t.Errorf("%s %s: unexpected use of ldmatrix .trans", cfg, tc.in)
		}
		if _, err := ptxas.Find(); err != nil {
			continue
		}
		for _, arch := range []string{"sm_80", "sm_90"} {
			k, _ := GenerateGemm(cfg, tc.in, arch)
			rep, err := ptxas.Compile(k.PTX, arch)
			if err != nil {
				t.Fatalf("%s %s %s: %v", cfg, tc.in, arch, err)
			}
			f := rep.Functions[0]
			t.Logf("%s %s %s: regs=%d spill=%d/%d", cfg, tc.in, arch, f.Registers, f.SpillStores, f.SpillLoads)
			if f.Registers > 255 || f.SpillStores+f.SpillLoads > 0 || f.StackFrame > 0 {
				t.Errorf("%s %s %s: regs=%d spill=%d/%d stack=%d", cfg, tc.in, arch, f.Registers, f.SpillStores, f.SpillLoads, f.StackFrame)
			}
		}
	}
}
