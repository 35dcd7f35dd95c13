package main

import (
	"flag"
	"fmt"
	"io"
	"maps"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
	"github.com/isaacgo/isaac/tune"
)

// acceptanceCmd measures, on the CPU (legality is a pure function), the
// share of legal configurations among the categorical sampler's draws and
// among uniform draws, per data type, for GEMM and for the convolutions'
// implicit GEMMs: the paper's Table 1 for our space.
func acceptanceCmd(args []string) error {
	fs := flag.NewFlagSet("acceptance", flag.ExitOnError)
	draws := fs.Int("draws", 20000, "categorical draws per input class")
	warmup := fs.Int("warmup", 1000, "legal uniform draws of the warm-up")
	seed := fs.Uint64("seed", 1, "random seed")
	fs.Parse(args)
	rng := rand.New(rand.NewPCG(*seed, 7))
	dev := ptx.H100()
	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "type\tclasses\tcategorical\tuniform\tratio\t")
	var tc, tu space.Acceptance
	for _, t := range gemmcheck.Types {
		var c, u space.Acceptance
		n := 0
		for _, layout := range [][2]ptx.Op{{ptx.N, ptx.N}, {ptx.N, ptx.T}, {ptx.T, ptx.N}, {ptx.T, ptx.T}} {
			for _, align := range []int{1, 2, 4, 8} {
				in, ok := classOf(t, layout, align)
				if !ok {
					continue
				}
				n++
				s := space.NewSampler(in, dev, *warmup, 3_000_000, rng)
				s.Uniform = space.Acceptance{} // count after the warm-up only
				for i := 0; i < *draws; i++ {
					s.Draw(rng, nil, 1)
				}
				for _, p := range [][2]*space.Acceptance{{&c, &s.Categorical}, {&u, &s.Uniform}, {&tc, &s.Categorical}, {&tu, &s.Uniform}} {
					p[0].Draws += p[1].Draws
					p[0].Accepted += p[1].Accepted
				}
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f%%\t%.2f%%\t%.1f×\t\n", t.Name, n, 100*c.Rate(), 100*u.Rate(), c.Rate()/u.Rate())
	}
	fmt.Fprintf(tw, "all\t\t%.2f%%\t%.2f%%\t%.1f×\t\n", 100*tc.Rate(), 100*tu.Rate(), tc.Rate()/tu.Rate())
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Println()
	return convAcceptance(os.Stdout, dev, *draws, *warmup, rng)
}

// convAcceptance is acceptanceCmd's table for the convolutions' implicit
// GEMMs: the input classes of 2,000 convolutions of the tuner's
// distribution (tune.DefaultConvDistribution, every served type, math,
// layout and mode; grouped ones run the direct kernel, not a sampled
// space), each class's categorical and uniform draws.
func convAcceptance(w io.Writer, dev ptx.DeviceLimits, draws, warmup int, rng *rand.Rand) error {
	byType := map[string]map[ptx.InputClass]bool{}
	var names []string
	var scalars [2]float64
	dist := tune.DefaultConvDistribution()
	for range 500 {
		b := dist.Batch(rng, 4)
		for i := range b.Layers {
			c := b.Case(i)
			req := c.RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
			shape, reason := req.Shape()
			if reason != request.Served || shape.G > 1 {
				continue
			}
			name := c.Type.Name
			if c.Type.Data == request.CudnnFloat {
				name += map[bool]string{true: " (FMA)", false: " (TF32)"}[c.Math == request.CudnnFMAMath]
			}
			if byType[name] == nil {
				byType[name] = map[ptx.InputClass]bool{}
				names = append(names, name)
			}
			byType[name][space.ConvClass(shape, req.XPtr, req.WPtr)] = true
		}
	}
	slices.Sort(names)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "convolution\tclasses\tcategorical\tuniform\tratio\t")
	var tc, tu space.Acceptance
	for _, name := range names {
		classes := slices.SortedFunc(maps.Keys(byType[name]), func(a, b ptx.InputClass) int { return strings.Compare(fmt.Sprint(a), fmt.Sprint(b)) })
		var c, u space.Acceptance
		for _, in := range classes {
			s := space.NewSampler(in, dev, warmup, 3_000_000, rng)
			s.Uniform = space.Acceptance{} // count after the warm-up only
			for i := 0; i < draws; i++ {
				s.Draw(rng, nil, 1)
			}
			for _, p := range [][2]*space.Acceptance{{&c, &s.Categorical}, {&u, &s.Uniform}, {&tc, &s.Categorical}, {&tu, &s.Uniform}} {
				p[0].Draws += p[1].Draws
				p[0].Accepted += p[1].Accepted
			}
		}
		fmt.Fprintf(tw, "%s\t%d\t%.2f%%\t%.3f%%\t%.1f×\t\n", name, len(classes), 100*c.Rate(), 100*u.Rate(), c.Rate()/u.Rate())
	}
	fmt.Fprintf(tw, "all\t\t%.2f%%\t%.3f%%\t%.1f×\t\n", 100*tc.Rate(), 100*tu.Rate(), tc.Rate()/tu.Rate())
	return tw.Flush()
}

// classOf is the input class of a served type, layout and alignment (false
// when the alignment is wider than the type's 16-byte vectors).
func classOf(t gemmcheck.Type, layout [2]ptx.Op, align int) (ptx.InputClass, bool) {
	if align*t.AB.Size() > 16 {
		return ptx.InputClass{}, false
	}
	return space.TypeClass(t, layout[0], layout[1], align, align, min(align, 16/t.C.Size())), true
}
