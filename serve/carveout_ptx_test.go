package serve

import (
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// The carveout kernels TestGPUConvCheckVendorTimes launches assemble for
// the Hopper target without a GPU (ptxas; skipped without it).
func TestCarveoutPTX(t *testing.T) {
	if _, err := ptxas.Find(); err != nil {
		t.Skipf("no ptxas: %v", err)
	}
	if _, err := ptxas.Compile(carveoutPTX, "sm_90"); err != nil {
		t.Fatal(err)
	}
}
