package gemmcheck

import (
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/request"
)

// BatchCase is a strided-batched GEMM input: Batch matrices of the Case's
// shape, layout and scalars, matrix i of each operand StrideX elements
// after matrix i-1 (cuBLAS's *StridedBatched routines). A or B may have
// stride 0 (one matrix for the whole batch) or overlapping matrices; C's
// do not overlap.
type BatchCase struct {
	Case
	Batch                     int
	StrideA, StrideB, StrideC int
}

func (c BatchCase) String() string {
	return c.Case.String() + " batch=" + strconv.Itoa(c.Batch) + " strides=" + strconv.Itoa(c.StrideA) + "/" +
		strconv.Itoa(c.StrideB) + "/" + strconv.Itoa(c.StrideC)
}

// elems is how many elements an operand of matrices of one elements, stride
// apart, spans.
func (c BatchCase) elems(one, stride int) int { return stride*(c.Batch-1) + one }

// RandomBatchCase draws a batched case of type t: a batch of 1 to 512
// matrices (log-uniform) whose work in all (batch·m·n·k) is at most
// maxWork, strides of each operand's matrix size plus a random gap (odd or
// a multiple of 8), or for A or B sometimes 0 (broadcast) or less than the
// matrix (overlapping reads).
func RandomBatchCase(rng *rand.Rand, t Type, maxWork int) BatchCase {
	c := BatchCase{Batch: logUniform(rng, 1, 512)}
	c.Case = RandomCase(rng, t, max(maxWork/c.Batch, 4096))
	for c.M*c.N*c.K*c.Batch > maxWork && c.Batch > 1 {
		c.Batch /= 2
	}
	stride := func(one int, reads bool) int {
		switch r := rng.IntN(8); {
		case reads && r == 0:
			return 0
		case reads && r == 1:
			return 1 + rng.IntN(one)
		case r < 5:
			return one + 8*rng.IntN(3)
		default:
			return one + 1 + 2*rng.IntN(4)
		}
	}
	c.StrideA, c.StrideB, c.StrideC = stride(c.ElemsA(), true), stride(c.ElemsB(), true), stride(c.ElemsC(), false)
	return c
}

// AlignedBatchCase is a batch of the attention products' kind: m and n
// multiples of 64 up to 512, a short reduction (16 to 128), leading
// dimensions and strides that keep every matrix 16-byte aligned (dense, or
// 64 elements apart; A's or B's 0 now and then), and as many matrices as
// maxWork multiply-adds allow (2 to 256): the inputs whose kernels copy
// with the tensor copy engine and walk several tiles a block when
// persistent.
func AlignedBatchCase(rng *rand.Rand, t Type, maxWork int) BatchCase {
	c := RandomCase(rng, t, 4096)
	c.M, c.N, c.K = 64*(1+rng.IntN(8)), 64*(1+rng.IntN(8)), 16<<rng.IntN(4)
	c.PadA, c.PadB, c.PadC, c.OffA, c.OffB, c.OffC = 0, 0, 0, 0, 0, 0
	b := BatchCase{Case: c, Batch: min(max(maxWork/(c.M*c.N*c.K), 2), 256)}
	stride := func(one int, reads bool) int {
		switch r := rng.IntN(6); {
		case reads && r == 0:
			return 0
		case r == 1:
			return one + 64
		}
		return one
	}
	b.StrideA, b.StrideB, b.StrideC = stride(c.ElemsA(), true), stride(c.ElemsB(), true), stride(c.ElemsC(), false)
	return b
}

// Entry is the strided-batched entry point a program calls the case
// through: the type's own routine or cublasGemmStridedBatchedEx (as
// Case.Entry draws between the plain ones), 32- or 64-bit.
func (c BatchCase) Entry() request.Entry {
	return c.Case.Entry() - request.EntrySgemm + request.EntrySgemmStridedBatched
}

// RequestAt is the case's strided-batched request for buffers at a, b and
// cc (before the offsets) and device scalars at scalars.
func (c BatchCase) RequestAt(a, b, cc, scalars, stream uintptr) *request.Gemm {
	g := c.Case.RequestAt(a, b, cc, scalars, stream)
	g.Entry = c.Entry()
	g.StrideA, g.StrideB, g.StrideC, g.Batch = int64(c.StrideA), int64(c.StrideB), int64(c.StrideC), int64(c.Batch)
	return g
}

// BatchData holds a batched case's host inputs as stored (every matrix at
// its stride, the gaps between drawn too) and each matrix's reference.
type BatchData struct {
	A, B, C0 []float64
	Matrices []*Data // matrix i's inputs (views of A, B, C0) and reference
}

// NewBatchData draws the inputs of c and computes each matrix's reference.
func NewBatchData(c BatchCase) *BatchData {
	rng := rand.New(rand.NewPCG(c.Seed, 11))
	d := &BatchData{
		A:  Eighths(rng, c.elems(c.ElemsA(), c.StrideA)),
		B:  Eighths(rng, c.elems(c.ElemsB(), c.StrideB)),
		C0: Eighths(rng, c.elems(c.ElemsC(), c.StrideC)),
	}
	if c.Beta == 0 {
		for i := range d.C0 {
			d.C0[i] = math.NaN() // beta == 0: C must not be read
		}
	}
	for i := range c.Batch {
		m := &Data{
			A:  d.A[i*c.StrideA : i*c.StrideA+c.ElemsA()],
			B:  d.B[i*c.StrideB : i*c.StrideB+c.ElemsB()],
			C0: d.C0[i*c.StrideC : i*c.StrideC+c.ElemsC()],
		}
		m.reference(c.Case)
		d.Matrices = append(d.Matrices, m)
	}
	return d
}

// Check compares the stored C of the whole batch with the references:
// every matrix's result within its bound, every other element untouched.
func (d *BatchData) Check(c BatchCase, got []float64) Result {
	var r Result
	mine := make([]bool, len(got))
	for i, m := range d.Matrices {
		lo := i * c.StrideC
		for j := range c.ElemsC() {
			mine[lo+j] = true
		}
		mr := m.Check(c.Case, got[lo:lo+c.ElemsC()])
		r.MaxErr, r.MaxRelBound = math.Max(r.MaxErr, mr.MaxErr), math.Max(r.MaxRelBound, mr.MaxRelBound)
		r.Bad += mr.Bad
		if r.FirstBad == "" && mr.FirstBad != "" {
			r.FirstBad = "matrix " + strconv.Itoa(i) + ": " + mr.FirstBad
		}
	}
	for idx, v := range got {
		if !mine[idx] && !(v == d.C0[idx] || math.IsNaN(v) && math.IsNaN(d.C0[idx])) {
			r.Bad++
			if r.FirstBad == "" {
				r.FirstBad = "wrote between the matrices of C at element " + strconv.Itoa(idx)
			}
		}
	}
	return r
}

// UploadBatch allocates and fills a batched case's buffers.
func UploadBatch(c BatchCase, d *BatchData) (*Buffers, error) {
	return upload(c.Case, &Data{A: d.A, B: d.B, C0: d.C0})
}

// BatchRequest is the batched case's request on b's buffers and stream.
func (c BatchCase) BatchRequest(b *Buffers, stream cuda.Stream) *request.Gemm {
	return c.RequestAt(uintptr(b.A), uintptr(b.B), uintptr(b.C), uintptr(b.Scalars), uintptr(stream))
}
