package main

import (
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/isaacgo/isaac/internal/cuda"
)

// FloorRow is what the timer reads, on one input, for work that is not a
// GEMM at all: a kernel that only reads the input's compulsory bytes (A and
// B once, C once: Work with beta = 0) and an empty timed region. The first is
// the floor of a memory-bound row as this method measures it: the event
// pair's own cost, the launch, the ramp of a grid, and the bytes at the
// bandwidth a plain streaming kernel reaches. No GEMM of the input can be
// measured faster than about FloorUS; a target speed-up above
// vendor / FloorUS cannot be met.
type FloorRow struct {
	In      Input
	Bytes   float64
	FloorUS float64 // median time of the read kernel over Bytes
	EmptyUS float64 // median time of an empty region (events only)
}

// GBs is the read kernel's bandwidth over the row's bytes.
func (r FloorRow) GBs() float64 { return r.Bytes / (r.FloorUS * 1e3) }

// Floor measures one input's floor with the bench's timer (flush, blocking
// start, events), Warmup untimed and Repeats timed runs.
func (b *Bench) Floor(in Input) (FloorRow, error) {
	_, bytes := Work(in, true)
	n := (int(bytes) + 15) &^ 15
	buf, err := cuda.Alloc(n)
	if err != nil {
		return FloorRow{}, err
	}
	defer buf.Free()
	if err := buf.MemsetD32Async(0x3f800000, n/4, b.stream); err != nil {
		return FloorRow{}, err
	}
	read := func() error { return b.Timer.Read(buf, n) }
	for range b.Warmup {
		if err := read(); err != nil {
			return FloorRow{}, err
		}
	}
	var floor, empty []float64
	for range b.Repeats {
		us, err := b.Timer.Time(read)
		if err != nil {
			return FloorRow{}, err
		}
		floor = append(floor, us)
		if us, err = b.Timer.Time(func() error { return nil }); err != nil {
			return FloorRow{}, err
		}
		empty = append(empty, us)
	}
	return FloorRow{In: in, Bytes: float64(n), FloorUS: Median(floor), EmptyUS: Median(empty)}, nil
}

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
		if _, err := fmt.Fprintf(w, "%s,%s,%d,%d,%d,%s,%.0f,%.3f,%.1f,%.3f\n", r.In.Suite, r.In.DType.Name,
			r.In.M, r.In.N, r.In.K, r.In.Layout, r.Bytes, r.FloorUS, gbs, r.EmptyUS); err != nil {
			return err
		}
	}
	return nil
}

// FloorKey names an input in a floor CSV.
type FloorKey struct {
	Suite, DType string
	M, N, K      int
	Layout       string
}

// Floors maps inputs to their floors (microseconds).
type Floors map[FloorKey]float64

// Of returns a row's floor, or 0 when the CSV has none for its input.
func (f Floors) Of(r Row) float64 {
	return f[FloorKey{r.Suite, r.DType, r.M, r.N, r.K, r.Layout}]
}

// ReadFloorCSV reads what WriteFloorCSV wrote.
func ReadFloorCSV(r io.Reader) (Floors, error) {
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
	f := Floors{}
	for _, rec := range recs[1:] {
		var k FloorKey
		var us float64
		if _, err := fmt.Sscanf(strings.Join([]string{rec[2], rec[3], rec[4], rec[7]}, " "), "%d %d %d %g", &k.M, &k.N, &k.K, &us); err != nil {
			return nil, fmt.Errorf("bench_compare: floor row %v: %w", rec, err)
		}
		k.Suite, k.DType, k.Layout = rec[0], rec[1], rec[5]
		f[k] = us
	}
	return f, nil
}
