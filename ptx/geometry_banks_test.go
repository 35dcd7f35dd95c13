package ptx

import "testing"

// Every f64 and tf32 fragment load from a tile without ldmatrix reads its
// 32 lanes' bytes in the fewest wavefronts the bytes allow (128 per
// wavefront), whatever the tile's width and layout; with the 16 bytes of
// padding the other paths use, f64 fragments of power-of-two m/n-contiguous
// tiles took twice as many.
func TestFragmentLoadsConflictFree(t *testing.T) {
	classes := []InputClass{
		{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: N, TransB: T, AlignA: 2, AlignB: 2, AlignC: 2},
		{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: T, TransB: N, AlignA: 2, AlignB: 2, AlignC: 2},
		{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: T, AlignA: 4, AlignB: 4, AlignC: 4, AllowTF32: true},
	}
	checked := 0
	for _, in := range classes {
		for _, m := range MathsFor(in) {
			if !m.IsMMA() {
				continue
			}
			for _, ml := range []int{16, 32, 64, 128, 256} {
				for _, u := range []int{8, 16, 32} {
					cfg := GemmConfig{MS: 1, NS: 1, ML: ml, NL: ml, U: u, KS: 1, KL: 1, KG: 1, VecA: 1, VecB: 1, Stages: 2, Math: m}
					g := newGeometry(cfg, in)
					for name, o := range map[string]operandGeom{"A": g.a, "B": g.b} {
						if g.ldmatrix(o) {
							continue
						}
						addrs, size := g.fragLoad(o, o.stride)
						got, want := wavefronts(addrs, size), (32*size+127)/128
						if got != want {
							t.Errorf("%s %s %s: %d wavefronts per fragment load, want %d (stride %d)", in, cfg, name, got, want, o.stride)
						}
						if (o.stride*g.es)%16 != 0 {
							t.Errorf("%s %s %s: stride %d breaks 16-byte cp.async alignment", in, cfg, name, o.stride)
						}
						checked++
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no operand checked")
	}
	// The case that motivated it: 16 bytes of padding on a 128-wide f64
	// m-contiguous tile.
	g := newGeometry(GemmConfig{MS: 2, NS: 4, ML: 128, NL: 64, U: 8, KS: 1, KL: 1, KG: 1, VecA: 2, VecB: 2, Stages: 3, Math: MMA_F64_K8}, classes[0])
	if w := wavefronts(g.fragLoad(g.a, g.a.lc+2)); w != 4 {
		t.Errorf("16-byte padding: %d wavefronts, the model says 4", w)
	}
}

func TestWavefronts(t *testing.T) {
	seq := make([]int, 32)
	for l := range seq {
		seq[l] = 4 * l
	}
	if w := wavefronts(seq, 4); w != 1 {
		t.Errorf("32 consecutive words: %d wavefronts, want 1", w)
	}
	same := make([]int, 32)
	if w := wavefronts(same, 8); w != 1 {
		t.Errorf("broadcast: %d wavefronts, want 1", w)
	}
	stride := make([]int, 32)
	for l := range stride {
		stride[l] = 128 * l
	}
	if w := wavefronts(stride, 4); w != 32 {
		t.Errorf("one bank: %d wavefronts, want 32", w)
	}
}

// Legal runs on every candidate the predictor screens: deriving the
// padding must not allocate once a layout has been seen.
func TestFragPadMemoized(t *testing.T) {
	in := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: N, TransB: T, AlignA: 2, AlignB: 2, AlignC: 2}
	cfg := GemmConfig{MS: 2, NS: 4, ML: 64, NL: 64, U: 16, KS: 1, KL: 1, KG: 1, VecA: 1, VecB: 1, Stages: 2, Math: MMA_F64_K8}
	g := newGeometry(cfg, in)
	if a := testing.AllocsPerRun(100, func() { g.fragPad(g.a) }); a != 0 {
		t.Errorf("fragPad allocates %.0f times per call on a seen layout", a)
	}
}

func BenchmarkLegalF64(b *testing.B) {
	in := InputClass{AType: F64, BType: F64, CType: F64, Compute: F64, TransA: N, TransB: T, AlignA: 2, AlignB: 2, AlignC: 2}
	cfg := GemmConfig{MS: 2, NS: 4, ML: 64, NL: 64, U: 16, KS: 1, KL: 1, KG: 1, VecA: 1, VecB: 1, Stages: 2, Math: MMA_F64_K8}
	dev := H100()
	b.ReportAllocs()
	for b.Loop() {
		if err := Legal(cfg, in, dev); err != nil {
			b.Fatal(err)
		}
	}
}
