package main

import (
	"fmt"

	"github.com/isaacgo/isaac/engine"
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
		if len(c.Top) == 0 {
			return ptx.GemmConfig{}, fmt.Errorf("bench_compare: no configuration for %v", g)
		}
		return c.Top[0].Config, nil
	}}, nil
}
