package convcheck

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/isaacgo/isaac/request"
)

// Layout is how a 4-d tensor lies in memory.
type Layout int

// Layouts: packed NCHW, packed NHWC, and NCHW inside a larger tensor (more
// channels, rows and columns than the view: cudnnSetTensor4dDescriptorEx).
const (
	NCHW Layout = iota
	NHWC
	Sliced
)

func (l Layout) String() string { return [...]string{"nchw", "nhwc", "sliced"}[l] }

// Case is one convolution of the table.
type Case struct {
	Type                   request.ConvType
	Math                   int // cudnnMathType_t: TF32 is allowed for float unless CUDNN_FMA_MATH
	N, C, H, W, K, R, S    int
	Groups                 int // 0 or 1: not grouped; else C and K are multiples of it
	PadH, PadW, StrH, StrW int
	DilH, DilW             int
	Flip                   bool // CUDNN_CONVOLUTION
	X, Y                   Layout
	FilterNHWC             bool
	Alpha, Beta            float64
	Seed                   uint64
}

// P and Q are the output's spatial sizes.
func (c Case) P() int { return (c.H+2*c.PadH-((c.R-1)*c.DilH+1))/c.StrH + 1 }

// Q is the output's width.
func (c Case) Q() int { return (c.W+2*c.PadW-((c.S-1)*c.DilW+1))/c.StrW + 1 }

// G is the group count (1 when not grouped).
func (c Case) G() int { return max(c.Groups, 1) }

func (c Case) String() string {
	return fmt.Sprintf("%s math=%d n%d c%d h%d w%d k%d r%d s%d g%d pad%d,%d str%d,%d dil%d,%d flip=%v x=%s y=%s filterNHWC=%v alpha=%g beta=%g",
		c.Type.Name, c.Math, c.N, c.C, c.H, c.W, c.K, c.R, c.S, c.G(), c.PadH, c.PadW, c.StrH, c.StrW, c.DilH, c.DilW, c.Flip, c.X, c.Y, c.FilterNHWC, c.Alpha, c.Beta)
}

// strides are a tensor's element strides (n, c, h, w) in layout l, and its
// element count; a sliced view lies in a tensor of 2 more channels, 1 more
// row and 3 more columns, at channel 1, row 0, column 2.
func strides(l Layout, n, c, h, w int) (st [4]int, offset, elems int) {
	switch l {
	case NHWC:
		return [4]int{h * w * c, 1, w * c, c}, 0, n * c * h * w
	case Sliced:
		cc, hh, ww := c+2, h+1, w+3
		return [4]int{cc * hh * ww, hh * ww, ww, 1}, hh*ww + 2, n * cc * hh * ww
	}
	return [4]int{c * h * w, h * w, w, 1}, 0, n * c * h * w
}

// XStrides, XOffset and XElems are x's strides, its first element's offset
// and its buffer's size in elements.
func (c Case) XStrides() (st [4]int, offset, elems int) { return strides(c.X, c.N, c.C, c.H, c.W) }

// YStrides is XStrides for y.
func (c Case) YStrides() (st [4]int, offset, elems int) { return strides(c.Y, c.N, c.K, c.P(), c.Q()) }

// WIndex is the element index of filter tap (k, c, r, s) in the filter's
// format (ch counts the channels of k's group).
func (c Case) WIndex(k, ch, r, s int) int {
	cg := c.C / c.G()
	if c.FilterNHWC {
		return ((k*c.R+r)*c.S+s)*cg + ch
	}
	return ((k*cg+ch)*c.R+r)*c.S + s
}

// WElems is the filter's element count.
func (c Case) WElems() int { return c.K * c.C / c.G() * c.R * c.S }

// Work is the multiply-adds of the case.
func (c Case) Work() int { return c.N * c.K * c.P() * c.Q() * c.C / c.G() * c.R * c.S }

func logUniform(rng *rand.Rand, lo, hi int) int {
	v := int(math.Exp(math.Log(float64(lo)) + rng.Float64()*(math.Log(float64(hi)+1)-math.Log(float64(lo)))))
	return min(max(v, lo), hi)
}

var scalars = []float64{1, 1, 0.5, -1.5, 2, 0}

// RandomCase draws a case of type t whose reference costs at most maxWork
// multiply-adds: shapes down to 1×1×1×1, filters up to 7×7, padding up to
// twice the filter's reach, strides and dilations up to 3, both modes,
// every layout and filter format; one in five grouped (half of them
// depthwise: a group per channel, one or two filters each).
func RandomCase(rng *rand.Rand, t request.ConvType, maxWork int) Case {
	for {
		c := Case{Type: t, Seed: rng.Uint64(), Math: []int{request.CudnnDefaultMath, request.CudnnTensorOpMath, request.CudnnFMAMath}[rng.IntN(3)]}
		c.N, c.C, c.K = logUniform(rng, 1, 8), logUniform(rng, 1, 96), logUniform(rng, 1, 96)
		switch rng.IntN(10) {
		case 0: // depthwise
			c.Groups = c.C
			c.K = c.C * (1 + rng.IntN(2))
		case 1: // groups of up to 8 channels (what the direct kernel takes)
			c.Groups = 1 + rng.IntN(8)
			c.C, c.K = c.Groups*(1+rng.IntN(8)), c.Groups*(1+rng.IntN(4))
		}
		c.R, c.S = 1+rng.IntN(7), 1+rng.IntN(7)
		if rng.IntN(2) == 0 {
			c.S = c.R
		}
		c.StrH, c.StrW = 1+rng.IntN(3)/2*(1+rng.IntN(2)), 1+rng.IntN(3)/2*(1+rng.IntN(2))
		if rng.IntN(4) == 0 {
			c.DilH, c.DilW = 1+rng.IntN(3), 1+rng.IntN(3)
		} else {
			c.DilH, c.DilW = 1, 1
		}
		c.PadH, c.PadW = rng.IntN((c.R-1)*c.DilH+2), rng.IntN((c.S-1)*c.DilW+2)
		if rng.IntN(8) == 0 { // padding beyond the filter's half-width
			c.PadH += c.R
		}
		c.H, c.W = logUniform(rng, 1, 40), logUniform(rng, 1, 40)
		c.Flip = rng.IntN(2) == 0
		c.X, c.Y = Layout(rng.IntN(3)), Layout(rng.IntN(3))
		if rng.IntN(2) == 0 { // mostly one layout for both, as programs do
			c.Y = c.X
		}
		c.FilterNHWC = c.X == NHWC && rng.IntN(4) != 0 || rng.IntN(6) == 0
		c.Alpha, c.Beta = scalars[rng.IntN(len(scalars))], scalars[rng.IntN(len(scalars))]
		if c.H+2*c.PadH < (c.R-1)*c.DilH+1 || c.W+2*c.PadW < (c.S-1)*c.DilW+1 || c.Work() > maxWork {
			continue
		}
		return c
	}
}

// RandomPointwise is RandomCase made pointwise: a 1×1 filter, stride 1,
// no padding, one group (the dilation and mode as drawn: they change
// nothing), whose reference costs at most maxWork multiply-adds.
func RandomPointwise(rng *rand.Rand, t request.ConvType, maxWork int) Case {
	for {
		c := RandomCase(rng, t, 1<<40)
		c.R, c.S, c.PadH, c.PadW, c.StrH, c.StrW, c.Groups = 1, 1, 0, 0, 1, 1, 0
		if c.Work() <= maxWork {
			return c
		}
	}
}
