package main

import (
	"fmt"

	"github.com/isaacgo/isaac/engine"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/weights"
)

// modelEngine is the "model" column: per input, the best-predicted
// configuration of the device's shipped weights (predictor.Chooser: seed
// pool, heuristic candidates, model-guided search).
func modelEngine(deviceKey string) (Engine, error) {
	w, err := weights.For(deviceKey)
	if err != nil {
		return Engine{}, err
	}
	cfg, ok := w.Model("config")
	if !ok || cfg.Schema != predictor.ConfigSchema {
		return Engine{}, fmt.Errorf("bench_compare: the %s weights have no configuration model of this build's schema", deviceKey)
	}
	vendor, _ := w.Model("vendor")
	lim, err := engine.Limits()
	if err != nil {
		return Engine{}, err
	}
	ch := &predictor.Chooser{Config: cfg, Vendor: vendor, Dev: lim, TopK: 5, Margin: 1, Pool: 1024}
	return Engine{Name: "model", Choose: func(g *request.Gemm) (ptx.GemmConfig, error) {
		cls, err := engine.Class(g)
		if err != nil {
			return ptx.GemmConfig{}, err
		}
		in, ok := predictor.InputOf(g, cls)
		if !ok {
			return ptx.GemmConfig{}, fmt.Errorf("bench_compare: the model does not cover %v", g)
		}
		c := ch.Choose(in, cls)
		// As the engine does (Serve): the best-ranked configuration whose
		// kernel loads, staged as the engine stages it; Legal's register estimate can admit a kernel whose
		// real registers do not allow its block (then the next one runs).
		for _, r := range c.Top {
			cfg, err := engine.Staged(g, r.Config) // the tensor-copy twin, as the engine runs it
			if err != nil {
				return ptx.GemmConfig{}, err
			}
			if engine.Prepare(g, cfg) == nil {
				return cfg, nil
			}
		}
		return ptx.GemmConfig{}, fmt.Errorf("bench_compare: no loadable configuration among the model's %d best for %v", len(c.Top), g)
	}}, nil
}

// dispatchEngine is the "dispatch" column: each call exactly as the shim
// makes it under the default policy (engine.Serve with engine.Auto: the
// model's best configuration where it predicts a win by the margin, the
// vendor otherwise), so its times include the losers routed to cuBLAS.
// The decision is made before the warm-up (engine.Decide, compiling the
// chosen kernel in line), so that no timed call goes to the vendor while
// the kernel compiles in the background, and a decision to serve is then
// checked on calls as the shim's are (settle), so that no timed call is
// one of the check's.
func dispatchEngine(vendor func(g *request.Gemm) error) Engine {
	run := func(g *request.Gemm) error {
		r := engine.Serve(g, engine.Auto)
		if r == request.Served {
			return nil
		}
		err := vendor(g)
		if r == request.FwdMeasuring {
			engine.AfterForward(g)
		}
		return err
	}
	return Engine{Name: "dispatch",
		Choose: func(g *request.Gemm) (ptx.GemmConfig, error) {
			cfg, r := engine.Decide(g, engine.Auto)
			if r == request.Served {
				if err := settle(g, run); err != nil {
					return cfg, err
				}
				cfg, _ = engine.Decide(g, engine.Auto)
			}
			return cfg, nil
		},
		Run: run,
		Describe: func(g *request.Gemm) string {
			cfg, r := engine.Decide(g, engine.Auto)
			if r == request.FwdMeasured {
				m := engine.Measured(g)
				return fmt.Sprintf("cuBLAS (measured: ours %.1f µs, cuBLAS %.1f µs)", m.OursUS, m.VendorUS)
			}
			if r != request.Served {
				return "cuBLAS (" + r.String() + ")"
			}
			// The check's fastest times, as for a decision it turned: they show
			// by how much the warm check judged a served row a win.
			if m := engine.Measured(g); m.Checked && m.Settled {
				return fmt.Sprintf("%s (checked: ours %.1f µs, cuBLAS %.1f µs)", cfg, m.OursUS, m.VendorUS)
			}
			return cfg.String()
		}}
}

// settle runs g's calls, one at a time, until the check of its decision to
// serve has its verdict (engine.Measured), as the shim's first calls of a
// shape would.
func settle(g *request.Gemm, run func(*request.Gemm) error) error {
	for i := 0; i < 64; i++ {
		if m := engine.Measured(g); !m.Checked || m.Settled {
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
