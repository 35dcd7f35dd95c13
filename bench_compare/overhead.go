package main

import (
	_ "embed"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

//go:embed harness/host_overhead.c
var harnessSource []byte

//go:embed harness/host_overhead_conv.c
var convHarnessSource []byte

//go:embed harness/harness.h
var harnessHeader []byte

// overheadRow is the host time per call of the shim against cuBLAS in one
// process (harness/host_overhead.c), in one mode.
type overheadRow struct {
	Mode                       string // "forwarded" (Go decides, vendor runs), "served", "disabled" (C pass-through)
	Round, N                   int
	VendorNS, ShimNS           float64 // median host ns per call
	AddedMedianNS, AddedMeanNS float64
}

// firstCallRow is the latency of the first call on a new shape, with an
// empty kernel cache (cold: generate and JIT) or a warm disk cache.
type firstCallRow struct {
	Cache             string // "cold" or "warm-disk"
	M, N, K           int
	FirstUS, SecondUS float64
}

// buildHarness compiles the host-overhead harness against libisaac.so and
// cuBLAS with the system C compiler.
func buildHarness(cudaHome, lib string) (string, error) {
	return compileHarness(cudaHome, lib, "host_overhead", harnessSource, "-lcublas")
}

// buildConvHarness compiles the convolution's harness (cuDNN is opened at
// run time: no cuDNN headers or link needed).
func buildConvHarness(cudaHome, lib string) (string, error) {
	return compileHarness(cudaHome, lib, "host_overhead_conv", convHarnessSource)
}

func compileHarness(cudaHome, lib, name string, source []byte, libs ...string) (string, error) {
	dir, err := os.MkdirTemp("", "isaac-harness-")
	if err != nil {
		return "", err
	}
	src := filepath.Join(dir, name+".c")
	if err := os.WriteFile(src, source, 0o644); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "harness.h"), harnessHeader, 0o644); err != nil {
		return "", err
	}
	bin := filepath.Join(dir, name)
	libDir, _ := filepath.Abs(filepath.Dir(lib))
	cudaLib := filepath.Join(cudaHome, "lib64")
	args := []string{"-O2", "-I" + filepath.Join(cudaHome, "include"), "-o", bin, src, "-L" + libDir, "-lisaac", "-L" + cudaLib}
	args = append(append(args, libs...), "-lcudart", "-ldl", "-Wl,-rpath,"+libDir, "-Wl,-rpath,"+cudaLib)
	cmd := exec.Command("cc", args...)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building the harness: %v\n%s", err, out)
	}
	return bin, nil
}

func runHarness(bin string, env []string, args ...string) (string, error) {
	out, _, err := runHarnessLog(bin, env, args...)
	return out, err
}

// runHarnessLog is runHarness that also returns the shim's ISAAC_LOG line
// (where env sets ISAAC_LOG=1).
func runHarnessLog(bin string, env []string, args ...string) (string, string, error) {
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return "", "", fmt.Errorf("%s %v: %v: %s", filepath.Base(bin), args, err, msg)
		}
		return "", "", fmt.Errorf("%s %v: %v", filepath.Base(bin), args, err)
	}
	return string(out), isaacLogRE.FindString(stderr.String()), nil
}

var (
	callsRE    = regexp.MustCompile(`n=(\d+) calls=\d+ vendor_ns=(\S+) shim_ns=(\S+) added_median_ns=(\S+) added_mean_ns=(\S+)`)
	gettersRE  = regexp.MustCompile(`getters .*`)
	isaacLogRE = regexp.MustCompile(`isaac: pid .*`)
	firstRE    = regexp.MustCompile(`m=(\d+) n=(\d+) k=(\d+) first_us=(\S+) second_us=(\S+)`)
)

func atof(s string) float64 { v, _ := strconv.ParseFloat(s, 64); return v }
func atoi(s string) int     { v, _ := strconv.Atoi(s); return v }

// parseCalls reads the harness's "calls" line.
func parseCalls(mode string, round int, out string) (overheadRow, error) {
	m := callsRE.FindStringSubmatch(out)
	if m == nil {
		return overheadRow{}, fmt.Errorf("unexpected harness output %q", out)
	}
	return overheadRow{mode, round, atoi(m[1]), atof(m[2]), atof(m[3]), atof(m[4]), atof(m[5])}, nil
}

// parseFirst reads the harness's "first" line.
func parseFirst(cache, out string) (firstCallRow, error) {
	m := firstRE.FindStringSubmatch(out)
	if m == nil {
		return firstCallRow{}, fmt.Errorf("unexpected harness output %q", out)
	}
	return firstCallRow{cache, atoi(m[1]), atoi(m[2]), atoi(m[3]), atof(m[4]), atof(m[5])}, nil
}

var overheadModes = []struct {
	name string
	env  []string
}{
	{"forwarded", []string{"ISAAC_POLICY=never"}},
	{"auto", nil},
	{"served", []string{"ISAAC_POLICY=always"}},
	{"disabled", []string{"ISAAC_DISABLE=1"}},
}

// convOverheadModes are overheadModes and the convolution dispatch of
// ISAAC_CONV_AUTO=1 (its decision made and checked during the warm-up).
var convOverheadModes = append(overheadModes[:len(overheadModes):len(overheadModes)],
	struct {
		name string
		env  []string
	}{"auto-conv", []string{"ISAAC_CONV_AUTO=1", "ISAAC_LOG=1"}})

// convOverheadShapes are the convolutions -overhead times: N, C, HW, K, R
// (host_overhead_conv's arguments) and the math.
var convOverheadShapes = []struct {
	dims [5]int
	math string
}{
	{[5]int{1, 16, 16, 16, 3}, "fma"}, {[5]int{8, 64, 28, 64, 3}, "fma"}, {[5]int{1, 256, 56, 64, 1}, "fma"},
	{[5]int{8, 64, 28, 64, 3}, "tf32"}, {[5]int{32, 256, 14, 256, 3}, "fma"},
}

// measureOverhead runs the harness: 3 rounds of every mode for SGEMMs of
// 16³ and 64³ (and, with convBin, 2 rounds for each of convOverheadShapes: modes "conv-<mode> <shape> <math>"), then
// first-call latencies cold and with a warm disk cache.
func measureOverhead(bin, convBin string, progress io.Writer) ([]overheadRow, []firstCallRow, error) {
	var rows []overheadRow
	for round := 1; round <= 3; round++ {
		for _, n := range []int{16, 64} {
			for _, mode := range overheadModes {
				out, err := runHarness(bin, mode.env, "calls", strconv.Itoa(n))
				if err != nil {
					return nil, nil, err
				}
				r, err := parseCalls(mode.name, round, out)
				if err != nil {
					return nil, nil, err
				}
				fmt.Fprintf(progress, "overhead round %d %-9s n=%-3d added %+6.0f ns/call (median of batches)\n", round, mode.name, n, r.AddedMedianNS)
				rows = append(rows, r)
			}
		}
	}
	if convBin != "" {
		// Convolutions (FLOAT, NCHW, the algorithm cuDNN's v7 getter
		// picks): a 16-channel 3×3 layer at batch 1, a 64-channel one at
		// batch 8 and ResNet-50's first 1×1 reduction at batch 1 (FMA math:
		// ours on x as it lies); the 64-channel layer with TF32 allowed
		// (ours on NHWC copies: the transposes kernel and the GEMM); and
		// ResNet-50's stage-3 3×3 layer at batch 32 (FMA), which cuDNN runs
		// faster, so that the dispatch forwards it (ISAAC_LOG says which).
		for round := 1; round <= 2; round++ {
			for _, sh := range convOverheadShapes {
				for _, mode := range convOverheadModes {
					args := []string{"calls"}
					for _, v := range sh.dims {
						args = append(args, strconv.Itoa(v))
					}
					args = append(args, sh.math)
					out, log, err := runHarnessLog(convBin, mode.env, args...)
					if err != nil {
						return nil, nil, err
					}
					d := sh.dims
					r, err := parseCalls(fmt.Sprintf("conv-%s %dx%dx%dx%dx%d %s", mode.name, d[0], d[1], d[2], d[3], d[4], sh.math), round, out)
					if err != nil {
						return nil, nil, err
					}
					fmt.Fprintf(progress, "overhead round %d conv-%-9s %v %s added %+6.0f ns/call (median of batches; cuDNN's own %.0f ns)\n", round, mode.name, sh.dims, sh.math, r.AddedMedianNS, r.VendorNS)
					if g := gettersRE.FindString(out); g != "" && mode.name == "forwarded" {
						fmt.Fprintf(progress, "  cuDNN's %s\n", g)
					}
					if log != "" {
						fmt.Fprintf(progress, "  %s\n", log)
					}
					rows = append(rows, r)
				}
			}
		}
	}
	cache, err := os.MkdirTemp("", "isaac-cache-")
	if err != nil {
		return nil, nil, err
	}
	defer os.RemoveAll(cache)
	var first []firstCallRow
	// cuBLAS's own first call on the shape (forwarded: the baseline), the
	// heuristic (always: the kernel compiled in line) and the model (auto:
	// its choice in line; a kernel not on disk is compiled in the
	// background while cuBLAS takes the call), each with a cold disk cache
	// and then with the one the cold runs left.
	for _, kind := range []string{"vendor", "cold", "warm-disk", "auto-cold", "auto-warm-disk"} {
		policy := "ISAAC_POLICY=always"
		if kind == "vendor" {
			policy = "ISAAC_POLICY=never"
		} else if kind == "auto-cold" {
			policy = "ISAAC_POLICY=auto"
			os.RemoveAll(cache)
			if err := os.MkdirAll(cache, 0o755); err != nil {
				return nil, nil, err
			}
		} else if kind == "auto-warm-disk" {
			policy = "ISAAC_POLICY=auto"
		}
		for _, s := range [][3]int{{1024, 1024, 1024}, {333, 77, 4099}, {2560, 16, 2560}} {
			env := []string{policy, "ISAAC_CACHE_DIR=" + cache}
			out, err := runHarness(bin, env, "first", strconv.Itoa(s[0]), strconv.Itoa(s[1]), strconv.Itoa(s[2]))
			if err != nil {
				return nil, nil, err
			}
			r, err := parseFirst(kind, out)
			if err != nil {
				return nil, nil, err
			}
			fmt.Fprintf(progress, "first call %-9s %dx%dx%d: %.0f µs (second %.0f µs)\n", kind, r.M, r.N, r.K, r.FirstUS, r.SecondUS)
			first = append(first, r)
		}
	}
	return rows, first, nil
}

// writeOverheadCSV writes both tables.
func writeOverheadCSV(w io.Writer, rows []overheadRow, first []firstCallRow) error {
	fmt.Fprintln(w, "kind,mode,round,m,n,k,vendor_ns,shim_ns,added_median_ns,added_mean_ns,first_us,second_us")
	for _, r := range rows {
		fmt.Fprintf(w, "per-call,%s,%d,%d,%d,%d,%.0f,%.0f,%.0f,%.0f,,\n", r.Mode, r.Round, r.N, r.N, r.N,
			r.VendorNS, r.ShimNS, r.AddedMedianNS, r.AddedMeanNS)
	}
	for _, r := range first {
		if _, err := fmt.Fprintf(w, "first-call,%s,,%d,%d,%d,,,,,%.1f,%.1f\n", r.Cache, r.M, r.N, r.K, r.FirstUS, r.SecondUS); err != nil {
			return err
		}
	}
	return nil
}
