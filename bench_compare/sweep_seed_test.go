package main

import (
	"os"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// Seeds come from a recorded sweep: the best and the heuristic's
// configuration of each input, keyed by data type, layout and shape.
func TestReadSeeds(t *testing.T) {
	f, err := os.Open("../results/h100/sweep/sweep-table4.csv")
	if err != nil {
		t.Skip("no recorded sweep:", err)
	}
	defer f.Close()
	seeds := seedSet{}
	if err := readSeeds(f, seeds); err != nil {
		t.Fatal(err)
	}
	if len(seeds) != 95 {
		t.Errorf("%d inputs, want the 95 of Table 4", len(seeds))
	}
	ica := seeds[seedKey{"s", "NT", 32, 32, 60000}]
	if len(ica) < 1 || len(ica) > 2 {
		t.Fatalf("ICA FP32 32²: %d seeds, want the best and the heuristic's", len(ica))
	}
	for _, c := range ica {
		if c.KG*max(1, c.KC) < 2 {
			t.Errorf("ICA FP32 32² seed %s does not split K", c)
		}
		in := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
		if err := ptx.Legal(c, in, ptx.H100()); err != nil {
			t.Errorf("seed %s: %v", c, err)
		}
	}
	if _, err := loadSeeds("../results/h100/sweep/sweep-table4.csv, ../results/h100/table4.csv"); err != nil {
		t.Error(err)
	}
	if _, err := loadSeeds("no/such.csv"); err == nil {
		t.Error("missing file: no error")
	}
}
