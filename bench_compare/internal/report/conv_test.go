package report

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Convolution rows: named after their layers in the CSV (read back), the
// tables and the plots, compared with cuDNN, and a row ISAAC does not serve
// (no time of ours) is a dash, not a speed-up.
func TestConvRows(t *testing.T) {
	rows := []Row{
		{Suite: "table5", Op: "conv", Name: "conv1", DType: "h_pseudo", M: 431024, N: 32, K: 100, Layout: "nchw",
			VendorUS: 355, OursUS: 122, Speedup: 355.0 / 122, RooflineUS: 20, Config: "ms=4,ns=2",
			Alt: []Alt{{Name: "cudnn_v7", US: 360, Config: "algo 1"}}},
		{Suite: "cnn", Op: "conv", Name: "mobilenet-dw-3x3-n1", DType: "h_pseudo", M: 3136, N: 128, K: 9, Layout: "nhwc",
			VendorUS: 10, OursUS: math.NaN(), Speedup: math.NaN(), Config: "not served: unsupported"},
	}
	var buf bytes.Buffer
	if err := writeCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	back, err := ReadCSV(&buf)
	if err != nil || len(back) != 2 || back[0].Name != "conv1" || back[1].Name != "mobilenet-dw-3x3-n1" || !math.IsNaN(back[1].OursUS) {
		t.Fatalf("read back %+v, %v", back, err)
	}
	dir := t.TempDir()
	env := Env{Device: "GPU", CUBLAS: "13", CUDNN: "9.14.0 (91400)"}
	if err := WriteSuite(dir, "table5", env, rows); err != nil {
		t.Fatal(err)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "table5.md"))
	svg, _ := os.ReadFile(filepath.Join(dir, "table5.svg"))
	for _, want := range []string{"ISAAC vs cuDNN", "cuDNN µs", "mobilenet-dw-3x3-n1"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("table5.md lacks %q", want)
		}
	}
	if !strings.Contains(string(svg), "cuDNN 9.14.0") || !strings.Contains(string(svg), ">conv1 nchw<") || strings.Contains(string(svg), "cuBLAS") {
		t.Errorf("table5.svg does not name cuDNN and the layers")
	}
	var table bytes.Buffer
	WriteTable(&table, rows)
	if !strings.Contains(table.String(), "2.91x") || !strings.Contains(table.String(), "over 1 measured rows") {
		t.Errorf("table:\n%s", table.String())
	}
}
