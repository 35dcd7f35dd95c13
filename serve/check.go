package serve

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/request"
)

// A decision the model makes to serve is checked on the calls themselves:
// its first measureWarmups+measureCalls served calls and as many calls
// forwarded to the vendor (reason request.FwdMeasuring), alternating, are
// timed with events on the caller's stream; each side's first
// measureWarmups samples are dropped, and where our kernel's fastest time
// over the rest (times Options.CheckMargin) is the longer the decision
// becomes a forward (request.FwdMeasured) for the rest of the process.
// Each timed call follows a hold kernel (hold.go) on the stream: on an
// idle GPU an event pair would also time the host's work between the start
// event and the launch, the vendor's choosing of a kernel included, not
// the device's alone. The fastest, not the median: what noise remains only
// ever adds. The model's error is then bounded by a measurement on the
// caller's own data, in the caller's own conditions (a warm cache, other
// work on the device), for a handful of calls per shape
// (docs/method.md has the measurements behind these numbers).
const (
	measureCalls = 3
	// measureWarmups is how many samples of each side are taken first
	// and dropped: the vendor's first calls on a shape choose its kernel
	// and may load its module, for longer than the hold.
	measureWarmups = 2
	// measureStale is how many calls a begun vendor sample waits for its
	// end (AfterForward) before it is dropped and taken again.
	measureStale = 16
)

// Verdicts of a measurement.
const (
	measuring int32 = iota
	oursFaster
	vendorFaster
)

// measurement is the check of one served decision.
type measurement struct {
	verdict atomic.Int32

	mu           sync.Mutex
	ours, vendor []float64     // completed samples, µs
	pending      []timedSample // recorded, not read yet
	open         *timedSample  // a vendor sample begun, waiting for AfterForward
	openAge      int           // calls since open was begun
	begun        [2]int        // samples begun: ours, the vendor's
	stream       cuda.Stream   // the stream of the open sample
	events       []cuda.Event  // every event made, destroyed with the verdict
	failed       bool          // an event call failed: keep serving, stop measuring
	margin       float64       // Options.CheckMargin
}

type timedSample struct {
	vendor     bool
	warmup     bool // one of the side's first measureWarmups samples: dropped
	start, end cuda.Event
}

// newCheck is the check of a decision to serve, or nil when the options
// turn checks off.
func (s *Server) newCheck() *measurement {
	if !s.opts.Check {
		return nil
	}
	return &measurement{margin: s.opts.CheckMargin}
}

// serve runs a call of a decision under measurement: it launches our kernel
// (timed when it is ours's turn) or asks the caller to forward the call
// (request.FwdMeasuring, when it is the vendor's turn: the caller then
// calls AfterForward once the vendor's call is on the stream). A call that
// finds another thread measuring is served untimed. A call on a stream
// being captured into a graph touches nothing of the check (its events are
// not the graph's work, and querying them is an unsafe call during a
// capture) and goes to the vendor (request.FwdCapturing): the graph will
// replay the call any number of times, and the check has not confirmed
// that ours is the faster.
func (m *measurement) serve(launch, hold func() error, stream cuda.Stream) request.Reason {
	if stream.Capturing() {
		return request.FwdCapturing
	}
	if !m.mu.TryLock() {
		return reasonOf(launch())
	}
	defer m.mu.Unlock()
	m.collect()
	switch m.verdict.Load() {
	case vendorFaster:
		return request.FwdMeasured
	case oursFaster:
		return reasonOf(launch())
	}
	if m.open != nil {
		if m.openAge++; m.openAge > measureStale {
			m.open, m.begun[1] = nil, m.begun[1]-1
		}
		return reasonOf(launch())
	}
	vendorTurn := m.begun[1] < m.begun[0]
	if m.begun[0] >= measureWarmups+measureCalls && m.begun[1] >= measureWarmups+measureCalls {
		return reasonOf(launch()) // every sample begun: waiting for them
	}
	hold() // without it the times include host work: still a check
	start, ok := m.record(stream)
	if !ok {
		return reasonOf(launch())
	}
	if vendorTurn {
		m.open = &timedSample{vendor: true, warmup: m.begun[1] < measureWarmups, start: start}
		m.begun[1]++
		m.openAge, m.stream = 0, stream
		return request.FwdMeasuring
	}
	warmup := m.begun[0] < measureWarmups
	m.begun[0]++
	err := launch()
	end, ok := m.record(stream)
	if ok && err == nil {
		m.pending = append(m.pending, timedSample{warmup: warmup, start: start, end: end})
	} else {
		m.begun[0]--
	}
	return reasonOf(err)
}

// afterForward closes the open vendor sample on stream.
func (m *measurement) afterForward(stream cuda.Stream) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.open == nil || stream != m.stream {
		return
	}
	if end, ok := m.record(stream); ok {
		m.pending = append(m.pending, timedSample{vendor: true, warmup: m.open.warmup, start: m.open.start, end: end})
	} else {
		m.begun[1]--
	}
	m.open = nil
}

// record makes an event and records it on stream (false when the driver
// refuses: the measurement then gives up, and the decision keeps serving).
func (m *measurement) record(stream cuda.Stream) (cuda.Event, bool) {
	e, err := cuda.NewEvent()
	if err == nil {
		m.events = append(m.events, e)
		err = e.Record(stream)
	}
	if err != nil {
		m.failed = true
		m.settle(oursFaster)
		return 0, false
	}
	return e, true
}

// collect reads the samples whose events have completed and gives the
// verdict once both sides have measureCalls.
func (m *measurement) collect() {
	if m.verdict.Load() != measuring {
		return
	}
	keep := m.pending[:0]
	for _, s := range m.pending {
		done, err := s.end.Done()
		if err != nil {
			m.failed = true
			m.settle(oursFaster)
			return
		}
		if !done {
			keep = append(keep, s)
			continue
		}
		ms, err := s.end.Elapsed(s.start)
		if err != nil {
			m.failed = true
			m.settle(oursFaster)
			return
		}
		if s.warmup {
			continue
		}
		if s.vendor {
			m.vendor = append(m.vendor, float64(ms)*1000)
		} else {
			m.ours = append(m.ours, float64(ms)*1000)
		}
	}
	m.pending = keep
	if len(m.ours) >= measureCalls && len(m.vendor) >= measureCalls {
		m.settle(verdictOf(m.ours, m.vendor, m.margin))
	}
}

// verdictOf compares the two sides' fastest times: ours times the margin
// must not be the longer.
func verdictOf(ours, vendor []float64, margin float64) int32 {
	if fastest(ours)*margin > fastest(vendor) {
		return vendorFaster
	}
	return oursFaster
}

// fastest is the least of v, 0 for none.
func fastest(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	return slices.Min(v)
}

// settle records the verdict and destroys the events (the driver releases
// an event still pending once its work completes).
func (m *measurement) settle(v int32) {
	m.verdict.Store(v)
	for _, e := range m.events {
		e.Destroy()
	}
	m.events, m.pending, m.open = nil, nil, nil
}

// Measurement is the state of the check of a decision to serve.
type Measurement struct {
	Checked    bool    // the decision is a model's decision to serve, checked on its calls
	Settled    bool    // the verdict is in
	OursFaster bool    // the verdict: keep serving
	OursUS     float64 // fastest of our kernel's timed calls (warm-ups dropped), µs
	VendorUS   float64 // fastest of the vendor's timed calls (warm-ups dropped), µs
}

// Measured is, for tests and benchmarks, the check of the decision that
// Serve uses for g under Auto.
func (s *Server) Measured(g *request.Gemm) Measurement {
	t, err := s.rt.Target(g)
	if err != nil {
		return Measurement{}
	}
	v, ok := s.decisions.Load(keyOf(t, g, Auto))
	if !ok || v.(*decision).meas == nil {
		return Measurement{}
	}
	return v.(*decision).meas.state()
}

// state is the check's state.
func (m *measurement) state() Measurement {
	m.mu.Lock()
	defer m.mu.Unlock()
	vd := m.verdict.Load()
	return Measurement{Checked: true, Settled: vd != measuring, OursFaster: vd == oursFaster,
		OursUS: fastest(m.ours), VendorUS: fastest(m.vendor)}
}
