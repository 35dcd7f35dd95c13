package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
)

// sampleTally counts what a sampling run measured and did not keep: the
// configurations that failed to load (compile or module load) and those
// whose launch failed, by kernel math; the inputs the vendor refused or no
// kernel target took; and the rows dropped with an input whose vendor time
// moved while its configurations ran (settled). A run's report says each
// apart, so that a file's provenance does not count a drifting input's
// rows as failed kernels.
type sampleTally struct {
	load, run     map[string]int // configurations, by math
	refused       int            // inputs the vendor refused, or no kernel target took
	droppedInputs int            // inputs whose vendor time moved
	droppedRows   int            // their rows
}

// failedLoad counts a configuration of math m that did not load.
func (t *sampleTally) failedLoad(m string) { t.load = addCounts(t.load, map[string]int{m: 1}) }

// failedRun counts a configuration of math m whose launch failed.
func (t *sampleTally) failedRun(m string) { t.run = addCounts(t.run, map[string]int{m: 1}) }

// dropped counts an input dropped with its rows.
func (t *sampleTally) dropped(rows int) { t.droppedInputs++; t.droppedRows += rows }

// add adds u's counts to t's.
func (t *sampleTally) add(u sampleTally) {
	t.load = addCounts(t.load, u.load)
	t.run = addCounts(t.run, u.run)
	t.refused += u.refused
	t.droppedInputs += u.droppedInputs
	t.droppedRows += u.droppedRows
}

// addCounts adds src's counts to dst's (made when nil and src is not
// empty) and returns dst.
func addCounts(dst, src map[string]int) map[string]int {
	for k, n := range src {
		if dst == nil {
			dst = map[string]int{}
		}
		dst[k] += n
	}
	return dst
}

// lines is the tally as the run report's lines, in the sampler's words
// for its vendor and inputs (cuBLAS and inputs, cuDNN and convolutions).
func (t sampleTally) lines(vendor, inputs string) []string {
	out := []string{
		"configurations that failed to load: " + byMath(t.load),
		"configurations whose launch failed: " + byMath(t.run),
	}
	if t.refused > 0 {
		out = append(out, fmt.Sprintf("%s refused (by %s, or no kernel target takes them): %d", inputs, vendor, t.refused))
	}
	out = append(out, fmt.Sprintf("%s dropped because %s's time on them moved while their configurations ran: %d, with %d rows",
		inputs, vendor, t.droppedInputs, t.droppedRows))
	return out
}

// byMath is a count per math as "total (math n, …)" in math order, or
// "none".
func byMath(c map[string]int) string {
	if len(c) == 0 {
		return "none"
	}
	total := 0
	var out []string
	for _, m := range slices.Sorted(maps.Keys(c)) {
		out = append(out, fmt.Sprintf("%s %d", m, c[m]))
		total += c[m]
	}
	return fmt.Sprintf("%d (%s)", total, strings.Join(out, ", "))
}
