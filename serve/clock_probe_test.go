package serve

import (
	"encoding/binary"
	"math"
	"testing"

	"github.com/isaacgo/isaac/internal/ptxas"
)

// The clock probe TestGPUConvCheckVendorTimes launches assembles for the
// H100 and H200 (ptxas on CI), and its output reads as cycles over
// nanoseconds, blocks that saw no time left out.
func TestClockProbePTX(t *testing.T) {
	out := make([]byte, 3*24)
	for b, v := range [][2]uint64{{20000, 39600}, {0, 5}, {10000, 17000}} {
		binary.LittleEndian.PutUint64(out[24*b:], v[0])
		binary.LittleEndian.PutUint64(out[24*b+8:], v[1])
	}
	if got := clockMHz(out); math.Abs(got-1840) > 1e-9 {
		t.Errorf("clock %v MHz, want the mean of 1980 and 1700", got)
	}
	if got := clockMHz(nil); got != 0 {
		t.Errorf("no blocks: %v", got)
	}
	if _, err := ptxas.Find(); err != nil {
		t.Skipf("no ptxas: %v", err)
	}
	if _, err := ptxas.Compile(clockProbePTX, "sm_90"); err != nil {
		t.Fatal(err)
	}
}
