package space

import (
	"testing"

	"github.com/isaacgo/isaac/ptx"
)

func TestSuits(t *testing.T) {
	c := ptx.GemmConfig{ML: 128, NL: 16, U: 16, KG: 4}
	if !Suits(c, 2560, 16, 2560) {
		t.Error("a 128x16 tile does not fit 2560x16")
	}
	c.NL = 128
	if Suits(c, 2560, 16, 2560) {
		t.Error("a 128-wide tile fits n = 16")
	}
	c.NL, c.KG = 16, 64
	if Suits(c, 2560, 16, 512) {
		t.Error("64 grid splits of k = 512 with u = 16 fit")
	}
}
