package cublas

import (
	"testing"

	"github.com/isaacgo/isaac/request"
)

// A request's cuBLASLt descriptors, without a GPU: nn.Linear's call (TN,
// a bias, f16 with f32 compute) and a batched NT one with GELU and device
// scalars; every epilogue; the scale type of each compute type.
func TestLtShape(t *testing.T) {
	g := &request.Gemm{Entry: request.EntryLtMatmul, TransA: request.OpT, TransB: request.OpN,
		AType: request.R16F, BType: request.R16F, CType: request.R16F, Compute: request.Compute32F,
		M: 11008, N: 8, K: 4096, LDA: 4096, LDB: 4096, LDC: 11008, Bias: 0x1000, Batch: 1}
	s, err := ltShapeOf(g)
	if err != nil {
		t.Fatal(err)
	}
	want := ltShape{Compute: request.Compute32F, Scale: request.R32F, TransA: request.OpT, TransB: request.OpN,
		Epilogue: request.LtEpilogueBias, Batch: 1,
		A: ltMatrix{Type: request.R16F, Rows: 4096, Cols: 11008, LD: 4096},
		B: ltMatrix{Type: request.R16F, Rows: 4096, Cols: 8, LD: 4096},
		C: ltMatrix{Type: request.R16F, Rows: 11008, Cols: 8, LD: 11008}}
	if s != want {
		t.Errorf("linear: %+v\nwant %+v", s, want)
	}
	b := *g
	b.TransA, b.TransB, b.LDA, b.LDB = request.OpN, request.OpT, 11008, 8
	b.Batch, b.StrideA, b.StrideB, b.StrideC = 3, 100, 200, 300
	b.Bias, b.Act, b.PointerMode = 0, request.ActGELU, request.PointerDevice
	s, err = ltShapeOf(&b)
	if err != nil {
		t.Fatal(err)
	}
	if s.A != (ltMatrix{request.R16F, 11008, 4096, 11008, 100}) || s.B != (ltMatrix{request.R16F, 8, 4096, 8, 200}) ||
		s.C.Stride != 300 || s.Batch != 3 || s.Epilogue != request.LtEpilogueGELU || s.PointerMode != request.PointerDevice {
		t.Errorf("batched NT: %+v", s)
	}
	for _, c := range []struct {
		bias bool
		act  request.Activation
		want int
	}{
		{false, request.ActNone, 1}, {false, request.ActReLU, 2}, {true, request.ActNone, 4},
		{true, request.ActReLU, 6}, {false, request.ActGELU, 32}, {true, request.ActGELU, 36},
	} {
		e := request.Gemm{Act: c.act}
		if c.bias {
			e.Bias = 1
		}
		if got, err := ltEpilogue(&e); err != nil || got != c.want {
			t.Errorf("bias %v act %v: epilogue %d (%v), want %d", c.bias, c.act, got, err, c.want)
		}
	}
	if _, err := ltEpilogue(&request.Gemm{Act: 7}); err == nil {
		t.Error("activation 7 accepted")
	}
	for c, want := range map[request.ComputeType]request.DataType{
		request.Compute16F: request.R16F, request.Compute32F: request.R32F, request.Compute32FFastTF32: request.R32F,
		request.Compute64F: request.R64F,
	} {
		if got, err := ltScale(c); err != nil || got != want {
			t.Errorf("compute %v: scale %v (%v), want %v", c, got, err, want)
		}
	}
	if _, err := ltScale(request.Compute32I); err == nil {
		t.Error("integer compute has a scale type")
	}
}
