package engine

import (
	"fmt"
	"os"
	"sync"

	"github.com/isaacgo/isaac/ptx"
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

// choose is the configuration for a request: ISAAC_CONFIG, else the
// generator's heuristic. It is legal for the class on the device.
func choose(in ptx.InputClass, m, n, k int, dev *deviceInfo) (ptx.GemmConfig, error) {
	forced, err := forcedConfig()
	if err != nil {
		return ptx.GemmConfig{}, err
	}
	var c ptx.GemmConfig
	if forced != nil {
		c = *forced
	} else {
		c = ptx.DefaultConfig(in, m, n, k, dev.limits)
	}
	if c.KG > 1 && !dev.pools {
		c.KG = 1 // no stream-ordered workspace on this device
	}
	if err := ptx.Legal(c, in, dev.limits); err != nil {
		return ptx.GemmConfig{}, err
	}
	return c, nil
}
