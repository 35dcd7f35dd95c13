package space

import (
	"math/rand/v2"
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

func TestDefaultConfigLegal(t *testing.T) {
	dev := ptx.H100()
	shapes := [][3]int{{1, 1, 1}, {1, 1000, 1}, {7, 13, 5}, {64, 64, 64}, {4096, 4096, 4096}, {16, 16, 100000}, {1000, 1, 50}, {512, 512, 65536}}
	for _, in := range ptx.Classes() {
		for _, s := range shapes {
			c := Default(in, s[0], s[1], s[2], dev)
			if err := ptx.Legal(c, in, dev); err != nil {
				t.Fatalf("%s %v: %s illegal: %v", in, s, c, err)
			}
		}
	}
}

func TestSpaceRandomLegal(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1^0x9e3779b97f4a7c15))
	for _, in := range ptx.Classes()[:8] {
		if _, ok := For(in).RandomLegal(rng, in, ptx.H100(), 5000); !ok {
			t.Errorf("%s: no legal sample", in)
		}
	}
}
