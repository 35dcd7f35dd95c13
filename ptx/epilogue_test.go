package ptx

import (
	"strings"
	"testing"
)

func TestVectorRun(t *testing.T) {
	col := func(rows ...int) []accElem {
		var es []accElem
		for _, r := range rows {
			es = append(es, accElem{rowBase: "%r1", colBase: "%r2", row: r, col: 0})
		}
		return es
	}
	cases := []struct {
		elems  []accElem
		maxVec int
		want   int
	}{
		{col(0, 1, 2, 3), 4, 4},
		{col(0, 1, 2, 3), 2, 2},
		{col(0, 1, 2), 4, 2},    // not a power of two: the first two
		{col(2, 3, 4, 5), 4, 2}, // row 2 is aligned to 2 only
		{col(0, 8), 4, 1},       // mma fragments: rows not consecutive
		{col(1, 2), 4, 1},
		{append(col(0), accElem{rowBase: "%r1", colBase: "%r2", row: 1, col: 1}), 4, 1},
	}
	for i, c := range cases {
		if got := vectorRun(c.elems, c.maxVec); got != c.want {
			t.Errorf("case %d: vectorRun = %d, want %d", i, got, c.want)
		}
	}
}

// The SIMT epilogue writes each thread's MS consecutive rows of C with one
// vector access when C's alignment allows it, and never vectorizes beyond it.
func TestEpilogueVectorStores(t *testing.T) {
	cfg := GemmConfig{MS: 4, NS: 8, ML: 128, NL: 32, U: 4, KS: 1, KL: 1, KG: 1, VecA: 2, VecB: 2, Stages: 4, Math: FFMA}
	for _, c := range []struct {
		ct         DataType
		alignC, kg int
		want       string
		count      int
	}{
		{F32, 4, 1, "st.global.v4.f32", 8},
		{F32, 2, 1, "st.global.v2.f32", 16},
		{F32, 1, 1, "st.global.v", 0},
		{F32, 1, 4, "st.global.v4.f32", 8}, // workspace: aligned at run time
		{F16, 8, 1, "st.global.v2.b32", 8},
		{BF16, 2, 1, "st.global.b32", 16},
	} {
		in := InputClass{AType: F32, BType: F32, CType: c.ct, Compute: F32, TransA: N, TransB: T, AlignA: 4, AlignB: 4, AlignC: c.alignC}
		if c.ct != F32 {
			in.AType, in.BType = c.ct, c.ct
		}
		cfg.KG = c.kg
		k, err := GenerateGemm(cfg, in, "sm_90")
		if err != nil {
			t.Fatalf("%v: %v", in, err)
		}
		if got := strings.Count(k.PTX, c.want); got != c.count {
			t.Errorf("%v KG=%d: %d × %q, want %d", in, c.kg, got, c.want, c.count)
		}
	}
}

// The mma epilogue stages C through shared memory in passes that fit in
// what the main loop already uses (one warp tile's columns at the least), and
// stores whole vectors of rows: 16 bytes of C, or of the workspace.
func TestEpilogueStaged(t *testing.T) {
	in := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, c := range []struct {
		cfg   GemmConfig
		want  string
		passB int // KL > 1: barriers of the first group only
	}{
		{GemmConfig{MS: 4, NS: 8, ML: 128, NL: 256, U: 16, KS: 1, KL: 1, KG: 1, VecA: 8, VecB: 4, Stages: 3, Math: MMA_F16}, "st.global.v4.b32", 0},
		{GemmConfig{MS: 4, NS: 8, ML: 128, NL: 128, U: 32, KS: 1, KL: 1, KG: 4, VecA: 8, VecB: 8, Stages: 3, Math: MMA_F16}, "st.global.v4.f32", 0},
		{GemmConfig{MS: 1, NS: 2, ML: 32, NL: 32, U: 32, KS: 1, KL: 2, KG: 1, VecA: 8, VecB: 8, Stages: 3, Math: MMA_F16}, "st.global.v4.b32", 2},
	} {
		k, err := GenerateGemm(c.cfg, in, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		g := newGeometry(c.cfg, in)
		if g.stageCols < g.wn || c.cfg.NL%g.stageCols != 0 {
			t.Errorf("%v: %d staged columns per pass, warp tile %d", c.cfg, g.stageCols, g.wn)
		}
		if g.stageSmem > max(g.tileSmem, g.redSmem) && g.stageCols > g.wn {
			t.Errorf("%v: staging (%d bytes) grows shared memory beyond %d", c.cfg, g.stageSmem, max(g.tileSmem, g.redSmem))
		}
		if k.SharedBytes < g.stageSmem {
			t.Errorf("%v: kernel has %d bytes of shared memory, staging needs %d", c.cfg, k.SharedBytes, g.stageSmem)
		}
		if !strings.Contains(k.PTX, c.want) {
			t.Errorf("%v: no %s", c.cfg, c.want)
		}
		if got := strings.Count(k.PTX, "bar.sync 1,"); got != c.passB {
			t.Errorf("%v: %d group barriers, want %d", c.cfg, got, c.passB)
		}
	}
}

// A cluster split launches KG·KC blocks along z in clusters of KC, needs no
// workspace of its own (with KG > 1: the KG slices and one arrival counter
// per tile for the one-pass fixup), and its epilogue adds the KC partial tiles through
// distributed shared memory between two cluster barriers.
func TestEpilogueCluster(t *testing.T) {
	in := InputClass{AType: F16, BType: F16, CType: F16, Compute: F16, TransA: N, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, c := range []struct {
		cfg string
		ws  int
	}{
		{"ms=4,ns=1,ml=128,nl=16,u=32,ks=1,kl=1,kg=1,kc=8,va=8,vb=8,st=3,math=mma_f16acc", 0},
		{"ms=4,ns=1,ml=128,nl=16,u=32,ks=1,kl=1,kg=3,kc=4,va=8,vb=8,st=3,math=mma_f16acc", 3 * 2560 * 16 * 4},
	} {
		cfg, err := ParseConfig(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		k, err := GenerateGemm(cfg, in, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		if g := k.Grid(2560, 16, 2560); g != [3]int{20, 1, cfg.KG * cfg.KC} || k.Cluster() != cfg.KC {
			t.Errorf("%s: grid %v cluster %d", c.cfg, g, k.Cluster())
		}
		if w := k.WorkspaceBytes(2560, 16, 2560); w != c.ws {
			t.Errorf("%s: workspace %d, want %d", c.cfg, w, c.ws)
		}
		// Two cluster barriers around the epilogue; with KG > 1 two more
		// around reading rank 0's arrival answer, one atomic (rank 0's) and
		// one more mapa.
		wantBar, wantMapa, wantAtom := 2, cfg.KC, 0
		if cfg.KG > 1 {
			wantBar, wantMapa, wantAtom = 4, cfg.KC+1, 1
		}
		if n := strings.Count(k.PTX, "barrier.cluster.wait"); n != wantBar {
			t.Errorf("%s: %d cluster barriers, want %d", c.cfg, n, wantBar)
		}
		if n := strings.Count(k.PTX, "mapa.shared::cluster"); n != wantMapa {
			t.Errorf("%s: %d mapa, want %d", c.cfg, n, wantMapa)
		}
		if n := strings.Count(k.PTX, "atom."); n != wantAtom {
			t.Errorf("%s: %d atomics, want %d", c.cfg, n, wantAtom)
		}
		if _, err := GenerateGemm(cfg, in, "sm_80"); err == nil {
			t.Errorf("%s: generated for sm_80", c.cfg)
		}
	}
}

// A grid split whose KG partial tiles fit serialSplitBytes finishes in the
// GEMM kernel (one arrival counter per tile, no reduction kernel); larger
// ones without a KL split whose KG has a divisor G ≥ √KG with G tiles within
// twoLevelBytes finish there over two levels (a counter per tile and per
// group, two arrivals); the rest, and KL groups that are not whole warps,
// keep the reduction kernel.
func TestSerialSplit(t *testing.T) {
	f32 := InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, TransA: N, TransB: N, AlignA: 4, AlignB: 4, AlignC: 4}
	for _, c := range []struct {
		cfg    string
		groups int // 0: two-pass; 1: one level; else two levels, groups per tile
	}{
		{"ms=4,ns=4,ml=64,nl=32,u=16,ks=1,kl=1,kg=6,va=4,vb=4,st=3,math=ffma", 1},    // 48 KiB
		{"ms=4,ns=4,ml=32,nl=32,u=16,ks=1,kl=1,kg=64,va=4,vb=4,st=3,math=ffma", 1},   // 256 KiB
		{"ms=4,ns=4,ml=32,nl=32,u=16,ks=1,kl=1,kg=65,va=4,vb=4,st=3,math=ffma", 5},   // 260 KiB: 5 groups of 13
		{"ms=4,ns=4,ml=32,nl=32,u=16,ks=1,kl=1,kg=256,va=4,vb=4,st=3,math=ffma", 16}, // 1 MiB: 16 groups of 16
		{"ms=4,ns=4,ml=32,nl=32,u=16,ks=1,kl=1,kg=67,va=4,vb=4,st=3,math=ffma", 0},   // 268 KiB, 67 is prime
		{"ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=8,va=4,vb=4,st=3,math=ffma", 0},   // 512 KiB; groups of 4 tiles: 256 KiB
		{"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=2,kg=100,va=1,vb=1,st=1,math=ffma", 0},   // 400 KiB with KL = 2
		{"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=1,kg=100,va=1,vb=1,st=1,math=ffma", 10},  // 400 KiB: 10 groups of 10
		{"ms=8,ns=8,ml=128,nl=128,u=8,ks=1,kl=1,kg=32,va=4,vb=4,st=3,math=ffma", 0},  // groups of 8 tiles: 512 KiB
		{"ms=2,ns=2,ml=32,nl=32,u=8,ks=1,kl=2,kg=8,va=1,vb=1,st=1,math=ffma", 1},     // groups of 256 threads
		{"ms=4,ns=2,ml=8,nl=16,u=64,ks=2,kl=8,kg=2,va=2,vb=2,st=4,math=ffma", 0},     // groups of 16 threads
		{"ms=4,ns=4,ml=64,nl=32,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma", 0},    // no split
	} {
		cfg, err := ParseConfig(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		k, err := GenerateGemm(cfg, f32, "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		n := k.Counters(1000, 100)
		atoms := strings.Count(k.PTX, "atom.")
		resets := strings.Count(k.PTX, "st.relaxed.gpu.global.u32")
		if c.groups > 0 {
			tiles := ceilDiv(1000, cfg.ML) * ceilDiv(100, cfg.NL)
			want, arrivals := tiles, 1
			if c.groups > 1 {
				want, arrivals = tiles*(1+c.groups), 2
			}
			if k.Reduce != nil || n != want || atoms != arrivals || resets != arrivals ||
				k.WorkspaceBytes(1000, 100, 5000) != cfg.KG*1000*100*4 {
				t.Errorf("%s: reduce %v, %d counters (want %d), %d atomics, %d counter resets (want %d), workspace %d",
					c.cfg, k.Reduce != nil, n, want, atoms, resets, arrivals, k.WorkspaceBytes(1000, 100, 5000))
			}
			continue
		}
		if (cfg.KG > 1) != (k.Reduce != nil) || n != 0 || atoms != 0 || resets != 0 {
			t.Errorf("%s: reduce %v, %d counters, %d atomics, %d counter resets", c.cfg, k.Reduce != nil, n, atoms, resets)
		}
	}
}
