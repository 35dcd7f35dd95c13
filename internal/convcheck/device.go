package convcheck

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/request"
)

// Buffers are a case's device tensors, in the current context.
type Buffers struct {
	X, Wt, Y  cuda.DevicePtr
	c         Case
	initialY  []byte
	scalars   [2]float64 // alpha and beta where a caller of cuDNN keeps them (host memory)
	allocated []cuda.DevicePtr
}

// Upload allocates and fills a case's tensors.
func Upload(c Case, d *Data) (*Buffers, error) {
	b := &Buffers{c: c, scalars: [2]float64{c.Alpha, c.Beta}}
	t := c.Type.Data.DataType()
	put := func(vals []float64) (cuda.DevicePtr, []byte, error) {
		bytes := gemmcheck.Encode(t, vals)
		p, err := cuda.Alloc(max(len(bytes), 16))
		if err != nil {
			return 0, nil, err
		}
		b.allocated = append(b.allocated, p)
		return p, bytes, p.CopyFromHost(bytes)
	}
	var err error
	if b.X, _, err = put(d.X); err == nil {
		if b.Wt, _, err = put(d.Wt); err == nil {
			b.Y, b.initialY, err = put(d.Y0)
		}
	}
	if err != nil {
		b.Free()
		return nil, err
	}
	return b, nil
}

// ResetY restores y's initial contents.
func (b *Buffers) ResetY() error { return b.Y.CopyFromHost(b.initialY) }

// Free releases the tensors.
func (b *Buffers) Free() {
	for _, p := range b.allocated {
		p.Free()
	}
	b.allocated = nil
}

// Request is the case's cudnnConvolutionForward on these tensors and
// stream, as the shim decodes it from the call's descriptors.
func (b *Buffers) Request(stream cuda.Stream) *request.Conv {
	return b.c.RequestAt(uintptr(b.X), uintptr(b.Wt), uintptr(b.Y), &b.scalars, stream)
}

// RequestAt is the case's call on buffers at x, w and y (before the views'
// offsets), with alpha and beta kept at scalars.
func (c Case) RequestAt(x, w, y uintptr, scalars *[2]float64, stream cuda.Stream) *request.Conv {
	xs, xo, _ := c.XStrides()
	ys, yo, _ := c.YStrides()
	es := uintptr(c.Type.Data.Size())
	format := 0
	if c.FilterNHWC {
		format = 1
	}
	mode := 1
	if c.Flip {
		mode = 0
	}
	scalar := func(i int) request.Scalar {
		s := request.Scalar{Ptr: uintptr(unsafe.Pointer(&scalars[i])), Value: scalars[i]}
		if c.Type.Data == request.CudnnDouble {
			s.Bits = math.Float64bits(scalars[i])
		} else {
			s.Bits = uint64(math.Float32bits(float32(scalars[i])))
		}
		return s
	}
	return &request.Conv{
		Stream:   uintptr(stream),
		X:        request.Tensor{Type: c.Type.Data, Dims: []int{c.N, c.C, c.H, c.W}, Strides: xs[:]},
		Y:        request.Tensor{Type: c.Type.Data, Dims: []int{c.N, c.K, c.P(), c.Q()}, Strides: ys[:]},
		W:        request.Filter{Type: c.Type.Data, Format: format, Dims: []int{c.K, c.C / c.G(), c.R, c.S}},
		Pad:      []int{c.PadH, c.PadW},
		Stride:   []int{c.StrH, c.StrW},
		Dilation: []int{c.DilH, c.DilW},
		Mode:     mode,
		Compute:  c.Type.Compute,
		Groups:   c.G(),
		MathType: c.Math,
		XPtr:     x + uintptr(xo)*es,
		WPtr:     w,
		YPtr:     y + uintptr(yo)*es,
		Alpha:    scalar(0),
		Beta:     scalar(1),
	}
}

// ReadY synchronizes the stream and returns y's stored buffer.
func (b *Buffers) ReadY(stream cuda.Stream) ([]float64, error) {
	if err := stream.Synchronize(); err != nil {
		return nil, fmt.Errorf("after the convolution: %w", err)
	}
	raw := make([]byte, len(b.initialY))
	if err := b.Y.CopyToHost(raw); err != nil {
		return nil, err
	}
	return gemmcheck.Decode(b.c.Type.Data.DataType(), raw), nil
}
