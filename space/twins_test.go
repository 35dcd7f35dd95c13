package space

import (
	"fmt"
	"slices"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// The sampler's pipelined twins: pp=1 copies of the most recently drawn
// mma.sync and SIMT configurations with cp.async stages, legal and suited,
// as many as asked (an f64 mma.sync one is not legal pipelined).
func TestPipelinedTwinsSampled(t *testing.T) {
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.T, AlignA: 2, AlignB: 2, AlignC: 2}
	var cfgs []ptx.GemmConfig
	for _, s := range []string{
		"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8",
		"ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=1,math=mma_f64",
		"ms=4,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=dfma",
		"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64k8,pp=1",
	} {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		cfgs = append(cfgs, c)
	}
	ok := func(c ptx.GemmConfig) bool { return ptx.Legal(c, f64, ptx.H100()) == nil && Suits(c, 1000, 1000, 1000) }
	recent := slices.Clone(cfgs)
	slices.Reverse(recent)
	got := PipelinedTwins(recent, 5, ok)
	if len(got) != 1 || got[0].Math != ptx.DFMA || got[0].PP != 1 {
		t.Fatalf("twins %v", got)
	}
	if got := PipelinedTwins(recent, 1, ok); len(got) != 1 || got[0].Math != ptx.DFMA {
		t.Fatalf("one twin: %v", got)
	}
}

// The sweep tries the pipelined twins of the fastest mma.sync and SIMT
// configurations only: not of wgmma ones, of single-stage ones, of those
// already pipelined, or of those the filter refuses.
func TestPipelinedTwinsSwept(t *testing.T) {
	parse := func(s string) ptx.GemmConfig {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	sc := []ptx.GemmConfig{
		parse("ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8"),
		parse("ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma"),
		parse("ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16"),
		parse("ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=4,va=2,vb=2,st=1,math=mma_f64"),
		parse("ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64k8,pp=1"),
		parse("ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64k16"),
		parse("ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64k8"),
	}
	refuse := parse("ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64k16,pp=1")
	got := PipelinedTwins(sc[:6], 6, func(c ptx.GemmConfig) bool { return c != refuse })
	want := []string{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8,pp=1",
		"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,pp=1"}
	if len(got) != len(want) || got[0].String() != want[0] || got[1].String() != want[1] {
		t.Fatalf("twins %v, want %v", got, want)
	}
	if got := PipelinedTwins(sc, 7, func(ptx.GemmConfig) bool { return true }); len(got) != 4 {
		t.Fatalf("all seven: %d twins, want 4 (%v)", len(got), got)
	}
}

// The sweep tries the tensor-copy twins of the fastest wgmma
// configurations and of the grid's, at their own k-slice or else at
// u = 64, once each; not of mma.sync or SIMT ones, nor those the filter
// refuses.
func TestTMATwins(t *testing.T) {
	parse := func(s string) ptx.GemmConfig {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	in := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	legal := func(c ptx.GemmConfig) bool { return ptx.Legal(c, in, ptx.H100()) == nil }
	sc := []ptx.GemmConfig{
		parse("ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16"),
		parse("ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16"),
		parse("ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16"),
		parse("ms=1,ns=2,ml=32,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16"),
		parse("ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1"),
	}
	grid := []ptx.GemmConfig{parse("ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16"),
		parse("ms=1,ns=4,ml=64,nl=32,u=64,ks=1,kl=1,kg=3,va=8,vb=8,st=6,math=wgmma_f16")}
	got := TMATwins(append(grid, sc[:5]...), legal)
	want := []string{
		"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16,tma=1",
		"ms=1,ns=4,ml=64,nl=32,u=64,ks=1,kl=1,kg=3,va=8,vb=8,st=6,math=wgmma_f16,tma=1",
		"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1", // u=32 moved to 64
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("twins\n%v\nwant\n%v", got, want)
	}
	if got := TMATwins(sc[:5], func(ptx.GemmConfig) bool { return false }); len(got) != 0 {
		t.Fatalf("all refused: %v", got)
	}
}

// A pipelined twin that loses a block per SM to a few registers gets the
// cap that keeps its plain twin's blocks; one that loses none gets none.
func TestRegisterCap(t *testing.T) {
	const file = 65536
	for _, c := range []struct{ plain, regs, threads, want int }{
		{128, 131, 128, 128}, // FP64 64x64 u=8: 4 blocks, 3 with 131
		{222, 232, 128, 0},   // 2 blocks either way
		{178, 196, 128, 0},   // 2 blocks either way
		{128, 164, 128, 128}, // SIMT 8x8 64x128
		{100, 120, 256, 0},   // 2 blocks of 256 either way
		{100, 136, 256, 128}, // 2 blocks of 256 at 104, 1 at 136
		{250, 255, 256, 0},   // 1 block either way
		{40, 48, 1024, 0},    // the plain twin fits 1 block of 1024, the twin 1 too
		{64, 72, 1024, 64},   // the twin does not fit at all; capped at the plain twin's 64 it does
		{60, 72, 1024, 64},
	} {
		if got := RegisterCap(c.plain, c.regs, c.threads, file); got != c.want {
			t.Errorf("plain %d, twin %d, %d threads: cap %d, want %d", c.plain, c.regs, c.threads, got, c.want)
		}
	}
}

// StagedTwins: a wgmma configuration's staged twins (tma=1 at its own
// k-slice or a 128-byte line of k, tma=2, and tma=2 persistent where it does
// not split the reduction), each legal; none for a configuration that has
// its option already, nor for an mma.sync or SIMT one. ServedTwins: the
// same, and an mma.sync or SIMT configuration's pipelined twin where it is
// legal (not with an f64 mma.sync).
func TestStagedTwins(t *testing.T) {
	parse := func(s string) ptx.GemmConfig {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8}
	f64 := ptx.InputClass{AType: ptx.F64, BType: ptx.F64, CType: ptx.F64, Compute: ptx.F64, TransA: ptx.N, TransB: ptx.T, AlignA: 2, AlignB: 2, AlignC: 2}
	dev := ptx.H100()
	strs := func(cs []ptx.GemmConfig) []string {
		var out []string
		for _, c := range cs {
			if err := ptx.Legal(c, f16, dev); err != nil && c.Math.IsWGMMA() {
				t.Errorf("%v: %v", c, err)
			}
			out = append(out, c.String())
		}
		return out
	}
	for _, tc := range []struct {
		cls  ptx.InputClass
		cfg  string
		want []string
	}{
		{f16, "ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", []string{
			"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
			"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2",
			"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1"}},
		// k-contiguous tiles of 32 halves are not 128-byte lines: u = 64;
		// a split reduction is not persistent
		{f16, "ms=1,ns=8,ml=64,nl=64,u=32,ks=1,kl=1,kg=4,va=8,vb=8,st=4,math=wgmma_f16", []string{
			"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
			"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=4,va=8,vb=8,st=4,math=wgmma_f16,tma=2"}},
		{f16, "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1", nil},
		{f64, "ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8", nil},
		{f64, "ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=1,math=mma_f64", nil},
		{f64, "ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8,pp=1", nil},
	} {
		got := strs(StagedTwins(parse(tc.cfg), tc.cls, dev))
		if !slices.Equal(got, tc.want) {
			t.Errorf("StagedTwins(%s) =\n  %q\nwant\n  %q", tc.cfg, got, tc.want)
		}
		if served := strs(ServedTwins(parse(tc.cfg), tc.cls, dev)); !slices.Equal(served, tc.want) {
			t.Errorf("ServedTwins(%s) = %q, want %q", tc.cfg, served, tc.want)
		}
	}
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	ffma := "ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma"
	if got := strs(ServedTwins(parse(ffma), f32, dev)); !slices.Equal(got, []string{ffma + ",pp=1"}) {
		t.Errorf("ServedTwins(%s) = %q, want its pipelined twin", ffma, got)
	}
}

// CappedTwin: a pipelined configuration whose registers cost it a block
// per SM against its plain twin's gets the cap that keeps the block; one
// that loses none, an unpipelined one and one whose kernel does not load
// get none.
func TestCappedTwin(t *testing.T) {
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	pp, err := ptx.ParseConfig("ms=2,ns=4,ml=64,nl=128,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=mma_f16,pp=1")
	if err != nil {
		t.Fatal(err)
	}
	dev := ptx.H100()
	regs := func(plain, pipelined int) func(ptx.GemmConfig) (int, error) {
		return func(c ptx.GemmConfig) (int, error) {
			if c.PP == 1 {
				return pipelined, nil
			}
			return plain, nil
		}
	}
	// 256 threads: 128 registers a thread fit 2 blocks in 64K, 136 fit 1
	if c, ok := CappedTwin(pp, f16, dev, regs(128, 136)); !ok || c.MR != 128 || c.PP != 1 {
		t.Errorf("capped twin %v %v, want mr=128", c, ok)
	}
	if _, ok := CappedTwin(pp, f16, dev, regs(128, 128)); ok {
		t.Error("a twin that loses no block capped")
	}
	plain := pp
	plain.PP = 0
	if _, ok := CappedTwin(plain, f16, dev, regs(128, 136)); ok {
		t.Error("an unpipelined configuration capped")
	}
	fails := func(ptx.GemmConfig) (int, error) { return 0, fmt.Errorf("no kernel") }
	if _, ok := CappedTwin(pp, f16, dev, fails); ok {
		t.Error("capped without registers")
	}
}
