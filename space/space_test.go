package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

func TestNeighbors(t *testing.T) {
	c := ptx.GemmConfig{MS: 4, NS: 4, ML: 64, NL: 64, U: 16, KS: 1, KL: 1, KG: 1, VecA: 4, VecB: 4, Stages: 3, Math: ptx.FFMA}
	sp := Space{MS: []int{1, 2, 4, 8}, NS: []int{4}, ML: []int{64}, NL: []int{64}, U: []int{16}, KS: []int{1, 2},
		KL: []int{1}, KG: []int{1}, VecA: []int{4}, VecB: []int{4}, Stages: []int{3}, Math: []ptx.Math{ptx.FFMA, ptx.MMA_TF32}}
	got := Neighbors(c, sp)
	want := map[ptx.GemmConfig]bool{}
	for _, f := range []func(*ptx.GemmConfig){
		func(x *ptx.GemmConfig) { x.MS = 2 }, func(x *ptx.GemmConfig) { x.MS = 8 },
		func(x *ptx.GemmConfig) { x.KS = 2 }, func(x *ptx.GemmConfig) { x.Math = ptx.MMA_TF32 },
	} {
		n := c
		f(&n)
		want[n] = true
	}
	if len(got) != len(want) {
		t.Fatalf("%d neighbors, want %d: %v", len(got), len(want), got)
	}
	for _, n := range got {
		if !want[n] {
			t.Errorf("unexpected neighbor %v", n)
		}
	}
}
