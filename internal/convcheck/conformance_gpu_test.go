package convcheck_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// casesPerType is ISAAC_GPU_CONV_CASES, the cases of each served type
// (default 600: 3,000 in all).
func casesPerType() int {
	if n, err := strconv.Atoi(os.Getenv("ISAAC_GPU_CONV_CASES")); err == nil && n > 0 {
		return n
	}
	return 600
}

// table is the convolution table: casesPerType random cases of each served
// type (seed 1).
func table() []convcheck.Case {
	rng := rand.New(rand.NewPCG(1, 23))
	var out []convcheck.Case
	for _, ct := range request.ConvTypes {
		for i := 0; i < casesPerType(); i++ {
			out = append(out, convcheck.RandomCase(rng, ct, 4_000_000))
		}
	}
	return out
}

// convJob is a case and the configuration it runs with (nil: the
// heuristic's).
type convJob struct {
	c   convcheck.Case
	cfg *ptx.GemmConfig
}

// TestGPUConvKernels runs the convolution table through ISAAC's kernels:
// every case with the heuristic's configuration, every other one also with
// a configuration drawn from its class's space, each result against the
// reference and its bound, and y outside its view untouched.
func TestGPUConvKernels(t *testing.T) {
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
	rng := rand.New(rand.NewPCG(2, 23)) // the configurations' draws
	samplers := map[ptx.InputClass]*space.Sampler{}
	type stats struct {
		cases, drawn, refused, failed, errors int
		worst                                 float64
		worstCase                             string
	}
	per := map[string]*stats{}
	failures := 0
	for i, c := range table() {
		st := per[c.Type.Name]
		if st == nil {
			st = &stats{}
			per[c.Type.Name] = st
		}
		d := convcheck.NewData(c)
		b, err := convcheck.Upload(c, d)
		if err != nil {
			t.Fatal(err)
		}
		req := b.Request(stream)
		shape, reason := req.Shape()
		if reason != request.Served {
			t.Fatalf("%v: shape %v", c, reason)
		}
		cls := space.ConvClass(shape, req.WPtr)
		jobs := []convJob{{c: c}}
		if i%2 == 1 {
			sm := samplers[cls]
			if sm == nil {
				sm = space.NewSampler(cls, lim, 200, 400000, rng)
				samplers[cls] = sm
			}
			if cfg, ok := sm.Draw(rng, nil, 20000); ok {
				jobs = append(jobs, convJob{c: c, cfg: &cfg})
			}
		}
		for _, j := range jobs {
			cfg := space.ConvDefault(cls, shape, lim)
			if j.cfg != nil {
				cfg = *j.cfg
				st.drawn++
			}
			st.cases++
			if err := b.ResetY(); err != nil {
				t.Fatal(err)
			}
			err := rt.Conv(b.Request(stream), shape, cfg)
			var got []float64
			if err == nil {
				got, err = b.ReadY(stream)
			}
			if err != nil && j.cfg != nil && errors.Is(err, kernels.ErrUnsupported) {
				st.refused++ // a drawn configuration the JIT's registers do not allow: not served
				continue
			}
			if err != nil {
				st.errors++
				if failures++; failures <= 30 {
					t.Errorf("%v [%s]: %v", c, cfg, err)
				}
				if strings.Contains(err.Error(), "CUDA_ERROR_ILLEGAL") || strings.Contains(err.Error(), "LAUNCH_FAILED") {
					t.Fatalf("the context is lost")
				}
				continue
			}
			r := d.Check(c, got)
			if r.Bad > 0 {
				st.failed++
				if failures++; failures <= 30 {
					t.Errorf("%v [%s]: %d bad elements: %s", c, cfg, r.Bad, r.FirstBad)
				}
			}
			if r.MaxRelBound >= st.worst {
				st.worst, st.worstCase = r.MaxRelBound, fmt.Sprintf("%v [%s]", c, cfg)
			}
		}
		b.Free()
	}
	var names []string
	for n := range per {
		names = append(names, n)
	}
	sort.Strings(names)
	var rep strings.Builder
	fmt.Fprintf(&rep, "kernels: the convolution table (%d cases per type)\n%-12s %6s %6s %8s %7s %7s %14s\n", casesPerType(), "type", "runs", "drawn", "refused", "failed", "errors", "worst err/bd")
	for _, n := range names {
		s := per[n]
		fmt.Fprintf(&rep, "%-12s %6d %6d %8d %7d %7d %14.3g\n", n, s.cases, s.drawn, s.refused, s.failed, s.errors, s.worst)
	}
	for _, n := range names {
		fmt.Fprintf(&rep, "worst case %s: %s\n", n, per[n].worstCase)
	}
	t.Log("\n" + rep.String())
	if dir := os.Getenv("ISAAC_GPU_REPORT_DIR"); dir != "" {
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "conv-kernels.txt"), []byte(rep.String()), 0o644)
	}
}
