package main

import (
	"github.com/isaacgo/isaac/bench_compare/internal/report"
	"github.com/isaacgo/isaac/internal/cuda"
)

// floor measures one input's floor with the bench's timer (flush, blocking
// start, events), Warmup untimed and Repeats timed runs: the time of a
// kernel that only reads the input's compulsory bytes (work with beta = 0)
// and of an empty timed region (report.FloorRow).
func (b *bench) floor(in input) (report.FloorRow, error) {
	_, bytes := work(in, true)
	n := (int(bytes) + 15) &^ 15
	buf, err := cuda.Alloc(n)
	if err != nil {
		return report.FloorRow{}, err
	}
	defer buf.Free()
	if err := buf.MemsetD32Async(0x3f800000, n/4, b.stream); err != nil {
		return report.FloorRow{}, err
	}
	read := func() error { return b.Timer.Read(buf, n) }
	for range b.Warmup {
		if err := read(); err != nil {
			return report.FloorRow{}, err
		}
	}
	var floor, empty []float64
	for range b.Repeats {
		us, err := b.Timer.Time(read)
		if err != nil {
			return report.FloorRow{}, err
		}
		floor = append(floor, us)
		if us, err = b.Timer.Time(func() error { return nil }); err != nil {
			return report.FloorRow{}, err
		}
		empty = append(empty, us)
	}
	return report.FloorRow{Suite: in.Suite, DType: in.DType.Name, M: in.M, N: in.N, K: in.K, Layout: in.Layout,
		Bytes: float64(n), FloorUS: median(floor), EmptyUS: median(empty)}, nil
}
