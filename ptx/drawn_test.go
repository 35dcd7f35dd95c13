// Tests of the generator on configurations drawn from the search space:
// package space imports ptx, so they live in the external test package,
// with the helpers of the internal tests exported by export_test.go.

package ptx_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/ptx"

	"github.com/isaacgo/isaac/internal/ptxas"
	"github.com/isaacgo/isaac/space"
)

// TestPTXASRandom assembles a broad random sample of legal configurations
// across every input class for sm_80 and sm_90.
func TestPTXASRandom(t *testing.T) {
	count := 240
	if testing.Short() {
		count = 40
	}
	rng := ptx.NewRand(2026)
	classes := ptx.Classes()
	var jobs []ptx.PTXASJob
	for i := 0; len(jobs) < count && i < 100*count; i++ {
		in := classes[rng.IntN(len(classes))]
		in.AlignC = []int{1, 2, 4, 8}[rng.IntN(4)]
		sp := space.For(in)
		// Keep the unrolled kernels moderate so ptxas stays fast.
		sp.U = []int{4, 8, 16, 32}
		sp.ML, sp.NL = []int{8, 16, 32, 64, 128}, []int{8, 16, 32, 64, 128}
		sp.Math = []ptx.Math{sp.Math[rng.IntN(len(sp.Math))]}
		c, ok := sp.RandomLegal(rng, in, ptx.H100(), 3000)
		if !ok {
			continue
		}
		jobs = append(jobs, ptx.PTXASJob{Cfg: c, In: in})
	}
	ptx.RunPTXAS(t, jobs, 0)
}

// TestPTXASHeuristic assembles the DefaultConfig choice for every class and a
// few shapes, and fails on register spills.
func TestPTXASHeuristic(t *testing.T) {
	shapes := [][3]int{{4096, 4096, 4096}, {64, 64, 64}, {1, 4096, 4096}, {256, 256, 100000}}
	if testing.Short() {
		shapes = shapes[:1]
	}
	seen := map[string]bool{}
	var jobs []ptx.PTXASJob
	for _, in := range ptx.Classes() {
		if in.AlignA != 8 && in.AlignA != 1 {
			continue
		}
		for _, s := range shapes {
			c := space.Default(in, s[0], s[1], s[2], ptx.H100())
			key := c.String() + in.String()
			if !seen[key] {
				seen[key] = true
				jobs = append(jobs, ptx.PTXASJob{Cfg: c, In: in, Heuristic: true})
			}
		}
	}
	ptx.RunPTXAS(t, jobs, 0)
}

func TestDeterministic(t *testing.T) {
	rng := ptx.NewRand(5)
	classes := ptx.Classes()
	for i := 0; i < 30; i++ {
		in := classes[rng.IntN(len(classes))]
		c, ok := space.For(in).RandomLegal(rng, in, ptx.H100(), 3000)
		if !ok {
			continue
		}
		k1, err1 := ptx.GenerateGemm(c, in, "sm_90")
		k2, err2 := ptx.GenerateGemm(c, in, "sm_90")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if k1.PTX != k2.PTX || k1.Name != k2.Name || (k1.Reduce != nil && k1.Reduce.PTX != k2.Reduce.PTX) {
			t.Fatalf("%s %s: PTX differs between runs", c, in)
		}
	}
}

// TestPTXASWarpgroup assembles wgmma kernels of every 16-bit class with
// 16-byte alignment, both operand layouts (K-major and MN-major), and of
// the f32 classes tf32 serves (K-major), every wgmma math, one and two instructions per warpgroup along m, grid and
// cluster splits, and a random sample of WarpgroupSpace; ptxas must neither
// fail, spill, nor serialize the wgmma instructions.
func TestPTXASWarpgroup(t *testing.T) {
	if !ptx.PTXASWGMMA(t) {
		t.Skip("this ptxas predates sm_90a: run scripts/fetch-ptxas.sh build/tools")
	}
	fixed := []ptx.GemmConfig{
		{MS: 1, NS: 32, ML: 128, NL: 256, U: 64, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 4},
		{MS: 2, NS: 16, ML: 256, NL: 128, U: 64, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 4},
		{MS: 1, NS: 16, ML: 128, NL: 128, U: 32, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 5},
		{MS: 1, NS: 2, ML: 64, NL: 16, U: 64, KS: 1, KL: 1, KG: 8, VecA: 8, VecB: 8, Stages: 3},
		{MS: 1, NS: 8, ML: 64, NL: 64, U: 32, KS: 1, KL: 1, KG: 1, KC: 2, VecA: 8, VecB: 8, Stages: 4},
	}
	var jobs []ptx.PTXASJob
	rng := ptx.NewRand(90)
	for _, in := range ptx.Classes() {
		es := in.AType.Size()
		tf32 := es == 4 && in.AllowTF32 && in.TransA == ptx.T && in.TransB == ptx.N
		if !(es == 2 || tf32) || in.AlignA*es != 16 {
			continue
		}
		sp := space.ForWarpgroup(in)
		for _, m := range sp.Math {
			for i, c := range fixed {
				c.Math = m
				// The same bytes for 4-byte elements: 16-byte vectors,
				// k-slices of as many bytes (at least 16 elements).
				c.VecA, c.VecB, c.U = 16/es, 16/es, max(c.U*2/es, 16)
				if err := ptx.Legal(c, in, ptx.H100()); err != nil {
					t.Fatalf("%s %s: %v", c, in, err)
				}
				if i == 0 || rng.IntN(4) == 0 {
					jobs = append(jobs, ptx.PTXASJob{Cfg: c, In: in, Heuristic: true})
				}
			}
			sp.Math = []ptx.Math{m}
			sp.U = []int{16, 32} // moderate unrolling keeps ptxas fast
			if c, ok := sp.RandomLegal(rng, in, ptx.H100(), 3000); ok {
				jobs = append(jobs, ptx.PTXASJob{Cfg: c, In: in, Heuristic: true})
			}
		}
	}
	if testing.Short() {
		jobs = jobs[:8]
	}
	ptx.RunPTXAS(t, jobs, 0)
}

// TestPTXASWideSIMT assembles the 16-wide SIMT thread tiles (16×8, 8×16)
// that Legal accepts, for every class a SIMT math serves, and fails on
// register spills or a block beyond the register file: their register
// estimate (regEstimate) is the measured one, not the margined one.
func TestPTXASWideSIMT(t *testing.T) {
	var jobs []ptx.PTXASJob
	for _, in := range ptx.Classes() {
		if in.AlignA != 8 && in.AlignA != 1 || in.TransA != ptx.N {
			continue
		}
		sp := space.ForSweep(in)
		for _, m := range sp.Math {
			if m.IsMMA() {
				continue
			}
			for _, tile := range [][4]int{{16, 8, 256, 128}, {8, 16, 128, 256}, {16, 8, 128, 64}, {16, 16, 256, 256}, {16, 4, 256, 64}} {
				for _, u := range []int{8, 16} {
					c := ptx.GemmConfig{MS: tile[0], NS: tile[1], ML: tile[2], NL: tile[3], U: u, KS: 1, KL: 1, KG: 1,
						VecA: slices.Max(sp.VecA), VecB: slices.Max(sp.VecB), Stages: max(1, slices.Max(sp.Stages)/2), Math: m}
					if ptx.Legal(c, in, ptx.H100()) == nil {
						jobs = append(jobs, ptx.PTXASJob{Cfg: c, In: in, Heuristic: true})
					}
				}
			}
		}
	}
	if len(jobs) == 0 {
		t.Fatal("no wide SIMT configuration is legal")
	}
	if testing.Short() {
		jobs = jobs[:min(len(jobs), 8)]
	}
	ptx.RunPTXAS(t, jobs, 0)
}

// TestPTXASPipelined assembles the pipelined twins (PP = 1) of random legal
// mma.sync and SIMT configurations of every class, and, without spills, those of
// the SIMT blocks of the FP32 LINPACK rows.
func TestPTXASPipelined(t *testing.T) {
	count := 60
	if testing.Short() {
		count = 12
	}
	rng := ptx.NewRand(2027)
	classes := ptx.Classes()
	var jobs []ptx.PTXASJob
	for i := 0; len(jobs) < count && i < 100*count; i++ {
		in := classes[rng.IntN(len(classes))]
		sp := space.For(in)
		sp.U = []int{8, 16, 32}
		sp.ML, sp.NL = []int{16, 32, 64, 128}, []int{8, 16, 32, 64, 128}
		sp.Math = []ptx.Math{sp.Math[rng.IntN(len(sp.Math))]} // mma.sync or SIMT
		sp.Stages = []int{2, 3, 4}
		c, ok := sp.RandomLegal(rng, in, ptx.H100(), 3000)
		if !ok {
			continue
		}
		if c.PP = 1; ptx.Legal(c, in, ptx.H100()) == nil {
			jobs = append(jobs, ptx.PTXASJob{Cfg: c, In: in})
		}
	}
	// and the SIMT 8×8 and 4×8 thread tiles of the FP32 rows, without spills
	f32 := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	for _, s := range []string{
		"ms=8,ns=8,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,pp=1",
		"ms=4,ns=8,ml=64,nl=32,u=32,ks=1,kl=1,kg=1,kc=4,va=4,vb=4,st=2,math=ffma,pp=1",
	} {
		jobs = append(jobs, ptx.PTXASJob{Cfg: ptx.MustParse(t, s), In: f32, Heuristic: true})
	}
	// 8×16, the vendor's SIMT register blocking: 255 registers, the copies'
	// addresses spilled (Legal admits it)
	jobs = append(jobs, ptx.PTXASJob{Cfg: ptx.MustParse(t, "ms=8,ns=16,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=ffma,pp=1"), In: f32})
	ptx.RunPTXAS(t, jobs, 0)
}

// TestHeuristicF16Registers logs the registers of the heuristic's 16-bit
// configuration for a LINPACK-sized problem (mma.sync 128×128 on sm_80,
// wgmma 128×256 on sm_90) and fails on spills.
func TestHeuristicF16Registers(t *testing.T) {
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found")
	}
	for _, in := range []ptx.InputClass{
		{AType: ptx.F16, BType: ptx.F16, CType: ptx.F32, Compute: ptx.F32, AlignA: 8, AlignB: 8, AlignC: 8},
		{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8},
		{AType: ptx.BF16, BType: ptx.BF16, CType: ptx.BF16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N, AlignA: 8, AlignB: 8, AlignC: 8},
	} {
		for _, arch := range []string{"sm_80", "sm_90"} {
			dev, target := ptx.A100(), arch
			if arch == "sm_90" {
				dev = ptx.H100()
			}
			cfg := space.Default(in, 4096, 4096, 4096, dev)
			if cfg.Math.IsWGMMA() {
				if !ptx.PTXASWGMMA(t) {
					continue
				}
				target = "sm_90a"
			}
			k, err := ptx.GenerateGemm(cfg, in, arch)
			if err != nil {
				t.Fatal(err)
			}
			rep, err := ptxas.Compile(k.PTX, target)
			if err != nil {
				t.Fatal(err)
			}
			f := rep.Functions[0]
			t.Logf("%s %s %s: regs=%d spill=%d/%d threads=%d smem=%d ldmatrix=%d lds=%d", cfg, in, arch, f.Registers, f.SpillStores, f.SpillLoads,
				k.Block[0], k.SharedBytes, strings.Count(k.PTX, "ldmatrix"), strings.Count(k.PTX, "ld.shared"))
			if f.SpillStores+f.SpillLoads > 0 {
				t.Errorf("spills")
			}
		}
	}
}

// Every configuration the space draws reads back from its text.
func TestConfigRoundTripDrawn(t *testing.T) {
	rng := ptx.NewRand(7)
	in := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, AlignA: 8, AlignB: 8, AlignC: 8}
	sp := space.For(in)
	for i := 0; i < 1000; i++ {
		c := sp.Random(rng)
		got, err := ptx.ParseConfig(c.String())
		if err != nil || got != c {
			t.Fatalf("%s: got %+v, %v", c, got, err)
		}
	}
}

// TestPipelinedSimulated's comparison on random configurations of every
// class's space.
func TestPipelinedSimulatedDrawn(t *testing.T) {
	rng := ptx.NewRand(31)
	classes := ptx.Classes()
	for n, i := 0, 0; i < 6000; i++ {
		in := classes[rng.IntN(len(classes))]
		sp := space.ForSweep(in)
		sp.Math = slices.DeleteFunc(slices.Clone(sp.Math), ptx.Math.IsWGMMA)
		sp.Stages = []int{2, 3, 4, 5}
		sp.U = []int{8, 16, 32}
		sp.ML, sp.NL = []int{16, 32, 64, 128}, []int{8, 16, 32, 64, 128}
		sp.KG, sp.KC = []int{1, 2, 3}, []int{1, 2}
		c, ok := sp.RandomLegal(rng, in, ptx.H100(), 3000)
		if !ok {
			continue
		}
		if pp := ptx.WithPP(c); ptx.Legal(pp, in, ptx.H100()) != nil {
			continue
		}
		m, nn, k := c.ML+rng.IntN(2*c.ML), c.NL+rng.IntN(2*c.NL), c.U*c.KG*max(c.KC, 1)*(1+rng.IntN(6))+rng.IntN(c.U)
		ptx.ComparePipelined(t, c, in, m, nn, k)
		if n++; n == 60 {
			return
		}
	}
	t.Fatal("fewer than 60 random configurations with a legal pipelined twin")
}

// checkRandomWarpgroup runs checkLoop on 20 random wgmma configurations of
// the classes' spaces (grid and cluster splits of 1–3 and 1–2 blocks, tiles
// of at most 128×128) on random inputs that cut every edge; with tma, on the
// TMA twins of configurations drawn at u = 64 that have one.
func checkRandomWarpgroup(t *testing.T, rng *rand.Rand, tma bool) {
	t.Helper()
	classes := ptx.Classes()
	for n, i := 0, 0; i < 20000; i++ {
		in := classes[rng.IntN(len(classes))]
		sp := space.ForWarpgroup(in)
		if len(sp.Math) == 0 {
			continue
		}
		sp.KG, sp.KC = []int{1, 2, 3}, []int{1, 2}
		if tma {
			sp.U = []int{64}
		}
		c, ok := sp.RandomLegal(rng, in, ptx.H100(), 3000)
		if !ok || c.ML*c.NL > 128*128 {
			continue
		}
		if tma {
			if c = ptx.WithTMA(c); ptx.Legal(c, in, ptx.H100()) != nil {
				continue
			}
		}
		m, nn, k := c.ML+rng.IntN(2*c.ML), c.NL+rng.IntN(2*c.NL), c.U*c.KG*max(c.KC, 1)*(1+rng.IntN(5))+rng.IntN(c.U)
		ptx.CheckLoop(t, c, in, m, nn, k)
		if n++; n == 20 {
			return
		}
	}
	t.Fatalf("fewer than 20 random wgmma configurations (tma %v)", tma)
}

// The wgmma loop's simulation (TestWarpgroupPipelineSimulated) on 20
// random configurations of the classes' wgmma spaces.
func TestWarpgroupPipelineSimulatedDrawn(t *testing.T) {
	checkRandomWarpgroup(t, ptx.NewRand(32), false)
}

// The TMA loop's simulation (TestTMAPipelineSimulated) on the TMA twins of
// 20 random configurations of the classes' wgmma spaces.
func TestTMAPipelineSimulatedDrawn(t *testing.T) {
	checkRandomWarpgroup(t, ptx.NewRand(33), true)
}

// TestLdmatrixSimulated runs checkLdmatrixConfig on random mma
// configurations of every class's space and on the heuristic's mma.sync
// choices for a few shapes.
func TestLdmatrixSimulated(t *testing.T) {
	t.Parallel()
	rng := ptx.NewRand(77)
	classes := ptx.Classes()
	n, withLd := 0, 0
	check := func(c ptx.GemmConfig, in ptx.InputClass) {
		n++
		if ptx.CheckLdmatrixConfig(t, c, in) {
			withLd++
		}
	}
	limit := 400
	if testing.Short() {
		limit = 60
	}
	for i := 0; i < 4000 && n < limit; i++ {
		in := classes[rng.IntN(len(classes))]
		sp := space.For(in)
		var mm []ptx.Math
		for _, m := range sp.Math {
			if m.IsMMA() {
				mm = append(mm, m)
			}
		}
		if len(mm) == 0 {
			continue
		}
		sp.Math = []ptx.Math{mm[rng.IntN(len(mm))]}
		c, ok := sp.RandomLegal(rng, in, ptx.H100(), 3000)
		if !ok {
			continue
		}
		check(c, in)
	}
	for _, in := range ptx.Classes() {
		for _, s := range [][3]int{{4096, 4096, 4096}, {64, 64, 64}, {1, 4096, 4096}, {256, 256, 100000}, {8, 8, 4096}} {
			// mma.sync only: wgmma kernels read no fragments
			if c := space.Default(in, s[0], s[1], s[2], ptx.H100()); c.Math.IsMMA() && !c.Math.IsWGMMA() {
				check(c, in)
			}
		}
	}
	t.Logf("%d mma configurations checked, %d use ldmatrix", n, withLd)
}
