package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

// The heuristic's wgmma candidates: first for large 16-bit outputs with
// 16-byte aligned operands on sm_90, legal, and never elsewhere (sm_80,
// misaligned operands, f32/f64, small outputs).
func TestHeuristicWarpgroup(t *testing.T) {
	f16 := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, tc := range []struct {
		in      ptx.InputClass
		dev     ptx.DeviceLimits
		m, n, k int
		want    bool
		nl      int
	}{
		{f16, ptx.H100(), 8192, 8192, 8192, true, 256},
		{f16, ptx.H100(), 2048, 2048, 2048, true, 256},
		{f16, ptx.H100(), 1024, 1024, 1024, true, 64},
		{f16, ptx.H100(), 4096, 4096, 32, true, 128},
		{f16, ptx.A100(), 8192, 8192, 8192, false, 0},
		{f16, ptx.H100(), 512, 512, 512, false, 0},
		{f16, ptx.H100(), 2560, 16, 2560, false, 0},
		{func() ptx.InputClass { c := f16; c.AlignA = 4; return c }(), ptx.H100(), 4096, 4096, 4096, false, 0},
		{ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, AlignA: 4, AlignB: 4, AlignC: 4}, ptx.H100(), 4096, 4096, 4096, false, 0},
	} {
		c := Default(tc.in, tc.m, tc.n, tc.k, tc.dev)
		if c.Math.IsWGMMA() != tc.want {
			t.Errorf("%s %d×%d×%d on sm_%d%d: %s, want wgmma %v", tc.in, tc.m, tc.n, tc.k, tc.dev.SMMajor, tc.dev.SMMinor, c, tc.want)
			continue
		}
		if err := ptx.Legal(c, tc.in, tc.dev); err != nil {
			t.Errorf("%s: %v", c, err)
		}
		if tc.want && c.NL != tc.nl {
			t.Errorf("%s %d×%d×%d: %s, want a %d-wide tile", tc.in, tc.m, tc.n, tc.k, c, tc.nl)
		}
	}
}
