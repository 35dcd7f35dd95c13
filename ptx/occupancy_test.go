package ptx

import "testing"

func TestOccupancy(t *testing.T) {
	in := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	small, err := ParseConfig("ms=1,ns=1,ml=32,nl=32,u=32,ks=1,kl=1,kg=1,va=8,vb=8,st=2,math=mma_f16")
	if err != nil {
		t.Fatal(err)
	}
	big, err := ParseConfig("ms=4,ns=8,ml=128,nl=256,u=64,ks=1,kl=1,kg=1,va=8,vb=8,st=4,math=mma_f16")
	if err != nil {
		t.Fatal(err)
	}
	dev := H100()
	os, ob := Occupancy(small, in, dev), Occupancy(big, in, dev)
	if os <= ob || ob <= 0 || os > 64 {
		t.Errorf("occupancy of a 32x32 tile %d warps, of a 128x256 tile with 4 stages %d", os, ob)
	}
}
