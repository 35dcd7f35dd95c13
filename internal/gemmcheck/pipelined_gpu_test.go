package gemmcheck_test

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// TestGPUPipelinedProducts runs the pipelined regression products
// (pipelinedProducts; those ptx.Legal refuses are skipped, their
// neighbours run) through the kernels with their configurations and
// with neighbours of them (the plain loop, the other layouts, no grid
// split, other depths), each twice, and fails for every result outside the
// bound or not bit-identical run to run. For a wrong result it says where
// the wrong elements lie (block tiles, positions inside a tile) and which
// k-slices of U a wrong element's error is made of, and it probes the
// k-slices one at a time (A zero outside one slice), so that a failure
// names the part of the kernel at fault. ISAAC_PIPELINED_QUICK=1 runs the
// products as chosen alone, once (for compute-sanitizer's slow tools).
func TestGPUPipelinedProducts(t *testing.T) {
	quick := os.Getenv("ISAAC_PIPELINED_QUICK") == "1"
	gemmcheck.GPUThread(t)
	rt := kernels.New(os.Getenv("ISAAC_CACHE_DIR"))
	lim, err := rt.Limits()
	if err != nil {
		t.Fatal(err)
	}
	stream, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer stream.Destroy()
	run := func(c gemmcheck.Case, cfg ptx.GemmConfig, d *gemmcheck.Data) ([]float64, error) {
		b, err := gemmcheck.Upload(c, d)
		if err != nil {
			return nil, err
		}
		defer b.Free()
		if err := rt.Gemm(b.Request(stream), cfg); err != nil {
			return nil, err
		}
		return b.ReadC(stream)
	}
	for _, j := range pipelinedProductCases(gemmcheck.Types) {
		base, cfg := j.Case, *j.Config
		variants := pipelinedVariants(base, cfg)
		if quick {
			variants = variants[:1]
		}
		for _, v := range variants {
			name := fmt.Sprintf("%s/%s", base.Type.Name, v.name)
			if err := ptx.Legal(v.cfg, v.c.Class(), lim); err != nil {
				t.Logf("%s: %v: not legal: %v", name, v.cfg, err)
				continue
			}
			d := gemmcheck.NewData(v.c)
			got, err := run(v.c, v.cfg, d)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			again := got
			if !quick {
				again, err = run(v.c, v.cfg, d)
			}
			if err != nil {
				t.Errorf("%s: second run: %v", name, err)
				continue
			}
			same := slices.EqualFunc(got, again, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
			r := d.Check(v.c, got)
			if r.Bad == 0 && same {
				t.Logf("ok   %s: %v %v (max err/bound %.2g)", name, v.c, v.cfg, r.MaxRelBound)
				continue
			}
			t.Errorf("FAIL %s: %v %v: %d elements out of bound (first %s), run to run identical: %v\n%s",
				name, v.c, v.cfg, r.Bad, r.FirstBad, same, whereWrong(v.c, v.cfg, d, got))
			if v.probe && !quick {
				t.Logf("%s: k-slice probes: %s", name, probeSlices(v.c, v.cfg, func(c gemmcheck.Case, d *gemmcheck.Data) ([]float64, error) { return run(c, v.cfg, d) }))
			}
		}
	}
}

type pipelinedVariant struct {
	name  string
	c     gemmcheck.Case
	cfg   ptx.GemmConfig
	probe bool // probe the k-slices when it fails
}

// pipelinedVariants are the product with its configuration and the
// neighbours that tell the pipelined loop's part in a failure from the
// rest of the kernel's.
func pipelinedVariants(c gemmcheck.Case, cfg ptx.GemmConfig) []pipelinedVariant {
	out := []pipelinedVariant{{"as chosen", c, cfg, true}}
	plain := cfg
	plain.PP = 0
	out = append(out, pipelinedVariant{"pp=0", c, plain, false})
	for _, ops := range [][2]request.Op{{request.OpN, request.OpN}, {request.OpT, request.OpN}, {request.OpT, request.OpT}} {
		o := c
		o.TransA, o.TransB = ops[0], ops[1]
		out = append(out, pipelinedVariant{fmt.Sprintf("op %v%v", ops[0], ops[1]), o, cfg, false})
	}
	if cfg.KG > 1 {
		one := cfg
		one.KG = 1
		out = append(out, pipelinedVariant{"kg=1", c, one, true})
	}
	slab := cfg.U * max(cfg.KG, 1) * max(cfg.KL, 1)
	for _, k := range []int{slab * (cfg.Stages - 1), slab * cfg.Stages, slab*cfg.Stages + 1, slab * 4 * cfg.Stages} {
		o := c
		o.K = k
		out = append(out, pipelinedVariant{fmt.Sprintf("k=%d", k), o, cfg, false})
	}
	small := c
	small.M, small.N = min(c.M, cfg.ML), min(c.N, cfg.NL)
	out = append(out, pipelinedVariant{"one block", small, cfg, true})
	seed := c
	seed.Seed += 1000
	out = append(out, pipelinedVariant{"other seed", seed, cfg, false})
	return out
}

// whereWrong describes the wrong elements of got: how many block tiles
// (ML×NL) hold one and which, the rows and columns inside a tile they take,
// and for the first few the k-slices of U their error is made of.
func whereWrong(c gemmcheck.Case, cfg ptx.GemmConfig, d *gemmcheck.Data, got []float64) string {
	ldc := c.LDC()
	tiles := map[[2]int]int{}
	rows, cols := map[int]int{}, map[int]int{}
	var explained []string
	for j := range c.N {
		for i := range c.M {
			e := i + j*c.M
			v := got[c.OffC+i+j*ldc]
			if math.Abs(v-d.Ref[e]) <= d.Bound(c, e) {
				continue
			}
			tiles[[2]int{i / cfg.ML, j / cfg.NL}]++
			rows[i%cfg.ML]++
			cols[j%cfg.NL]++
			if len(explained) < 6 {
				explained = append(explained, fmt.Sprintf("C(%d,%d) = %g, want %g: %s", i, j, v, d.Ref[e], explainError(c, cfg, d, i, j, v-d.Ref[e])))
			}
		}
	}
	keys := func(m map[int]int) []int {
		var k []int
		for x := range m {
			k = append(k, x)
		}
		slices.Sort(k)
		return k
	}
	var tl []string
	for k, n := range tiles {
		tl = append(tl, fmt.Sprintf("(%d,%d):%d", k[0], k[1], n))
	}
	slices.Sort(tl)
	if len(tl) > 24 {
		tl = append(tl[:24], "…")
	}
	nt := ((c.M + cfg.ML - 1) / cfg.ML) * ((c.N + cfg.NL - 1) / cfg.NL)
	return fmt.Sprintf("  %d of %d block tiles wrong: %s\n  rows in tile %v\n  columns in tile %v\n  %s",
		len(tiles), nt, strings.Join(tl, " "), keys(rows), keys(cols), strings.Join(explained, "\n  "))
}

// explainError names the k-slices of U whose contributions to C(i, j)
// make up diff (got − want): one missing or counted twice, or one read in
// place of another.
func explainError(c gemmcheck.Case, cfg ptx.GemmConfig, d *gemmcheck.Data, i, j int, diff float64) string {
	u := cfg.U
	n := (c.K + u - 1) / u
	part := make([]float64, n)
	for l := range c.K {
		part[l/u] += c.Alpha * at(c, d, true, i, l) * at(c, d, false, l, j)
	}
	eq := func(x, y float64) bool { return math.Abs(x-y) <= 1e-3*(1+math.Abs(y)) }
	var hits []string
	for s := range n {
		if eq(diff, -part[s]) {
			hits = append(hits, fmt.Sprintf("slice %d missing", s))
		}
		if eq(diff, part[s]) {
			hits = append(hits, fmt.Sprintf("slice %d twice", s))
		}
		for r := range n {
			if r != s && eq(diff, part[r]-part[s]) {
				hits = append(hits, fmt.Sprintf("slice %d read for %d", r, s))
			}
		}
		if len(hits) > 4 {
			break
		}
	}
	if len(hits) == 0 {
		return "no slice pattern"
	}
	return strings.Join(hits, ", ")
}

// at is A(i, l) (a) or B(l, j) of the case's inputs.
func at(c gemmcheck.Case, d *gemmcheck.Data, a bool, r, col int) float64 {
	if a {
		if c.TransA.Transposed() {
			return d.A[c.OffA+col+r*c.LDA()]
		}
		return d.A[c.OffA+r+col*c.LDA()]
	}
	if c.TransB.Transposed() {
		return d.B[c.OffB+col+r*c.LDB()]
	}
	return d.B[c.OffB+r+col*c.LDB()]
}

// probeSlices runs the case with A zero outside one k-slice of U at a time
// and lists the slices whose product comes out wrong.
func probeSlices(c gemmcheck.Case, cfg ptx.GemmConfig, run func(gemmcheck.Case, *gemmcheck.Data) ([]float64, error)) string {
	n := (c.K + cfg.U - 1) / cfg.U
	var bad []string
	for s := range min(n, 64) {
		d := gemmcheck.NewData(c)
		for i := range c.M {
			for l := range c.K {
				if l/cfg.U == s {
					continue
				}
				if c.TransA.Transposed() {
					d.A[c.OffA+l+i*c.LDA()] = 0
				} else {
					d.A[c.OffA+i+l*c.LDA()] = 0
				}
			}
		}
		d.Recompute(c)
		got, err := run(c, d)
		if err != nil {
			return err.Error()
		}
		if r := d.Check(c, got); r.Bad > 0 {
			bad = append(bad, fmt.Sprintf("%d(%d bad)", s, r.Bad))
		}
	}
	if len(bad) == 0 {
		return fmt.Sprintf("all %d slices right alone", min(n, 64))
	}
	return "wrong alone: " + strings.Join(bad, " ")
}
