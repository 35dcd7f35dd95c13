package ptx

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The tensor-copy loop (loopTMA) in the stage-level simulation. Thread 0
// arms each stage's mbarrier and issues the bulk tensor copies; a copy
// leaves its stage without data until a thread's mbarrier.try_wait sees
// the barrier's phase complete (as late as the PTX ISA allows), and a wait
// on the parity of a phase already past returns at once without any data
// (as the hardware's does). Other threads are simulated with the copies of
// thread 0 applied when they pass the block barrier after which thread 0
// issued them, the earliest the copies can start: a copy into a stage
// that a wgmma group of the thread still reads then, or read since by the
// thread before the tile lands, fails.

// tmaSim is the simulation's state of mbarriers and bulk tensor copies.
type tmaSim struct {
	consumer bool       // the thread issues no copies: they come from feed
	feed     []tmaEvent // consumer: thread 0's events
	events   []tmaEvent // thread 0: its events, as it issued them
	epoch    int        // block barriers passed
	bars     map[int64]*simBarrier
	tiles    int // phases armed so far (tile t is armed t-th)
}

// tmaEvent is one arming of a barrier (expect_tx) or one bulk copy.
type tmaEvent struct {
	epoch int
	bar   int64
	arm   bool
	tile  int
	bytes int // arm: bytes expected; copy: the box's bytes
	stage int
}

type simBarrier struct {
	phases    []simPhase
	completed int
}

type simPhase struct {
	tile, want, got int
	stages          []int
}

func (st *pipeSim) barrier(addr int64) *simBarrier {
	if st.tma.bars == nil {
		st.tma.bars = map[int64]*simBarrier{}
	}
	b := st.tma.bars[addr]
	if b == nil {
		b = &simBarrier{}
		st.tma.bars[addr] = b
	}
	return b
}

// apply makes an event happen in this thread's view.
func (st *pipeSim) apply(e tmaEvent) error {
	b := st.barrier(e.bar)
	if e.arm {
		b.phases = append(b.phases, simPhase{tile: e.tile, want: e.bytes})
		return nil
	}
	for _, grp := range append(st.wgPending, st.wgOpen) {
		if slices.Contains(grp, e.stage) {
			return fmt.Errorf("a bulk copy of tile %d overwrites stage %d, which a wgmma in flight reads", e.tile, e.stage)
		}
	}
	if len(b.phases) <= b.completed {
		return fmt.Errorf("a bulk copy of tile %d completes on a barrier with no armed phase", e.tile)
	}
	ph := &b.phases[len(b.phases)-1]
	ph.stages = append(ph.stages, e.stage)
	ph.got += e.bytes
	delete(st.holds, e.stage) // no tile's data until the phase completes
	return nil
}

// passBarrier counts a block barrier and, in a consumer, lets thread 0's
// events after that barrier happen.
func (st *pipeSim) passBarrier(g geometry) error {
	st.tma.epoch++
	if !st.tma.consumer {
		return nil
	}
	for _, e := range st.tma.feed {
		if e.epoch == st.tma.epoch {
			if err := st.apply(e); err != nil {
				return err
			}
		}
	}
	return nil
}

// mbarrier simulates mbarrier.init, arrive.expect_tx and try_wait.parity.
func (st *pipeSim) mbarrier(g geometry, op string, a []string, addrOf, val func(string) (int64, bool)) error {
	switch {
	case op == "mbarrier.init.shared.b64":
		if st.tma.consumer {
			return fmt.Errorf("thread of a consumer initialises a barrier")
		}
		addr, ok := addrOf(a[0])
		if !ok || a[1] != "1" {
			return fmt.Errorf("mbarrier.init %v", a)
		}
		st.barrier(addr)
	case op == "mbarrier.arrive.expect_tx.shared.b64":
		addr, ok1 := addrOf(a[1])
		tx, err := strconv.Atoi(a[2])
		if !ok1 || err != nil {
			return fmt.Errorf("mbarrier.arrive.expect_tx %v", a)
		}
		if st.tma.consumer {
			return fmt.Errorf("a consumer thread arms a barrier")
		}
		if _, ok := st.tma.bars[addr]; !ok {
			return fmt.Errorf("arming a barrier never initialised")
		}
		e := tmaEvent{epoch: st.tma.epoch, bar: addr, arm: true, tile: st.tma.tiles, bytes: tx}
		st.tma.tiles++
		st.tma.events = append(st.tma.events, e)
		return st.apply(e)
	case op == "mbarrier.try_wait.parity.shared.b64":
		addr, ok1 := addrOf(a[1])
		parity, ok2 := val(a[2])
		if !ok1 || !ok2 {
			return fmt.Errorf("mbarrier.try_wait %v", a)
		}
		b := st.tma.bars[addr]
		if b == nil {
			return fmt.Errorf("a wait on a barrier no copy ever arms")
		}
		st.ints[a[0]] = 1
		if int64(b.completed&1) != parity {
			return nil // that parity's phase is past: no data arrives
		}
		if len(b.phases) <= b.completed {
			return fmt.Errorf("a wait for phase %d of a barrier armed %d times: it never completes", b.completed, len(b.phases))
		}
		ph := b.phases[b.completed]
		if ph.got != ph.want {
			return fmt.Errorf("tile %d: the copies bring %d bytes, the barrier expects %d", ph.tile, ph.got, ph.want)
		}
		for _, s := range ph.stages {
			st.holds[s] = ph.tile
		}
		b.completed++
	default:
		return fmt.Errorf("unexpected %s", op)
	}
	return nil
}

// bulkCopy simulates one cp.async.bulk.tensor of thread 0: its stage is
// the stage of the tile the barrier was last armed for, its destination
// one of the operand's boxes, and its coordinates that box of the tile in
// block (0, 0, 0) (k-range from 0).
func (st *pipeSim) bulkCopy(g geometry, a []string, addrOf, val func(string) (int64, bool)) error {
	if st.tma.consumer {
		return fmt.Errorf("a consumer thread issues a bulk copy")
	}
	dst, ok1 := addrOf(a[0])
	bar, ok2 := addrOf(a[2])
	if !ok1 || !ok2 {
		return fmt.Errorf("bulk copy operands unknown: %v", a)
	}
	_, coordText, ok := strings.Cut(strings.Trim(a[1], "[]"), ",") // [map, {x, y}]
	if !ok {
		return fmt.Errorf("bulk copy source %s", a[1])
	}
	var coords []int64
	for _, r := range braceRegs(coordText) {
		v, ok := val(r)
		if !ok {
			return fmt.Errorf("bulk copy coordinate %s unknown", r)
		}
		coords = append(coords, v)
	}
	if len(coords) != 2 {
		return fmt.Errorf("bulk copy coordinates %s", a[1])
	}
	b := st.tma.bars[bar]
	if b == nil || len(b.phases) == 0 {
		return fmt.Errorf("a bulk copy completes on a barrier never armed")
	}
	tile := b.phases[len(b.phases)-1].tile
	s := int(dst) / g.stageBytes
	if s != tile%g.cfg.Stages {
		return fmt.Errorf("a copy of tile %d goes to stage %d, not %d", tile, s, tile%g.cfg.Stages)
	}
	if st.readSince[s] {
		return fmt.Errorf("a bulk copy of tile %d overwrites stage %d, read since the last barrier", tile, s)
	}
	off := int(dst) - s*g.stageBytes
	o := g.a
	if off >= g.b.offset {
		o = g.b
	}
	boxBytes, boxes := 128*o.lo, 1
	if !o.kContig {
		boxes = o.atoms
	}
	box := (off - o.offset) / boxBytes
	if (off-o.offset)%boxBytes != 0 || box >= boxes {
		return fmt.Errorf("a bulk copy of tile %d lands at offset %d of its stage, not at a box of its operand", tile, off)
	}
	k := int64(tile * g.cfg.U)
	want := [2]int64{k, 0}
	if !o.kContig {
		want = [2]int64{int64(64 * box), k}
	}
	if [2]int64{coords[0], coords[1]} != want {
		return fmt.Errorf("box %d of tile %d at coordinates %v, want %v", box, tile, coords, want)
	}
	e := tmaEvent{epoch: st.tma.epoch, bar: bar, tile: tile, bytes: boxBytes, stage: s}
	st.tma.events = append(st.tma.events, e)
	return st.apply(e)
}

// simulateTMA runs thread 0 (the producer) and then the block's last
// thread with thread 0's copies.
func simulateTMA(t *testing.T, ptxSrc string, g geometry, params map[string]int64, grid [3]int64, last int64) [][]string {
	t.Helper()
	newSim := func() *pipeSim {
		return &pipeSim{ints: map[string]int64{}, tags: map[string]fragTag{}, stageBytes: g.stageBytes,
			holds: map[int]int{}, readSince: map[int]bool{}}
	}
	p := newSim()
	m0, err := p.run(ptxSrc, g, params, grid, 0)
	if err != nil {
		t.Fatalf("%s, thread 0: %v", g.cfg, err)
	}
	c := newSim()
	c.tma.consumer, c.tma.feed = true, p.tma.events
	m1, err := c.run(ptxSrc, g, params, grid, last)
	if err != nil {
		t.Fatalf("%s, thread %d: %v", g.cfg, last, err)
	}
	return [][]string{m0, m1}
}

func withTMA(c GemmConfig) GemmConfig {
	c.TMA = 1
	return c
}

// The tensor-copy loop reads every tile whole, in order and only after its
// copies have landed, and never copies into a stage a wgmma group still
// reads: chosen configurations (both operand majors, one to four
// warpgroups, two instructions per warpgroup along m, several boxes per
// tile, edges in m, n and k, few tiles, grid and cluster splits) and 20
// random ones; a wgmma group reads what its cp.async twin's reads.
func TestTMAPipelineSimulated(t *testing.T) {
	nn := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	nt := nn
	nt.TransB = T
	tt := InputClass{AType: BF16, BType: BF16, CType: BF16, Compute: F32, TransA: T, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	tn := InputClass{AType: F16, BType: F16, CType: F16, Compute: F16, TransA: T, TransB: N, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, tc := range []struct {
		cfg     string
		in      InputClass
		m, n, k int
	}{
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", nn, 64, 64, 300},
		{"ms=1,ns=2,ml=128,nl=16,u=64,ks=1,kl=1,kg=6,va=8,vb=8,st=5,math=wgmma_f16", nn, 2560, 16, 2560},
		{"ms=2,ns=16,ml=256,nl=128,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16", nt, 256, 128, 640},
		{"ms=1,ns=32,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=wgmma_bf16", tt, 100, 200, 64},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,kc=2,va=8,vb=8,st=3,math=wgmma_bf16", tt, 64, 64, 512},
		{"ms=1,ns=4,ml=64,nl=32,u=64,ks=1,kl=1,kg=3,va=8,vb=8,st=6,math=wgmma_f16acc", tn, 64, 32, 1000},
		{"ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=8,math=wgmma_f16", nn, 70, 64, 100},
	} {
		cfg := mustParse(t, tc.cfg)
		plain := checkLoop(t, cfg, tc.in, tc.m, tc.n, tc.k)
		got := checkLoop(t, withTMA(cfg), tc.in, tc.m, tc.n, tc.k)
		compareReads(t, withTMA(cfg), tc.in, got, plain)
	}
}

// compareReads checks that the TMA twin's wgmma instructions read the same
// tiles at the same stage offsets as its cp.async twin where the two
// layouts coincide (every k-major tile, and m/n-major tiles one atom wide).
func compareReads(t *testing.T, cfg GemmConfig, in InputClass, got, want [][]string) {
	t.Helper()
	g := newGeometry(cfg, in)
	if (!g.a.kContig && g.a.atoms > 1) || (!g.b.kContig && g.b.atoms > 1) {
		return
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("%s %s: the wgmma reads differ from the cp.async twin's", cfg, in)
	}
}
