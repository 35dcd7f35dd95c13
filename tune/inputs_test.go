package tune

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/request"
)

func TestDistribution(t *testing.T) {
	d := DefaultDistribution()
	rng := rand.New(rand.NewPCG(5, 6))
	types, deep, near := map[string]int{}, 0, 0
	for i := 0; i < 400; i++ {
		b := d.Batch(rng, 4)
		types[b.Type.Name]++
		for j, s := range b.Shapes {
			m, n, k := s[0], s[1], s[2]
			if IsSuiteShape(m, n, k) {
				t.Fatalf("drew the suite shape %v", s)
			}
			if m < 1 || n < 1 || k < 1 || m > 16384*2 || n > 16384*2 || k > 100000 {
				t.Fatalf("shape %v out of range", s)
			}
			if 2*float64(m)*float64(n)*float64(k) > d.MaxFlops(b.Type) {
				t.Fatalf("shape %v above the work bound", s)
			}
			if k > 16384 {
				deep++
			}
			if m == 2560 || k == 60000 || n == 4096 {
				near++
			}
			c := b.Case(j)
			es := b.Type.AB.Size()
			if got := request.Alignment(0, int64(c.LDA()), es) / es; got != b.Align {
				t.Errorf("%s lda %d rows has alignment %d, want %d", b.Type.Name, c.LDA(), got, b.Align)
			}
			if got := request.Alignment(0, int64(c.LDB()), es) / es; got != b.Align {
				t.Errorf("%s ldb %d has alignment %d, want %d", b.Type.Name, c.LDB(), got, b.Align)
			}
		}
	}
	if len(types) != 7 {
		t.Errorf("types drawn: %v", types)
	}
	if deep == 0 {
		t.Error("no deep reduction drawn")
	}
}

func TestLeadingDim(t *testing.T) {
	for _, c := range []struct{ rows, align, widest, want int }{
		{100, 8, 8, 104}, {100, 4, 8, 100}, {104, 4, 8, 108}, {101, 1, 8, 101}, {100, 1, 8, 101}, {96, 2, 8, 98}, {7, 2, 2, 8},
	} {
		if got := LeadingDim(c.rows, c.align, c.widest); got != c.want {
			t.Errorf("LeadingDim(%d, %d, %d) = %d, want %d", c.rows, c.align, c.widest, got, c.want)
		}
	}
}

// With Pow2Share 1 every dimension is a multiple of a power of two from 32
// to 1024 (and still never a suite's exact shape).
func TestDistributionPow2(t *testing.T) {
	d := DefaultDistribution()
	d.Pow2Share = 1
	rng := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 200; i++ {
		b := d.Batch(rng, 8)
		for _, s := range b.Shapes {
			for _, v := range s {
				if v < 32 || v%32 != 0 {
					t.Fatalf("shape %v: %d is not a multiple of 32", s, v)
				}
			}
			if IsSuiteShape(s[0], s[1], s[2]) {
				t.Fatalf("suite shape %v drawn", s)
			}
		}
	}
}
