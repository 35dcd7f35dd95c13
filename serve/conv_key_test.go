package serve

import (
	"testing"

	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// A convolution's decision key tells apart x's alignments that change the
// window kernel's vectors, and only where the window kernel is a
// candidate: the same shape with x 16-byte aligned and x off by one
// element must not share a decision made with 16-byte vectors of x.
func TestConvKeyWindowAlignment(t *testing.T) {
	half := request.ConvTypes[2]
	s := request.ConvShape{Type: half, N: 8, C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, G: 1, P: 54, Q: 54,
		StrH: 1, StrW: 1, DilH: 1, DilW: 1, XStrides: [4]int{64 * 56 * 56, 56 * 56, 56, 1}, YStrides: [4]int{64 * 54 * 54, 54 * 54, 54, 1}}
	const base = 1 << 20
	aligned := &request.Conv{XPtr: base, WPtr: base}
	again := &request.Conv{XPtr: base + 4096, WPtr: base + 256}
	offset := &request.Conv{XPtr: base + 2, WPtr: base}
	cls := space.ConvClass(s, aligned.XPtr, aligned.WPtr)
	if newConvKey(1, cls, aligned, s) != newConvKey(1, cls, again, s) {
		t.Error("two 16-byte aligned x: different keys")
	}
	if newConvKey(1, cls, aligned, s) == newConvKey(1, cls, offset, s) {
		t.Error("x 16-byte aligned and x off by an element: one key")
	}
	nhwc := s
	nhwc.XStrides = [4]int{64 * 56 * 56, 1, 56 * 64, 64}
	if newConvKey(1, cls, aligned, nhwc) != newConvKey(1, cls, offset, nhwc) {
		t.Error("NHWC x (no window candidate): keys differ by x's address")
	}
}

// The same convolution through cuDNN's legacy entry point and through its
// graph API has two decisions: each check times the vendor's own side.
func TestConvKeyGraph(t *testing.T) {
	s := request.ConvShape{Type: request.ConvTypes[2], N: 8, C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, G: 1, P: 56, Q: 56,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1,
		XStrides: [4]int{64 * 56 * 56, 1, 56 * 64, 64}, YStrides: [4]int{64 * 56 * 56, 1, 56 * 64, 64}}
	legacy := &request.Conv{XPtr: 1 << 20, WPtr: 1 << 21}
	graph := &request.Conv{XPtr: 1 << 20, WPtr: 1 << 21, Graph: true}
	cls := space.ConvClass(s, legacy.XPtr, legacy.WPtr)
	if newConvKey(1, cls, legacy, s) == newConvKey(1, cls, graph, s) {
		t.Error("a legacy and a graph-API call of one convolution: one key")
	}
}
