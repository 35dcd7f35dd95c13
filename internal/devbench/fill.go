package devbench

import (
	"math/rand/v2"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
)

// Fill writes n bytes of moderate random values of type t at p: a 1 MiB
// block uploaded repeatedly (never zeros, which run faster than real data).
func Fill(p cuda.DevicePtr, n int, t request.DataType, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 17))
	vals := make([]float64, (1<<20)/t.Size())
	for i := range vals {
		vals[i] = float64(rng.IntN(255)-127) / 128
	}
	block := gemmcheck.Encode(t, vals)
	for off := 0; off < n; off += len(block) {
		if err := (p + cuda.DevicePtr(off)).CopyFromHost(block[:min(len(block), n-off)]); err != nil {
			return err
		}
	}
	return nil
}
