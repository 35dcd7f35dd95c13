package serve

import (
	"slices"
	"testing"
)

// The verdict compares the fastest samples: ours must beat the vendor's
// by the keep rule's ratio and microseconds.
func TestVerdictOf(t *testing.T) {
	one := checkRule{Ratio: 1}
	for _, c := range []struct {
		ours, vendor []float64
		keep         checkRule
		want         int32
	}{
		{[]float64{10, 11, 90}, []float64{12, 12, 12}, one, oursFaster},
		{[]float64{13, 11, 12}, []float64{12, 12, 12}, one, oursFaster},
		{[]float64{13, 13, 12}, []float64{12, 12, 12}, one, oursFaster},   // a tie at ratio 1, no microseconds, keeps serving
		{[]float64{11, 11, 11}, []float64{41, 10, 41}, one, vendorFaster}, // host gaps in two vendor samples
		{[]float64{5, 6}, []float64{5, 7}, one, oursFaster},
		// With a margin ours must be that much faster.
		{[]float64{10, 11, 90}, []float64{12, 12, 12}, checkRule{Ratio: 1.05}, oursFaster},     // 10 × 1.05 = 10.5 ≤ 12
		{[]float64{11.5, 12, 90}, []float64{12, 12, 12}, checkRule{Ratio: 1.05}, vendorFaster}, // 12.075 > 12
		{[]float64{12, 12, 12}, []float64{12, 12, 12}, checkRule{Ratio: 1.05}, vendorFaster},
		// GEMM's rule: 2 % and a microsecond.
		{[]float64{5.2, 5.3}, []float64{6.2, 6.3}, gemmCheck, vendorFaster}, // 5.2 × 1.02 + 1 = 6.304 > 6.2
		{[]float64{5.0, 5.3}, []float64{6.2, 6.3}, gemmCheck, oursFaster},   // 6.1 ≤ 6.2
		{[]float64{91, 95}, []float64{93, 94}, gemmCheck, vendorFaster},     // 91 × 1.02 = 92.82 ≤ 93, plus 1 µs > 93
		{[]float64{80, 95}, []float64{93, 94}, gemmCheck, oursFaster},
		// A convolution's: 5 % and half a microsecond.
		{[]float64{6.0, 6.1}, []float64{6.6, 6.7}, convCheck, vendorFaster}, // 6.3 + 0.5 > 6.6
		{[]float64{5.7, 6.1}, []float64{6.6, 6.7}, convCheck, oursFaster},   // 5.985 + 0.5 ≤ 6.6
	} {
		if got := verdictOf(c.ours, c.vendor, c.keep); got != c.want {
			t.Errorf("ours %v vendor %v keep %+v: %d, want %d", c.ours, c.vendor, c.keep, got, c.want)
		}
	}
	if fastest(nil) != 0 || fastest([]float64{3, 1, 2}) != 1 {
		t.Error("fastest")
	}
}

// ISAAC_CHECK_MARGIN sets the check's margin; what is not a finite number
// of at least 1 leaves the default, 1. A GEMM's check keeps ours only by
// gemmCheck's ratio at least, a convolution's by convCheck's.
func TestCheckMargin(t *testing.T) {
	for v, want := range map[string]float64{"": 1, "1.05": 1.05, "2": 2, "0.9": 1, "-3": 1, "NaN": 1, "+Inf": 1, "x": 1, "1": 1} {
		t.Setenv("ISAAC_CHECK_MARGIN", v)
		if got := FromEnv().CheckMargin; got != want {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: %g, want %g", v, got, want)
		}
		if m := New(FromEnv()).newCheck(3, gemmCheck); m == nil || m.keep != (checkRule{Ratio: max(want, gemmCheck.Ratio), Micros: gemmCheck.Micros}) || len(m.ours) != 3 {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: a GEMM's check %+v, want ratio %g", v, m, max(want, gemmCheck.Ratio))
		}
		if m := New(FromEnv()).newCheck(2, convCheck); m == nil || m.keep != (checkRule{Ratio: max(want, convCheck.Ratio), Micros: convCheck.Micros, SelfFirst: true}) || len(m.ours) != 2 {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: a convolution's check %+v, want ratio %g", v, m, max(want, convCheck.Ratio))
		}
	}
}

// ISAAC_MEASURE=0 leaves decisions unchecked.
func TestMeasureOff(t *testing.T) {
	t.Setenv("ISAAC_MEASURE", "0")
	if New(FromEnv()).newCheck(1, gemmCheck) != nil {
		t.Error("ISAAC_MEASURE=0: decisions still checked")
	}
	t.Setenv("ISAAC_MEASURE", "")
	if New(FromEnv()).newCheck(1, gemmCheck) == nil {
		t.Error("decisions not checked by default")
	}
}

// With several candidates the verdict waits for every one that runs, keeps
// the fastest and compares it with the vendor; a candidate whose launch
// failed does not count, and without one that runs the vendor stays.
func TestJudge(t *testing.T) {
	three := []float64{12, 12, 12}
	for _, c := range []struct {
		ours   [][]float64
		dead   []bool
		vendor []float64
		want   int32
		best   int
	}{
		{[][]float64{{10, 11, 12}, {8, 9, 9}}, []bool{false, false}, three, oursFaster, 1},
		{[][]float64{{10, 11, 12}, {14, 13, 15}}, []bool{false, false}, three, oursFaster, 0},
		{[][]float64{{13, 14, 15}, {14, 13, 15}}, []bool{false, false}, three, vendorFaster, 0},
		{[][]float64{{10, 11, 12}, {8}}, []bool{false, false}, three, measuring, -1}, // the second not timed enough
		{[][]float64{{10, 11, 12}, {8}}, []bool{false, true}, three, oursFaster, 0},  // … unless its launch failed
		{[][]float64{{10, 11, 12}, {8, 8, 8}}, []bool{false, false}, []float64{7, 9}, measuring, -1},
		{[][]float64{{}, {}}, []bool{true, true}, three, vendorFaster, -1},
		{[][]float64{{10, 11, 12}}, []bool{false}, three, oursFaster, 0},
	} {
		v, best := judge(c.ours, c.dead, c.vendor, checkRule{Ratio: 1})
		if v != c.want || best != c.best {
			t.Errorf("ours %v dead %v vendor %v: verdict %d best %d, want %d %d", c.ours, c.dead, c.vendor, v, best, c.want, c.best)
		}
	}
}

// The order of a check's calls: without SelfFirst each call is a timed
// sample of the side with the fewest begun (the candidates in order, then
// the vendor); with it each timed sample of a side follows an untimed
// call of the same side, until every side has its samples begun.
func TestCheckCallOrder(t *testing.T) {
	const v = 2 // the vendor's side, after two candidates
	order := func(rule checkRule) (sides []int, timed []bool) {
		m := newMeasurement(2, rule)
		for range 100 {
			side, tm := m.next()
			if side < 0 {
				return sides, timed
			}
			sides, timed = append(sides, side), append(timed, tm)
			if tm {
				m.begun[side]++
			}
		}
		t.Fatalf("%+v: no end after 100 calls", rule)
		return nil, nil
	}
	sides, timed := order(gemmCheck)
	if want := measureWarmups + measureCalls; len(sides) != 3*want || slices.Contains(timed, false) {
		t.Errorf("GEMM: sides %v timed %v, want %d timed calls a side", sides, timed, want)
	}
	if !slices.Equal(sides[:6], []int{0, 1, v, 0, 1, v}) {
		t.Errorf("GEMM: sides %v, want the sides in turn", sides)
	}
	sides, timed = order(convCheck)
	per := 1 + measureCalls
	if len(sides) != 3*2*per {
		t.Fatalf("convolution: %d calls %v, want %d: an untimed and a timed one per sample", len(sides), sides, 3*2*per)
	}
	for i := 0; i < len(sides); i += 2 {
		if sides[i] != sides[i+1] || timed[i] || !timed[i+1] {
			t.Fatalf("convolution: calls %d-%d sides %v timed %v: want an untimed call of the side, then its timed one", i, i+1, sides, timed)
		}
	}
	if !slices.Equal(sides[:6], []int{0, 0, 1, 1, v, v}) {
		t.Errorf("convolution: sides %v, want the sides in turn", sides)
	}
	// A dead candidate is skipped; the last side left is timed on every
	// call, each right after its own.
	m := newMeasurement(2, convCheck)
	m.dead[0] = true
	m.begun[v] = 1 + measureCalls
	var got []bool
	for range per + 1 {
		side, tm := m.next()
		if side != 1 {
			t.Fatalf("side %d, want the live candidate 1", side)
		}
		got = append(got, tm)
		if tm {
			m.begun[side]++
		}
	}
	if want := append([]bool{false}, slices.Repeat([]bool{true}, per)...); !slices.Equal(got, want) {
		t.Errorf("the last side's calls timed %v, want %v", got, want)
	}
	if side, _ := m.next(); side != -1 {
		t.Errorf("every sample begun: side %d, want -1", side)
	}
}

// When the first round keeps one of several candidates and it beats the
// vendor, the check times it again alone (the others dropped) and judges
// on those samples: the least of many candidates' samples is biased low.
// One candidate, or a first round the vendor wins, ends without it.
func TestCheckRetime(t *testing.T) {
	three := []float64{12, 12, 12}
	round := func(m *measurement, ours [][]float64) {
		for i, o := range ours {
			m.ours[i] = o
			m.begun[i] = m.warmups() + measureCalls
		}
		m.vendor = three
		m.begun[len(m.ours)] = m.warmups() + measureCalls
		m.collect()
	}
	for _, c := range []struct {
		name   string
		again  []float64 // the kept candidate's second round
		want   int32
		wantUS float64
	}{
		{"confirmed", []float64{9.5, 9, 10}, oursFaster, 9},
		{"a first round's luck", []float64{11.8, 12, 12.1}, vendorFaster, 11.8},
	} {
		m := newMeasurement(3, convCheck)
		round(m, [][]float64{{10, 11, 12}, {8, 9, 9}, {13, 13, 13}})
		if v := m.verdict.Load(); v != measuring || m.chosen.Load() != 1 || !slices.Equal(m.dead, []bool{true, false, true}) {
			t.Fatalf("%s: after the first round verdict %d chosen %d dead %v, want measuring, 1, only 1 live", c.name, v, m.chosen.Load(), m.dead)
		}
		var sides []int
		for {
			side, timed := m.next()
			if side < 0 {
				break
			}
			if sides = append(sides, side); timed {
				m.begun[side]++
			}
		}
		if want := slices.Repeat([]int{1}, 1+measureCalls); !slices.Equal(sides, want) {
			t.Errorf("%s: second round's calls %v, want %v (the kept candidate: an untimed call, then its samples)", c.name, sides, want)
		}
		m.collect()
		if v := m.verdict.Load(); v != measuring {
			t.Fatalf("%s: verdict %d before the second round's samples", c.name, v)
		}
		m.ours[1] = c.again
		m.collect()
		st := m.state()
		if v := m.verdict.Load(); v != c.want || st.Candidate != 1 || !st.Retimed || st.OursUS != c.wantUS ||
			!slices.Equal(st.CandidatesUS, []float64{10, 8, 13}) {
			t.Errorf("%s: verdict %d, state %+v; want %d, candidate 1 re-timed at %.1f µs, first round [10 8 13]", c.name, v, st, c.want, c.wantUS)
		}
	}
	m := newMeasurement(1, convCheck)
	round(m, [][]float64{{8, 9, 9}})
	if v := m.verdict.Load(); v != oursFaster || m.state().Retimed {
		t.Errorf("one candidate: verdict %d retimed %v, want ours at once", v, m.state().Retimed)
	}
	m = newMeasurement(2, gemmCheck)
	round(m, [][]float64{{13, 14, 15}, {12.5, 13, 13}})
	if v := m.verdict.Load(); v != vendorFaster || m.state().Retimed {
		t.Errorf("a first round the vendor wins: verdict %d retimed %v, want the vendor at once", v, m.state().Retimed)
	}
}

// A rule's Samples sets how many timed samples each side takes after its
// warm-ups (the call order and the verdict wait for them); 0 is
// measureCalls, and a server's ISAAC_CHECK_SAMPLES sets it on its checks.
func TestCheckSamples(t *testing.T) {
	rule := gemmCheck
	rule.Samples = 7
	m := newMeasurement(2, rule)
	calls := 0
	for ; calls < 200; calls++ {
		side, timed := m.next()
		if side < 0 {
			break
		}
		if !timed {
			t.Fatalf("call %d untimed under the GEMM rule", calls)
		}
		m.begun[side]++
	}
	if want := 3 * (measureWarmups + 7); calls != want {
		t.Errorf("%d calls before every sample was begun, want %d", calls, want)
	}
	six, seven := slices.Repeat([]float64{10}, 6), slices.Repeat([]float64{10}, 7)
	vendor := slices.Repeat([]float64{20}, 7)
	if v, _ := judge([][]float64{seven, six}, []bool{false, false}, vendor, rule); v != measuring {
		t.Errorf("a candidate with 6 of 7 samples: verdict %d, want measuring", v)
	}
	if v, best := judge([][]float64{seven, seven}, []bool{false, false}, vendor[:6], rule); v != measuring || best != -1 {
		t.Errorf("the vendor with 6 of 7 samples: verdict %d, want measuring", v)
	}
	if v, _ := judge([][]float64{seven, seven}, []bool{false, false}, vendor, rule); v != oursFaster {
		t.Errorf("7 samples each: verdict %d, want ours faster", v)
	}
	if (checkRule{}).samples() != measureCalls {
		t.Errorf("a rule without Samples takes %d, want measureCalls", (checkRule{}).samples())
	}
	s := NewOn(nil, Options{Check: true, CheckSamples: 9})
	if m := s.newCheck(3, gemmCheck); m == nil || m.keep.samples() != 9 || m.keep.Ratio != gemmCheck.Ratio {
		t.Errorf("ISAAC_CHECK_SAMPLES=9: the server's check takes %+v", m.keep)
	}
	if m := NewOn(nil, Options{Check: true}).newCheck(1, convCheck); m.keep.samples() != measureCalls {
		t.Errorf("the default check takes %d samples, want measureCalls", m.keep.samples())
	}
}
