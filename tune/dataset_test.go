package tune

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

func TestDatasetAppendAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv.zst")
	cfg, err := ptx.ParseConfig("ms=4,ns=8,ml=128,nl=128,u=32,ks=1,kl=1,kg=3,kc=2,va=8,vb=4,st=3,math=mma_f16")
	if err != nil {
		t.Fatal(err)
	}
	a := Sample{Type: "hgemm", TransA: 'N', TransB: 'T', M: 100, N: 7, K: 4099, AlignA: 4, AlignB: 8, AlignC: 1, Config: cfg, US: 12.5, VendorUS: 9.25}
	b := a
	b.Type, b.M, b.US = "gemmex_bf16_f32", 3, 1234.5
	v := Sample{Type: "dgemm", TransA: 'T', TransB: 'N', M: 5, N: 6, K: 7, AlignA: 1, AlignB: 2, AlignC: 1, VendorUS: 4.5}
	w, err := Append(path, []string{"device: test", "run: 1"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]Sample{a}); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]Sample{b, a}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	// A resumed run appends its own provenance and rows.
	w, err = Append(path, []string{"run: 2"})
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]Sample{b, v}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	got, comments, err := ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []Sample{a, b, a, b, v}; !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v\nwant %+v", got, want)
	}
	if want := []string{"device: test", "run: 1", "run: 2"}; !reflect.DeepEqual(comments, want) {
		t.Errorf("comments %q, want %q", comments, want)
	}
	if !got[4].VendorOnly() || got[0].VendorOnly() {
		t.Error("vendor-only rows not told apart")
	}
	if s, _, err := ReadFile(filepath.Join(t.TempDir(), "missing")); err != nil || len(s) != 0 {
		t.Errorf("missing file: %v %v", s, err)
	}
}

// TestWithoutGridSplits: stale grid-split rows leave the configuration
// model's data and keep their cuBLAS time for the vendor model's; every
// other row is unchanged.
func TestWithoutGridSplits(t *testing.T) {
	parse := func(s string) ptx.GemmConfig {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	split := parse("ms=2,ns=2,ml=32,nl=32,u=32,ks=1,kl=1,kg=8,va=4,vb=4,st=3,math=mma_f16")
	inBlock := parse("ms=2,ns=2,ml=32,nl=32,u=32,ks=1,kl=4,kg=1,va=4,vb=4,st=3,math=mma_f16")
	rows := []Sample{
		{Type: "hgemm", TransA: 'N', TransB: 'N', M: 32, N: 32, K: 60000, AlignA: 8, AlignB: 8, AlignC: 8, Config: split, US: 14, VendorUS: 12},
		{Type: "hgemm", TransA: 'N', TransB: 'N', M: 32, N: 32, K: 60000, AlignA: 8, AlignB: 8, AlignC: 8, Config: inBlock, US: 30, VendorUS: 12},
		{Type: "dgemm", TransA: 'T', TransB: 'N', M: 5, N: 6, K: 7, AlignA: 1, AlignB: 1, AlignC: 1, VendorUS: 4.5},
	}
	got, n := WithoutGridSplits(rows)
	if n != 1 || len(got) != 3 {
		t.Fatalf("left out %d of %d rows, kept %d; want 1 left out, 3 kept", n, len(rows), len(got))
	}
	if !got[0].VendorOnly() || got[0].US != 0 || got[0].VendorUS != 12 || got[0].M != 32 || got[0].K != 60000 {
		t.Errorf("grid-split row became %+v, want a vendor-only row with its cuBLAS time", got[0])
	}
	if got[1] != rows[1] || got[2] != rows[2] {
		t.Errorf("other rows changed: %+v %+v", got[1], got[2])
	}
	if rows[0].Config != split {
		t.Error("the input slice was modified")
	}
	train, valid, test := ConfigMatrices(got)
	if train.N+valid.N+test.N != 1 {
		t.Errorf("configuration rows after: %d, want 1", train.N+valid.N+test.N)
	}
}

// TestWithoutMaths: configuration rows of the stale maths become vendor-only
// rows with their cuBLAS time; rows of other maths and vendor-only rows stay.
func TestWithoutMaths(t *testing.T) {
	parse := func(s string) ptx.GemmConfig {
		c, err := ptx.ParseConfig(s)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	f64 := parse("ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=mma_f64k8")
	simt := parse("ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=2,vb=2,st=3,math=dfma")
	rows := []Sample{
		{Type: "dgemm", TransA: 'N', TransB: 'T', M: 1024, N: 1024, K: 1024, AlignA: 2, AlignB: 2, AlignC: 2, Config: f64, US: 60, VendorUS: 43},
		{Type: "dgemm", TransA: 'N', TransB: 'T', M: 1024, N: 1024, K: 1024, AlignA: 2, AlignB: 2, AlignC: 2, Config: simt, US: 300, VendorUS: 43},
		{Type: "dgemm", TransA: 'T', TransB: 'N', M: 5, N: 6, K: 7, AlignA: 1, AlignB: 1, AlignC: 1, VendorUS: 4.5},
	}
	got, n := WithoutMaths(rows, []ptx.Math{ptx.MMA_F64, ptx.MMA_F64_K8, ptx.MMA_F64_K16})
	if n != 1 || len(got) != 3 {
		t.Fatalf("left out %d of %d rows, kept %d; want 1 left out, 3 kept", n, len(rows), len(got))
	}
	if !got[0].VendorOnly() || got[0].US != 0 || got[0].VendorUS != 43 {
		t.Errorf("stale row became %+v, want a vendor-only row with its cuBLAS time", got[0])
	}
	if got[1] != rows[1] || got[2] != rows[2] {
		t.Errorf("other rows changed: %+v %+v", got[1], got[2])
	}
}
