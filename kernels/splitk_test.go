package kernels

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// TestOnePassCases checks without a GPU that every case of the GPU one-pass
// split-K tests is legal for an H100 and really finishes in one pass, with
// two levels (a counter per group besides the tile's) for the cases that
// say so, so that the GPU tests test what they name.
func TestOnePassCases(t *testing.T) {
	twoLevel := 0
	for _, tc := range onePassCases {
		cfg, err := ptx.ParseConfig(tc.cfg)
		if err != nil {
			t.Fatal(err)
		}
		in := tc.c.Class()
		if err := ptx.Legal(cfg, in, ptx.H100()); err != nil {
			t.Errorf("%s %s: %v", tc.cfg, in, err)
			continue
		}
		k, err := ptx.GenerateGemm(cfg, in, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		n := k.Counters(tc.c.M, tc.c.N)
		tiles := (tc.c.M + cfg.ML - 1) / cfg.ML * ((tc.c.N + cfg.NL - 1) / cfg.NL)
		if k.Reduce != nil || n < tiles {
			t.Errorf("%s: not one pass (reduce kernel %v, %d counters for %d tiles)", tc.cfg, k.Reduce != nil, n, tiles)
		}
		if n > tiles {
			twoLevel++
		}
	}
	if twoLevel != 5 {
		t.Errorf("%d two-level cases, want 5", twoLevel)
	}
}

// diskCacheConfig is TestGPUDiskCache's configuration: 67 partial 64×64
// tiles are above the one-pass limit, and 67, a prime, has no groups for two
// levels, so it runs a GEMM kernel and its reduction kernel, two modules.
var diskCacheConfig = ptx.GemmConfig{MS: 4, NS: 4, ML: 64, NL: 64, U: 8, KS: 1, KL: 1, KG: 67, VecA: 1, VecB: 1, Stages: 1, Math: ptx.FFMA}

// TestDiskCacheCaseTwoPass: TestGPUDiskCache counts two modules, so its
// configuration must keep the reduction kernel.
func TestDiskCacheCaseTwoPass(t *testing.T) {
	cfg := diskCacheConfig
	in := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.N, AlignA: 1, AlignB: 1, AlignC: 1}
	k, err := ptx.GenerateGemm(cfg, in, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	if k.Reduce == nil {
		t.Fatal("no reduction kernel")
	}
}
