package suites

import "fmt"

// Conv is one 2-D convolution of a suite: x of N×C×H×W, K filters of R×S,
// the same padding, stride and dilation along both dimensions.
type Conv struct {
	Suite, Name         string
	N, C, H, W, K, R, S int
	Pad, Stride, Dil    int
	Groups              int
}

// P and Q are the output's height and width.
func (c Conv) P() int { return (c.H+2*c.Pad-((c.R-1)*c.Dil+1))/c.Stride + 1 }

// Q is the output's width.
func (c Conv) Q() int { return (c.W+2*c.Pad-((c.S-1)*c.Dil+1))/c.Stride + 1 }

// Table5 is the ISAAC paper's Table 5 (its P and Q are output sizes; stride
// 1, no padding): convolutions of DeepSpeech, OCR, Face Recognition, Vision
// and ResNet.
func Table5() []Conv {
	t := [][7]int{ // N, P, Q, K, C, R, S
		{16, 79, 341, 32, 1, 5, 20}, {16, 38, 166, 32, 32, 5, 10}, {16, 24, 240, 32, 16, 3, 3},
		{16, 12, 120, 64, 32, 3, 3}, {8, 54, 54, 64, 64, 3, 3}, {8, 27, 27, 128, 128, 3, 3},
		{16, 14, 14, 48, 512, 5, 5}, {16, 7, 7, 128, 832, 5, 5}, {8, 112, 112, 128, 64, 3, 3},
		{8, 56, 56, 256, 128, 3, 3}, {16, 128, 39, 174, 64, 5, 5}, {16, 256, 19, 87, 128, 5, 5},
		{16, 7, 7, 512, 512, 3, 3}, {16, 7, 7, 2048, 1024, 1, 1},
	}
	var out []Conv
	for i, v := range t {
		out = append(out, Conv{Suite: "table5", Name: fmt.Sprintf("conv%d", i+1), N: v[0], C: v[4],
			H: v[1] + v[5] - 1, W: v[2] + v[6] - 1, K: v[3], R: v[5], S: v[6], Stride: 1, Dil: 1, Groups: 1})
	}
	return out
}

// CNN are common layers of ResNet-50 and MobileNet at batches 1, 8 and 32:
// the 7×7 stride-2 stem, a 3×3 and the 1×1 reduction and expansion of each
// stage, a strided 3×3, and a depthwise 3×3.
func CNN() []Conv {
	layers := []Conv{
		{Name: "rn50-stem", C: 3, H: 224, W: 224, K: 64, R: 7, S: 7, Pad: 3, Stride: 2},
		{Name: "rn50-s1-3x3", C: 64, H: 56, W: 56, K: 64, R: 3, S: 3, Pad: 1, Stride: 1},
		{Name: "rn50-s1-1x1-reduce", C: 256, H: 56, W: 56, K: 64, R: 1, S: 1, Stride: 1},
		{Name: "rn50-s1-1x1-expand", C: 64, H: 56, W: 56, K: 256, R: 1, S: 1, Stride: 1},
		{Name: "rn50-s2-3x3-stride2", C: 128, H: 56, W: 56, K: 128, R: 3, S: 3, Pad: 1, Stride: 2},
		{Name: "rn50-s2-3x3", C: 128, H: 28, W: 28, K: 128, R: 3, S: 3, Pad: 1, Stride: 1},
		{Name: "rn50-s3-3x3", C: 256, H: 14, W: 14, K: 256, R: 3, S: 3, Pad: 1, Stride: 1},
		{Name: "rn50-s3-1x1-reduce", C: 1024, H: 14, W: 14, K: 256, R: 1, S: 1, Stride: 1},
		{Name: "rn50-s4-3x3", C: 512, H: 7, W: 7, K: 512, R: 3, S: 3, Pad: 1, Stride: 1},
		{Name: "rn50-s4-1x1-expand", C: 512, H: 7, W: 7, K: 2048, R: 1, S: 1, Stride: 1},
		{Name: "mobilenet-dw-3x3", C: 128, H: 56, W: 56, K: 128, R: 3, S: 3, Pad: 1, Stride: 1, Groups: 128},
	}
	var out []Conv
	for _, n := range []int{1, 8, 32} {
		for _, l := range layers {
			l.Suite, l.N, l.Dil = "cnn", n, 1
			if l.Groups == 0 {
				l.Groups = 1
			}
			l.Name = fmt.Sprintf("%s-n%d", l.Name, n)
			out = append(out, l)
		}
	}
	return out
}

// Depthwise are the depthwise layers of MobileNet V1/V2 and EfficientNet at
// batches 1, 8 and 32: 3×3 at stride 1 over 56×56 (also CNN's) and 14×14,
// 3×3 at stride 2, and 5×5.
func Depthwise() []Conv {
	layers := []Conv{
		{Name: "mobilenet-dw-3x3", C: 128, H: 56, W: 56, K: 128, R: 3, S: 3, Pad: 1, Stride: 1},
		{Name: "mobilenet-dw-3x3-14", C: 512, H: 14, W: 14, K: 512, R: 3, S: 3, Pad: 1, Stride: 1},
		{Name: "mobilenetv2-dw-3x3-stride2", C: 144, H: 56, W: 56, K: 144, R: 3, S: 3, Pad: 1, Stride: 2},
		{Name: "efficientnet-dw-5x5", C: 240, H: 28, W: 28, K: 240, R: 5, S: 5, Pad: 2, Stride: 1},
	}
	var out []Conv
	for _, n := range []int{1, 8, 32} {
		for _, l := range layers {
			l.Suite, l.N, l.Dil, l.Groups = "depthwise", n, 1, l.C
			l.Name = fmt.Sprintf("%s-n%d", l.Name, n)
			out = append(out, l)
		}
	}
	return out
}
