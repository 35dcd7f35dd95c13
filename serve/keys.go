package serve

import (
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// The decisions' keys are structs of 8-byte integers alone. The server's
// sync.Maps hash their keys as interfaces, and the runtime hashes an
// interface's value in one pass only where its type is one plain block of
// memory; any other type (a bool beside an int, padding, a string) it
// hashes by walking the type's fields through their descriptors
// (runtime.typehash), which for a convolution's key took more host time
// than the rest of a cached decision (BenchmarkDecisionKeys). So the
// classes and shapes the keys hold are copied into packedClass and packedShape,
// every field (TestDecisionKeysComplete changes each and finds its key
// changed), and TestDecisionKeysPlain checks the key types' layout.

// packedClass is a ptx.InputClass as a decision's key holds it.
type packedClass struct {
	aType, bType, cType, compute ptx.DataType
	transA, transB               ptx.Op
	alignA, alignB, alignC       int
	conv                         ptx.ConvOrder
	act                          ptx.Activation
	flags                        int // AllowTF32, AtomicsAllowed, ChannelLines, RoundTF32, Batched, Epi.Bias, Epi.OutOfPlace
}

func packClass(c ptx.InputClass) packedClass {
	return packedClass{c.AType, c.BType, c.CType, c.Compute, c.TransA, c.TransB, c.AlignA, c.AlignB, c.AlignC, c.Conv, c.Epi.Act,
		bits(c.AllowTF32, c.AtomicsAllowed, c.ChannelLines, c.RoundTF32, c.Batched, c.Epi.Bias, c.Epi.OutOfPlace)}
}

// packedShape is a request.ConvShape as a decision's key holds it (its type
// by its data and compute types, which its Name only names).
type packedShape struct {
	data, compute          request.CudnnDataType
	n, c, h, w, k, r, s, g int
	p, q                   int
	padH, padW             int
	strH, strW             int
	dilH, dilW             int
	xStrides, yStrides     [4]int
	xBytes, yBytes, wBytes int
	flags                  int // TF32, Flip, FilterNHWC
}

func packShape(s request.ConvShape) packedShape {
	return packedShape{s.Type.Data, s.Type.Compute, s.N, s.C, s.H, s.W, s.K, s.R, s.S, s.G, s.P, s.Q, s.PadH, s.PadW,
		s.StrH, s.StrW, s.DilH, s.DilW, s.XStrides, s.YStrides, s.XBytes, s.YBytes, s.WBytes, bits(s.TF32, s.Flip, s.FilterNHWC)}
}

// bits is bs as the bits of an integer, the first the lowest.
func bits(bs ...bool) int {
	f := 0
	for i, b := range bs {
		if b {
			f |= 1 << i
		}
	}
	return f
}

// convKey identifies a convolution's decision (newConvKey): the context,
// the class of its implicit GEMM (none for a grouped convolution's direct
// kernel), the window kernel's class where it is a candidate, for a 1×1
// filter the addresses of x, the filter and y modulo 16 bytes (one byte
// each), its shape, and whether it came through cuDNN's graph API (its
// check times cuDNN's execution of the caller's plan, whose engine is not
// the legacy entry point's algorithm).
type convKey struct {
	ctx       uint64
	class     packedClass
	window    ptx.WindowClass
	gemmAlign int
	shape     packedShape
	graph     int // 1: a graph-API call
}
