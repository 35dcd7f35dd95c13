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
