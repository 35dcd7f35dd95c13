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

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/internal/suites"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
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
// GEMMs: the input classes of Table 5's and the CNN suite's ungrouped
// layers in every served type and math, x and y in NCHW or NHWC (the
// filter in the same format), each class's categorical and uniform draws.
func convAcceptance(w io.Writer, dev ptx.DeviceLimits, draws, warmup int, rng *rand.Rand) error {
	byType := map[string]map[ptx.InputClass]bool{}
	var names []string
	var scalars [2]float64
	for _, l := range append(suites.Table5(), suites.CNN()...) {
		if l.Groups > 1 {
			continue // the direct kernel's, not a sampled space
		}
		for _, t := range request.ConvTypes {
			for _, math := range []int{request.CudnnFMAMath, request.CudnnTensorOpMath} {
				if math == request.CudnnTensorOpMath && t.Data != request.CudnnFloat {
					continue // TF32 is float's alone
				}
				for _, layout := range []convcheck.Layout{convcheck.NCHW, convcheck.NHWC} {
					c := convcheck.Case{Type: t, Math: math, N: l.N, C: l.C, H: l.H, W: l.W, K: l.K, R: l.R, S: l.S,
						PadH: l.Pad, PadW: l.Pad, StrH: l.Stride, StrW: l.Stride, DilH: l.Dil, DilW: l.Dil,
						X: layout, Y: layout, FilterNHWC: layout == convcheck.NHWC, Alpha: 1}
					req := c.RequestAt(1<<20, 2<<20, 3<<20, &scalars, 0)
					shape, reason := req.Shape()
					if reason != request.Served {
						continue
					}
					name := t.Name
					if t.Data == request.CudnnFloat {
						name += map[int]string{request.CudnnFMAMath: " (FMA)", request.CudnnTensorOpMath: " (TF32)"}[math]
					}
					if byType[name] == nil {
						byType[name] = map[ptx.InputClass]bool{}
						names = append(names, name)
					}
					byType[name][space.ConvClass(shape, req.XPtr, req.WPtr)] = true
				}
			}
		}
	}
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
