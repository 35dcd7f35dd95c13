package main

import (
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
)

// chooseCmd is isaac-tune choose: what the default policy makes of one
// GEMM under a weights file, without a GPU (serve.PlanGemm): the chooser's
// best-ranked configurations with their predicted times, the vendor
// model's prediction, whether the call's first calls are checked, and the
// kernels the check would time. For asking why a run served or forwarded
// an input, or how two weights files rank its kernels.
func chooseCmd(args []string) error { return planGemm(os.Stdout, args) }

func planGemm(out io.Writer, args []string) error {
	fs := flag.NewFlagSet("choose", flag.ExitOnError)
	from := fs.String("weights", "h200", "a shipped device key or a weights file")
	typ := fs.String("type", "sgemm", "the data type, as the conformance table names it ("+typeNames()+")")
	shape := fs.String("shape", "", "m,n,k")
	layout := fs.String("layout", "NN", "op(A) and op(B): NN, NT, TN or TT")
	top := fs.Int("top", 8, "configurations listed")
	fs.Parse(args)
	i := slices.IndexFunc(gemmcheck.Types, func(t gemmcheck.Type) bool { return t.Name == *typ })
	if i < 0 {
		return fmt.Errorf("choose: unknown type %q", *typ)
	}
	var m, n, k int
	if _, err := fmt.Sscanf(*shape, "%d,%d,%d", &m, &n, &k); err != nil || m < 1 || n < 1 || k < 1 {
		return fmt.Errorf("choose: -shape %q: want m,n,k, each at least 1", *shape)
	}
	if len(*layout) != 2 || strings.Trim(*layout, "NT") != "" {
		return fmt.Errorf("choose: -layout %q: want NN, NT, TN or TT", *layout)
	}
	op := func(b byte) request.Op {
		if b == 'T' {
			return request.OpT
		}
		return request.OpN
	}
	w, err := gemmWeightsFrom(*from)
	if err != nil {
		return fmt.Errorf("choose: -weights %s: %w", *from, err)
	}
	c := gemmcheck.Case{Type: gemmcheck.Types[i], TransA: op((*layout)[0]), TransB: op((*layout)[1]), M: m, N: n, K: k, Alpha: 1}
	// packed matrices (leading dimensions their rows, as bench_compare's
	// suites) at addresses as cuda.Alloc returns them
	g := c.RequestAt(1<<30, 2<<30, 3<<30, 0, 0)
	p, err := serve.PlanGemm(w, ptx.H100(), g, *top)
	if err != nil {
		return fmt.Errorf("choose: %w", err)
	}
	flops := 2 * float64(m) * float64(n) * float64(k)
	us := func(tflops float64) float64 { return flops / (tflops * 1e6) }
	fmt.Fprintf(out, "%s %s %dx%dx%d, packed as bench_compare lays out its suites, on an sm_90 device of 132 SMs; weights %s (%s, %d samples)\n",
		*typ, *layout, m, n, k, *from, w.Device.Name, w.Samples)
	fmt.Fprintf(out, "vendor model: %.2f µs (%.1f TFLOP/s)\n", us(p.Choice.VendorTFLOPs), p.Choice.VendorTFLOPs)
	verdict := "checked on its first calls"
	if !p.Checked {
		verdict = "forwarded unmeasured"
	}
	fmt.Fprintf(out, "predicted %.3fx the vendor (checked from %.3fx, or where the vendor is predicted within 50 µs): %s\n",
		p.Choice.Ratio(), p.Check, verdict)
	fmt.Fprintln(out, "rank  predicted µs  TFLOP/s  vs vendor  configuration")
	for r, x := range p.Choice.Top[:min(*top, len(p.Choice.Top))] {
		t := math.Exp(x.Score)
		fmt.Fprintf(out, "%4d %12.2f %8.1f %9.3fx  %v\n", r+1, us(t), t, t/p.Choice.VendorTFLOPs, x.Config)
	}
	if p.Checked {
		fmt.Fprintln(out, "the check times, as the class runs them:")
		for _, cfg := range p.Candidates {
			fmt.Fprintf(out, "      %v\n", cfg)
		}
	}
	return nil
}

// typeNames lists the conformance table's type names.
func typeNames() string {
	var s []string
	for _, t := range gemmcheck.Types {
		s = append(s, t.Name)
	}
	return strings.Join(s, ", ")
}
