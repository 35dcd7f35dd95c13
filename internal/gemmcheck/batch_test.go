package gemmcheck

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/request"
)

// A batched case's data: each matrix's inputs are the stored buffers at
// its strides (broadcast A shared by every matrix), its reference that of
// its own inputs, and Check accepts the exact result and finds a wrong
// matrix element and a write between C's matrices.
func TestBatchData(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ok := 0
	for i := range 200 {
		c := RandomBatchCase(rng, Types[i%len(Types)], 200_000)
		if c.Batch < 2 || c.StrideC == c.ElemsC() {
			continue
		}
		d := NewBatchData(c)
		if len(d.Matrices) != c.Batch {
			t.Fatalf("%v: %d matrices", c, len(d.Matrices))
		}
		if c.StrideA == 0 && &d.Matrices[0].A[0] != &d.Matrices[c.Batch-1].A[0] {
			t.Errorf("%v: a broadcast A is not one matrix", c)
		}
		last := d.Matrices[c.Batch-1]
		plain := &Data{A: last.A, B: last.B, C0: last.C0}
		plain.reference(c.Case)
		for j := range plain.Ref {
			if plain.Ref[j] != last.Ref[j] {
				t.Fatalf("%v: the last matrix's reference is not its inputs'", c)
			}
		}
		got := append([]float64(nil), d.C0...)
		for m, md := range d.Matrices {
			for col := range c.N {
				for row := range c.M {
					got[m*c.StrideC+c.OffC+row+col*c.LDC()] = md.Ref[row+col*c.M]
				}
			}
		}
		if r := d.Check(c, got); r.Bad != 0 {
			t.Fatalf("%v: the exact result: %s", c, r.FirstBad)
		}
		gap := c.ElemsC() // the first element after matrix 0: a gap of C
		got[gap] = 1e9
		if r := d.Check(c, got); r.Bad != 1 {
			t.Errorf("%v: a write between C's matrices: %d bad", c, r.Bad)
		}
		got[gap] = d.C0[gap]
		got[(c.Batch-1)*c.StrideC+c.OffC] = math.NaN()
		if r := d.Check(c, got); r.Bad != 1 {
			t.Errorf("%v: a wrong element of the last matrix: %d bad", c, r.Bad)
		}
		if g := c.RequestAt(1<<20, 2<<20, 3<<20, 4<<20, 0); !g.Entry.Batched() || g.Batch != int64(c.Batch) || g.StrideC != int64(c.StrideC) {
			t.Errorf("%v: request %v", c, g)
		}
		ok++
	}
	if ok < 20 {
		t.Errorf("%d batched cases with a gap in C", ok)
	}
	if e := (BatchCase{Case: Case{Type: Types[0], Seed: 2}}).Entry(); e != request.EntrySgemmStridedBatched64 && e != request.EntryGemmStridedBatchedEx64 {
		t.Errorf("seed 2's entry %v is not a 64-bit batched one", e)
	}
}
