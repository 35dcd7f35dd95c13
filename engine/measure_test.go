package engine

import "testing"

// The verdict compares medians: ours must not be the longer.
func TestVerdictOf(t *testing.T) {
	for _, c := range []struct {
		ours, vendor []float64
		want         int32
	}{
		{[]float64{10, 11, 90}, []float64{12, 12, 12}, oursFaster},
		{[]float64{13, 11, 12}, []float64{12, 12, 12}, oursFaster},
		{[]float64{13, 13, 12}, []float64{1, 12, 12}, vendorFaster},
		{[]float64{5, 6}, []float64{5, 7}, oursFaster},
	} {
		if got := verdictOf(c.ours, c.vendor); got != c.want {
			t.Errorf("ours %v vendor %v: %d, want %d", c.ours, c.vendor, got, c.want)
		}
	}
	if median(nil) != 0 || median([]float64{3, 1, 2}) != 2 || median([]float64{4, 1, 2, 3}) != 2.5 {
		t.Error("median")
	}
}

// ISAAC_MEASURE=0 leaves decisions unchecked.
func TestMeasureOff(t *testing.T) {
	t.Setenv("ISAAC_MEASURE", "0")
	if newMeasurement() != nil {
		t.Error("ISAAC_MEASURE=0: decisions still checked")
	}
	t.Setenv("ISAAC_MEASURE", "")
	if newMeasurement() == nil {
		t.Error("decisions not checked by default")
	}
}
