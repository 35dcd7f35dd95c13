package tune

import (
	"path/filepath"
	"reflect"
	"testing"
)

// Convolution samples of every path round-trip through a data set file
// appended by two runs; malformed rows are refused with their line.
func TestConvDatasetAppendAndRead(t *testing.T) {
	path := filepath.Join(t.TempDir(), "conv.csv.zst")
	a := ConvSample{Type: "pseudo_half", Math: 1, Layout: "nhwc", N: 8, C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, G: 1, Pad: 1, Stride: 1, Dil: 1,
		Path: PathImplicit, AlignA: 8, AlignB: 8, Config: "ms=1,ns=8,ml=128,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1",
		US: 12.5, VendorV7US: 14.25, VendorBestUS: 13}
	b := ConvSample{Type: "float", Math: 3, Layout: "nchw", Flip: true, N: 1, C: 96, H: 14, W: 9, K: 96, R: 5, S: 5, G: 96, Pad: 2, Stride: 2, Dil: 1,
		Path: PathDirect, AlignA: 4, Config: "direct t128 q2 r4", US: 3.5, VendorV7US: 20, VendorBestUS: 7.5}
	c := a
	c.Path, c.Layout, c.Config = PathNHWCCopies, "nchw", "ms=1,ns=16,ml=128,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_f16"
	v := ConvSample{Type: "double", Math: 0, Layout: "nchw", N: 2, C: 3, H: 7, W: 7, K: 5, R: 1, S: 1, G: 1, Stride: 1, Dil: 1, VendorV7US: 4, VendorBestUS: 4}
	for run, rows := range [][]ConvSample{{a, b}, {c, v}} {
		w, err := AppendConv(path, []string{"run: " + string(rune('1'+run))})
		if err != nil {
			t.Fatal(err)
		}
		if err := w.WriteConv(rows); err != nil {
			t.Fatal(err)
		}
		w.Close()
	}
	got, comments, err := ReadConvFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if want := []ConvSample{a, b, c, v}; !reflect.DeepEqual(got, want) {
		t.Errorf("read %+v\nwant %+v", got, want)
	}
	if want := []string{"run: 1", "run: 2"}; !reflect.DeepEqual(comments, want) {
		t.Errorf("comments %q, want %q", comments, want)
	}
	if !got[3].VendorOnly() || got[1].VendorOnly() {
		t.Error("vendor-only rows not told apart")
	}
	for _, bad := range []ConvSample{
		func() ConvSample { s := a; s.Type = "half"; return s }(),
		func() ConvSample { s := a; s.Layout = "chwn"; return s }(),
		func() ConvSample { s := a; s.Path = "winograd"; return s }(),
		func() ConvSample { s := a; s.Config = "direct t128 q2"; return s }(),
		func() ConvSample { s := b; s.Config = "ms=1"; return s }(),
		func() ConvSample { s := v; s.Config = "direct t128 q2"; return s }(),
	} {
		p := filepath.Join(t.TempDir(), "bad.csv.zst")
		w, err := AppendConv(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		w.WriteConv([]ConvSample{bad})
		w.Close()
		if _, _, err := ReadConvFile(p); err == nil {
			t.Errorf("%+v read back", bad)
		}
	}
	// A GEMM data set is not a convolution one.
	g := filepath.Join(t.TempDir(), "gemm.csv.zst")
	w, _ := Append(g, nil)
	w.Write([]Sample{{Type: "sgemm", TransA: 'N', TransB: 'N', M: 1, N: 1, K: 1, AlignA: 1, AlignB: 1, AlignC: 1, VendorUS: 1}})
	w.Close()
	if _, _, err := ReadConvFile(g); err == nil {
		t.Error("a GEMM data set read as convolutions")
	}
}

// Rows of the NHWC-copies and direct paths in a data set measured before
// the fix (no ConvLaunchOnly on every method line) keep only cuDNN's
// times; a launch-only data set is left as it is.
func TestWithoutHostTimed(t *testing.T) {
	rows := []ConvSample{
		{Type: "float", Path: PathImplicit, Config: "a", US: 5, VendorV7US: 7, VendorBestUS: 6},
		{Type: "float", Path: PathNHWCCopies, AlignA: 4, AlignB: 4, Config: "b", US: 300, VendorV7US: 7, VendorBestUS: 6},
		{Type: "float", G: 4, Path: PathDirect, AlignA: 4, Config: "direct t64 q1", US: 200, VendorV7US: 9, VendorBestUS: 8},
	}
	old := []string{"run: isaac-tune sample-conv", "method: CUDA events"}
	got, changed := WithoutHostTimed(rows, old)
	if changed != 2 || got[0] != rows[0] {
		t.Fatalf("changed %d rows: %+v", changed, got)
	}
	for _, s := range got[1:] {
		if !s.VendorOnly() || s.US != 0 || s.Config != "" || s.VendorV7US == 0 || s.VendorBestUS == 0 {
			t.Errorf("not vendor-only with cuDNN's times: %+v", s)
		}
	}
	if rows[1].Path != PathNHWCCopies {
		t.Error("the caller's rows were changed")
	}
	mixed := append(old, "method: CUDA events; "+ConvLaunchOnly)
	if _, changed := WithoutHostTimed(rows, mixed); changed != 2 {
		t.Errorf("a file with one run before the fix: %d rows changed", changed)
	}
	if got, changed := WithoutHostTimed(rows, []string{"method: CUDA events; " + ConvLaunchOnly}); changed != 0 || len(got) != 3 || got[1] != rows[1] {
		t.Errorf("a launch-only data set changed: %d rows", changed)
	}
}
