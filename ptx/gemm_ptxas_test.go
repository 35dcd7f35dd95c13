package ptx

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// PTXASJob is one kernel for RunPTXAS: a configuration of a class, and
// whether it is a heuristic's (then spills are limited).
type PTXASJob struct {
	Cfg       GemmConfig
	In        InputClass
	Heuristic bool
}

// runPTXAS compiles every job's kernels for sm_80 and sm_90 with 2 workers.
func runPTXAS(t *testing.T, jobs []PTXASJob, maxSpillHeuristic int) {
	t.Helper()
	if _, err := ptxas.Find(); err != nil {
		t.Skip("ptxas not found: run scripts/fetch-ptxas.sh build/tools")
	}
	type result struct {
		job PTXASJob
		log string
		err error
	}
	ch := make(chan PTXASJob)
	out := make(chan result)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				r := result{job: j}
				for _, arch := range []string{"sm_80", "sm_90"} {
					if arch == "sm_80" && j.Cfg.needsSM90() {
						continue
					}
					k, err := GenerateGemm(j.Cfg, j.In, arch)
					target := arch
					if j.Cfg.Math.IsWGMMA() {
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
						if j.Heuristic && f.SpillStores+f.SpillLoads > maxSpillHeuristic {
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
			t.Errorf("%s %s: %v", r.job.Cfg, r.job.In, r.err)
			continue
		}
		t.Logf("%s %s:%s", r.job.Cfg, r.job.In, r.log)
	}
	if n != len(jobs) {
		t.Fatalf("compiled %d of %d", n, len(jobs))
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

// A register cap (mr) holds: ptxas allocates at most that many registers
// per thread, and an uncapped kernel's PTX has no .maxnreg.
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
		{"ms=4,ns=4,ml=32,nl=32,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=dfma,pp=1,mr=128", f64, 128},
		{"ms=4,ns=4,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,mr=64", f32, 64},
		{"ms=4,ns=4,ml=32,nl=32,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=dfma,pp=1", f64, 0},
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
// every 16-bit class, and f32 one tf32 serves, whose tiles allow them (both operand majors, one to
// four warpgroups, several boxes per tile, grid and cluster splits): ptxas
// must neither fail nor spill, and each kernel's PTX must take the two
// tensor maps by value and copy with cp.async.bulk.tensor only.
func TestPTXASTMA(t *testing.T) {
	if !ptxasWGMMA(t) {
		t.Skip("this ptxas predates sm_90a: run scripts/fetch-ptxas.sh build/tools")
	}
	fixed := []string{
		"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,tma=1",
		"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3,tma=1",
		"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=6,tma=1",
		"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=5,tma=1",
	}
	// The producer-warp twins (tma=2): the staged GEMM epilogue and the
	// one-pass fixup behind the computing threads' own barrier.
	producerFixed := []string{
		"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,tma=2",
		"ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3,tma=2",
		"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=6,tma=2",
		// persistent (ps=1): the tiles walked by a grid of resident blocks
		"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,tma=2,ps=1",
		"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=6,tma=2,ps=1",
	}
	var jobs []PTXASJob
	for _, in := range Classes() {
		es := in.AType.Size()
		if (es != 2 && !(es == 4 && in.AllowTF32)) || in.AlignA*es != 16 || in.AlignB*es != 16 {
			continue
		}
		for _, m := range warpgroupMaths(in) {
			for _, cs := range append(fixed, producerFixed...) {
				c := mustParse(t, cs+",math="+m.String())
				c.VecA, c.VecB, c.U = 16/es, 16/es, c.U*2/es // 128-byte lines of k
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
				jobs = append(jobs, PTXASJob{Cfg: c, In: in, Heuristic: true})
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
