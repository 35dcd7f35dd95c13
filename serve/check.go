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
// forwarded to the vendor (reason request.FwdMeasuring), in turn, are
// timed with events on the caller's stream; each side's first
// measureWarmups samples are dropped, and where our kernel's fastest time
// over the rest (times Options.CheckMargin) is the longer the decision
// becomes a forward (request.FwdMeasured) for the rest of the process.
// A convolution's check (checkRule.SelfFirst) times each side right after
// an untimed call of its own and drops one warm-up sample a side. A
// decision may bring more than one candidate of ours (a convolution: the
// model's best on each route and the heuristic's): each is timed as many times, and
// the fastest is the one kept; when the others lose to it and it beats the
// vendor, it is timed again alone (a second round, as many samples) and
// those samples are the ones compared with the vendor's. The least of many
// candidates' samples is biased low, the winner's curse: the more
// candidates, the likelier one of them drew a fast sample by noise alone
// (kept convolution candidates of 8 or more ran further above their checked
// times than cuDNN did above its own: gputest/results/h200/conv/call125). Each timed
// call follows a hold kernel (hold.go) on the stream: on an idle GPU an
// event pair would also time the host's work between the start event and
// the launch, the vendor's choosing of a kernel included, not the
// device's alone. The fastest, not the median: what noise remains only
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
	chosen  atomic.Int32 // the candidate served once the verdict is in (before: the first)

	mu      sync.Mutex
	ours    [][]float64   // per candidate: completed samples, µs
	vendor  []float64     // completed samples, µs
	pending []timedSample // recorded, not read yet
	open    *timedSample  // a vendor sample begun, waiting for AfterForward
	openAge int           // calls since open was begun
	begun   []int         // samples begun: per candidate, then the vendor's
	dead    []bool        // a candidate whose launch failed, or one the first round dropped: not timed again
	picked  []float64     // per candidate: fastest of the first round, once a second round re-times its best (nil before)
	stream  cuda.Stream   // the stream of the open sample
	release func()        // releases the open sample's hold
	events  []cuda.Event  // every event made, destroyed with the verdict
	failed  bool          // an event call failed: keep serving, stop measuring
	keep    checkRule     // what ours must beat the vendor by, and SelfFirst
	last    int           // the side of the check's last call (a candidate, len(ours) the vendor; -1 none)
}

// vendorSide is a sample's side when it times the vendor.
const vendorSide = -1

type timedSample struct {
	side       int  // the candidate, or vendorSide
	warmup     bool // one of the side's first measureWarmups samples: dropped
	start, end cuda.Event
}

// newCheck is the check of a decision to serve with cands candidates of
// ours (at least one), or nil when the options turn checks off: ours is
// kept only where it beats the vendor by keep (its Ratio raised to
// Options.CheckMargin where that is larger).
func (s *Server) newCheck(cands int, keep checkRule) *measurement {
	if !s.opts.Check {
		return nil
	}
	keep.Ratio = max(s.opts.CheckMargin, keep.Ratio)
	if s.opts.CheckSamples > 0 {
		keep.Samples = s.opts.CheckSamples
	}
	return newMeasurement(max(cands, 1), keep)
}

// checkRule is how a check times and judges: its kept candidate must
// beat the vendor by its fastest time times Ratio, plus Micros, at most
// the vendor's fastest (a tie goes to the vendor); with SelfFirst each
// timed call follows an untimed call of the same side.
type checkRule struct {
	Ratio  float64
	Micros float64
	// SelfFirst: a side's timed call comes right after a call of its own
	// (an untimed one, served or forwarded like any other), as the
	// application's calls run without the shim, and as bench_compare
	// -order self times them. What a kernel leaves on the SMs outlives
	// the L2 eviction between calls: cuDNN's TF32 kernel of Table 5's
	// conv10 ran 20 µs slower right after a kernel of ours than after
	// its own (gputest/results/h200/conv/call108), and a check that timed
	// it there kept a kernel of ours that is slower than cuDNN.
	SelfFirst bool
	// Samples is how many timed samples a side takes after its warm-ups
	// (0: measureCalls).
	Samples int
}

// samples is the rule's timed samples a side.
func (r checkRule) samples() int {
	if r.Samples > 0 {
		return r.Samples
	}
	return measureCalls
}

var (
	// gemmCheck: the fastest of three samples of the fastest of up to three
	// candidates is biased low against the vendor's three (a win within
	// 2 % is noise, and worth little); and on short calls the check's
	// cuBLAS times ran 0.6–1.1 µs above the benchmark's where ours agreed
	// with it (small FP16 GemmEx calls served at 0.90–0.998×,
	// gputest/results/h100/batched/call13), so a win must also exceed a
	// microsecond.
	gemmCheck = checkRule{Ratio: 1.02, Micros: 1}
	// convCheck: a convolution check's three samples a side decide
	// near-ties by noise (served convolutions measured within 5 % of
	// cuDNN by their check ran at 0.89–1.0 of its rate in bench_compare,
	// call 56 of gputest/results/h100/conv), and each side is timed
	// after itself. Part of the noise is a fraction of a microsecond
	// whatever the call's length, which on calls of a few microseconds is
	// more than the ratio allows for: the one served row below cuDNN in
	// each of two runs of the H200's suites was such a call, whose check
	// it won by less than Micros beyond the ratio
	// (gputest/results/h200/conv/call125, call129; docs/method.md).
	convCheck = checkRule{Ratio: 1.05, Micros: 0.5, SelfFirst: true}
)

func newMeasurement(cands int, keep checkRule) *measurement {
	return &measurement{keep: keep, ours: make([][]float64, cands), begun: make([]int, cands+1), dead: make([]bool, cands), last: -1}
}

// serve runs a call of a decision under measurement: it launches one of
// our candidates (timed when it is that candidate's turn; launch's
// argument says which) or asks the caller to forward the call
// (request.FwdMeasuring, when it is the vendor's turn: the caller then
// calls AfterForward once the vendor's call is on the stream); hold queues
// what precedes a timed call and returns what follows it once the call and
// its end event are queued (hold.go). A call that
// finds another thread measuring is served untimed by the first
// candidate. A call on a stream being captured into a graph touches
// nothing of the check (its events are not the graph's work, and querying
// them is an unsafe call during a capture) and goes to the vendor
// (request.FwdCapturing): the graph will replay the call any number of
// times, and the check has not confirmed that ours is the faster.
func (m *measurement) serve(launch func(cand int) error, hold func() (release func(), err error), stream cuda.Stream) request.Reason {
	if stream.Capturing() {
		return request.FwdCapturing
	}
	if !m.mu.TryLock() {
		return reasonOf(launch(int(m.chosen.Load())))
	}
	defer m.mu.Unlock()
	m.collect()
	switch m.verdict.Load() {
	case vendorFaster:
		return request.FwdMeasured
	case oursFaster:
		return reasonOf(launch(int(m.chosen.Load())))
	}
	first := m.firstLive()
	if m.open != nil {
		if m.openAge++; m.openAge > measureStale {
			m.closeOpen()
			m.begun[len(m.ours)]--
		}
		m.last = first
		return reasonOf(launch(first))
	}
	side, timed := m.next()
	if side < 0 {
		m.last = first
		return reasonOf(launch(first)) // every sample begun: waiting for them
	}
	vendor := side == len(m.ours)
	if !timed {
		if vendor {
			return request.FwdMeasuring // no sample open: AfterForward does nothing
		}
		return m.launched(side, launch(side))
	}
	release, _ := hold() // without it the times include host work: still a check
	start, ok := m.record(stream)
	if !ok {
		release()
		return reasonOf(launch(first))
	}
	warmup := m.begun[side] < m.warmups()
	m.begun[side]++
	if vendor {
		m.open = &timedSample{side: vendorSide, warmup: warmup, start: start}
		m.openAge, m.stream, m.release = 0, stream, release
		return request.FwdMeasuring
	}
	err := launch(side)
	end, ok := m.record(stream)
	release()
	switch {
	case err != nil:
	case ok:
		m.pending = append(m.pending, timedSample{side: side, warmup: warmup, start: start, end: end})
	default:
		m.begun[side]--
	}
	return m.launched(side, err)
}

// next is the side the check's next call runs (a candidate, len(ours)
// the vendor; -1: every sample begun) and whether the call is timed: the
// side with the fewest samples begun, our candidates in order, then the
// vendor; with SelfFirst a side's call is timed only right after an
// untimed call of its own.
func (m *measurement) next() (side int, timed bool) {
	side, fewest := -1, m.warmups()+m.keep.samples()
	for i, n := range m.begun {
		if n < fewest && (i == len(m.ours) || !m.dead[i]) {
			side, fewest = i, n
		}
	}
	if side < 0 {
		return -1, false
	}
	timed = !m.keep.SelfFirst || m.last == side
	m.last = side
	return side, timed
}

// launched is the reason for a call that launched candidate side with
// err: a candidate that does not run is not timed again; without one
// that runs, the vendor takes the calls.
func (m *measurement) launched(side int, err error) request.Reason {
	if err != nil {
		m.dead[side] = true
		if m.firstLive() < 0 {
			m.settle(vendorFaster)
		}
	}
	return reasonOf(err)
}

// warmups is how many of a side's first samples are dropped: with
// SelfFirst the untimed call before each sample has already run the side
// once, and one is enough.
func (m *measurement) warmups() int {
	if m.keep.SelfFirst {
		return 1
	}
	return measureWarmups
}

// firstLive is the first candidate whose launch has not failed (-1: none).
func (m *measurement) firstLive() int {
	for i, d := range m.dead {
		if !d {
			return i
		}
	}
	return -1
}

// afterForward closes the open vendor sample on stream.
func (m *measurement) afterForward(stream cuda.Stream) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.open == nil || stream != m.stream {
		return
	}
	open := *m.open
	if end, ok := m.record(stream); ok {
		m.pending = append(m.pending, timedSample{side: vendorSide, warmup: open.warmup, start: open.start, end: end})
	} else {
		m.begun[len(m.ours)]--
	}
	m.closeOpen()
}

// closeOpen ends the open vendor sample: its hold released, the sample
// no longer waited for.
func (m *measurement) closeOpen() {
	if m.release != nil {
		m.release()
	}
	m.open, m.release = nil, nil
}

// record makes an event and records it on stream (false when the driver
// refuses: the measurement then gives up, and the decision keeps serving
// its first candidate).
func (m *measurement) record(stream cuda.Stream) (cuda.Event, bool) {
	e, err := cuda.NewEvent()
	if err == nil {
		m.events = append(m.events, e)
		err = e.Record(stream)
	}
	if err != nil {
		m.failed = true
		m.chosen.Store(int32(max(m.firstLive(), 0)))
		m.settle(oursFaster)
		return 0, false
	}
	return e, true
}

// collect reads the samples whose events have completed and gives the
// verdict once the vendor and every candidate that runs have the rule's
// samples.
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
		if s.side == vendorSide {
			m.vendor = append(m.vendor, float64(ms)*1000)
		} else {
			m.ours[s.side] = append(m.ours[s.side], float64(ms)*1000)
		}
	}
	m.pending = keep
	v, best := judge(m.ours, m.dead, m.vendor, m.keep)
	switch {
	case v == measuring:
	case v == oursFaster && m.retime(best):
	default:
		m.chosen.Store(int32(max(best, 0)))
		m.settle(v)
	}
}

// retime begins the second round when the first kept best from more than
// one candidate that runs: the others are dropped (not timed or served
// again), best's samples are cleared and taken again with no warm-up (it
// has run), and the verdict waits for them. False when there is no second
// round to begin: one candidate ran, or this was the second round.
func (m *measurement) retime(best int) bool {
	if m.picked != nil || best < 0 {
		return false
	}
	live := 0
	for _, d := range m.dead {
		if !d {
			live++
		}
	}
	if live < 2 {
		return false
	}
	m.picked = make([]float64, len(m.ours))
	for i, o := range m.ours {
		m.picked[i] = fastest(o)
		m.dead[i] = i != best
	}
	m.ours[best] = nil
	m.begun[best] = m.warmups()
	m.chosen.Store(int32(best))
	return true
}

// judge is the verdict once the vendor and every candidate that runs (not
// dead) have keep's samples (measuring before): the candidate with
// the fastest sample against the vendor (verdictOf), or the vendor when no
// candidate runs; best is the candidate kept (-1: none).
func judge(ours [][]float64, dead []bool, vendor []float64, keep checkRule) (verdict int32, best int) {
	if len(vendor) < keep.samples() {
		return measuring, -1
	}
	best = -1
	for i, o := range ours {
		if dead[i] {
			continue
		}
		if len(o) < keep.samples() {
			return measuring, -1
		}
		if best < 0 || fastest(o) < fastest(ours[best]) {
			best = i
		}
	}
	if best < 0 {
		return vendorFaster, -1
	}
	return verdictOf(ours[best], vendor, keep), best
}

// verdictOf compares the two sides' fastest times: ours must beat the
// vendor's by keep.
func verdictOf(ours, vendor []float64, keep checkRule) int32 {
	if fastest(ours)*keep.Ratio+keep.Micros > fastest(vendor) {
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
	m.closeOpen()
	m.events, m.pending = nil, nil
}

// Measurement is the state of the check of a decision to serve.
type Measurement struct {
	Checked    bool    // the decision is a model's decision to serve, checked on its calls
	Settled    bool    // the verdict is in
	OursFaster bool    // the verdict: keep serving
	Candidate  int     // the candidate kept (the first until the verdict)
	OursUS     float64 // fastest of that candidate's timed calls (warm-ups dropped; its second round's once that began), µs
	VendorUS   float64 // fastest of the vendor's timed calls (warm-ups dropped), µs
	// CandidatesUS are every candidate's fastest times in the first round
	// (0: none yet, or its launch failed).
	CandidatesUS []float64
	// Retimed: the kept candidate's second round began (OursUS is its).
	Retimed bool
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
	c := int(m.chosen.Load())
	st := Measurement{Checked: true, Settled: vd != measuring, OursFaster: vd == oursFaster, Candidate: c,
		OursUS: fastest(m.ours[c]), VendorUS: fastest(m.vendor), Retimed: m.picked != nil}
	if m.picked != nil {
		st.CandidatesUS = slices.Clone(m.picked)
		return st
	}
	for _, o := range m.ours {
		st.CandidatesUS = append(st.CandidatesUS, fastest(o))
	}
	return st
}
