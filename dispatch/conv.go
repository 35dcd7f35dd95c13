package dispatch

import "github.com/isaacgo/isaac/request"

// Conv answers whether ISAAC serves c, or why the vendor takes it. The
// convolution kernels come with the CONV issue: until then every
// convolution goes to cuDNN.
func Conv(c *request.Conv) request.Reason {
	switch {
	case c.SpatialDims() != 2:
		return request.FwdUnsupported
	case c.X.Type != c.Y.Type || c.X.Type != c.W.Type:
		return request.FwdUnsupported
	}
	return request.FwdNoKernel
}
