package cabitest

import (
	"regexp"
	"strconv"
	"testing"
)

// costMode is a cost mode of the program linked -lisaac: its name, the
// line it prints, whose groups are the host nanoseconds per call of each
// kind it times, and the metric each is reported as.
type costMode struct {
	name    string
	re      *regexp.Regexp
	metrics []string
}

var (
	ltCost = costMode{"ltcost", regexp.MustCompile(`ltcost served_class_ns=([0-9.]+) unsupported_ns=([0-9.]+)`),
		[]string{"ns/served-class-call", "ns/unsupported-call"}}
	gemmCost = costMode{"gemmcost", regexp.MustCompile(`gemmcost served_class_ns=([0-9.]+) unsupported_ns=([0-9.]+)`),
		[]string{"ns/served-class-call", "ns/unsupported-call"}}
	// The graph API's second kind is a settled one (x NULL), reported as
	// the unsupported call's metric; its third, 64 settled plans executed
	// in turn, as a network's layers are.
	graphCost = costMode{"graphcost",
		regexp.MustCompile(`graphcost served_class_ns=([0-9.]+) unsupported_ns=([0-9.]+) plans64_ns=([0-9.]+)`),
		[]string{"ns/served-class-call", "ns/unsupported-call", "ns/call-of-64-plans"}}
)

// BenchmarkGemmForward: host nanoseconds per cuBLAS GEMM the shim forwards
// to the fake cuBLAS (no GPU here), for an Sgemm of a served class and an
// int8 GemmEx (a type ISAAC does not serve): passed through
// (ISAAC_DISABLE=1); under the default policy (the int8 call answered by
// the entry point once Go settled it, the Sgemm asked of Go each time, its
// handle read: no driver is not settled); and under ISAAC_POLICY=never
// (both answered by the entry point once settled).
//
//	go test ./internal/cabitest -run '^$' -bench GemmForward -benchtime 1x
func BenchmarkGemmForward(b *testing.B) {
	runCosts(b, gemmCost, []costEnv{
		{"disabled", []string{"ISAAC_DISABLE=1"}}, {"default", nil}, {"never", []string{"ISAAC_POLICY=never"}}})
}

// BenchmarkLtForward: host nanoseconds per cublasLtMatmul call the shim
// forwards to the fake cuBLASLt (no GPU here: a call of a served class goes
// to the vendor for want of a driver), passed through (ISAAC_DISABLE=1),
// under the default policy (cuBLASLt takes every call from C, unread), and
// with ISAAC_LT_AUTO=1 (every call's descriptors read through the getters;
// the unsupported call answered by the entry point once Go settled it, the
// served class's asked of Go each time: no driver is not settled). The
// fake's getters and matmul cost what cuBLASLt's cost to reach, not what
// they compute.
//
//	go test ./internal/cabitest -run '^$' -bench LtForward -benchtime 1x
func BenchmarkLtForward(b *testing.B) {
	runCosts(b, ltCost, []costEnv{
		{"disabled", []string{"ISAAC_DISABLE=1"}}, {"default", nil}, {"lt_auto", []string{"ISAAC_LT_AUTO=1"}}})
}

// BenchmarkGraphForward: host nanoseconds per convolution through cuDNN's
// graph API as PyTorch makes one (a variant pack made, its three
// attributes set, the plan executed, the pack destroyed: the shim's
// cudnnBackendSetAttribute, cudnnBackendExecute and
// cudnnBackendDestroyDescriptor, the fake cuDNN's create), for a plan of a
// served class (no driver here: asked of Go on every call) and the same
// plan on x NULL (settled: answered by the entry point), and 64 such plans
// executed in turn, as a network's layers are (each lookup among many
// plans kept); passed through
// (ISAAC_DISABLE=1: the shim still keeps the variant packs' attributes),
// under the default policy, and under
// ISAAC_POLICY=never (every execution answered in C).
//
//	go test ./internal/cabitest -run '^$' -bench GraphForward -benchtime 1x
func BenchmarkGraphForward(b *testing.B) {
	runCosts(b, graphCost, []costEnv{
		{"disabled", []string{"ISAAC_DISABLE=1"}}, {"default", nil}, {"never", []string{"ISAAC_POLICY=never"}}})
}

// costEnv is one environment a cost mode runs under, by name.
type costEnv struct {
	name string
	env  []string
}

// runCosts reports, as a sub-benchmark per environment, the program linked
// -lisaac's cost mode (reportCost).
func runCosts(b *testing.B, mode costMode, envs []costEnv) {
	e := setup(b)
	for _, c := range envs {
		b.Run(c.name, func(b *testing.B) { reportCost(b, e, c.env, "abi_linked", mode) })
	}
}

// reportCost runs prog's cost mode (200,000 calls of each kind) b.N times
// with env and reports the mean host nanoseconds per call of each kind
// that the mode's line gives.
func reportCost(b *testing.B, e *env, env []string, prog string, mode costMode) {
	sums := make([]float64, len(mode.metrics))
	for i := 0; i < b.N; i++ {
		r := e.exec(b, env, prog, mode.name, "200000")
		m := mode.re.FindStringSubmatch(r.stdout)
		if r.err != nil || m == nil {
			b.Fatalf("%v\n%s", r.err, r)
		}
		for j := range sums {
			v, _ := strconv.ParseFloat(m[j+1], 64)
			sums[j] += v
		}
	}
	for j, name := range mode.metrics {
		b.ReportMetric(sums[j]/float64(b.N), name)
	}
}
