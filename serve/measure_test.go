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
// of at least 1 leaves the default, 1.
func TestCheckMargin(t *testing.T) {
	for v, want := range map[string]float64{"": 1, "1.05": 1.05, "2": 2, "0.9": 1, "-3": 1, "NaN": 1, "+Inf": 1, "x": 1, "1": 1} {
		t.Setenv("ISAAC_CHECK_MARGIN", v)
		if got := FromEnv().CheckMargin; got != want {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: %g, want %g", v, got, want)
		}
		if m := New(FromEnv()).newCheck(); m == nil || m.margin != want {
			t.Errorf("ISAAC_CHECK_MARGIN=%q: the decision's check has margin %v, want %g", v, m, want)
		}
	}
}

// ISAAC_MEASURE=0 leaves decisions unchecked.
func TestMeasureOff(t *testing.T) {
	t.Setenv("ISAAC_MEASURE", "0")
	if New(FromEnv()).newCheck() != nil {
		t.Error("ISAAC_MEASURE=0: decisions still checked")
	}
	t.Setenv("ISAAC_MEASURE", "")
	if New(FromEnv()).newCheck() == nil {
		t.Error("decisions not checked by default")
	}
}
