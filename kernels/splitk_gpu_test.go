package kernels

import (
	"slices"
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
)

// onePassCases are grid splits that finish in the GEMM kernel (the last
// block of each tile sums the partials): vector and element-by-element
// fixups (M % 4), f64, 16-bit C, a thread-block cluster on top of the grid
// split, a KL split whose group is whole warps, transposed operands and
// beta ≠ 0; the last five sum over two levels (groups of slices first).
var onePassCases = []struct {
	cfg string
	c   gemmcheck.Case
}{
	{"ms=4,ns=4,ml=64,nl=32,u=16,ks=1,kl=1,kg=6,va=4,vb=4,st=3,math=ffma",
		gemmcheck.Case{Type: gemmcheck.Types[0], M: 1000, N: 37, K: 5000, Alpha: 1, Beta: 0.5, Seed: 21}},
	{"ms=4,ns=4,ml=64,nl=32,u=16,ks=1,kl=1,kg=6,va=1,vb=1,st=3,math=ffma",
		gemmcheck.Case{Type: gemmcheck.Types[0], TransA: 1, M: 999, N: 37, K: 4999, Alpha: -1, Beta: 0, Seed: 22}},
	{"ms=2,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=4,va=2,vb=1,st=3,math=mma_f64k8",
		gemmcheck.Case{Type: gemmcheck.Types[2], M: 250, N: 66, K: 3001, Alpha: 1, Beta: 2, Seed: 23}},
	{"ms=4,ns=1,ml=128,nl=16,u=32,ks=1,kl=1,kg=8,va=8,vb=8,st=3,math=mma_f16acc",
		gemmcheck.Case{Type: gemmcheck.Types[3], M: 2560, N: 16, K: 2560, Alpha: 1, Beta: 0, Seed: 24}},
	{"ms=4,ns=1,ml=128,nl=16,u=32,ks=1,kl=1,kg=3,kc=4,va=8,vb=8,st=3,math=mma_f16",
		gemmcheck.Case{Type: gemmcheck.Types[4], M: 2560, N: 20, K: 2560, Alpha: 1, Beta: 1, Seed: 25}},
	{"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=2,kg=8,va=1,vb=1,st=1,math=ffma",
		gemmcheck.Case{Type: gemmcheck.Types[0], TransA: 1, M: 33, N: 17, K: 4099, Alpha: 1, Beta: 0, Seed: 26}},
	{"ms=2,ns=2,ml=64,nl=32,u=32,ks=1,kl=1,kg=5,va=1,vb=1,st=1,math=mma_bf16",
		gemmcheck.Case{Type: gemmcheck.Types[5], TransB: 1, M: 203, N: 77, K: 7777, Alpha: 0.5, Beta: 0.25, Seed: 27}},
	{"ms=4,ns=4,ml=32,nl=32,u=16,ks=1,kl=1,kg=256,va=4,vb=4,st=3,math=ffma", // 16 groups of 16
		gemmcheck.Case{Type: gemmcheck.Types[0], TransB: 1, M: 64, N: 48, K: 60001, Alpha: 1, Beta: 0.5, Seed: 28}},
	{"ms=1,ns=2,ml=32,nl=32,u=32,ks=1,kl=1,kg=128,va=8,vb=8,st=3,math=mma_f16", // 8 groups of 16
		gemmcheck.Case{Type: gemmcheck.Types[4], TransB: 1, M: 32, N: 32, K: 60000, Alpha: 1, Beta: 0, Seed: 29}},
	{"ms=4,ns=1,ml=128,nl=16,u=32,ks=1,kl=1,kg=48,kc=4,va=8,vb=8,st=3,math=mma_f16", // clusters, 6 groups of 8
		gemmcheck.Case{Type: gemmcheck.Types[4], M: 320, N: 20, K: 12000, Alpha: -1, Beta: 1, Seed: 30}},
	{"ms=2,ns=4,ml=32,nl=32,u=16,ks=1,kl=1,kg=64,va=2,vb=1,st=3,math=mma_f64k8", // f64, 8 groups of 8
		gemmcheck.Case{Type: gemmcheck.Types[2], M: 130, N: 70, K: 9000, Alpha: 1, Beta: 2, Seed: 31}},
	{"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=1,kg=100,va=1,vb=1,st=1,math=ffma", // 10 groups of 10, M % 4 ≠ 0
		gemmcheck.Case{Type: gemmcheck.Types[0], TransA: 1, M: 33, N: 17, K: 40001, Alpha: 1, Beta: 0, Seed: 32}},
}

// TestGPUOnePassSplitK runs each one-pass case five times: every run must
// match the exact reference within the vendor's error bound and be
// bit-identical to the first (the arrival order changes from run to run,
// the order of the additions must not), which also shows that each launch
// leaves the stream's counters zero for the next.
func TestGPUOnePassSplitK(t *testing.T) {
	gemmcheck.GPUThread(t)
	for _, tc := range onePassCases {
		cfg, err := ptx.ParseConfig(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		in := tc.c.Class()
		k, err := ptx.GenerateGemm(cfg, in, "sm_90")
		if err != nil {
			t.Fatalf("%s %s: %v", tc.cfg, in, err)
		}
		if n := k.Counters(tc.c.M, tc.c.N); k.Reduce != nil || n == 0 {
			t.Fatalf("%s: not a one-pass split (reduce kernel %v, %d counters)", tc.cfg, k.Reduce != nil, n)
		}
		d := gemmcheck.NewData(tc.c)
		b, err := gemmcheck.Upload(tc.c, d)
		if err != nil {
			t.Fatal(err)
		}
		var first []float64
		for run := 0; run < 5; run++ {
			if err := b.ResetC(); err != nil {
				t.Fatal(err)
			}
			if err := testRT.Gemm(b.Request(0), cfg); err != nil {
				t.Fatalf("%s %s: %v", tc.cfg, in, err)
			}
			got, err := b.ReadC(0)
			if err != nil {
				t.Fatal(err)
			}
			if r := d.Check(tc.c, got); r.Bad > 0 {
				t.Errorf("%s %s %d×%d×%d run %d: %d wrong, first %s", tc.cfg, in, tc.c.M, tc.c.N, tc.c.K, run, r.Bad, r.FirstBad)
				break
			}
			if first == nil {
				first = got
			} else if !slices.Equal(first, got) {
				t.Errorf("%s %s: run %d differs from run 0", tc.cfg, in, run)
				break
			}
		}
		b.Free()
		t.Logf("%s %s %d×%d×%d: 5 runs, exact and identical", tc.cfg, in, tc.c.M, tc.c.N, tc.c.K)
	}
}
