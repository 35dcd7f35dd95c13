package main

import (
	"fmt"
	"io"
	"math"

	"github.com/isaacgo/isaac/shim/cuda"
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
	read := func() error { return b.timer.Read(buf, n) }
	for range b.Warmup {
		if err := read(); err != nil {
			return FloorRow{}, err
		}
	}
	var floor, empty []float64
	for range b.Repeats {
		us, err := b.timer.Time(read)
		if err != nil {
			return FloorRow{}, err
		}
		floor = append(floor, us)
		if us, err = b.timer.Time(func() error { return nil }); err != nil {
			return FloorRow{}, err
		}
		empty = append(empty, us)
	}
	return FloorRow{In: in, Bytes: float64(n), FloorUS: Median(floor), EmptyUS: Median(empty)}, nil
}

// WriteFloorCSV writes the floor rows with a header.
func WriteFloorCSV(w io.Writer, rows []FloorRow) error {
	if _, err := fmt.Fprintln(w, "suite,dtype,m,n,k,layout,bytes,floor_us,floor_gbs,empty_us"); err != nil {
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
