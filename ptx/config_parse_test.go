package ptx

import (
	"math/rand/v2"
	"testing"
)

func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)) }

func TestConfigRoundTrip(t *testing.T) {
	c, err := ParseConfig(" math=ffma, ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3")
	if err != nil || c.MS != 4 || c.Math != FFMA {
		t.Fatalf("reordered: %+v %v", c, err)
	}
	c, err = ParseConfig("ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=3,kc=4,va=4,vb=4,st=3,math=ffma")
	if err != nil || c.KC != 4 || c.KG != 3 || c.String() != "ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=3,kc=4,va=4,vb=4,st=3,math=ffma" {
		t.Fatalf("cluster split: %+v %v", c, err)
	}
	c, err = ParseConfig("ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8,pp=1")
	if err != nil || c.PP != 1 || c.KC != 2 || c.String() != "ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8,pp=1" {
		t.Fatalf("pipelined fragments: %+v %v", c, err)
	}
	if c.PP = 0; c.String() != "ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,kc=2,va=2,vb=2,st=4,math=mma_f64k8" {
		t.Fatalf("pp=0 must keep the old form: %s", c)
	}
	c, err = ParseConfig("mr=128,ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8,pp=1")
	if err != nil || c.MR != 128 || c.String() != "ms=2,ns=4,ml=64,nl=64,u=8,ks=1,kl=1,kg=1,va=2,vb=2,st=4,math=mma_f64k8,pp=1,mr=128" {
		t.Fatalf("register cap: %+v %v", c, err)
	}
	c, err = ParseConfig("tma=1,ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16")
	if err != nil || c.TMA != 1 || c.String() != "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=1" {
		t.Fatalf("tensor copies: %+v %v", c, err)
	}
	p, err := ParseConfig("ps=1,ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2")
	if err != nil || p.PS != 1 || p.String() != "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16,tma=2,ps=1" {
		t.Fatalf("persistent: %+v %v", p, err)
	}
	if c.TMA = 0; c.String() != "ms=1,ns=8,ml=64,nl=64,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=wgmma_f16" {
		t.Fatalf("tma=0 must keep the old form: %s", c)
	}
	for _, bad := range []string{"", "ms=4", "ms=4,ms=4", "ms=x,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma",
		"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=nope",
		"ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma,zz=1"} {
		if _, err := ParseConfig(bad); err == nil {
			t.Errorf("%q: want error", bad)
		}
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add("ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma")
	f.Add("ms=2,ns=4,ml=64,nl=64,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=3,math=mma_f16")
	f.Add("ms=,=,")
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConfig(s)
		if err != nil {
			return
		}
		c2, err := ParseConfig(c.String())
		if err != nil || c2 != c {
			t.Fatalf("%q -> %s -> %+v, %v", s, c, c2, err)
		}
		// Legal must never panic on parsed input.
		_ = Legal(c, InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, AlignA: 4, AlignB: 4, AlignC: 4}, H100())
	})
}

// A grouped configuration's string parses back to it; malformed ones are
// refused.
func TestParseGroupedConfig(t *testing.T) {
	for _, c := range []GroupedConfig{{Threads: 256, Columns: 4}, {Threads: 128, Columns: 8, Rows: 2}, {Threads: 64, Columns: 1, Vec: 4}, {Threads: 512, Columns: 2, Rows: 4, Vec: 1}} {
		got, err := ParseGroupedConfig(c.String())
		if err != nil || got != c {
			t.Errorf("%q: %+v, %v", c.String(), got, err)
		}
	}
	for _, s := range []string{"", "direct", "direct t256", "direct q4 t256", "direct t256 q4 r1", "direct t256 q4 v2 r2", "direct t256 q4 r2 r2",
		"direct t256 q0", "direct t256 q4 x2", "grouped t256 q4", "direct t256 q4 r"} {
		if c, err := ParseGroupedConfig(s); err == nil {
			t.Errorf("%q parsed as %+v", s, c)
		}
	}
}
