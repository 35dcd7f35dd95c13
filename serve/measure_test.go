package serve

import "testing"

// The verdict compares the fastest samples: ours must not be the longer.
func TestVerdictOf(t *testing.T) {
	for _, c := range []struct {
		ours, vendor []float64
		margin       float64
		want         int32
	}{
		{[]float64{10, 11, 90}, []float64{12, 12, 12}, 1, oursFaster},
		{[]float64{13, 11, 12}, []float64{12, 12, 12}, 1, oursFaster},
		{[]float64{13, 13, 12}, []float64{12, 12, 12}, 1, oursFaster},   // a tie keeps serving
		{[]float64{11, 11, 11}, []float64{41, 10, 41}, 1, vendorFaster}, // host gaps in two vendor samples
		{[]float64{5, 6}, []float64{5, 7}, 1, oursFaster},
		// With a margin ours must be that much faster.
		{[]float64{10, 11, 90}, []float64{12, 12, 12}, 1.05, oursFaster},     // 10 × 1.05 = 10.5 ≤ 12
		{[]float64{11.5, 12, 90}, []float64{12, 12, 12}, 1.05, vendorFaster}, // 12.075 > 12
		{[]float64{12, 12, 12}, []float64{12, 12, 12}, 1.05, vendorFaster},
	} {
		if got := verdictOf(c.ours, c.vendor, c.margin); got != c.want {
			t.Errorf("ours %v vendor %v margin %g: %d, want %d", c.ours, c.vendor, c.margin, got, c.want)
		}
	}
	if fastest(nil) != 0 || fastest([]float64{3, 1, 2}) != 1 {
		t.Error("fastest")
	}
}

// ISAAC_CHECK_MARGIN sets the check's margin; what is not a finite number
// of at least 1 leaves the default, 1. A GEMM's check keeps ours only by
// gemmKeepMargin at least, a convolution's by convKeepMargin.
func TestCheckMargin(t *testing.T) {
	for v, want := range map[string]float64{"": 1, "1.05": 1.05, "2": 2, "0.9": 1, "-3": 1, "NaN": 1, "+Inf": 1, "x": 1, "1": 1} {
		t.Setenv("ISAAC_CHECK_MARGIN", v)
		if got := FromEnv().CheckMargin; got != want {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: %g, want %g", v, got, want)
		}
		if m := New(FromEnv()).newCheck(3, gemmKeepMargin); m == nil || m.margin != max(want, gemmKeepMargin) || len(m.ours) != 3 {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: a GEMM's check %+v, want margin %g", v, m, max(want, gemmKeepMargin))
		}
		if m := New(FromEnv()).newCheck(2, convKeepMargin); m == nil || m.margin != max(want, convKeepMargin) || len(m.ours) != 2 {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: a convolution's check %+v, want margin %g", v, m, max(want, convKeepMargin))
		}
	}
}

// ISAAC_MEASURE=0 leaves decisions unchecked.
func TestMeasureOff(t *testing.T) {
	t.Setenv("ISAAC_MEASURE", "0")
	if New(FromEnv()).newCheck(1, gemmKeepMargin) != nil {
		t.Error("ISAAC_MEASURE=0: decisions still checked")
	}
	t.Setenv("ISAAC_MEASURE", "")
	if New(FromEnv()).newCheck(1, gemmKeepMargin) == nil {
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
		v, best := judge(c.ours, c.dead, c.vendor, 1)
		if v != c.want || best != c.best {
			t.Errorf("ours %v dead %v vendor %v: verdict %d best %d, want %d %d", c.ours, c.dead, c.vendor, v, best, c.want, c.best)
		}
	}
}
