package ptx

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

type ptxasJob struct {
	cfg       GemmConfig
	in        InputClass
	heuristic bool
}

// runPTXAS compiles every job's kernels for sm_80 and sm_90 with 2 workers.
func runPTXAS(t *testing.T, jobs []ptxasJob, maxSpillHeuristic int) {
	t.Helper()
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	type result struct {
		job ptxasJob
		log string
		err error
	}
	ch := make(chan ptxasJob)
	out := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				r := result{job: j}
				for _, arch := range []string{"sm_80", "sm_90"} {
					if arch == "sm_80" && j.cfg.needsSM90() {
						continue
					}
					k, err := GenerateGemm(j.cfg, j.in, arch)
					target := arch
					if j.cfg.Math.IsWGMMA() {
						target = "sm_90a"
					}
					if err != nil {
						r.err = err
						break
					}
					for _, kk := range []*Kernel{k, k.Reduce} {
						if kk == nil {
							continue
						}
						rep, err := ptxas.Compile(kk.PTX, target)
						if err != nil {
							r.err = fmt.Errorf("%s: %w", kk.Name, err)
							break
						}
						// ptxas serializes wgmma (waits after each one) when
						// the accumulators are touched while a group is in
						// flight: correct, but it defeats the pipeline.
						if strings.Contains(rep.Log, "Performance Loss") || strings.Contains(rep.Log, "serializ") {
							r.err = fmt.Errorf("%s: ptxas warns about wgmma:\n%s", kk.Name, rep.Log)
							break
						}
						f := rep.Functions[0]
						r.log += fmt.Sprintf(" %s[%s regs=%d spill=%d/%d stack=%d]", arch, map[bool]string{true: "reduce", false: "gemm"}[kk != k], f.Registers, f.SpillStores, f.SpillLoads, f.StackFrame)
						// The register file must hold a whole block (registers
						// are allocated per thread in units of 8, per warp).
						if regs, warps := (f.Registers+7)/8*8, (kk.Block[0]+31)/32; regs*32*warps > 65536 {
							r.err = fmt.Errorf("%s on %s: %d registers × %d threads exceed the register file", kk.Name, arch, f.Registers, kk.Block[0])
							break
						}
						if j.heuristic && f.SpillStores+f.SpillLoads > maxSpillHeuristic {
							r.err = fmt.Errorf("%s on %s spills %d+%d bytes", kk.Name, arch, f.SpillStores, f.SpillLoads)
						}
					}
					if r.err != nil {
						break
					}
				}
				out <- r
			}
		}()
	}
	go func() {
		for _, j := range jobs {
			ch <- j
		}
		close(ch)
		wg.Wait()
		close(out)
	}()
	n := 0
	for r := range out {
		n++
		if r.err != nil {
			t.Errorf("%s %s: %v", r.job.cfg, r.job.in, r.err)
			continue
		}
		t.Logf("%s %s:%s", r.job.cfg, r.job.in, r.log)
	}
	if n != len(jobs) {
		t.Fatalf("compiled %d of %d", n, len(jobs))
	}
}

// TestPTXASRandom assembles a broad random sample of legal configurations
// across every input class for sm_80 and sm_90.
func TestPTXASRandom(t *testing.T) {
	count := 240
	if testing.Short() {
		count = 40
	}
	rng := newRand(2026)
	classes := allClasses()
	var jobs []ptxasJob
	for i := 0; len(jobs) < count && i < 100*count; i++ {
		in := classes[rng.IntN(len(classes))]
		in.AlignC = []int{1, 2, 4, 8}[rng.IntN(4)]
		sp := SpaceFor(in)
		// Keep the unrolled kernels moderate so ptxas stays fast.
		sp.U = []int{4, 8, 16, 32}
		sp.ML, sp.NL = []int{8, 16, 32, 64, 128}, []int{8, 16, 32, 64, 128}
		sp.Math = []Math{sp.Math[rng.IntN(len(sp.Math))]}
		c, ok := sp.RandomLegal(rng, in, H100(), 3000)
		if !ok {
			continue
		}
		jobs = append(jobs, ptxasJob{cfg: c, in: in})
	}
	runPTXAS(t, jobs, 0)
}

// TestPTXASHeuristic assembles the DefaultConfig choice for every class and a
// few shapes, and fails on register spills.
func TestPTXASHeuristic(t *testing.T) {
	shapes := [][3]int{{4096, 4096, 4096}, {64, 64, 64}, {1, 4096, 4096}, {256, 256, 100000}}
	if testing.Short() {
		shapes = shapes[:1]
	}
	seen := map[string]bool{}
	var jobs []ptxasJob
	for _, in := range allClasses() {
		if in.AlignA != 8 && in.AlignA != 1 {
			continue
		}
		for _, s := range shapes {
			c := DefaultConfig(in, s[0], s[1], s[2], H100())
			key := c.String() + in.String()
			if !seen[key] {
				seen[key] = true
				jobs = append(jobs, ptxasJob{cfg: c, in: in, heuristic: true})
			}
		}
	}
	runPTXAS(t, jobs, 0)
}

func TestDeterministic(t *testing.T) {
	rng := newRand(5)
	classes := allClasses()
	for i := 0; i < 30; i++ {
		in := classes[rng.IntN(len(classes))]
		c, ok := SpaceFor(in).RandomLegal(rng, in, H100(), 3000)
		if !ok {
			continue
		}
		k1, err1 := GenerateGemm(c, in, "sm_90")
		k2, err2 := GenerateGemm(c, in, "sm_90")
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		if k1.PTX != k2.PTX || k1.Name != k2.Name || (k1.Reduce != nil && k1.Reduce.PTX != k2.Reduce.PTX) {
			t.Fatalf("%s %s: PTX differs between runs", c, in)
		}
	}
}

// ptxasWGMMA reports whether the ptxas found assembles sm_90a (wgmma) PTX:
// CUDA 12 and newer (scripts/fetch-ptxas.sh fetches 12.4).
func ptxasWGMMA(t *testing.T) bool {
	t.Helper()
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	_, err := ptxas.Compile(header("sm_90a")+".visible .entry k()\n{\n\twgmma.fence.sync.aligned;\n\tret;\n}\n", "sm_90a")
	return err == nil
}

// TestPTXASWarpgroup assembles wgmma kernels of every 16-bit class with
// 16-byte alignment, both operand layouts (K-major and MN-major), every
// wgmma math, one and two instructions per warpgroup along m, grid and
// cluster splits, and a random sample of WarpgroupSpace; ptxas must neither
// fail, spill, nor serialize the wgmma instructions.
func TestPTXASWarpgroup(t *testing.T) {
	if !ptxasWGMMA(t) {
		t.Skip("this ptxas predates sm_90a: run scripts/fetch-ptxas.sh build/tools")
	}
	fixed := []GemmConfig{
		{MS: 1, NS: 32, ML: 128, NL: 256, U: 64, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 4},
		{MS: 2, NS: 16, ML: 256, NL: 128, U: 64, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 4},
		{MS: 1, NS: 16, ML: 128, NL: 128, U: 32, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 8, Stages: 5},
		{MS: 1, NS: 2, ML: 64, NL: 16, U: 64, KS: 1, KL: 1, KG: 8, VecA: 8, VecB: 8, Stages: 3},
		{MS: 1, NS: 8, ML: 64, NL: 64, U: 32, KS: 1, KL: 1, KG: 1, KC: 2, VecA: 8, VecB: 8, Stages: 4},
	}
	var jobs []ptxasJob
	rng := newRand(90)
	for _, in := range allClasses() {
		if in.AType.Size() != 2 || in.AlignA != 8 {
			continue
		}
		sp := WarpgroupSpace(in)
		for _, m := range sp.Math {
			for i, c := range fixed {
				c.Math = m
				if err := Legal(c, in, H100()); err != nil {
					t.Fatalf("%s %s: %v", c, in, err)
				}
				if i == 0 || rng.IntN(4) == 0 {
					jobs = append(jobs, ptxasJob{cfg: c, in: in, heuristic: true})
				}
			}
			sp.Math = []Math{m}
			sp.U = []int{16, 32} // moderate unrolling keeps ptxas fast
			if c, ok := sp.RandomLegal(rng, in, H100(), 3000); ok {
				jobs = append(jobs, ptxasJob{cfg: c, in: in, heuristic: true})
			}
		}
	}
	if testing.Short() {
		jobs = jobs[:8]
	}
	runPTXAS(t, jobs, 0)
}

// TestPTXASWideSIMT assembles the 16-wide SIMT thread tiles (16×8, 8×16)
// that Legal accepts, for every class a SIMT math serves, and fails on
// register spills or a block beyond the register file: their register
// estimate (regEstimate) is the measured one, not the margined one.
func TestPTXASWideSIMT(t *testing.T) {
	var jobs []ptxasJob
	for _, in := range allClasses() {
		if in.AlignA != 8 && in.AlignA != 1 || in.TransA != N {
			continue
		}
		sp := SweepSpaceFor(in)
		for _, m := range sp.Math {
			if m.IsMMA() {
				continue
			}
			for _, tile := range [][4]int{{16, 8, 256, 128}, {8, 16, 128, 256}, {16, 8, 128, 64}, {16, 16, 256, 256}, {16, 4, 256, 64}} {
				for _, u := range []int{8, 16} {
					c := GemmConfig{MS: tile[0], NS: tile[1], ML: tile[2], NL: tile[3], U: u, KS: 1, KL: 1, KG: 1,
						VecA: slices.Max(sp.VecA), VecB: slices.Max(sp.VecB), Stages: max(1, slices.Max(sp.Stages)/2), Math: m}
					if Legal(c, in, H100()) == nil {
						jobs = append(jobs, ptxasJob{cfg: c, in: in, heuristic: true})
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
	runPTXAS(t, jobs, 0)
}

// TestPTXASPipelined assembles the pipelined twins (PP = 1) of random legal
// mma.sync and SIMT configurations of every class, and, without spills, those of
// the vendor-shaped f64 blocks the sweep found best on the LINPACK rows,
// whose tiles are one k-step deep (one more fragment set costs them about
// three registers).
func TestPTXASPipelined(t *testing.T) {
	count := 60
	if testing.Short() {
		count = 12
	}
	rng := newRand(2027)
	classes := allClasses()
	var jobs []ptxasJob
	for i := 0; len(jobs) < count && i < 100*count; i++ {
		in := classes[rng.IntN(len(classes))]
		sp := SpaceFor(in)
		sp.U = []int{8, 16, 32}
		sp.ML, sp.NL = []int{16, 32, 64, 128}, []int{8, 16, 32, 64, 128}
		sp.Math = []Math{sp.Math[rng.IntN(len(sp.Math))]} // mma.sync or SIMT
		sp.Stages = []int{2, 3, 4}
		c, ok := sp.RandomLegal(rng, in, H100(), 3000)
		if !ok {
			continue
		}
		if c.PP = 1; Legal(c, in, H100()) == nil {
			jobs = append(jobs, ptxasJob{cfg: c, in: in})
		}
	}
	f64 := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: N, TransB: T, AlignA: 2, AlignB: 2, AlignC: 2}
	for _, s := range []string{
		"ms=2,ns=8,ml=128,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=6,math=mma_f64k8,pp=1",
		"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8,pp=1",
		"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=32,va=2,vb=2,st=6,math=mma_f64k8,pp=1",
	} {
		jobs = append(jobs, ptxasJob{cfg: mustParse(t, s), in: f64, heuristic: true})
	}
	// and the SIMT 8×8 and 4×8 thread tiles of the FP32 rows, without spills
	f32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: T, AlignA: 4, AlignB: 4, AlignC: 4}
	for _, s := range []string{
		"ms=8,ns=8,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,pp=1",
		"ms=4,ns=8,ml=64,nl=32,u=32,ks=1,kl=1,kg=1,kc=4,va=4,vb=4,st=2,math=ffma,pp=1",
	} {
		jobs = append(jobs, ptxasJob{cfg: mustParse(t, s), in: f32, heuristic: true})
	}
	// 8×16, the vendor's SIMT register blocking: 255 registers, the copies'
	// addresses spilled (Legal admits it)
	jobs = append(jobs, ptxasJob{cfg: mustParse(t, "ms=8,ns=16,ml=64,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=4,math=ffma,pp=1"), in: f32})
	runPTXAS(t, jobs, 0)
}

// A register cap (mr) holds: ptxas allocates at most that many registers
// per thread, the pipelined FP64 block keeps four blocks per SM (131
// registers uncapped), and an uncapped kernel's PTX has no .maxnreg.
func TestPTXASRegisterCap(t *testing.T) {
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	f64 := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: N, TransB: T, AlignA: 2, AlignB: 2, AlignC: 2}
	f32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: T, AlignA: 4, AlignB: 4, AlignC: 4}
	for _, tc := range []struct {
		cfg string
		in  InputClass
		cap int
	}{
		{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8,pp=1,mr=128", f64, 128},
		{"ms=4,ns=4,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,mr=64", f32, 64},
		{"ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8,pp=1", f64, 0},
	} {
		cfg := mustParse(t, tc.cfg)
		k, err := GenerateGemm(cfg, tc.in, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		if has := strings.Contains(k.PTX, "\n.maxnreg "); has != (tc.cap > 0) {
			t.Fatalf("%s: .maxnreg in the PTX: %v", tc.cfg, has)
		}
		rep, err := ptxas.Compile(k.PTX, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		f := rep.Functions[0]
		if tc.cap > 0 && f.Registers > tc.cap {
			t.Errorf("%s: %d registers above the cap %d", tc.cfg, f.Registers, tc.cap)
		}
		if regs := (f.Registers + 7) / 8 * 8; regs*k.Block[0] > 65536 {
			t.Errorf("%s: %d registers × %d threads exceed the register file", tc.cfg, f.Registers, k.Block[0])
		}
		t.Logf("%s: %d registers, %d/%d bytes spilled", tc.cfg, f.Registers, f.SpillStores, f.SpillLoads)
	}
}

// TestPTXASTMA assembles the tensor-copy (tma=1) twins of wgmma kernels of
// every 16-bit class whose tiles allow them (both operand majors, one to
// four warpgroups, several boxes per tile, grid and cluster splits): ptxas
// must neither fail nor spill, and each kernel's PTX must take the two
// tensor maps by value and copy with cp.async.bulk.tensor only.
func TestPTXASTMA(t *testing.T) {
	if !ptxasWGMMA(t) {
		t.Skip("this ptxas predates sm_90a: run scripts/fetch-ptxas.sh build/tools")
	}
	fixed := []string{
		"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4",
		"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3",
		"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=6",
		"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=5",
	}
	var jobs []ptxasJob
	for _, in := range allClasses() {
		if in.AType.Size() != 2 || in.AlignA != 8 || in.AlignB != 8 {
			continue
		}
		for _, m := range WarpgroupSpace(in).Math {
			for _, cs := range fixed {
				c := mustParse(t, cs+",math="+m.String()+",tma=1")
				if Legal(c, in, H100()) != nil {
					continue
				}
				k, err := GenerateGemm(c, in, "sm_90")
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(k.PTX, ".param .align 64 .b8 p_tmA[128]") || !strings.Contains(k.PTX, ".param .align 64 .b8 p_tmB[128]") ||
					!strings.Contains(k.PTX, "cp.async.bulk.tensor.2d") || strings.Contains(k.PTX, "cp.async.cg") || strings.Contains(k.PTX, "cp.async.ca") {
					t.Fatalf("%s %s: not a tensor-copy kernel", c, in)
				}
				jobs = append(jobs, ptxasJob{cfg: c, in: in, heuristic: true})
			}
		}
	}
	if len(jobs) < 20 {
		t.Fatalf("only %d TMA kernels", len(jobs))
	}
	if testing.Short() {
		jobs = jobs[:8]
	}
	runPTXAS(t, jobs, 0)
}
