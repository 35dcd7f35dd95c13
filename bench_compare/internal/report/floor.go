package report

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strings"
)

// FloorRow is what the timer reads, on one input, for work that is not a
// GEMM at all: a kernel that only reads the input's compulsory bytes (A and
// B once, C once) and an empty timed region. The first is the floor of a
// memory-bound row as the benchmark's method measures it: the event pair's
// own cost, the launch, the ramp of a grid, and the bytes at the bandwidth
// a plain streaming kernel reaches. No GEMM of the input can be measured
// faster than about FloorUS; a target speed-up above vendor / FloorUS
// cannot be met.
type FloorRow struct {
	Suite, DType string
	M, N, K      int
	Layout       string
	Bytes        float64
	FloorUS      float64 // median time of the read kernel over Bytes
	EmptyUS      float64 // median time of an empty region (events only)
}

// GBs is the read kernel's bandwidth over the row's bytes.
func (r FloorRow) GBs() float64 { return r.Bytes / (r.FloorUS * 1e3) }

const floorHeader = "suite,dtype,m,n,k,layout,bytes,floor_us,floor_gbs,empty_us"

// WriteFloorCSV writes the floor rows with a header.
func WriteFloorCSV(w io.Writer, rows []FloorRow) error {
	if _, err := fmt.Fprintln(w, floorHeader); err != nil {
		return err
	}
	for _, r := range rows {
		gbs := r.GBs()
		if math.IsNaN(gbs) || math.IsInf(gbs, 0) {
			gbs = 0
		}
		if _, err := fmt.Fprintf(w, "%s,%s,%d,%d,%d,%s,%.0f,%.3f,%.1f,%.3f\n", r.Suite, r.DType,
			r.M, r.N, r.K, r.Layout, r.Bytes, r.FloorUS, gbs, r.EmptyUS); err != nil {
			return err
		}
	}
	return nil
}

// floorKey names an input in a floor CSV.
type floorKey struct {
	Suite, DType string
	M, N, K      int
	Layout       string
}

// floorTable maps inputs to their floors (microseconds).
type floorTable map[floorKey]float64

// of returns a row's floor, or 0 when the CSV has none for its input.
func (f floorTable) of(r Row) float64 {
	return f[floorKey{r.Suite, r.DType, r.M, r.N, r.K, r.Layout}]
}

// readFloorCSV reads what WriteFloorCSV wrote.
func readFloorCSV(r io.Reader) (floorTable, error) {
	cr := csv.NewReader(r)
	recs, err := cr.ReadAll()
	if err != nil {
		return nil, err
	}
	if len(recs) == 0 {
		return nil, fmt.Errorf("bench_compare: empty floor CSV")
	}
	if h := strings.Join(recs[0], ","); h != floorHeader {
		return nil, fmt.Errorf("bench_compare: not a floor CSV (header %q)", h)
	}
	f := floorTable{}
	for _, rec := range recs[1:] {
		var k floorKey
		var us float64
		if _, err := fmt.Sscanf(strings.Join([]string{rec[2], rec[3], rec[4], rec[7]}, " "), "%d %d %d %g", &k.M, &k.N, &k.K, &us); err != nil {
			return nil, fmt.Errorf("bench_compare: floor row %v: %w", rec, err)
		}
		k.Suite, k.DType, k.Layout = rec[0], rec[1], rec[5]
		f[k] = us
	}
	return f, nil
}
