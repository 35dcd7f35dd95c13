package report

import (
	"bufio"
	"bytes"
	"encoding/xml"
	"io"
	"math"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// The expectations below are written from the hand-made fixture
// testdata/recorded.csv (12 rows, 5 suites, 4 dtypes, two rows with the Alt
// "config"), not taken from the writers' output.

const baseHeader = "suite,op,dtype,m,n,k,layout,vendor_us,ours_us,speedup,roofline_us,roofline_pct,vendor_tflops,ours_tflops,config"

// fixtureSpeedups is the speedup column of the fixture, in row order.
var fixtureSpeedups = []float64{0.9554, 0.9205, 0.9161, 0.8799, 1.3820, 1.1572, 0.9354, 1.0754, 3.2266, 1.2742, 1.1442, 0.8546}

// fixtureSpeedupLabels are those speed-ups rounded to 2 decimals by hand.
var fixtureSpeedupLabels = []string{"0.96", "0.92", "0.92", "0.88", "1.38", "1.16", "0.94", "1.08", "3.23", "1.27", "1.14", "0.85"}

func readFixture(t *testing.T) ([]Row, []byte) {
	t.Helper()
	data, err := os.ReadFile("testdata/recorded.csv")
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadCSV(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("ReadCSV(fixture): %v", err)
	}
	if len(rows) != 12 {
		t.Fatalf("fixture has %d rows, want 12", len(rows))
	}
	return rows, data
}

func readFixtureEnv(t *testing.T) (Env, []byte) {
	t.Helper()
	data, err := os.ReadFile("testdata/recorded.env")
	if err != nil {
		t.Fatal(err)
	}
	e, err := readEnv(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("readEnv(fixture): %v", err)
	}
	return e, data
}

// withoutComments drops the lines starting with '#'.
func withoutComments(data []byte) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(string(data), "\n") {
		if !strings.HasPrefix(l, "#") {
			b.WriteString(l)
		}
	}
	return b.String()
}

func TestReadCSVFixture(t *testing.T) {
	rows, _ := readFixture(t)
	want0 := Row{
		Suite: "linpack", Op: "gemm", DType: "s", M: 2048, N: 2048, K: 2048, Layout: "NN",
		VendorUS: 355.2, OursUS: 371.8, Speedup: 0.9554, RooflineUS: 256.799,
		Config: "ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma",
		Flops:  2 * 2048 * 2048 * 2048,
	}
	if !reflect.DeepEqual(rows[0], want0) {
		t.Errorf("row 0 = %+v\nwant    %+v", rows[0], want0)
	}
	want8 := Row{
		Suite: "ica", Op: "gemm", DType: "s", M: 32, N: 32, K: 60000, Layout: "NT",
		VendorUS: 41.3, OursUS: 12.8, Speedup: 3.2266, RooflineUS: 4.58312,
		Config: "ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=1,kg=64,va=2,vb=2,st=2,math=ffma",
		Flops:  2 * 32 * 32 * 60000,
		Alt:    []Alt{{Name: "config", US: 14.1, Config: "ms=4,ns=4,ml=32,nl=32,u=8,ks=1,kl=1,kg=16,va=4,vb=4,st=2,math=ffma"}},
	}
	if !reflect.DeepEqual(rows[8], want8) {
		t.Errorf("row 8 = %+v\nwant    %+v", rows[8], want8)
	}
	nAlt := 0
	for i, r := range rows {
		if r.Speedup != fixtureSpeedups[i] {
			t.Errorf("row %d speedup %v, want %v", i, r.Speedup, fixtureSpeedups[i])
		}
		nAlt += len(r.Alt)
	}
	if nAlt != 2 || len(rows[9].Alt) != 1 || rows[9].Alt[0].US != 171.4 {
		t.Errorf("Alts: %d in all, row 9 %+v; want 2, one on row 9 at 171.4 µs", nAlt, rows[9].Alt)
	}
	if rows[2].DType != "sgemm-tf32" || rows[11].Suite != "lapack" || rows[11].K != 32 {
		t.Errorf("rows 2/11 misread: %+v / %+v", rows[2], rows[11])
	}
}

func TestCSVRoundTrip(t *testing.T) {
	rows, data := readFixture(t)
	var buf bytes.Buffer
	if err := writeCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	header, _, _ := strings.Cut(out, "\n")
	if want := baseHeader + ",config_us,config_speedup,config_config"; header != want {
		t.Errorf("header\n%s\nwant\n%s", header, want)
	}
	// The fixture is written in the canonical format, derived columns
	// included: writing what was read gives it back byte for byte.
	if want := withoutComments(data); out != want {
		t.Errorf("writeCSV(ReadCSV(fixture)) differs from the fixture:\n%s\nwant\n%s", out, want)
	}
	again, err := ReadCSV(strings.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	if len(again) != len(rows) {
		t.Fatalf("%d rows back, want %d", len(again), len(rows))
	}
	for i := range rows {
		if !reflect.DeepEqual(again[i], rows[i]) {
			t.Errorf("row %d after round trip\n%+v\nwant\n%+v", i, again[i], rows[i])
		}
	}
}

func TestCSVAltColumnsFirstSeenOrder(t *testing.T) {
	rows := []Row{
		{Suite: "a", Op: "gemm", DType: "s", M: 1, N: 2, K: 3, Layout: "NN", VendorUS: 10, OursUS: 5, Speedup: 2, RooflineUS: 1, Config: "c1", Flops: 12},
		{Suite: "a", Op: "gemm", DType: "s", M: 4, N: 5, K: 6, Layout: "TN", VendorUS: 8, OursUS: 10, Speedup: 0.8, RooflineUS: 2, Config: "c2", Flops: 240,
			Alt: []Alt{{Name: "model", US: 4, Config: "m,1"}}},
		{Suite: "b", Op: "gemm", DType: "d", M: 7, N: 8, K: 9, Layout: "TT", VendorUS: 3, OursUS: 3, Speedup: 1, RooflineUS: 0.5, Config: "c3", Flops: 1008,
			Alt: []Alt{{Name: "config", US: 2.5, Config: "x"}, {Name: "model", US: 6, Config: ""}}},
	}
	var buf bytes.Buffer
	if err := writeCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(buf.String(), "\n"), "\n")
	want := []string{
		baseHeader + ",model_us,model_speedup,model_config,config_us,config_speedup,config_config",
		// roofline_pct 100·1/5 = 20; TFLOP/s 12/10/1e6 and 12/5/1e6.
		"a,gemm,s,1,2,3,NN,10,5,2.0000,1,20.00,1.2e-06,2.4e-06,c1,,,,,,",
		// model speed-up 8/4 = 2; its configuration holds a comma, so it is quoted.
		"a,gemm,s,4,5,6,TN,8,10,0.8000,2,20.00,3e-05,2.4e-05,c2,4,2.0000,\"m,1\",,,",
		// model 3/6 = 0.5, config 3/2.5 = 1.2; columns in first-seen order, not row order.
		"b,gemm,d,7,8,9,TT,3,3,1.0000,0.5,16.67,0.000336,0.000336,c3,6,0.5000,,2.5,1.2000,x",
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("writeCSV:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	back, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	// Row 2's Alts come back in header order (model, config).
	rows[2].Alt = []Alt{{Name: "model", US: 6}, {Name: "config", US: 2.5, Config: "x"}}
	if !reflect.DeepEqual(back, rows) {
		t.Errorf("round trip\n%+v\nwant\n%+v", back, rows)
	}
}

func TestWriteCSVNoAlt(t *testing.T) {
	var buf bytes.Buffer
	if err := writeCSV(&buf, nil); err != nil {
		t.Fatal(err)
	}
	if buf.String() != baseHeader+"\n" {
		t.Errorf("empty CSV = %q", buf.String())
	}
	rows, err := ReadCSV(&buf)
	if err != nil || len(rows) != 0 {
		t.Errorf("ReadCSV(header only) = %v, %v", rows, err)
	}
}

func TestWriteCSVRejectsCollidingAltName(t *testing.T) {
	for _, name := range []string{"vendor", "ours", "roofline", ""} {
		rows := []Row{{Suite: "a", Alt: []Alt{{Name: name, US: 1}}}}
		if err := writeCSV(io.Discard, rows); err == nil {
			t.Errorf("Alt name %q accepted", name)
		}
	}
}

func TestReadCSVCommentsAndErrors(t *testing.T) {
	in := "# recorded by hand\n" + baseHeader + "\n# a comment between rows\n" +
		"x,gemm,h,1,1,1,NN,2,1,2.0000,0.5,50.00,1e-06,2e-06,cfg\n"
	rows, err := ReadCSV(strings.NewReader(in))
	if err != nil || len(rows) != 1 || rows[0].Suite != "x" || rows[0].Config != "cfg" || rows[0].Alt != nil {
		t.Errorf("ReadCSV with comments = %+v, %v", rows, err)
	}
	bad := map[string]string{
		"empty":          "",
		"comments only":  "# nothing\n",
		"missing column": "suite,op,dtype,m,n,k,layout,vendor_us,ours_us,speedup,config\n",
		"bad integer":    baseHeader + "\nx,gemm,h,1,two,1,NN,2,1,2,0.5,50,1,2,cfg\n",
		"bad float":      baseHeader + "\nx,gemm,h,1,1,1,NN,fast,1,2,0.5,50,1,2,cfg\n",
	}
	for name, in := range bad {
		if _, err := ReadCSV(strings.NewReader(in)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestEnvRoundTrip(t *testing.T) {
	e, data := readFixtureEnv(t)
	want := Env{
		Date: "2025-11-22T18:40:00Z", Device: "NVIDIA H100 80GB HBM3", DeviceKey: "h100", ComputeCap: "9.0",
		SMs: 132, SMClockMHz: 1980, MemClockMHz: 2619, BusWidthBits: 5120, L2Bytes: 52428800,
		Driver: "CUDA 13.0 driver API (13000)", CUBLAS: "130100", CUDNN: "not loaded", BandwidthGBs: 3352.32,
		PeakTFLOPs: map[string]float64{"fp16-tensor": 989.4, "fp32": 66.9, "fp64": 33.5, "fp64-tensor": 66.9, "tf32-tensor": 494.7},
		Method:     "median of 50 timed runs after 5 warm-ups, CUDA events, same buffers for both engines",
		Commit:     "32afd70",
	}
	if !reflect.DeepEqual(e, want) {
		t.Errorf("readEnv(fixture) =\n%+v\nwant\n%+v", e, want)
	}
	var buf bytes.Buffer
	if err := WriteEnv(&buf, e); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), withoutComments(data); got != want {
		t.Errorf("WriteEnv(readEnv(fixture)):\n%s\nwant\n%s", got, want)
	}

	// Awkward values survive too.
	odd := Env{
		Date: "", Device: "  padded: with colon ", Driver: "line1\nline2", CUBLAS: `"quoted"`,
		Method: "a: b: c", BandwidthGBs: 0.1 + 0.2, SMs: -1,
		PeakTFLOPs: map[string]float64{"z": 1e-300, "a": 123456789.123456789},
	}
	buf.Reset()
	if err := WriteEnv(&buf, odd); err != nil {
		t.Fatal(err)
	}
	back, err := readEnv(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(back, odd) {
		t.Errorf("odd Env round trip\n%#v\nwant\n%#v", back, odd)
	}
	if err := WriteEnv(io.Discard, Env{PeakTFLOPs: map[string]float64{"bad key": 1}}); err == nil {
		t.Error("a peak class with a space accepted")
	}
	if _, err := readEnv(strings.NewReader("sms: many\n")); err == nil {
		t.Error("sms: many accepted")
	}
	if _, err := readEnv(strings.NewReader("no colon here\n")); err == nil {
		t.Error("a line without a colon accepted")
	}
}

// handGeomean is the geometric mean computed as the n-th root of the product.
func handGeomean(xs []float64) float64 {
	p := 1.0
	for _, x := range xs {
		p *= x
	}
	return math.Pow(p, 1/float64(len(xs)))
}

func TestWriteMarkdown(t *testing.T) {
	rows, _ := readFixture(t)
	env, _ := readFixtureEnv(t)
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, "GEMM on H100", env, rows); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, s := range []string{
		"# GEMM on H100\n", "NVIDIA H100 80GB HBM3", "132 SMs", "SM clock 1980 MHz", "memory clock 2619 MHz",
		"CUDA 13.0 driver API (13000)", "cuBLAS 130100", "cuDNN not loaded", "2025-11-22T18:40:00Z",
		"median of 50 timed runs",
	} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q", s)
		}
	}
	header := "| suite | dtype | m | n | k | layout | cuBLAS µs | ISAAC µs | speed-up | ISAAC TFLOP/s | roofline µs | % of roofline (ISAAC) | config | config µs | config speed-up | config config |"
	var table []string
	for _, l := range strings.Split(md, "\n") {
		if strings.HasPrefix(l, "|") {
			table = append(table, l)
		}
	}
	if len(table) != 2+len(rows) {
		t.Fatalf("%d table lines, want header + separator + %d rows:\n%s", len(table), len(rows), md)
	}
	if table[0] != header {
		t.Errorf("header\n%s\nwant\n%s", table[0], header)
	}
	if n := strings.Count(table[1], "|"); n != 17 {
		t.Errorf("separator %q has %d pipes, want 17", table[1], n)
	}
	// One line per row, in order, with the speed-up in bold where ≥ 1.
	prefixes := []string{
		"| linpack | s | 2048 | 2048 | 2048 | NN | 355.20 | 371.80 | 0.96× | 46.21 | 256.80 | 69.1% | `ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma` | — | — | — |",
		"| linpack | d | 4096 | 4096 | 4096 | NN | 2210.50 | 2401.30 | 0.92× |",
		"| linpack | sgemm-tf32 | 8192 | 8192 | 8192 | NN | 2301.90 | 2512.60 | 0.92× |",
		"| deepbench-f | h | 5124 | 9124 | 2560 | NN | 412.60 | 468.90 | 0.88× |",
		"| deepbench-f | s | 1760 | 16 | 1760 | NN | 9.84 | 7.12 | **1.38×** |",
		"| deepbench-f | s | 2560 | 64 | 2560 | NN | 18.40 | 15.90 | **1.16×** |",
		"| deepbench-b | s | 1760 | 128 | 1760 | TN | 24.60 | 26.30 | 0.94× |",
		"| deepbench-b | h | 2560 | 7000 | 2560 | NT | 162.50 | 151.10 | **1.08×** |",
		// 2·32·32·60000 / 12.8 µs = 9.6 TFLOP/s; 100·4.58312/12.8 = 35.8%; Alt 41.3/14.1 = 2.93×.
		"| ica | s | 32 | 32 | 60000 | NT | 41.30 | 12.80 | **3.23×** | 9.60 | 4.58 | 35.8% | `ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=1,kg=64,va=2,vb=2,st=2,math=ffma` | 14.10 | **2.93×** | `ms=4,ns=4,ml=32,nl=32,u=8,ks=1,kl=1,kg=16,va=4,vb=4,st=2,math=ffma` |",
		"| ica | s | 256 | 256 | 60000 | NT | 201.70 | 158.30 | **1.27×** |",
		"| lapack | d | 896 | 896 | 128 | NT | 11.90 | 10.40 | **1.14×** |",
		"| lapack | d | 4096 | 4096 | 32 | NT | 38.20 | 44.70 | 0.85× |",
	}
	for i, p := range prefixes {
		l := table[2+i]
		if !strings.HasPrefix(l, p) {
			t.Errorf("row %d:\n%s\nwant prefix\n%s", i, l, p)
		}
		if fixtureSpeedups[i] < 1 && strings.Contains(l, "**") {
			t.Errorf("row %d (speed-up %v) has bold text: %s", i, fixtureSpeedups[i], l)
		}
	}
	if n := strings.Count(md, "× |") + strings.Count(md, "×** |"); n != len(rows)+2 {
		t.Errorf("%d speed-up cells, want %d rows + 2 Alts", n, len(rows))
	}

	geo := handGeomean(fixtureSpeedups)
	if math.Abs(geo-1.1353) > 5e-4 {
		t.Fatalf("hand geomean %v, expected about 1.1353", geo)
	}
	want := "Geometric mean of the speed-ups: **" + strconv.FormatFloat(geo, 'f', 2, 64) + "×** (12 rows measured); ISAAC ≥ 1.0× on 6 of 12 rows."
	if !strings.Contains(md, "Geometric mean of the speed-ups: **1.14×**") || !strings.Contains(md, want) {
		t.Errorf("markdown lacks %q:\n%s", want, md)
	}
}

func TestWriteMarkdownEscapes(t *testing.T) {
	rows := []Row{{Suite: "a|b", DType: "s", M: 1, N: 1, K: 1, Layout: "NN", VendorUS: 1, OursUS: 1, Speedup: 1, Config: "x|y"}}
	var buf bytes.Buffer
	if err := writeMarkdown(&buf, "t", Env{Device: "dev_1*"}, rows); err != nil {
		t.Fatal(err)
	}
	md := buf.String()
	for _, s := range []string{`a\|b`, "`x\\|y`", `dev\_1\*`} {
		if !strings.Contains(md, s) {
			t.Errorf("markdown lacks %q:\n%s", s, md)
		}
	}
}

// svgElem is one element of an SVG document.
type svgElem struct {
	name  string
	attrs map[string]string
	text  string
}

// parseSVG decodes every token of doc and lists its elements with their
// direct character data.
func parseSVG(t *testing.T, doc []byte) []svgElem {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(doc))
	var elems []svgElem
	var stack []int
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v", err)
		}
		switch tk := tok.(type) {
		case xml.StartElement:
			e := svgElem{name: tk.Name.Local, attrs: map[string]string{}}
			for _, a := range tk.Attr {
				e.attrs[a.Name.Local] = a.Value
			}
			elems = append(elems, e)
			stack = append(stack, len(elems)-1)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				elems[stack[len(stack)-1]].text += string(tk)
			}
		}
	}
	if len(stack) != 0 {
		t.Fatal("SVG has unclosed elements")
	}
	return elems
}

func hasClass(e svgElem, c string) bool {
	for _, f := range strings.Fields(e.attrs["class"]) {
		if f == c {
			return true
		}
	}
	return false
}

func renderSVG(t *testing.T, title string, env Env, rows []Row) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := writeSVG(&buf, title, env, rows); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestWriteSVG(t *testing.T) {
	rows, _ := readFixture(t)
	env, _ := readFixtureEnv(t)
	title := "GEMM <H100> & cuBLAS"
	doc := renderSVG(t, title, env, rows)
	if !bytes.Equal(doc, renderSVG(t, title, env, rows)) {
		t.Error("two calls gave different bytes")
	}
	if !bytes.Contains(doc, []byte("GEMM &lt;H100&gt; &amp; cuBLAS")) {
		t.Error("title not escaped")
	}
	elems := parseSVG(t, doc)
	if elems[0].name != "svg" {
		t.Fatalf("root element %q", elems[0].name)
	}

	var bars []svgElem
	var roofs, speedups, titles, subtitles, axis []svgElem
	for _, e := range elems {
		switch {
		case hasClass(e, "bar"):
			bars = append(bars, e)
		case hasClass(e, "roofline"):
			roofs = append(roofs, e)
		case hasClass(e, "speedup"):
			speedups = append(speedups, e)
		case hasClass(e, "title"):
			titles = append(titles, e)
		case hasClass(e, "subtitle"):
			subtitles = append(subtitles, e)
		case hasClass(e, "axis-label"):
			axis = append(axis, e)
		}
	}
	// 12 rows × 2 bars + one bar for each of the 2 Alts.
	if len(bars) != 26 {
		t.Errorf("%d bars, want 26", len(bars))
	}
	alts := 0
	for _, b := range bars {
		if hasClass(b, "alt") {
			alts++
		}
	}
	if alts != 2 {
		t.Errorf("%d Alt bars, want 2", alts)
	}
	if len(roofs) != 12 {
		t.Errorf("%d roofline marks, want 12", len(roofs))
	}
	if len(titles) != 1 || titles[0].text != title {
		t.Errorf("title elements %+v", titles)
	}
	if len(subtitles) != 1 || !strings.Contains(subtitles[0].text, "NVIDIA H100 80GB HBM3") ||
		!strings.Contains(subtitles[0].text, "cuBLAS 130100") || !strings.Contains(subtitles[0].text, "2025-11-22") {
		t.Errorf("subtitle %+v", subtitles)
	}
	if !bytes.Contains(doc, []byte(">roofline</text>")) {
		t.Error("no roofline legend entry")
	}
	// The rates span 2.98 (ica 32x32x60000, cuBLAS) to 607 TFLOP/s: > 50×.
	if len(axis) != 1 || axis[0].text != "TFLOP/s (log scale)" {
		t.Errorf("axis label %+v, want the log scale", axis)
	}

	if len(speedups) != len(rows) {
		t.Fatalf("%d speed-up labels, want %d", len(speedups), len(rows))
	}
	for i, s := range speedups {
		if want := fixtureSpeedupLabels[i] + "×"; s.text != want {
			t.Errorf("speed-up label %d = %q, want %q", i, s.text, want)
		}
		wantColor := svgLossColor
		if fixtureSpeedups[i] >= 1 {
			wantColor = svgWinColor
		}
		if s.attrs["fill"] != wantColor {
			t.Errorf("speed-up label %d colored %s, want %s", i, s.attrs["fill"], wantColor)
		}
	}

	// Bars come per row as cuBLAS, ISAAC, then the Alts: where ISAAC is
	// faster its bar is taller.
	k := 0
	for i, r := range rows {
		v, o := bars[k], bars[k+1]
		if !hasClass(v, "vendor") || !hasClass(o, "ours") {
			t.Fatalf("row %d: bars %q, %q", i, v.attrs["class"], o.attrs["class"])
		}
		hv, _ := strconv.ParseFloat(v.attrs["height"], 64)
		ho, _ := strconv.ParseFloat(o.attrs["height"], 64)
		if (r.Speedup > 1) != (ho > hv) {
			t.Errorf("row %d speed-up %v but bar heights cuBLAS %v, ISAAC %v", i, r.Speedup, hv, ho)
		}
		k += 2 + len(r.Alt)
	}

	// Input labels, and each suite named once under its inputs (the rows
	// mix dtypes, so the labels name them).
	var inputs []string
	suites := map[string]int{}
	for _, e := range elems {
		if hasClass(e, "input") {
			inputs = append(inputs, e.text)
		}
		if hasClass(e, "suite-name") {
			suites[e.text]++
		}
	}
	if len(inputs) != 12 || inputs[0] != "2048x2048x2048 NN s" || inputs[8] != "32x32x60000 NT s" {
		t.Errorf("input labels %q", inputs)
	}
	if !reflect.DeepEqual(suites, map[string]int{"linpack": 1, "deepbench-f": 1, "deepbench-b": 1, "ica": 1, "lapack": 1}) {
		t.Errorf("suite names %v", suites)
	}
}

func TestWriteSVGLinearAndWidth(t *testing.T) {
	rows, _ := readFixture(t)
	// The two linpack s/d rows: 46.2 to 66.9 TFLOP/s, a linear axis.
	lin := rows[:2]
	elems := parseSVG(t, renderSVG(t, "lin", Env{}, lin))
	bars, ticks := 0, 0
	for _, e := range elems {
		if hasClass(e, "axis-label") && e.text != "TFLOP/s" {
			t.Errorf("axis label %q, want the linear TFLOP/s", e.text)
		}
		if hasClass(e, "bar") {
			bars++
		}
		if hasClass(e, "tick") {
			ticks++
			if e.text == "0" {
				ticks += 100 // a linear axis starts at 0
			}
		}
	}
	if bars != 4 || ticks < 103 {
		t.Errorf("linear plot: %d bars, tick score %d", bars, ticks)
	}

	width := func(rows []Row) float64 {
		w, err := strconv.ParseFloat(parseSVG(t, renderSVG(t, "w", Env{}, rows))[0].attrs["width"], 64)
		if err != nil {
			t.Fatal(err)
		}
		return w
	}
	var many []Row
	for i := 0; i < 3; i++ {
		many = append(many, rows...)
	}
	if w12, w36 := width(rows), width(many); !(w36 >= w12+24*40) {
		t.Errorf("width for 12 rows %v, for 36 rows %v: want at least 40 px more per input", w12, w36)
	}

	// No rows still makes a valid document.
	parseSVG(t, renderSVG(t, "", Env{}, nil))
}

func TestGeomean(t *testing.T) {
	cases := []struct {
		xs   []float64
		want float64
	}{
		{[]float64{4}, 4},
		{[]float64{1, 4}, 2},
		{[]float64{2, 8}, 4},
		{[]float64{1, 3, 9}, 3},
		{[]float64{0.5, 2}, 1},
		{[]float64{2, 0, -5, 8, math.NaN()}, 4}, // non-positive values ignored
	}
	for _, c := range cases {
		if got := geomean(c.xs); math.Abs(got-c.want) > 1e-12*c.want {
			t.Errorf("geomean(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
	for _, xs := range [][]float64{nil, {}, {0, -1}} {
		if !math.IsNaN(geomean(xs)) {
			t.Errorf("geomean(%v) is not NaN", xs)
		}
	}
	in := []float64{3, 1, 2}
	geomean(in)
	if !reflect.DeepEqual(in, []float64{3, 1, 2}) {
		t.Errorf("geomean modified its input: %v", in)
	}
	if got, want := geomean(fixtureSpeedups), handGeomean(fixtureSpeedups); math.Abs(got-want) > 1e-12 {
		t.Errorf("geomean(fixture) = %v, product root %v", got, want)
	}
}

// columnStarts are the offsets where a cell starts in a line of the table:
// a non-space after two spaces, or the line start.
func columnStarts(line string) []int {
	var s []int
	for i := 0; i < len(line); i++ {
		if line[i] != ' ' && (i == 0 || i >= 2 && line[i-1] == ' ' && line[i-2] == ' ') {
			s = append(s, i)
		}
	}
	return s
}

func TestWriteTable(t *testing.T) {
	rows, _ := readFixture(t)
	var buf bytes.Buffer
	WriteTable(&buf, rows)
	var lines []string
	sc := bufio.NewScanner(&buf)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if len(lines) != 1+len(rows)+1 {
		t.Fatalf("%d lines, want header + %d rows + geomean:\n%s", len(lines), len(rows), strings.Join(lines, "\n"))
	}
	head := []string{"suite", "dtype", "m", "n", "k", "layout", "vendor_us", "ours_us", "speedup", "roofline%", "config_us", "config_speedup", "config"}
	if got := strings.Fields(lines[0]); !reflect.DeepEqual(got, head) {
		t.Fatalf("header fields %q, want %q", got, head)
	}
	starts := columnStarts(lines[0])
	if len(starts) != len(head) {
		t.Fatalf("header column starts %v", starts)
	}
	cellsOf := func(l string) []string {
		var c []string
		for j, s := range starts {
			end := len(l)
			if j+1 < len(starts) {
				end = min(starts[j+1], len(l))
			}
			c = append(c, strings.TrimSpace(l[s:end]))
		}
		return c
	}
	for i, l := range lines[:1+len(rows)] {
		for j, s := range starts {
			if len(l) <= s || l[s] == ' ' || (s > 0 && l[s-1] != ' ') {
				t.Errorf("line %d: column %d does not start at offset %d:\n%s\n%s", i, j, s, lines[0], l)
			}
		}
	}
	// Roofline % of row 0: 100·256.799/371.8 = 69.07; of row 8: 100·4.58312/12.8 = 35.81.
	want0 := []string{"linpack", "s", "2048", "2048", "2048", "NN", "355.20", "371.80", "0.96x", "69.1", "-", "-",
		"ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma"}
	want8 := []string{"ica", "s", "32", "32", "60000", "NT", "41.30", "12.80", "3.23x", "35.8", "14.10", "2.93x",
		"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=1,kg=64,va=2,vb=2,st=2,math=ffma"}
	if got := cellsOf(lines[1]); !reflect.DeepEqual(got, want0) {
		t.Errorf("row 0 cells %q\nwant %q", got, want0)
	}
	if got := cellsOf(lines[9]); !reflect.DeepEqual(got, want8) {
		t.Errorf("row 8 cells %q\nwant %q", got, want8)
	}
	last := lines[len(lines)-1]
	if !strings.Contains(last, "geomean speedup 1.14x") || !strings.Contains(last, "6 of 12") {
		t.Errorf("geomean line %q", last)
	}
}

// Reporting an extra column puts its times and configurations in ISAAC's
// place, with the speed-ups against the same vendor times; a row without
// the column is an error.
func TestAsColumn(t *testing.T) {
	rows := []Row{
		{Suite: "linpack", DType: "s", M: 512, N: 512, K: 512, VendorUS: 20, OursUS: 40, Speedup: 0.5, Config: "heuristic",
			Alt: []Alt{{Name: "model", US: 25, Config: "m"}, {Name: "dispatch", US: 10, Config: "cuBLAS (predicted)"}}},
	}
	got, err := asColumn(rows, "dispatch")
	if err != nil {
		t.Fatal(err)
	}
	if r := got[0]; r.OursUS != 10 || r.Speedup != 2 || r.Config != "cuBLAS (predicted)" || len(r.Alt) != 0 || r.VendorUS != 20 {
		t.Errorf("dispatch column: %+v", r)
	}
	if rows[0].OursUS != 40 || len(rows[0].Alt) != 2 {
		t.Error("the rows given were changed")
	}
	if _, err := asColumn(rows, "sweep"); err == nil {
		t.Error("a missing column was reported")
	}
}
