package suites

import "testing"

// The convolution suites: Table 5's 14 layers with their output sizes as the
// paper lists them, the CNN layers at three batches, every output non-empty.
func TestConvSuites(t *testing.T) {
	t5 := Table5()
	if len(t5) != 14 || t5[0].P() != 79 || t5[0].Q() != 341 || t5[13].P() != 7 || t5[13].K != 2048 {
		t.Fatalf("Table 5: %d layers, first %+v", len(t5), t5[0])
	}
	cnn := CNN()
	if len(cnn) != 33 {
		t.Errorf("%d CNN layers, want 33", len(cnn))
	}
	dw := Depthwise()
	if len(dw) != 12 || dw[2].P() != 28 || dw[3].P() != 28 || dw[0].Groups != 128 {
		t.Errorf("%d depthwise layers, %+v", len(dw), dw[2])
	}
	for _, c := range append(append(t5, cnn...), dw...) {
		if c.P() < 1 || c.Q() < 1 || c.C%c.Groups != 0 || c.K%c.Groups != 0 {
			t.Errorf("%+v: output %dx%d", c, c.P(), c.Q())
		}
	}
	// The paper's NPQ and CRS columns.
	wantNPQ := []int{431024, 100928, 92160, 23040, 23328, 5832, 3136, 784, 100352, 25088, 79872, 77824, 784, 784}
	wantCRS := []int{100, 1600, 144, 288, 576, 1152, 12800, 20800, 576, 1152, 1600, 3200, 4608, 1024}
	for i, c := range t5 {
		if npq, crs := c.N*c.P()*c.Q(), c.C*c.R*c.S; npq != wantNPQ[i] || crs != wantCRS[i] {
			t.Errorf("%s: NPQ %d CRS %d, want %d %d", c.Name, npq, crs, wantNPQ[i], wantCRS[i])
		}
	}
	if s := CNN()[0]; s.P() != 112 || s.Q() != 112 {
		t.Errorf("the stem's output is %dx%d, want 112x112", s.P(), s.Q())
	}
}
