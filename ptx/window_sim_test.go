package ptx

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// windowSimCase is a small convolution for the window kernel's simulation:
// x, y and the filter packed (x NCHW, or NHWC where channelsLast), the
// class's vectors as the layout allows them.
type windowSimCase struct {
	pr           WindowProblem
	cls          WindowClass
	cfg          WindowConfig
	beta         bool
	channelsLast bool
}

func randomWindowSimCase(rng *rand.Rand, trial int) windowSimCase {
	for {
		var c windowSimCase
		pr := WindowProblem{N: 1 + rng.IntN(2), C: 1 + rng.IntN(6), H: 1 + rng.IntN(14), W: 1 + rng.IntN(14), K: 1 + rng.IntN(20),
			R: 1 + rng.IntN(4), S: 1 + rng.IntN(5), StrH: 1 + rng.IntN(2), StrW: 1 + rng.IntN(2)}
		if trial%3 == 0 { // rows of whole vectors of 8
			pr.W = 8 * (1 + rng.IntN(2))
		}
		if trial%4 < 2 { // two images: several tiles a block where one block is resident
			pr.N = 2
		}
		if trial%4 == 3 { // channels in several chunks of 16 KiB
			pr.C, pr.R, pr.S = 8+rng.IntN(40), 2+rng.IntN(3), 3+rng.IntN(3)
		}
		dilH, dilW := 1+rng.IntN(2), 1+rng.IntN(2)
		pr.PadH, pr.PadW = rng.IntN(pr.R*dilH+1), rng.IntN(pr.S*dilW+1)
		if pr.H+2*pr.PadH < (pr.R-1)*dilH+1 || pr.W+2*pr.PadW < (pr.S-1)*dilW+1 {
			continue
		}
		pr.P, pr.Q = (pr.H+2*pr.PadH-((pr.R-1)*dilH+1))/pr.StrH+1, (pr.W+2*pr.PadW-((pr.S-1)*dilW+1))/pr.StrW+1
		pr.HStep, pr.WStep = dilH, dilW
		if rng.IntN(2) == 0 {
			pr.HO, pr.HStep = (pr.R-1)*dilH, -dilH
			pr.WO, pr.WStep = (pr.S-1)*dilW, -dilW
		}
		c.channelsLast = trial%5 == 4
		pr.X = [4]int{pr.C * pr.H * pr.W, pr.H * pr.W, pr.W, 1}
		if c.channelsLast {
			pr.X = [4]int{pr.C * pr.H * pr.W, 1, pr.W * pr.C, pr.C}
		}
		pr.Y = [4]int{pr.K * pr.P * pr.Q, pr.P * pr.Q, pr.Q, 1}
		pr.Filter = [4]int{pr.C * pr.R * pr.S, pr.R * pr.S, pr.S, 1}
		c.cls = WindowClass{Data: []DataType{F16, BF16}[trial%2], XVec: 1, WVec: 1}
		for v := 8; v > 1 && !c.channelsLast; v /= 2 {
			if pr.W%v == 0 {
				c.cls.XVec = v
				break
			}
		}
		for v := 8; v > 1; v /= 2 {
			if pr.C*pr.R*pr.S%v == 0 {
				c.cls.WVec = v
				break
			}
		}
		c.cfg = []WindowConfig{{64, 16, 4, 1, 48, false, false}, {64, 32, 4, 2, 48, false, false}, {128, 16, 2, 2, 48, false, false}, {64, 32, 1, 4, 16, false, false}}[trial%4]
		c.cfg.Direct = trial%3 == 1
		if c.cfg.Shifted = trial >= 16; c.cfg.Shifted {
			c.cfg.KB = 48 // (16 KiB chunks of 16 KiB: the copies take more)
		}
		c.beta = trial%2 == 1
		c.pr = pr
		return c
	}
}

// The window kernel's PTX run on the CPU, every thread of every block
// (integer arithmetic evaluated, mma skipped): each shared access lies in
// the block's dynamic shared memory, each global load in x, the filter or
// (where β ≠ 0) y, and y's every element is stored exactly once, nothing
// else. A first pass over each block's threads writes its tables, which
// the second reads. Blocks of several tiles (a device of 1 or 2 resident
// blocks), chunks of channels (16 KiB configurations), vectors of x and
// the filter, flips, padding, strides and dilation; half the cases
// Shifted (the copies' stores and ldmatrix rows within the block's bytes),
// a third Direct (y stored from the accumulators' registers).
func TestWindowConvSimulated(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(5, 77))
	multiTile, chunked := 0, 0
	for trial := 0; trial < 32; trial++ {
		c := randomWindowSimCase(rng, trial)
		g, err := WindowGeometryOf(c.cfg, c.cls, c.pr)
		if err != nil {
			t.Fatalf("%+v: %v", c, err)
		}
		g.WindowTiles(c.pr, 1+trial%4/2)
		if g.Tiles > 1 {
			multiTile++
		}
		if g.CC < c.pr.C {
			chunked++
		}
		t.Run(fmt.Sprint(trial), func(t *testing.T) { checkWindowSimulated(t, c, g) })
	}
	if multiTile < 12 || chunked < 6 {
		t.Errorf("only %d cases of several tiles a block, %d in chunks", multiTile, chunked)
	}
}

func checkWindowSimulated(t *testing.T, c windowSimCase, g WindowGeometry) {
	k, err := GenerateWindowConv(c.cls, c.cfg, "sm_90")
	if err != nil {
		t.Fatal(err)
	}
	prog := parseProgram(k.PTX)
	pr := c.pr
	params := map[string]int64{"p_x": simX, "p_w": simW, "p_y": simY, "p_alpha": 0x3f800000, "p_beta": 0}
	if c.beta {
		params["p_beta"] = 0x3f000000
	}
	for i, v := range pr.Ints(g) {
		params["p_"+WindowIntParams[i]] = int64(int32(v))
	}
	es := int64(2)
	xEnd := simX + es*int64(pr.N*pr.C*pr.H*pr.W)
	wEnd := simW + es*int64(pr.K*pr.C*pr.R*pr.S)
	yEnd := simY + es*int64(pr.N*pr.K*pr.P*pr.Q)
	grid := WindowGrid(c.cfg, g, pr)
	grid3 := [3]int64{int64(grid[0]), int64(grid[1]), 1}
	stored := map[int64]int{}
	for by := range grid[1] {
		for bx := range grid[0] {
			block := [3]int64{int64(bx), int64(by), 0}
			smem := map[int64]int64{}
			first := &simHooks{stopAtBarrier: true}
			for tid := range int64(k.Block[0]) {
				if _, _, err := simRun(prog, params, tid, block, grid3, smem, nil, true, first); err != nil {
					t.Fatal(err)
				}
			}
			var bad error
			hooks := &simHooks{
				shared: func(op string, a, n int64, store bool) {
					if bad == nil && (a < 0 || a+n > int64(g.Bytes)) {
						bad = fmt.Errorf("%s at %d (+%d) outside the block's %d bytes", op, a, n, g.Bytes)
					}
				},
				global: func(op string, a, n int64) {
					inX, inW := a >= simX && a+n <= xEnd, a >= simW && a+n <= wEnd
					inY := c.beta && a >= simY && a+n <= yEnd
					if bad == nil && !inX && !inW && !inY {
						bad = fmt.Errorf("%s at %#x (+%d) outside x, the filter and (β ≠ 0) y", op, a, n)
					}
				},
			}
			for tid := range int64(k.Block[0]) {
				_, stores, err := simRun(prog, params, tid, block, grid3, smem, nil, false, hooks)
				if err != nil {
					t.Fatal(err)
				}
				if bad != nil {
					t.Fatalf("block (%d, %d) thread %d: %v", bx, by, tid, bad)
				}
				for _, s := range stores {
					if s.addr < simY || s.addr+s.bytes > yEnd || (s.addr-simY)%es != 0 || s.bytes != es {
						t.Fatalf("block (%d, %d) thread %d: a store of %d bytes at %#x", bx, by, tid, s.bytes, s.addr)
					}
					stored[s.addr]++
				}
			}
		}
	}
	for i := range int64(pr.N * pr.K * pr.P * pr.Q) {
		if n := stored[simY+es*i]; n != 1 {
			t.Fatalf("y's element %d stored %d times (%d tiles a block, %d channels a chunk)", i, n, g.Tiles, g.CC)
		}
	}
}
