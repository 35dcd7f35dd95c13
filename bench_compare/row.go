package main

import "github.com/isaacgo/isaac/internal/devbench"

// Row is one input measured side by side: the vendor and ISAAC's engine on
// the same buffers, with the roofline time of the device.
type Row struct {
	Suite  string // "linpack", "deepbench-f", "deepbench-b", "ica", "lapack", "csv"
	Op     string // "gemm" (later "conv")
	DType  string // s, d, h, hgemmex-f32acc, bf16gemmex-f32acc, sgemm-tf32
	M, N   int
	K      int
	Layout string // op(A), op(B): "NN", "NT", "TN", "TT"

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

// TFLOPs is the rate achieved in us microseconds.
func (r Row) TFLOPs(us float64) float64 {
	if us <= 0 {
		return 0
	}
	return r.Flops / us / 1e6
}

// RooflinePercent is how much of the physical limit ISAAC reached (100·roofline/ours).
func (r Row) RooflinePercent(us float64) float64 {
	if us <= 0 {
		return 0
	}
	return 100 * r.RooflineUS / us
}

// Env is the provenance of a run, written next to every result file.
type Env = devbench.Env

// altConfig is the configuration of the extra column name, or "".
func (r Row) altConfig(name string) string {
	for _, a := range r.Alt {
		if a.Name == name {
			return a.Config
		}
	}
	return ""
}
