package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// progress prints a bar with the rate and the time left, at most once per
// interval: on one rewritten line on a terminal, as new lines in a log.
type progress struct {
	w        io.Writer
	total    int           // target count (0: none)
	limit    time.Duration // time budget (0: none)
	start    time.Time
	last     time.Time
	interval time.Duration
	tty      bool
	unit     string
}

func newProgress(w io.Writer, total int, limit time.Duration, unit string, tty bool) *progress {
	iv := 10 * time.Second
	if tty {
		iv = 200 * time.Millisecond
	}
	return &progress{w: w, total: total, limit: limit, start: time.Now(), interval: iv, tty: tty, unit: unit}
}

// line renders the bar for done units after elapsed.
func (p *progress) line(done int, elapsed time.Duration, note string) string {
	rate := float64(done) / max(elapsed.Seconds(), 1e-9)
	frac := 0.0
	var eta time.Duration
	if p.total > 0 && rate > 0 {
		frac = float64(done) / float64(p.total)
		eta = time.Duration(float64(p.total-done) / rate * float64(time.Second))
	}
	if p.limit > 0 {
		if f := elapsed.Seconds() / p.limit.Seconds(); f > frac {
			frac = f
			eta = p.limit - elapsed
		}
	}
	frac = min(max(frac, 0), 1)
	const width = 30
	fill := int(frac * width)
	bar := strings.Repeat("=", fill) + strings.Repeat(" ", width-fill)
	return fmt.Sprintf("[%s] %3.0f%% %d %s  %.1f %s/s  ETA %s  %s", bar, 100*frac, done, p.unit, rate, p.unit,
		max(eta, 0).Round(time.Second), note)
}

// update prints the bar when the interval has passed (or force).
func (p *progress) update(done int, note string, force bool) {
	now := time.Now()
	if !force && now.Sub(p.last) < p.interval {
		return
	}
	p.last = now
	l := p.line(done, now.Sub(p.start), note)
	if p.tty {
		fmt.Fprintf(p.w, "\r%-120s", l)
		if force {
			fmt.Fprintln(p.w)
		}
		return
	}
	fmt.Fprintln(p.w, l)
}
