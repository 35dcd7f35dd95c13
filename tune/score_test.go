package tune

import (
	"math"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// The held-out inputs are fold 9's, grouped, filtered and counted; the
// suboptimality of a pick is its rate's shortfall from the best.
func TestHeldOutSuboptimality(t *testing.T) {
	plain := ptx.GemmConfig{MS: 1, NS: 1, ML: 16, NL: 16, U: 8, KS: 1, KL: 1, KG: 1, VecA: 1, VecB: 1, Stages: 2, Math: ptx.FFMA}
	piped := plain
	piped.PP = 1
	var samples []Sample
	var held, other Sample
	// find one input of fold 9 and one of another fold
	for m := 1; held.M == 0 || other.M == 0; m++ {
		s := Sample{Type: "sgemm", TransA: 'N', TransB: 'N', M: m, N: 64, K: 64, AlignA: 1, AlignB: 1, AlignC: 1, VendorUS: 5}
		if Fold(SampleInput(s)) == 9 {
			if held.M == 0 {
				held = s
			}
		} else if other.M == 0 {
			other = s
		}
	}
	for i, us := range []float64{4, 2, 8} {
		s := held
		s.Config, s.US = plain, us
		s.Config.U = 8 << i
		samples = append(samples, s)
		o := other
		o.Config, o.US = plain, us
		samples = append(samples, o)
	}
	s := held
	s.Config, s.US = piped, 1
	samples = append(samples, s, Sample{Type: "sgemm", TransA: 'N', TransB: 'N', M: held.M, N: 64, K: 64, AlignA: 1, AlignB: 1, AlignC: 1, VendorUS: 5})

	all := HeldOut(samples, nil, 2)
	if len(all) != 1 || all[0].In != SampleInput(held) || len(all[0].Configs) != 4 {
		t.Fatalf("held out: %+v", all)
	}
	if got := HeldOut(samples, nil, 5); len(got) != 0 {
		t.Errorf("min 5: %d inputs", len(got))
	}
	plainOnly := HeldOut(samples, func(c ptx.GemmConfig) bool { return !Staged(c) }, 2)
	if len(plainOnly) != 1 || len(plainOnly[0].Configs) != 3 {
		t.Fatalf("plain rows: %+v", plainOnly)
	}
	r := plainOnly[0].Rates
	if want := LogTFLOPs(held.M, 64, 64, 2); math.Abs(r[1]-want) > 1e-12 {
		t.Errorf("rate %v, want %v", r[1], want)
	}
	// a score that picks the 2 µs configuration is optimal; the 8 µs one is 3 (300 %) slower
	if got := Suboptimality([]float64{0, 1, 0}, r); got != 0 {
		t.Errorf("best pick: %v", got)
	}
	if got := Suboptimality([]float64{0, 0, 1}, r); math.Abs(got-3) > 1e-9 {
		t.Errorf("8 µs pick: %v, want 3", got)
	}
	if got := Suboptimality([]float64{1, 1, 1}, r); math.Abs(got-1) > 1e-9 {
		t.Errorf("a tie goes to the first (4 µs): %v, want 1", got)
	}
	if !math.IsNaN(Suboptimality(nil, nil)) || !math.IsNaN(Suboptimality([]float64{1}, r)) {
		t.Error("mismatched lengths are not NaN")
	}
	if !Staged(piped) || Staged(plain) {
		t.Error("Staged")
	}
}
