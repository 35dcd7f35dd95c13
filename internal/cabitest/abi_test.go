package cabitest

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

var entryPoints = append([]string{
	"cublasSgemm_v2", "cublasDgemm_v2", "cublasHgemm", "cublasGemmEx",
	"cublasSgemm_v2_64", "cublasDgemm_v2_64", "cublasHgemm_64", "cublasGemmEx_64",
	"cudnnConvolutionForward", "cublasLtMatmul",
	"cudnnBackendExecute", "cudnnBackendSetAttribute", "cudnnBackendDestroyDescriptor",
}, batchedEntryPoints...)

// batchedEntryPoints are the strided-batched GEMMs, forwarded for now.
var batchedEntryPoints = []string{
	"cublasSgemmStridedBatched", "cublasDgemmStridedBatched", "cublasHgemmStridedBatched",
	"cublasGemmStridedBatchedEx", "cublasSgemmStridedBatched_64", "cublasDgemmStridedBatched_64",
	"cublasHgemmStridedBatched_64", "cublasGemmStridedBatchedEx_64",
}

// TestSymbols checks the dynamic symbol table: every entry point is a
// defined function, no legacy handle-less name is exported, and no other
// vendor name leaks.
func TestSymbols(t *testing.T) {
	e := setup(t)
	nm, err := exec.LookPath("nm")
	if err != nil {
		t.Skip("nm not found")
	}
	out, err := exec.Command(nm, "-D", "--defined-only", e.lib).CombinedOutput()
	if err != nil {
		t.Fatalf("nm: %v\n%s", err, out)
	}
	defined := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			defined[f[2]] = f[1]
		}
	}
	for _, s := range entryPoints {
		if defined[s] != "T" {
			t.Errorf("%s: symbol type %q, want a defined function (T)", s, defined[s])
		}
	}
	for _, legacy := range []string{"cublasSgemm", "cublasDgemm", "cublasInit", "cublasGetError"} {
		if _, ok := defined[legacy]; ok {
			t.Errorf("%s is exported: it would shadow the legacy cuBLAS API", legacy)
		}
	}
	for s := range defined {
		if (strings.HasPrefix(s, "cublas") || strings.HasPrefix(s, "cudnn")) && !contains(entryPoints, s) {
			t.Errorf("unexpected vendor symbol exported: %s", s)
		}
		if strings.HasPrefix(s, "isaac_") && !contains(goExports, s) && !contains(controls, s) {
			t.Errorf("internal symbol exported: %s", s)
		}
	}
}

// controls are the shim's own functions a program may call (shim.h).
var controls = []string{"isaac_passthrough"}

// goExports are the Go side's functions (exports.go): cgo exports them.
var goExports = []string{"isaac_go_gemm", "isaac_go_gemm_after", "isaac_go_conv", "isaac_go_conv_after",
	"isaac_go_lt", "isaac_go_lt_after", "isaac_go_graph_plan", "isaac_go_exit"}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// TestPrototypes compiles the shim's entry points against the vendor's
// declarations: any prototype that differs is a "conflicting types" error.
// A deliberately wrong definition shows that the check can fail.
func TestPrototypes(t *testing.T) {
	e := setup(t)
	for _, src := range []string{"cublas_entry.c", "cudnn_entry.c", "cudnn_graph_entry.c", "graph_plans.c",
		"handle_state.c", "lt_entry.c", "lt_state.c"} {
		out, err := run(e.shimDir, "gcc", "-fsyntax-only", "-Wall", "-Werror",
			`-DISAAC_VENDOR_HEADERS="vendor_api.h"`, "-I"+e.testdata, "-I"+e.shimDir, src)
		if err != nil {
			t.Errorf("%s does not match the vendor prototypes: %v\n%s", src, err, out)
		}
	}
	// C++: two extern "C" declarations of one function with different
	// parameters are an error, which checks cublasHgemm's __half too.
	cxx := filepath.Join(t.TempDir(), "prototypes.cc")
	writeFile(t, cxx, "extern \"C\" {\n#include \"vendor_api.h\"\n#include \"entry_points.h\"\n}\n")
	if out, err := run(e.shimDir, "g++", "-fsyntax-only", "-Wall", "-Werror",
		`-DISAAC_VENDOR_HEADERS="vendor_api.h"`, "-I"+e.testdata, "-I"+e.shimDir, cxx); err != nil {
		t.Errorf("entry_points.h does not match the vendor prototypes in C++: %v\n%s", err, out)
	}
	badCxx := filepath.Join(t.TempDir(), "bad.cc")
	writeFile(t, badCxx, "extern \"C\" {\n#include \"vendor_api.h\"\n"+
		"cublasStatus_t cublasHgemm(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int, int,"+
		" const float *, const __half *, int, const __half *, int, const __half *, __half *, int);\n}\n")
	if out, err := run(e.shimDir, "g++", "-fsyntax-only", "-I"+e.testdata, badCxx); err == nil {
		t.Errorf("a wrong C++ declaration compiled: the C++ check cannot fail\n%s", out)
	}
	wrong := filepath.Join(t.TempDir(), "wrong.c")
	writeFile(t, wrong, `#include "vendor_api.h"
cublasStatus_t cublasSgemm_v2(cublasHandle_t h, cublasOperation_t ta, cublasOperation_t tb,
	long m, int n, int k, const float *alpha, const float *A, int lda, const float *B, int ldb,
	const float *beta, float *C, int ldc) { return 0; }
`)
	if out, err := run(e.dir, "gcc", "-fsyntax-only", "-I"+e.testdata, wrong); err == nil ||
		!strings.Contains(out, "conflicting types") {
		t.Errorf("a wrong prototype compiled (%v): the check cannot fail\n%s", err, out)
	}
	// cuBLASLt's declarations in vendor_api.h are checked as strictly: a
	// workspace size of int instead of size_t conflicts.
	wrongLt := filepath.Join(t.TempDir(), "wrong_lt.c")
	writeFile(t, wrongLt, `#include "vendor_api.h"
cublasStatus_t cublasLtMatmul(cublasLtHandle_t h, cublasLtMatmulDesc_t d, const void *alpha,
	const void *A, cublasLtMatrixLayout_t Ad, const void *B, cublasLtMatrixLayout_t Bd,
	const void *beta, const void *C, cublasLtMatrixLayout_t Cd, void *D, cublasLtMatrixLayout_t Dd,
	const cublasLtMatmulAlgo_t *algo, void *ws, int wsBytes, cudaStream_t s) { return 0; }
`)
	if out, err := run(e.dir, "gcc", "-fsyntax-only", "-I"+e.testdata, wrongLt); err == nil ||
		!strings.Contains(out, "conflicting types") {
		t.Errorf("a wrong cublasLtMatmul compiled (%v): the check cannot fail\n%s", err, out)
	}
}

var logRE = regexp.MustCompile(`calls (\d+) \(([^)]*)\); served (\d+); forwarded (\d+) \(([^)]*)\)`)

// parseLog returns total calls, per-entry calls, served, forwarded and the
// per-reason counts of an ISAAC_LOG line.
func parseLog(t *testing.T, line string) (calls map[string]string, served, forwarded string, reasons map[string]string) {
	t.Helper()
	m := logRE.FindStringSubmatch(line)
	if m == nil {
		t.Fatalf("no ISAAC_LOG counters in %q", line)
	}
	kv := func(s string) map[string]string {
		out := map[string]string{}
		for _, f := range strings.Fields(s) {
			if k, v, ok := strings.Cut(f, "="); ok {
				out[k] = v
			}
		}
		return out
	}
	calls = kv(m[2])
	calls["total"] = m[1]
	return calls, m[3], m[4], kv(m[5])
}

// ltGettersPerCall is the cuBLASLt getter calls with which the entry point
// reads a cublasLtMatmul's descriptors (shim/lt_state.c): 13 required and
// 9 optional attributes of the matmul descriptor, 8 required and 1 optional
// of each of the four layouts.
const ltGettersPerCall = 13 + 9 + 4*(8+1)

// TestForwarding: every call reaches the vendor with identical arguments and
// the vendor's status comes back; the Go side read the handle through the
// vendor's getters; ISAAC_LOG counts it all.
func TestForwarding(t *testing.T) {
	e := setup(t)
	// Under ISAAC_POLICY=never Go decides from the arguments alone and
	// reads no handle state; under the default (auto) and always it reads
	// the state (the NULL handle then fails a getter: "handle") and asks the
	// engine, which finds no CUDA driver here.
	for _, c := range []struct {
		policy, status, served, handle, conv string
		read                                 bool
	}{
		{"never", "0", "policy", "policy", "policy", false}, {"", "13", "no_driver", "handle", "no_driver", true},
		{"always", "13", "no_driver", "handle", "no_driver", true},
	} {
		status := c.status
		r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_LT_AUTO=1", "ISAAC_POLICY=" + c.policy}, "abi_linked", "calls", status)
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("status %s: %v\n%s", status, r.err, r)
		}
		// Under never nothing is read: the GEMMs are decided from their
		// arguments, the convolution by the policy before it is decoded.
		// Otherwise the GEMMs read their handle (4 cuBLAS getters each).
		if read := !r.printed("getters", "0"); read != c.read {
			t.Errorf("policy %q: cuBLAS handle state read = %v\n%s", c.policy, read, r)
		}
		// cublasLtMatmul's descriptors are read by the entry point, before
		// Go: the two calls with descriptors; under never only the first
		// (Go then has the entry point forward every later one unread).
		ltRead := 2
		if c.policy == "never" {
			ltRead = 1
		}
		if !r.printed("lt_getters", strconv.Itoa(ltRead*ltGettersPerCall)) {
			t.Errorf("policy %q: want lt_getters=%d\n%s", c.policy, ltRead*ltGettersPerCall, r)
		}
		calls, served, forwarded, reasons := parseLog(t, r.logLine(false))
		if calls["total"] != "22" || calls["cublasSgemm_v2"] != "3" || calls["cudnnConvolutionForward"] != "1" ||
			calls["cublasLtMatmul"] != "3" {
			t.Errorf("calls %v, want 22 (3 Sgemm, 3 cublasLtMatmul)", calls)
		}
		for _, s := range batchedEntryPoints {
			if calls[s] != "1" {
				t.Errorf("calls %v, want one %s", calls, s)
			}
		}
		if served != "0" || forwarded != "22" {
			t.Errorf("served %s forwarded %s, want 0 and 22", served, forwarded)
		}
		// The 15 calls of served classes (two of them batches of one
		// matrix, four batches of several, two cublasLtMatmul) go to the
		// vendor by the policy (never), or for want of a CUDA driver here;
		// the convolution (a served one) by the policy (never) or for want
		// of a driver (auto asks the device's rule, always serves). A batch with
		// a negative stride is not served, and a batch of none is empty.
		// The cublasLtMatmul with a NULL matmul descriptor goes to
		// cuBLASLt unread (handle; policy under never, whose first
		// cublasLtMatmul had the entry point forward the later ones).
		want := map[string]int{"invalid": 1, "too_large": 1, "unsupported": 1, "empty": 1}
		want[c.served] += 15
		want[c.handle]++
		want[c.conv]++
		want[c.handle]++
		for k, v := range want {
			if reasons[k] != strconv.Itoa(v) {
				t.Errorf("reason %s = %q, want %d (all: %v)", k, reasons[k], v, reasons)
			}
		}
		if !strings.Contains(r.logLine(false), "cuBLAS: ") || !strings.Contains(r.logLine(false), "libcublas.so.13") {
			t.Errorf("log line does not name the vendor library: %s", r.logLine(false))
		}
		if !strings.Contains(r.logLine(false), "cuBLASLt: ") || !strings.Contains(r.logLine(false), "libcublasLt.so.13") {
			t.Errorf("log line does not name the cuBLASLt library: %s", r.logLine(false))
		}
	}
}

// TestInvalidForwarded: under every policy, a call of a served class with
// an argument cuBLAS rejects (an unknown algorithm, a NULL alpha or beta, a
// negative batch count; for cublasLtMatmul a NULL alpha, a bias epilogue
// without a bias) goes to the vendor decided from its arguments (and
// cuBLASLt's descriptors) alone (reason invalid), never to the engine, so
// that the application gets cuBLAS's status.
func TestInvalidForwarded(t *testing.T) {
	e := setup(t)
	for _, policy := range []string{"", "always", "never"} {
		r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_LT_AUTO=1", "ISAAC_POLICY=" + policy}, "abi_linked", "invalid")
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("policy %q: %v\n%s", policy, r.err, r)
		}
		if !r.printed("getters", "0") {
			t.Errorf("policy %q: the handle was read for a call cuBLAS rejects\n%s", policy, r)
		}
		// Under never the two cublasLtMatmul calls go to cuBLASLt by the
		// policy, which serves none (decided before their descriptors).
		want := map[string]string{"invalid": "8"}
		if policy == "never" {
			want = map[string]string{"invalid": "6", "policy": "2"}
		}
		calls, _, forwarded, reasons := parseLog(t, r.logLine(false))
		if forwarded != "8" || len(reasons) != len(want) || calls["cublasLtMatmul"] != "2" {
			t.Errorf("policy %q: forwarded %s, reasons %v, calls %v: want %v, 2 cublasLtMatmul",
				policy, forwarded, reasons, calls, want)
		}
		for k, v := range want {
			if reasons[k] != v {
				t.Errorf("policy %q: reason %s = %q, want %s", policy, k, reasons[k], v)
			}
		}
	}
}

// TestGemmsRemembered: a GEMM whose answer Go gave from its arguments alone
// and for good (a type ISAAC does not serve; under ISAAC_POLICY=never any
// GEMM) is answered by the entry point for calls with other matrices of the
// same alignments, no getter called; a less aligned A is another key, which
// Go answers. Under the default policy a served class's GEMM, which finds no
// CUDA driver here (not settled), asks Go each time, which reads the
// handle's four getters. Each call reaches cuBLAS with its own arguments.
func TestGemmsRemembered(t *testing.T) {
	e := setup(t)
	for _, c := range []struct {
		env     []string
		getters string // per call: the four GemmEx, the three Sgemm
		settled string
		reasons map[string]string
	}{
		{nil, "0 0 0 0 4 4 4", "2", map[string]string{"unsupported": "4", "no_driver": "3"}},
		{[]string{"ISAAC_POLICY=never"}, "0 0 0 0 0 0 0", "4", map[string]string{"unsupported": "4", "policy": "3"}},
	} {
		r := e.exec(t, append([]string{"ISAAC_LOG=1"}, c.env...), "abi_linked", "gemmsettled")
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("%v: %v\n%s", c.env, r.err, r)
		}
		if got := r.gettersPerCall("gemm"); got != c.getters {
			t.Errorf("%v: getters per call %q, want %q\n%s", c.env, got, c.getters, r)
		}
		if !strings.Contains(r.logLine(false), "; forwarded by the entry point as settled "+c.settled+";") {
			t.Errorf("%v: want %s calls answered by the entry point: %s", c.env, c.settled, r.logLine(false))
		}
		checkReasons(t, fmt.Sprint(c.env), r, c.reasons)
	}
}

// gettersPerCall is what the program printed as "<prefix>N getters=G"
// lines: each call's getters, in order, space-separated.
func (r result) gettersPerCall(prefix string) string {
	var got []string
	for _, l := range strings.Split(r.stdout, "\n") {
		if strings.HasPrefix(l, prefix) && strings.Contains(l, " getters=") {
			got = append(got, l[strings.Index(l, "=")+1:])
		}
	}
	return strings.Join(got, " ")
}

// checkReasons checks that the ISAAC_LOG line of r counts exactly the
// forward reasons want.
func checkReasons(t *testing.T, name string, r result, want map[string]string) {
	t.Helper()
	_, _, _, reasons := parseLog(t, r.logLine(false))
	if len(reasons) != len(want) {
		t.Errorf("%s: reasons %v, want %v", name, reasons, want)
	}
	for k, v := range want {
		if reasons[k] != v {
			t.Errorf("%s: reason %s = %q, want %s (all: %v)", name, k, reasons[k], v, reasons)
		}
	}
}

// TestConvsRemembered: a convolution whose answer is settled (here one
// cuDNN rejects: x is NULL) is answered by the entry point from then on
// with the same reason, its descriptors read once a call (not the
// handle's stream), not again by Go; under a policy that serves no
// convolution nothing is read at all.
// Each call reaches cuDNN with its own arguments.
func TestConvsRemembered(t *testing.T) {
	e := setup(t)
	for _, c := range []struct {
		env     []string
		getters string // per call
		reasons map[string]string
	}{
		// The first call: Go reads the stream and the six descriptor
		// getters; then the entry point reads the descriptors (six), and
		// Go only the stream where it is asked.
		{[]string{"ISAAC_POLICY=always"}, "7 6 7", map[string]string{"invalid": "2", "no_driver": "1"}},
		{[]string{"ISAAC_CONV_AUTO=1"}, "7 6 7", map[string]string{"invalid": "2", "no_driver": "1"}},
		{[]string{"ISAAC_POLICY=never"}, "0 0 0", map[string]string{"policy": "3"}},
		{[]string{"ISAAC_CONV_AUTO=0"}, "0 0 0", map[string]string{"policy": "3"}},
		// auto without ISAAC_CONV_AUTO: decoded, for the device's rule
		// (serve.convDispatchMeasured), which needs the driver.
		{nil, "7 6 7", map[string]string{"invalid": "2", "no_driver": "1"}},
	} {
		r := e.exec(t, append([]string{"ISAAC_LOG=1"}, c.env...), "abi_linked", "convs")
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("%v: %v\n%s", c.env, r.err, r)
		}
		if got := r.gettersPerCall("conv"); got != c.getters {
			t.Errorf("%v: getters per call %q, want %q\n%s", c.env, got, c.getters, r)
		}
		// The second call, remembered from the first, is the entry
		// point's own (ISAAC_LOG counts it).
		settled := strings.Contains(r.logLine(false), "; forwarded by the entry point as settled 1;")
		if wantSettled := c.reasons["invalid"] == "2"; settled != wantSettled {
			t.Errorf("%v: answered by the entry point: %v, want %v\n%s", c.env, settled, wantSettled, r.logLine(false))
		}
		checkReasons(t, fmt.Sprint(c.env), r, c.reasons)
	}
}

// TestGraphExecute: cuDNN's graph API through the shim, in the program
// linked -lisaac and in the one it is preloaded into. Every
// cudnnBackendExecute, cudnnBackendSetAttribute and
// cudnnBackendDestroyDescriptor reaches cuDNN with its own arguments and
// returns cuDNN's status; a plan's JSON is read on its first execution
// only, and again once its descriptor is destroyed and another made; an
// execution on a variant pack the shim did not see set goes to cuDNN
// (unsupported); a call cuDNN rejects (x NULL) is remembered and the next
// like it answered by the entry point; under a policy that serves no
// convolution only the first plan is read.
func TestGraphExecute(t *testing.T) {
	e := setup(t)
	for _, c := range []struct {
		prog    string
		env     []string
		reads   []string
		reasons map[string]string
	}{
		// No driver here: a plan decoded to a convolution the kernels
		// compute is forwarded for want of it.
		{"abi_linked", []string{"ISAAC_POLICY=always"}, []string{"1", "0", "0", "0", "1"},
			map[string]string{"no_driver": "4", "unsupported": "1", "invalid": "3"}},
		{"abi_vendor_only", []string{"ISAAC_POLICY=always"}, []string{"1", "0", "0", "0", "1"},
			map[string]string{"no_driver": "4", "unsupported": "1", "invalid": "3"}},
		{"abi_linked", []string{"ISAAC_POLICY=never"}, []string{"1", "0", "0", "0", "0"},
			map[string]string{"policy": "8"}},
		{"abi_linked", []string{"ISAAC_DISABLE=1"}, []string{"0", "0", "0", "0", "0"},
			map[string]string{"disabled": "8"}},
	} {
		env := append([]string{"ISAAC_LOG=1"}, c.env...)
		if c.prog == "abi_vendor_only" {
			env = append(env, "LD_PRELOAD="+e.lib)
		}
		r := e.exec(t, env, c.prog, "graph")
		name := fmt.Sprint(c.prog, c.env)
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("%s: %v\n%s", name, r.err, r)
		}
		for i, want := range c.reads {
			if !r.printed("graph"+strconv.Itoa(i)+" reads", want) {
				t.Errorf("%s: execution %d: want %s reads of the plan\n%s", name, i, want, r)
			}
		}
		calls, _, _, _ := parseLog(t, r.logLine(false))
		if calls["cudnnBackendExecute"] != "8" {
			t.Errorf("%s: ISAAC_LOG calls %v, want cudnnBackendExecute=8", name, calls)
		}
		settled := strings.Contains(r.logLine(false), "; forwarded by the entry point as settled 1;")
		if want := c.reasons["invalid"] == "3"; settled != want {
			t.Errorf("%s: answered by the entry point: %v, want %v\n%s", name, settled, want, r.logLine(false))
		}
		checkReasons(t, name, r, c.reasons)
	}
}

// TestPassthroughSwitch: isaac_passthrough(1) makes the shim a pure
// pass-through from the next call (no Go, no getters, reason disabled) and
// isaac_passthrough(0) undoes it, each returning the setting before, in
// the program linked -lisaac and in the one the shim is preloaded into.
func TestPassthroughSwitch(t *testing.T) {
	e := setup(t)
	for _, c := range []struct {
		prog string
		env  []string
	}{{"abi_linked", nil}, {"abi_vendor_only", []string{"LD_PRELOAD=" + e.lib}}} {
		prog := c.prog
		r := e.exec(t, append([]string{"ISAAC_LOG=1"}, c.env...), prog, "passthrough")
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("%s: %v\n%s", prog, r.err, r)
		}
		for i, want := range []string{"4", "0", "4"} {
			if !r.printed("pass"+strconv.Itoa(i)+" getters", want) {
				t.Errorf("%s: call %d: want %s getters\n%s", prog, i, want, r)
			}
		}
		if _, _, _, reasons := parseLog(t, r.logLine(false)); reasons["disabled"] != "1" || reasons["no_driver"] != "2" {
			t.Errorf("%s: reasons %v, want disabled 1 and no_driver 2", prog, reasons)
		}
	}
}

// TestDisable: ISAAC_DISABLE=1 is a pure pass-through: no Go, no getters.
func TestDisable(t *testing.T) {
	e := setup(t)
	r := e.exec(t, []string{"ISAAC_DISABLE=1", "ISAAC_LOG=1"}, "abi_linked", "calls", "3")
	if r.err != nil || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	if !r.printed("getters", "0") || !r.printed("lt_getters", "0") {
		t.Errorf("with ISAAC_DISABLE=1 the vendor's getters were called\n%s", r)
	}
	calls, _, forwarded, reasons := parseLog(t, r.logLine(false))
	if forwarded != "22" || reasons["disabled"] != "22" || calls["cublasLtMatmul"] != "3" {
		t.Errorf("forwarded %s, reasons %v, calls %v: want 22 disabled, 3 cublasLtMatmul", forwarded, reasons, calls)
	}
}

// TestForkGuard: in a forked child every call goes straight to the vendor,
// without the Go runtime, and nothing hangs.
func TestForkGuard(t *testing.T) {
	e := setup(t)
	r := e.exec(t, []string{"ISAAC_LOG=1"}, "abi_linked", "fork")
	if r.err != nil || !strings.Contains(r.stdout, "child ok") || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	calls, _, forwarded, reasons := parseLog(t, r.logLine(true))
	if forwarded != "22" || reasons["fork"] != "22" || calls["cublasLtMatmul"] != "3" {
		t.Errorf("child: forwarded %s, reasons %v, calls %v; want 22 by fork, 3 cublasLtMatmul",
			forwarded, reasons, calls)
	}
	_, _, _, parent := parseLog(t, r.logLine(false))
	if parent["fork"] != "" {
		t.Errorf("the parent counted fork forwards: %v", parent)
	}
}

// TestPreload: a program linked only to the vendor, with the shim preloaded.
func TestPreload(t *testing.T) {
	e := setup(t)
	r := e.exec(t, []string{"LD_PRELOAD=" + e.lib, "ISAAC_LOG=1"}, "abi_vendor_only", "calls", "11")
	if r.err != nil || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	calls, _, _, _ := parseLog(t, r.logLine(false))
	if calls["total"] != "22" || calls["cublasLtMatmul"] != "3" {
		t.Errorf("preloaded shim intercepted %v, want 22 calls (3 cublasLtMatmul)", calls)
	}
	if !strings.Contains(r.logLine(false), "libcublasLt.so.13 (next in search order)") {
		t.Errorf("cuBLASLt not found next in the search order: %s", r.logLine(false))
	}
}

// TestLocalScope: the vendor loaded with RTLD_LOCAL, where dlsym(RTLD_NEXT)
// cannot see it (PyTorch's case): the shim finds the loaded library.
func TestLocalScope(t *testing.T) {
	e := setup(t)
	r := e.exec(t, []string{"ISAAC_LOG=1"}, "abi_shim_only", "local")
	if r.err != nil || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	for _, lib := range []string{"libcublas.so.13", "libcublasLt.so.13"} {
		if !strings.Contains(r.logLine(false), lib+" (already loaded)") {
			t.Errorf("%s not found among the loaded libraries: %s", lib, r.logLine(false))
		}
	}
	calls, _, _, _ := parseLog(t, r.logLine(false))
	if calls["cublasLtMatmul"] != "3" {
		t.Errorf("calls %v, want 3 cublasLtMatmul", calls)
	}
}

// TestThreads: 8 threads calling at once through Go.
func TestThreads(t *testing.T) {
	e := setup(t)
	r := e.exec(t, []string{"ISAAC_LOG=1"}, "abi_linked", "threads")
	if r.err != nil || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	calls, _, _, _ := parseLog(t, r.logLine(false))
	if calls["total"] != "16000" {
		t.Errorf("calls %s, want 16000", calls["total"])
	}
}

// TestGraphThreads: 8 threads executing graph-API convolutions at once,
// half of them freeing and remaking their plans as they go: every call
// returns cuDNN's status and is counted, each new plan decoded.
func TestGraphThreads(t *testing.T) {
	e := setup(t)
	r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_POLICY=always"}, "abi_linked", "graphthreads")
	if r.err != nil || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	calls, _, _, reasons := parseLog(t, r.logLine(false))
	if calls["cudnnBackendExecute"] != "16000" || reasons["no_driver"] != "16000" {
		t.Errorf("calls %v, reasons %v: want 16000 executions, each decoded to a convolution (no driver here)", calls, reasons)
	}
}

// TestNoVendor: with no vendor library anywhere, one clear line on stderr
// and the vendors' NOT_INITIALIZED statuses.
func TestNoVendor(t *testing.T) {
	e := setup(t)
	empty := t.TempDir()
	r := e.exec(t, []string{"LD_LIBRARY_PATH=" + empty}, "abi_shim_only", "novendor")
	if r.err != nil || !strings.Contains(r.stdout, "PASS novendor") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	for _, want := range []string{"isaac: cuBLAS not found", "isaac: cuBLASLt not found", "isaac: cuDNN not found"} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("want exactly one %q line on stderr\n%s", want, r)
		}
	}
}

// TestLtMatmul: cublasLtMatmul calls of each kind the shim tells apart,
// under every policy. Each reaches the fake cuBLASLt with its 16 arguments
// identical and returns its status; the entry point reads the descriptors
// through cuBLASLt's getters (all of them, up to the first required
// attribute refused, none where a descriptor is NULL); ISAAC_LOG counts
// each call's reason: served classes (column-major in place, row-major with
// ReLU and D apart from C, and one whose library refuses the optional
// attributes, which count as unset) by the policy or for want of a driver;
// a scale pointer and a gradient epilogue unsupported; a required attribute
// refused (of the matmul descriptor or of a layout) and a NULL layout
// handle; layouts that contradict the operation invalid.
func TestLtMatmul(t *testing.T) {
	e := setup(t)
	n := strconv.Itoa(ltGettersPerCall)
	wantGetters := strings.Join([]string{n, n, n, n, "13", strconv.Itoa(13 + 9 + 8), "0", n, n}, " ")
	firstOnly := strings.Join([]string{n, "0", "0", "0", "0", "0", "0", "0", "0"}, " ")
	for _, c := range []struct {
		policy, ltAuto, served string
	}{
		{"", "1", "no_driver"}, {"always", "", "no_driver"},
		// Policies that serve no cublasLtMatmul: the first call is read
		// and handed to Go, which has the entry point forward the later
		// ones unread.
		{"never", "", "policy"}, {"", "", "policy"},
	} {
		r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_LT_AUTO=" + c.ltAuto, "ISAAC_POLICY=" + c.policy}, "abi_linked", "lt")
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("policy %q: %v\n%s", c.policy, r.err, r)
		}
		var got []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "lt") && strings.Contains(l, " getters=") {
				got = append(got, l[strings.Index(l, "=")+1:])
			}
		}
		wantGot := wantGetters
		if c.served == "policy" {
			wantGot = firstOnly
		}
		if strings.Join(got, " ") != wantGot {
			t.Errorf("policy %q: cuBLASLt getters per call %q, want %q\n%s", c.policy, got, wantGot, r)
		}
		calls, served, forwarded, reasons := parseLog(t, r.logLine(false))
		if calls["total"] != "9" || calls["cublasLtMatmul"] != "9" || served != "0" || forwarded != "9" {
			t.Errorf("policy %q: calls %v, served %s, forwarded %s: want 9 cublasLtMatmul forwarded",
				c.policy, calls, served, forwarded)
		}
		want := map[string]string{c.served: "3", "unsupported": "2", "handle": "3", "invalid": "1"}
		if c.served == "policy" {
			want = map[string]string{"policy": "9"}
		}
		if len(reasons) != len(want) {
			t.Errorf("policy %q: reasons %v, want %v", c.policy, reasons, want)
		}
		for k, v := range want {
			if reasons[k] != v {
				t.Errorf("policy %q: reason %s = %q, want %s (all: %v)", c.policy, k, reasons[k], v, reasons)
			}
		}
	}
	// A NULL cuBLASLt handle: the call reaches cuBLASLt unread (handle),
	// and cuBLASLt's NOT_INITIALIZED comes back.
	r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_LT_AUTO=1"}, "abi_linked", "lt", "nullhandle")
	if r.err != nil || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("NULL handle: %v\n%s", r.err, r)
	}
	_, _, forwarded, reasons := parseLog(t, r.logLine(false))
	if forwarded != "1" || reasons["handle"] != "1" {
		t.Errorf("NULL handle: forwarded %s, reasons %v: want 1, handle", forwarded, reasons)
	}
}

// TestLtRemembered: a cublasLtMatmul whose answer is settled (here one
// ISAAC never serves: an FP8 scale pointer) is answered by the entry point
// from then on — its descriptors read for the key, Go not asked — for calls
// with other matrices of the same alignments; a less aligned A is another
// key, which Go answers. Each call reaches cuBLASLt with its own arguments.
func TestLtRemembered(t *testing.T) {
	e := setup(t)
	r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_LT_AUTO=1"}, "abi_linked", "ltsettled")
	if r.err != nil || !strings.Contains(r.stdout, "PASS") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	for i := 0; i < 4; i++ {
		if !r.printed("settled"+strconv.Itoa(i)+" getters", strconv.Itoa(ltGettersPerCall)) {
			t.Errorf("call %d: want %d getters (the key's)\n%s", i, ltGettersPerCall, r)
		}
	}
	_, _, forwarded, reasons := parseLog(t, r.logLine(false))
	if forwarded != "4" || reasons["unsupported"] != "4" || len(reasons) != 1 {
		t.Errorf("forwarded %s, reasons %v: want 4 unsupported", forwarded, reasons)
	}
	if !strings.Contains(r.logLine(false), "forwarded by the entry point as settled 2") {
		t.Errorf("want 2 calls answered by the entry point: %s", r.logLine(false))
	}
}
