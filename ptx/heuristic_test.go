package ptx

import "testing"

// The heuristic's wgmma candidates: first for large 16-bit outputs with
// 16-byte aligned operands on sm_90, legal, and never elsewhere (sm_80,
// misaligned operands, f32/f64, small outputs).
func TestHeuristicWarpgroup(t *testing.T) {
	f16 := InputClass{AType: F16, BType: F16, CType: F16, Compute: F32, TransA: N, TransB: T, AlignA: 8, AlignB: 8, AlignC: 8}
	for _, tc := range []struct {
		in      InputClass
		dev     DeviceLimits
		m, n, k int
		want    bool
		nl      int
	}{
		{f16, H100(), 8192, 8192, 8192, true, 256},
		{f16, H100(), 2048, 2048, 2048, true, 256},
		{f16, H100(), 1024, 1024, 1024, true, 64},
		{f16, H100(), 4096, 4096, 32, true, 128},
		{f16, A100(), 8192, 8192, 8192, false, 0},
		{f16, H100(), 512, 512, 512, false, 0},
		{f16, H100(), 2560, 16, 2560, false, 0},
		{func() InputClass { c := f16; c.AlignA = 4; return c }(), H100(), 4096, 4096, 4096, false, 0},
		{InputClass{AType: F32, BType: F32, CType: F32, Compute: F32, AlignA: 4, AlignB: 4, AlignC: 4}, H100(), 4096, 4096, 4096, false, 0},
	} {
		c := DefaultConfig(tc.in, tc.m, tc.n, tc.k, tc.dev)
		if c.Math.IsWGMMA() != tc.want {
			t.Errorf("%s %d×%d×%d on sm_%d%d: %s, want wgmma %v", tc.in, tc.m, tc.n, tc.k, tc.dev.SMMajor, tc.dev.SMMinor, c, tc.want)
			continue
		}
		if err := Legal(c, tc.in, tc.dev); err != nil {
			t.Errorf("%s: %v", c, err)
		}
		if tc.want && c.NL != tc.nl {
			t.Errorf("%s %d×%d×%d: %s, want a %d-wide tile", tc.in, tc.m, tc.n, tc.k, c, tc.nl)
		}
	}
}
