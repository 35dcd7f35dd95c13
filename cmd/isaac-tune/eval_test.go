package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/isaacgo/isaac/request"
)

// The H100 evaluation's eval.csv gives back its 56 inputs, in order, with
// their types, layouts and alignments: another device is evaluated on the
// same inputs (eval -inputs).
func TestReadEvalInputs(t *testing.T) {
	bs, err := readEvalInputs("../../weights/results/eval/eval.csv")
	if err != nil {
		t.Fatal(err)
	}
	if len(bs) != 56 {
		t.Fatalf("%d inputs, want 56", len(bs))
	}
	first, last := bs[0], bs[len(bs)-1]
	if first.Type.Name != "sgemm" || first.TransA != request.OpN || first.TransB != request.OpN || first.Align != 4 || first.Shapes[0] != [3]int{3, 630, 16} {
		t.Errorf("first input %s %v %v align %d %v", first.Type.Name, first.TransA, first.TransB, first.Align, first.Shapes)
	}
	if last.Type.Name != "gemmex_f32_fasttf32" || last.TransA != request.OpT || last.TransB != request.OpT || last.Shapes[0] != [3]int{376, 88, 1000} {
		t.Errorf("last input %s %v %v %v", last.Type.Name, last.TransA, last.TransB, last.Shapes)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"header.csv": "m,n,k\n1,2,3\n",
		"type.csv":   "type,ta,tb,m,n,k,align_a\nzgemm,N,N,1,2,3,4\n",
		"dims.csv":   "type,ta,tb,m,n,k,align_a\nsgemm,N,N,0,2,3,4\n",
	} {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := readEvalInputs(p); err == nil {
			t.Errorf("%s: read without an error", name)
		}
	}
}
