package predictor

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// TypeOf names a GEMM request's served type as the model's features do
// (false for a type ISAAC does not serve).
func TypeOf(g *request.Gemm) (string, bool) {
	t, ok := request.TypeOf(g)
	return t.Name, ok
}

// InputOf is the model's view of a request of class cls.
func InputOf(g *request.Gemm, cls ptx.InputClass) (Input, bool) {
	t, ok := TypeOf(g)
	return Input{Type: t, TransA: g.TransA.Transposed(), TransB: g.TransB.Transposed(),
		M: int(g.M), N: int(g.N), K: int(g.K), AlignA: cls.AlignA, AlignB: cls.AlignB, AlignC: cls.AlignC}, ok
}
