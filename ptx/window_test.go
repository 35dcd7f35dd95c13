package ptx

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

func TestLegalWindow(t *testing.T) {
	ok := WindowConfig{Pixels: 128, Channels: 64, WarpsM: 2, WarpsN: 2, KB: 96}
	if err := LegalWindow(ok, WindowClass{Data: F16}); err != nil {
		t.Fatal(err)
	}
	bad := []struct {
		cfg WindowConfig
		cls WindowClass
	}{
		{ok, WindowClass{Data: F32}},
		{WindowConfig{Pixels: 96, Channels: 64, WarpsM: 2, WarpsN: 2, KB: 96}, WindowClass{Data: F16}},
		{WindowConfig{Pixels: 128, Channels: 48, WarpsM: 2, WarpsN: 2, KB: 96}, WindowClass{Data: F16}},
		{WindowConfig{Pixels: 128, Channels: 64, WarpsM: 2, WarpsN: 1, KB: 96}, WindowClass{Data: F16}},   // two warps
		{WindowConfig{Pixels: 64, Channels: 16, WarpsM: 8, WarpsN: 1, KB: 96}, WindowClass{Data: BF16}},   // 8 pixels a warp
		{WindowConfig{Pixels: 256, Channels: 128, WarpsM: 2, WarpsN: 2, KB: 200}, WindowClass{Data: F16}}, // 256 accumulators a thread
		{WindowConfig{Pixels: 256, Channels: 128, WarpsM: 4, WarpsN: 2, KB: 96}, WindowClass{Data: F16}},  // the epilogue's 133 KB
	}
	for _, b := range bad {
		if LegalWindow(b.cfg, b.cls) == nil {
			t.Errorf("%v %v: legal", b.cfg, b.cls)
		}
	}
}

// randomWindowProblem draws a convolution of any padding, stride,
// dilation and flip, x and y in NCHW.
func randomWindowProblem(rng *rand.Rand) WindowProblem {
	pr := WindowProblem{N: 1 + rng.IntN(3), C: 1 + rng.IntN(300), H: 1 + rng.IntN(200), W: 1 + rng.IntN(400), K: 1 + rng.IntN(200),
		R: 1 + rng.IntN(7), S: 1 + rng.IntN(20), StrH: 1 + rng.IntN(3), StrW: 1 + rng.IntN(3)}
	dilH, dilW := 1+rng.IntN(3), 1+rng.IntN(3)
	pr.PadH, pr.PadW = rng.IntN(pr.R*dilH+1), rng.IntN(pr.S*dilW+1)
	for pr.H+2*pr.PadH < (pr.R-1)*dilH+1 {
		pr.H++
	}
	for pr.W+2*pr.PadW < (pr.S-1)*dilW+1 {
		pr.W++
	}
	pr.P, pr.Q = (pr.H+2*pr.PadH-((pr.R-1)*dilH+1))/pr.StrH+1, (pr.W+2*pr.PadW-((pr.S-1)*dilW+1))/pr.StrW+1
	pr.HStep, pr.WStep = dilH, dilW
	if rng.IntN(2) == 0 {
		pr.HO, pr.HStep = (pr.R-1)*dilH, -dilH
		pr.WO, pr.WStep = (pr.S-1)*dilW, -dilW
	}
	return pr
}

// The geometry tiles every output, its window holds every tap of every
// pixel of a tile (at the place of x the convolution reads), its chunks of
// channels and their reduction fit the shared memory it asks for.
func TestWindowGeometry(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 29))
	cfgs := []WindowConfig{{64, 16, 4, 1, 48, false, false}, {128, 32, 4, 1, 96, false, false}, {128, 64, 2, 2, 96, false, false}, {256, 64, 4, 2, 200, false, false}}
	for trial := 0; trial < 400; trial++ {
		pr, cfg := randomWindowProblem(rng), cfgs[trial%len(cfgs)]
		cls := WindowClass{Data: F16, XVec: []int{1, 2, 8}[trial%3], WVec: []int{1, 4, 8}[trial/3%3]}
		g, err := WindowGeometryOf(cfg, cls, pr)
		if err != nil {
			continue // one channel too wide for the budget
		}
		switch {
		case g.TP < 1 || g.TQ < 1 || g.TP*g.TQ > cfg.Pixels:
			t.Fatalf("%+v %v: a tile of %d×%d", pr, cfg, g.TP, g.TQ)
		case g.PB*g.TP < pr.P || (g.PB-1)*g.TP >= pr.P || g.QB*g.TQ < pr.Q || (g.QB-1)*g.TQ >= pr.Q:
			t.Fatalf("%+v %v: %d×%d tiles of %d×%d for %d×%d", pr, cfg, g.PB, g.QB, g.TP, g.TQ, pr.P, pr.Q)
		case g.CC < 1 || g.CC > pr.C || g.J != g.CC*pr.R*pr.S || g.JP%16 != 0 || g.JP < g.J || g.JP >= g.J+16:
			t.Fatalf("%+v %v: chunk %+v", pr, cfg, g)
		case g.Bytes > cfg.KB<<10 || g.WsOff < 12*g.JP || g.XsOff < g.WsOff+cfg.Channels*(g.JP+8)*2 || g.XsOff%16 != 0 || g.WsOff%16 != 0 ||
			g.Bytes < g.XsOff+(g.CC+1)*g.HS*g.WS*2 || g.EOff != g.XsOff || g.Bytes < g.EOff+cfg.Channels*cfg.windowPitch()*4 ||
			g.Bytes != max(g.EOff+cfg.Channels*cfg.windowPitch()*4, g.XsOff+((g.CC+1)*g.HS*g.WS*2+15)&^15) || g.WS%cls.xVec() != 0:
			t.Fatalf("%+v %v: layout %+v", pr, cfg, g)
		}
		if chunks := (pr.C + g.CC - 1) / g.CC; (chunks-1)*g.CC >= pr.C || chunks > 1 && g.J%cls.wVec() != 0 {
			t.Fatalf("%+v %v %v: %d chunks of %d channels", pr, cfg, cls, chunks, g.CC)
		}
		// Each tap of the tile's corner pixels, in the window and at x's place.
		for _, pp := range []int{0, g.TP - 1} {
			for _, qq := range []int{0, g.TQ - 1} {
				for r := 0; r < pr.R; r++ {
					for s := 0; s < pr.S; s++ {
						row := pp*pr.StrH + pr.HO + r*pr.HStep
						col := qq*pr.StrW + pr.WO + s*pr.WStep
						// (the tile's first column up to a vector less one past the window's)
						if row < 0 || row >= g.HS || col < 0 || col+cls.xVec()-1 >= g.WS {
							t.Fatalf("%+v %v: pixel (%d,%d) tap (%d,%d) at (%d,%d) of a %d×%d window", pr, cfg, pp, qq, r, s, row, col, g.HS, g.WS)
						}
						// The window's row 0 is x's row p0·strH − padH; the
						// convolution reads x's row p·strH − padH + r'·dil,
						// r' = R−1−r for a flipped filter.
						dilH, rr := abs(pr.HStep), r
						if pr.HStep < 0 {
							rr = pr.R - 1 - r
						}
						if row != pp*pr.StrH+rr*dilH {
							t.Fatalf("%+v: tap row %d at window row %d", pr, r, row)
						}
					}
				}
			}
		}
	}
}

// A Shifted geometry's units: each tap of each pixel of a tile, at the
// unit of its pixel group's base plus its reduction index's offset (as
// the kernel's tables and unit bases compute them), decodes to its own
// channel, window row, column group and tap, the unit's element for the
// pixel lies in the window at the column the convolution reads, the
// copies fit before the filter, and eight consecutive reduction indices
// of a chunk without flip or dilation read eight distinct banks.
func TestWindowShiftedGeometry(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 31))
	cfgs := []WindowConfig{{64, 16, 4, 1, 48, true, false}, {128, 32, 4, 1, 96, true, false}, {128, 64, 2, 2, 96, true, false}, {256, 64, 4, 2, 200, true, false}}
	checked := 0
	for trial := 0; trial < 400; trial++ {
		pr, cfg := randomWindowProblem(rng), cfgs[trial%len(cfgs)]
		if trial%2 == 0 {
			pr.HO, pr.HStep, pr.WO, pr.WStep = 0, 1, 0, 1
		}
		cls := WindowClass{Data: F16, XVec: []int{1, 2, 8}[trial%3], WVec: []int{1, 4, 8}[trial/3%3]}
		g, err := WindowGeometryOf(cfg, cls, pr)
		if err != nil {
			continue
		}
		checked++
		switch {
		case g.TQ%8 != 0 || g.TP*g.TQ > cfg.Pixels || g.NG != g.TQ/8 || g.PB*g.TP < pr.P || g.QB*g.TQ < pr.Q || (g.QB-1)*g.TQ >= pr.Q:
			t.Fatalf("%+v %v: tiles %+v", pr, cfg, g)
		case g.RPU < g.NG*pr.S || g.RPU%8 != pr.S%8 || g.PLU < g.HS*g.RPU || g.PLU%8 != pr.R*pr.S%8:
			t.Fatalf("%+v %v: units %+v", pr, cfg, g)
		case g.CpOff%16 != 0 || g.CpOff < g.XsOff+g.CC*g.HS*g.WS*2 || g.CpOff+(g.CC+1)*g.PLU*16 > g.Bytes || g.Bytes > cfg.KB<<10 ||
			g.XsOff < g.WsOff+cfg.Channels*(g.JP+8)*2 || g.EOff != g.XsOff || g.EOff+cfg.Channels*cfg.windowPitch()*4 > g.Bytes:
			t.Fatalf("%+v %v: layout %+v", pr, cfg, g)
		}
		unit := func(c, r, s, pp, cg int) int { // tabX's offset plus the unit base, in units
			return c*g.PLU + (pr.HO+r*pr.HStep)*g.RPU + s + pp*pr.StrH*g.RPU + cg*pr.S
		}
		for _, pp := range []int{0, g.TP - 1} {
			for _, qq := range []int{0, g.TQ - 1} {
				cg, i := qq/8, qq%8
				for _, c := range []int{0, g.CC - 1} {
					for r := 0; r < pr.R; r++ {
						for s := 0; s < pr.S; s++ {
							u := unit(c, r, s, pp, cg)
							uc, h, k := u/g.PLU, u%g.PLU/g.RPU, u%g.PLU%g.RPU
							if uc != c || h != pp*pr.StrH+pr.HO+r*pr.HStep || h >= g.HS || k/pr.S != cg || k%pr.S != s {
								t.Fatalf("%+v %v: pixel (%d,%d) tap (%d,%d,%d) at unit %d", pr, cfg, pp, qq, c, r, s, u)
							}
							// windowCopies' element i of the unit, from the window's
							// first vector (sh: 0 up to XVec−1 columns before the tile's).
							for sh := 0; sh < cls.xVec(); sh++ {
								col := sh + pr.WO + s*pr.WStep + (8*cg+i)*pr.StrW
								if col < 0 || col >= g.WS || col-sh != qq*pr.StrW+pr.WO+s*pr.WStep {
									t.Fatalf("%+v %v: pixel (%d,%d) tap %d at window column %d of %d", pr, cfg, pp, qq, s, col, g.WS)
								}
							}
						}
					}
				}
			}
		}
		if pr.HStep == 1 && pr.WStep == 1 {
			for j0 := 0; j0+8 <= g.J; j0 += 8 {
				banks := map[int]bool{}
				for j := j0; j < j0+8; j++ {
					c, r, s := j/(pr.R*pr.S), j%(pr.R*pr.S)/pr.S, j%pr.S
					banks[unit(c, r, s, 0, 0)%8] = true
				}
				if len(banks) != 8 {
					t.Fatalf("%+v %v: indices %d… in %d banks of 16 bytes", pr, cfg, j0, len(banks))
				}
			}
		}
	}
	if checked < 200 {
		t.Fatalf("only %d geometries", checked)
	}
}

// Every configuration of both types, with and without vectors, assembles for sm_80 and sm_90 without
// spilling.
func TestPTXASWindow(t *testing.T) {
	bin, err := ptxas.Find()
	if err != nil {
		t.Skipf("no ptxas: %v", err)
	}
	n := 0
	for i, d := range []DataType{F16, BF16, F16, BF16} {
		cls := WindowClass{Data: d, XVec: []int{1, 2, 8, 4}[i], WVec: []int{1, 8, 4, 2}[i]}
		for _, cfg := range []WindowConfig{{64, 16, 4, 1, 48, false, false}, {128, 32, 4, 1, 96, false, false}, {128, 64, 2, 2, 96, false, false}, {256, 64, 4, 2, 200, false, false},
			{256, 128, 4, 2, 200, false, false}, {128, 128, 1, 4, 96, false, false}, {64, 64, 1, 8, 48, false, false},
			{128, 64, 2, 2, 96, true, false}, {256, 128, 4, 2, 200, true, false}, {128, 128, 1, 4, 96, true, false},
			{128, 64, 2, 2, 96, true, true}, {256, 128, 4, 2, 200, false, true}, {64, 64, 1, 8, 48, true, true}} {
			if err := LegalWindow(cfg, cls); err != nil {
				t.Fatalf("%v: %v", cfg, err)
			}
			for _, arch := range []string{"sm_80", "sm_90"} {
				k, err := GenerateWindowConv(cls, cfg, arch)
				if err != nil {
					t.Fatal(err)
				}
				r, err := ptxas.CompileWith(bin, k.PTX, arch)
				if err != nil {
					t.Fatalf("%s %s: %v", k.Name, arch, err)
				}
				if r.SpillBytes() > 0 {
					t.Errorf("%s %s: spills %d bytes", k.Name, arch, r.SpillBytes())
				}
				n++
			}
		}
	}
	t.Logf("%d kernels assembled", n)
}

// The runtime loads a window kernel by its name: every configuration and
// class has its own.
func TestWindowNamesDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]string{}
	for _, d := range []DataType{F16, BF16} {
		for _, xv := range []int{1, 2, 4, 8} {
			for _, wv := range []int{1, 2, 4, 8} {
				cls := WindowClass{Data: d, XVec: xv, WVec: wv}
				for _, m := range []int{64, 128, 256} {
					for _, k := range []int{16, 32, 64, 128} {
						for _, wm := range []int{1, 2, 4, 8} {
							for _, kb := range []int{48, 96, 200, -48, -96, -200, 1048, 1096, 1200, -1048, -1096, -1200} {
								cfg := WindowConfig{Pixels: m, Channels: k, WarpsM: wm, WarpsN: 4 / min(wm, 4), KB: abs(kb) % 1000, Shifted: kb < 0, Direct: abs(kb) > 1000}
								if LegalWindow(cfg, cls) != nil {
									continue
								}
								k, err := GenerateWindowConv(cls, cfg, "sm_90")
								if err != nil {
									t.Fatal(err)
								}
								id := fmt.Sprint(cls, cfg)
								if other, ok := seen[k.Name]; ok {
									t.Fatalf("%s names both %s and %s", k.Name, other, id)
								}
								seen[k.Name] = id
							}
						}
					}
				}
			}
		}
	}
	if len(seen) < 100 {
		t.Fatalf("only %d kernels", len(seen))
	}
}

// DivMagic divides every numerator below 2³¹ exactly: the edges and
// random ones, by divisors up to 2²⁰.
func TestDivMagic(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 8))
	for i := 0; i < 20000; i++ {
		d := 1 + rng.IntN(1<<uint(1+rng.IntN(20)))
		m, l := DivMagic(d)
		for _, n := range []uint32{0, 1, uint32(d - 1), uint32(d), uint32(d + 1), 1<<31 - 1, uint32(rng.IntN(1 << 31)), uint32(rng.IntN(1 << 16))} {
			q := uint32((uint64(n)*uint64(m))>>32+uint64(n)) >> l
			if q != n/uint32(d) {
				t.Fatalf("%d / %d: %d (m %d, l %d)", n, d, q, m, l)
			}
		}
	}
}
