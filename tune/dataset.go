package tune

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/isaacgo/isaac/ptx"
)

// Sample is one measurement: a configuration's median time on an input,
// and the vendor's median time on the same input in the same process.
type Sample struct {
	Type                   string // a gemmcheck.Types name: sgemm, dgemm, hgemm, …
	TransA, TransB         byte   // 'N' or 'T'
	M, N, K                int
	AlignA, AlignB, AlignC int            // the input class's alignments, in elements
	Config                 ptx.GemmConfig // zero in a vendor-only row
	US                     float64        // median microseconds of ISAAC's kernel (split-K reduction included); 0 in a vendor-only row
	VendorUS               float64        // median microseconds of cuBLAS on the same buffers
}

// VendorOnly reports a row that times only the vendor (empty config).
func (s Sample) VendorOnly() bool { return s.Config == (ptx.GemmConfig{}) }

// GridSplit reports a row whose kernel splits K across blocks (KG > 1):
// its time includes the split-K workspace and the partial sums' fixup.
func (s Sample) GridSplit() bool { return s.Config.KG > 1 }

// WithoutGridSplits returns the samples without the configuration rows of
// grid-split kernels (GridSplit) and how many it left out; vendor-only rows
// and every row's vendor time stay. It is for data measured before a
// change to the split-K path: those rows time a kernel that no longer
// runs, and the vendor's times on the same inputs are still true.
func WithoutGridSplits(samples []Sample) ([]Sample, int) {
	out := make([]Sample, 0, len(samples))
	dropped := 0
	for _, s := range samples {
		if s.GridSplit() {
			dropped++
			s.Config, s.US = ptx.GemmConfig{}, 0 // keep the vendor's time
		}
		out = append(out, s)
	}
	return out, dropped
}

// WithoutMaths is WithoutGridSplits for the configuration rows whose
// kernels use one of maths: for data measured before a change to those
// kernels (the f64 fragment padding, say).
func WithoutMaths(samples []Sample, maths []ptx.Math) ([]Sample, int) {
	out := make([]Sample, 0, len(samples))
	dropped := 0
	for _, s := range samples {
		if !s.VendorOnly() && slices.Contains(maths, s.Config.Math) {
			dropped++
			s.Config, s.US = ptx.GemmConfig{}, 0 // keep the vendor's time
		}
		out = append(out, s)
	}
	return out, dropped
}

// Columns are the data set's CSV header.
var Columns = []string{"type", "ta", "tb", "m", "n", "k", "align_a", "align_b", "align_c", "config", "us", "vendor_us"}

func (s Sample) record() []string {
	i := strconv.Itoa
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', 6, 64) }
	cfg := ""
	if !s.VendorOnly() {
		cfg = s.Config.String()
	}
	return []string{s.Type, string(s.TransA), string(s.TransB), i(s.M), i(s.N), i(s.K),
		i(s.AlignA), i(s.AlignB), i(s.AlignC), cfg, f(s.US), f(s.VendorUS)}
}

func parseRecord(r []string) (Sample, error) {
	if len(r) != len(Columns) {
		return Sample{}, fmt.Errorf("%d fields, want %d", len(r), len(Columns))
	}
	var s Sample
	var err error
	ints := []*int{&s.M, &s.N, &s.K, &s.AlignA, &s.AlignB, &s.AlignC}
	for j, p := range ints {
		if *p, err = strconv.Atoi(r[3+j]); err != nil {
			return Sample{}, err
		}
	}
	if len(r[1]) != 1 || len(r[2]) != 1 {
		return Sample{}, fmt.Errorf("bad transposition %q %q", r[1], r[2])
	}
	s.Type, s.TransA, s.TransB = r[0], r[1][0], r[2][0]
	if r[9] != "" {
		if s.Config, err = ptx.ParseConfig(r[9]); err != nil {
			return Sample{}, err
		}
	}
	if s.US, err = strconv.ParseFloat(r[10], 64); err != nil {
		return Sample{}, err
	}
	if s.VendorUS, err = strconv.ParseFloat(r[11], 64); err != nil {
		return Sample{}, err
	}
	return s, nil
}

// A data set file is a sequence of zstd frames: the first holds '#'
// provenance lines and the CSV header, each later one a batch of rows
// (a resumed run starts with its own '#' lines). Appending is writing
// another frame, so a run that dies loses at most its unwritten batch.

// Writer appends batches of samples to a data set file.
type Writer struct {
	f *os.File
}

// Append opens (creating when needed) a GEMM data set file for appending.
// A new file gets provenance as '#' lines and the header; an existing one
// gets the provenance lines as a resumed run's record.
func Append(path string, provenance []string) (*Writer, error) {
	return appendFile(path, provenance, Columns)
}

// appendFile is Append of a data set whose header is columns.
func appendFile(path string, provenance, columns []string) (*Writer, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	w := &Writer{f: f}
	var b strings.Builder
	for _, l := range provenance {
		b.WriteString("# " + strings.ReplaceAll(l, "\n", " ") + "\n")
	}
	if st.Size() == 0 {
		b.WriteString(strings.Join(columns, ",") + "\n")
	}
	if err := w.frame([]byte(b.String())); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

func (w *Writer) frame(p []byte) error {
	enc, err := zstd.NewWriter(w.f, zstd.WithEncoderLevel(zstd.SpeedBetterCompression))
	if err != nil {
		return err
	}
	if _, err := enc.Write(p); err != nil {
		enc.Close()
		return err
	}
	if err := enc.Close(); err != nil {
		return err
	}
	return w.f.Sync()
}

// Write appends one batch as one frame.
func (w *Writer) Write(batch []Sample) error { return writeRows(w, batch) }

// writeRows appends a batch of rows as one frame.
func writeRows[R interface{ record() []string }](w *Writer, batch []R) error {
	if len(batch) == 0 {
		return nil
	}
	var b strings.Builder
	cw := csv.NewWriter(&b)
	for _, s := range batch {
		if err := cw.Write(s.record()); err != nil {
			return err
		}
	}
	cw.Flush()
	return w.frame([]byte(b.String()))
}

// Comment appends '#' lines (a run's closing figures) as one frame.
func (w *Writer) Comment(lines []string) error {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("# " + strings.ReplaceAll(l, "\n", " ") + "\n")
	}
	return w.frame([]byte(b.String()))
}

// Close closes the file.
func (w *Writer) Close() error { return w.f.Close() }

// Read reads a GEMM data set: its samples and its '#' lines (without "# ").
func Read(r io.Reader) ([]Sample, []string, error) { return readRows(r, Columns, parseRecord) }

// readRows reads a data set whose header is columns, each row by parse.
func readRows[R any](r io.Reader, columns []string, parse func([]string) (R, error)) ([]R, []string, error) {
	dec, err := zstd.NewReader(r)
	if err != nil {
		return nil, nil, err
	}
	defer dec.Close()
	var comments []string
	var out []R
	sc := bufio.NewScanner(dec)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		switch {
		case strings.HasPrefix(t, "#"):
			comments = append(comments, strings.TrimPrefix(strings.TrimPrefix(t, "#"), " "))
			continue
		case t == strings.Join(columns, ","), t == "":
			continue
		}
		rec, err := csv.NewReader(strings.NewReader(t)).Read()
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", line, err)
		}
		s, err := parse(rec)
		if err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", line, err)
		}
		out = append(out, s)
	}
	if err := sc.Err(); err != nil && !errors.Is(err, io.EOF) {
		return out, comments, err
	}
	return out, comments, nil
}

// ReadFile reads a GEMM data set file; a missing file is an empty data
// set.
func ReadFile(path string) ([]Sample, []string, error) { return readFile(path, Read) }

// readFile reads a data set file with read; a missing file is an empty
// data set.
func readFile[R any](path string, read func(io.Reader) ([]R, []string, error)) ([]R, []string, error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	return read(f)
}
