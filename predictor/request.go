package predictor

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// TypeOf names a GEMM request's served type as the model's features do
// (false for a type ISAAC does not serve).
func TypeOf(g *request.Gemm) (string, bool) {
	switch g.AType {
	case request.R64F:
		return "dgemm", g.Compute == request.Compute64F
	case request.R16F:
		switch g.Compute {
		case request.Compute16F:
			return "hgemm", true
		case request.Compute32F:
			return "gemmex_f16_f32", true
		}
	case request.R16BF:
		return "gemmex_bf16_f32", g.Compute == request.Compute32F
	case request.R32F:
		switch g.Compute {
		case request.Compute32FFastTF32:
			return "gemmex_f32_fasttf32", true
		case request.Compute32F:
			if g.MathMode.AllowsTF32() {
				return "sgemm_tf32", true
			}
			return "sgemm", true
		case request.Compute32FPedantic:
			return "sgemm", true
		}
	}
	return "", false
}

// InputOf is the model's view of a request of class cls.
func InputOf(g *request.Gemm, cls ptx.InputClass) (Input, bool) {
	t, ok := TypeOf(g)
	return Input{Type: t, TransA: g.TransA.Transposed(), TransB: g.TransB.Transposed(),
		M: int(g.M), N: int(g.N), K: int(g.K), AlignA: cls.AlignA, AlignB: cls.AlignB, AlignC: cls.AlignC}, ok
}
