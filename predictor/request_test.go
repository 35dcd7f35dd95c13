package predictor

import (
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
)

// Every served type of the conformance table maps to the model's name for
// it, and an unserved one does not.
func TestTypeOf(t *testing.T) {
	for _, ty := range gemmcheck.Types {
		g := &request.Gemm{AType: ty.AB, BType: ty.AB, CType: ty.C, Compute: ty.Compute(), MathMode: ty.Math()}
		got, ok := TypeOf(g)
		if !ok || got != ty.Name {
			t.Errorf("%s: TypeOf = %q, %v", ty.Name, got, ok)
		}
	}
	if _, ok := TypeOf(&request.Gemm{AType: request.R64F, Compute: request.Compute32F}); ok {
		t.Error("f64 with f32 compute is served")
	}
}
