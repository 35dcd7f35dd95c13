package report

import (
	"math"

	"github.com/isaacgo/isaac/internal/devbench"
)

// Row is one input measured side by side: the vendor and ISAAC's engine on
// the same buffers, with the roofline time of the device.
type Row struct {
	Suite  string // "linpack", "deepbench-f", "deepbench-b", "ica", "lapack", "attention", "linear", "csv", "table5", "cnn"
	Op     string // "gemm" or "conv"
	Name   string // the input's name where it has one (a convolution's layer)
	DType  string // s, d, h, hgemmex-f32acc, bf16gemmex-f32acc, sgemm-tf32; a convolution's type
	M, N   int    // a convolution: its implicit GEMM, N·P·Q pixels by K channels
	K      int    // a convolution: C·R·S
	Layout string // op(A), op(B): "NN", "NT", "TN", "TT"; a convolution's x and y: "nchw", "nhwc"

	VendorUS   float64 // median time of the vendor, microseconds
	OursUS     float64 // median time of ISAAC's engine (its chosen or forced configuration)
	Speedup    float64 // VendorUS / OursUS
	RooflineUS float64 // max(flops / peak flops, bytes / peak bandwidth)
	Config     string  // the configuration ISAAC ran (ptx.GemmConfig text form)

	Flops float64 // 2·m·n·k
	Bytes float64 // minimum bytes moved: A and B read once, C written (and read when beta ≠ 0)

	// Alt holds extra columns measured in the same run: "always ours with
	// configuration X", and later "the model's choice".
	Alt []Alt
}

// Alt is one extra engine's median time on the row's input.
type Alt struct {
	Name   string // column name, e.g. "config" or "model"
	US     float64
	Config string
}

// tflops is the rate achieved in us microseconds.
func (r Row) tflops(us float64) float64 {
	if us <= 0 {
		return 0
	}
	return r.Flops / us / 1e6
}

// rooflinePercent is how much of the physical limit ISAAC reached (100·roofline/ours).
func (r Row) rooflinePercent(us float64) float64 {
	if us <= 0 {
		return 0
	}
	return 100 * r.RooflineUS / us
}

// Env is the provenance of a run, written next to every result file.
type Env = devbench.Env

// geomean is the geometric mean of the positive values of xs; zero, negative
// and NaN values are ignored (a speed-up of 0 marks a failed measurement).
// It is NaN when no value is positive.
func geomean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if x > 0 {
			sum += math.Log(x)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}

// speedups lists the speed-up of every row.
func speedups(rows []Row) []float64 {
	out := make([]float64, len(rows))
	for i, r := range rows {
		out[i] = r.Speedup
	}
	return out
}

// countAtLeastOne counts the rows where ISAAC is at least as fast as the vendor.
func countAtLeastOne(rows []Row) int {
	n := 0
	for _, r := range rows {
		if r.Speedup >= 1 {
			n++
		}
	}
	return n
}

// altNames lists the distinct Alt names of rows in first-seen order.
func altNames(rows []Row) []string {
	var names []string
	seen := map[string]bool{}
	for _, r := range rows {
		for _, a := range r.Alt {
			if !seen[a.Name] {
				seen[a.Name] = true
				names = append(names, a.Name)
			}
		}
	}
	return names
}

// findAlt is the row's first Alt called name.
func findAlt(r Row, name string) (Alt, bool) {
	for _, a := range r.Alt {
		if a.Name == name {
			return a, true
		}
	}
	return Alt{}, false
}

// vendor is the library the rows compare with: cuDNN for convolutions,
// cuBLASLt for the linear suite (cublasLtMatmul), cuBLAS otherwise.
func vendor(rows []Row) string {
	for _, r := range rows {
		switch {
		case r.Op == "conv":
			return "cuDNN"
		case r.Suite == LinearSuite:
			return "cuBLASLt"
		}
	}
	return "cuBLAS"
}

// vendorVersion is that library's version in env (cuBLASLt's is
// cuBLAS's).
func vendorVersion(rows []Row, env Env) string {
	if vendor(rows) == "cuDNN" {
		return env.CUDNN
	}
	return env.CUBLAS
}
