package engine

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
		in, err := classOfCase(tc.c)
		if err != nil {
			t.Fatal(err)
		}
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
