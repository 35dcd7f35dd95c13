package kernels

import (
	"slices"
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
)

// Registers reports the driver's register count of a kernel, within the cap
// of a capped configuration (ptx.GemmConfig.MR), and the pipelined kernel
// computes C within the reference's bound capped or not, down to a cap that
// spills.
func TestGPURegisters(t *testing.T) {
	gemmcheck.GPUThread(t)
	i := slices.IndexFunc(gemmcheck.Types, func(ty gemmcheck.Type) bool { return ty.Name == "dgemm" })
	c := gemmcheck.Case{Type: gemmcheck.Types[i], TransA: 0, TransB: 1, M: 300, N: 200, K: 517, Alpha: 1, Beta: 0.5, Seed: 9}
	d := gemmcheck.NewData(c)
	b, err := gemmcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	g := b.Request(0)
	for _, s := range []string{
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=dfma,pp=1",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=dfma,pp=1,mr=128",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=dfma,pp=1,mr=48",
	} {
		cfg, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		regs, err := testRT.Registers(g, cfg)
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		if regs <= 0 || regs > 255 || cfg.MR > 0 && regs > cfg.MR {
			t.Errorf("%s: %d registers", s, regs)
		}
		if err := b.ResetC(); err != nil {
			t.Fatal(err)
		}
		if err := testRT.Gemm(g, cfg); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		got, err := b.ReadC(0)
		if err != nil {
			t.Fatal(err)
		}
		if r := d.Check(c, got); r.Bad > 0 {
			t.Errorf("%s: wrong result: %s", s, r.FirstBad)
		}
		t.Logf("%s: %d registers", s, regs)
	}
}
