package main

import (
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"time"

	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
)

// runOptions are the flags of every sampling command (sample, sample-conv).
type runOptions struct {
	out                 string
	rows                int
	duration            time.Duration
	seed                uint64
	repeats             int
	warmup, warmupDraws int
	vendorOnly          bool
}

// bind defines the flags on fs; vendor names the vendor library a
// -vendor-only run times alone.
func (o *runOptions) bind(fs *flag.FlagSet, vendor string) {
	fs.StringVar(&o.out, "out", "", "data set file to create or append to (.csv.zst)")
	fs.IntVar(&o.rows, "rows", 0, "stop when the file holds this many samples (0: no target)")
	fs.DurationVar(&o.duration, "duration", 9*time.Minute, "stop after this long (after the current batch)")
	fs.Uint64Var(&o.seed, "seed", 1, "random seed (a resumed run adds the file's sample count)")
	fs.IntVar(&o.repeats, "repeats", 3, "timed repeats per measurement (median), after one timed warm-up")
	fs.IntVar(&o.warmup, "warmup", 1000, "legal uniform draws that estimate each class's categorical distribution")
	fs.IntVar(&o.warmupDraws, "warmup-draws", 3_000_000, "uniform draws at most in a warm-up")
	fs.BoolVar(&o.vendorOnly, "vendor-only", false, "time only "+vendor+" on each input (rows with an empty config: data for the vendor model)")
}

// parse parses a sampling command's flags (name's), requires -out and
// locks the calling goroutine to its thread (the device's context is
// current there).
func (o *runOptions) parse(fs *flag.FlagSet, args []string, name string) error {
	fs.Parse(args)
	if o.out == "" {
		return errors.New(name + ": -out is required")
	}
	runtime.LockOSThread()
	return nil
}

// sampleLoop runs batches until o.duration has passed or the file holds
// o.rows samples (have of them when the run started), with a progress
// line on standard error. batch measures batch number n and returns the
// samples it wrote (at most room of them, room < 0: no bound) and its
// label; its error ends the loop.
func sampleLoop(o runOptions, have int, batch func(n, room int) (rows int, label string, err error)) (done int, took time.Duration, err error) {
	target := 0
	if o.rows > 0 {
		target = o.rows - have
	}
	tty := false
	if fi, err := os.Stderr.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
		tty = true
	}
	bar := newProgress(os.Stderr, max(target, 0), o.duration, "samples", tty)
	start := time.Now()
	for n := 1; time.Since(start) < o.duration && (target <= 0 || done < target); n++ {
		room := -1
		if target > 0 {
			room = target - done
		}
		rows, label, err := batch(n, room)
		done += rows
		if err != nil {
			return done, time.Since(start), fmt.Errorf("batch %d (%s): %w", n, label, err)
		}
		bar.update(done, fmt.Sprintf("batch %d %s", n, label), false)
	}
	bar.update(done, "done", true)
	return done, time.Since(start), nil
}

// samplerSet is a sampling run's samplers, one per input class, of the
// categorical space (samplers), of the wgmma space (wgmma: nil entries
// where no wgmma kernel serves the class) and of the mma.sync space (mma:
// nil where the class has no mma.sync math), each made at its first use.
type samplerSet struct {
	samplers, wgmma, mma map[ptx.InputClass]*space.Sampler
	limits               ptx.DeviceLimits
	warmup, warmupDraws  int
	draws                *rand.Rand
}

func newSamplerSet(limits ptx.DeviceLimits, o runOptions, rng *rand.Rand) samplerSet {
	return samplerSet{samplers: map[ptx.InputClass]*space.Sampler{}, wgmma: map[ptx.InputClass]*space.Sampler{},
		mma: map[ptx.InputClass]*space.Sampler{}, limits: limits, warmup: o.warmup, warmupDraws: o.warmupDraws, draws: rng}
}

// samplerFor is the class's sampler of the space newSampler gives
// (space.NewSampler, or space.NewWarpgroupSampler: nil when no wgmma kernel
// serves the class), made at its first use.
func (s *samplerSet) samplerFor(in ptx.InputClass, kept map[ptx.InputClass]*space.Sampler,
	newSampler func(ptx.InputClass, ptx.DeviceLimits, int, int, *rand.Rand) *space.Sampler) *space.Sampler {
	sm, ok := kept[in]
	if !ok {
		sm = newSampler(in, s.limits, s.warmup, s.warmupDraws, s.draws)
		kept[in] = sm
	}
	return sm
}

// provenanceDevice is the provenance line of the device a run measures
// (deviceOf reads it back).
func provenanceDevice(e devbench.Env) string {
	return fmt.Sprintf("device: %s (compute %s, %d SMs, SM clock %d MHz, memory clock %d MHz, %d-bit bus, L2 %d bytes)",
		e.Device, e.ComputeCap, e.SMs, e.SMClockMHz, e.MemClockMHz, e.BusWidthBits, e.L2Bytes)
}

// commitOr is the build's commit, or "unknown".
func commitOr() string {
	if buildCommit == "" {
		return "unknown"
	}
	return buildCommit
}

// upTo is rows, at most room of them (room < 0: all): a run that must
// hold a number of samples writes no more.
func upTo[R any](rows []R, room int) []R {
	if room >= 0 && len(rows) > room {
		return rows[:room]
	}
	return rows
}
