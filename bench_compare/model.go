package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
	"github.com/isaacgo/isaac/space"
)

// modelEngine is the "model" column: per input, the best-predicted
// configuration of the weights the shim would use on the device
// (serve.Weights: ISAAC_WEIGHTS, shipped, or calibrated in the cache
// directory; predictor.Chooser: seed pool, heuristic candidates,
// model-guided search).
func modelEngine(b *bench) (engine, error) {
	w, source, err := serve.Weights(b.Server.Options(), b.Env.Device)
	if err != nil {
		return engine{}, err
	}
	model, ok := w.ConfigModel()
	if !ok {
		return engine{}, fmt.Errorf("bench_compare: the %s weights (%s) have no configuration model of a schema this build knows", w.Device.Key, source)
	}
	fmt.Fprintf(os.Stderr, "bench_compare: model column: %s weights, %s (measured on %s, %d samples)\n", w.Device.Key, source, w.Device.Name, w.Samples)
	vendor, _ := w.Model("vendor")
	ch := &predictor.Chooser{Config: model, Vendor: vendor, Dev: b.Limits, TopK: 5, Margin: 1, Pool: 1024}
	return engine{Name: "model", Choose: func(g *request.Gemm) (ptx.GemmConfig, error) {
		cls, err := space.Class(g)
		if err != nil {
			return ptx.GemmConfig{}, err
		}
		// As the server does: the model chooses among the configurations
		// the class takes, a batch's as one wider matrix's.
		in, ok := predictor.InputOf(g, cls)
		if !ok {
			return ptx.GemmConfig{}, fmt.Errorf("bench_compare: the model does not cover %v", g)
		}
		var c *predictor.Choice
		if cls.Batched {
			c = ch.ChooseBatch(in, int(g.Batch), cls)
		} else {
			c = ch.Choose(in, cls)
		}
		// As the server does: the best-ranked configuration whose kernel
		// loads, as the server runs the model's choice; Legal's register estimate
		// can admit a kernel whose real registers do not allow its block
		// (then the next one runs).
		for _, r := range c.Top {
			cfg, err := b.Server.Chosen(g, r.Config, model)
			if err != nil {
				return ptx.GemmConfig{}, err
			}
			if b.Kernels.Prepare(g, cfg) == nil {
				return cfg, nil
			}
		}
		return ptx.GemmConfig{}, fmt.Errorf("bench_compare: no loadable configuration among the model's %d best for %v", len(c.Top), g)
	}}, nil
}

// dispatchEngine is the "dispatch" column: each call exactly as the shim
// makes it under the default policy (a server of the environment's options
// with policy auto, on the bench's kernel runtime: the fastest of the
// model's best kernels where the check measures it faster than the vendor,
// the vendor otherwise), so its times include the losers routed to cuBLAS;
// once a decision to forward is settled, a call is the vendor's alone, as
// the shim's C table answers it without Go.
// The decision is made before the warm-up (Server.Decide, compiling the
// candidates in line), so that no timed call goes to the vendor while the
// kernels compile in the background, and a decision to serve is then
// checked on calls as the shim's are (settle), so that no timed call is
// one of the check's. A cublasLtMatmul call is served as the shim serves
// it: only with ISAAC_LT_AUTO=1 in the environment (Options.LtAuto), else
// cuBLASLt takes it.
func dispatchEngine(b *bench) engine {
	o := b.Server.Options()
	o.Policy = serve.Auto
	srv := serve.NewOn(b.Kernels, o)
	ltOff := srv.LtPolicy() != request.Served
	// A settled answer to forward (Reason.Settled) is, in the shim,
	// remembered in C and later calls with the same arguments go to the
	// vendor without asking Go (shim/gemm_forwards.c, lt_forwards.c): here
	// likewise, by the row's request. That table's own cost is what
	// -overhead -lib measures.
	forwarded := map[*request.Gemm]bool{}
	run := func(g *request.Gemm) error {
		if ltOff && g.Entry == request.EntryLtMatmul || forwarded[g] {
			return b.vendorGemm(g)
		}
		r, t := srv.Serve(g)
		if r == request.Served {
			return nil
		}
		err := b.vendorGemm(g)
		srv.AfterForward(t)
		if r.Settled() {
			forwarded[g] = true
		}
		return err
	}
	return engine{Name: "dispatch",
		Choose: func(g *request.Gemm) (ptx.GemmConfig, error) {
			if ltOff && g.Entry == request.EntryLtMatmul {
				return ptx.GemmConfig{}, nil
			}
			cfg, r := srv.Decide(g)
			if r == request.Served {
				if err := settle(srv, g, run); err != nil {
					return cfg, err
				}
				cfg, _ = srv.Decide(g)
			}
			return cfg, nil
		},
		Run: run,
		Describe: func(g *request.Gemm) string {
			if ltOff && g.Entry == request.EntryLtMatmul {
				return "cuBLASLt (policy: ISAAC_LT_AUTO unset)"
			}
			cfg, r := srv.Decide(g)
			if r == request.FwdMeasured {
				m := srv.Measured(g)
				return fmt.Sprintf("cuBLAS (measured: ours %.1f µs%s, cuBLAS %.1f µs)", m.OursUS, candidatesOf(m), m.VendorUS)
			}
			if r != request.Served {
				return "cuBLAS (" + r.String() + ")"
			}
			// The check's fastest times, as for a decision it turned: they show
			// by how much the warm check judged a served row a win.
			if m := srv.Measured(g); m.Checked && m.Settled {
				return fmt.Sprintf("%s (checked: ours %.1f µs%s, cuBLAS %.1f µs)", cfg, m.OursUS, candidatesOf(m), m.VendorUS)
			}
			return cfg.String()
		}}
}

// candidatesOf names the check's candidates' fastest times (its first
// round's) where it timed more than one.
func candidatesOf(m serve.Measurement) string {
	if len(m.CandidatesUS) < 2 {
		return ""
	}
	var b strings.Builder
	for i, us := range m.CandidatesUS {
		if i > 0 {
			b.WriteByte(' ')
		}
		fmt.Fprintf(&b, "%.1f", us)
	}
	return retimed(m) + " of candidates [" + b.String() + "] µs"
}

// retimed says when the check's ours is its kept candidate's second round.
func retimed(m serve.Measurement) string {
	if m.Retimed {
		return " re-timed"
	}
	return ""
}

// settle runs g's calls, one at a time, until the check of its decision to
// serve has its verdict (Server.Measured), as the shim's first calls of a
// shape would.
func settle(srv *serve.Server, g *request.Gemm, run func(*request.Gemm) error) error {
	for i := 0; i < 64; i++ {
		if m := srv.Measured(g); !m.Checked || m.Settled {
			return nil
		}
		if err := run(g); err != nil {
			return err
		}
		if err := cuda.Stream(g.Stream).Synchronize(); err != nil {
			return err
		}
	}
	return fmt.Errorf("bench_compare: the check of the decision for %v did not settle", g)
}
