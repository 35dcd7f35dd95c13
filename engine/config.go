package engine

import (
	"fmt"
	"os"
	"sync"

	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// forcedConfig is ISAAC_CONFIG, parsed once: when set, every served GEMM
// uses this configuration (calls whose class it is not legal for go to the
// vendor). For tuning and tests.
var forcedConfig = sync.OnceValues(func() (*ptx.GemmConfig, error) {
	return parseForced(os.Getenv("ISAAC_CONFIG"))
})

func parseForced(s string) (*ptx.GemmConfig, error) {
	if s == "" {
		return nil, nil
	}
	c, err := ptx.ParseConfig(s)
	if err != nil {
		return nil, fmt.Errorf("ISAAC_CONFIG: %w", err)
	}
	return &c, nil
}

// useTMA is ISAAC_TMA: unless it is "0", a wgmma configuration the engine
// chooses itself (the model's or the heuristic's, not ISAAC_CONFIG) runs as
// its tensor-copy twin where that is legal (ptx.TMATwin): on the H100 the
// twins of the 16-bit Table 4 rows' best configurations were 1.05× as fast
// in geometric mean (51 rows, 47 of them at least 0.99×, the slowest 0.98×;
// bench_compare/results/h100/ab/tma-twins.txt), and the model, trained
// on the cp.async kernels, has no feature for the copies.
var useTMA = sync.OnceValue(func() bool { return os.Getenv("ISAAC_TMA") != "0" })

// staged is c as the engine runs a configuration it chose: the TMA twin
// under useTMA.
func staged(c ptx.GemmConfig, in ptx.InputClass, dev *deviceInfo) ptx.GemmConfig {
	if !useTMA() {
		return c
	}
	return ptx.TMATwin(c, in, dev.limits)
}

// Staged is cfg as the engine runs it when it chose cfg itself for g (the
// model's or the heuristic's configuration): its tensor-copy twin where
// legal and ISAAC_TMA is not "0" (see useTMA).
func Staged(g *request.Gemm, cfg ptx.GemmConfig) (ptx.GemmConfig, error) {
	_, info, in, err := prepare(g)
	if err != nil {
		return cfg, err
	}
	return staged(cfg, in, info), nil
}

// choose is the configuration for a request: ISAAC_CONFIG, else the
// generator's heuristic (staged). It is legal for the class on the device.
func choose(in ptx.InputClass, m, n, k int, dev *deviceInfo) (ptx.GemmConfig, error) {
	forced, err := forcedConfig()
	if err != nil {
		return ptx.GemmConfig{}, err
	}
	var c ptx.GemmConfig
	if forced != nil {
		c = *forced
	} else {
		c = space.Default(in, m, n, k, dev.limits)
	}
	if c.KG > 1 && !dev.pools {
		c.KG = 1 // no stream-ordered workspace on this device
	}
	if err := ptx.Legal(c, in, dev.limits); err != nil {
		return ptx.GemmConfig{}, err
	}
	if forced == nil {
		c = staged(c, in, dev)
	}
	return c, nil
}
