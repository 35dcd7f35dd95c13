package cabitest

import (
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
	"cudnnConvolutionForward",
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
		if strings.HasPrefix(s, "isaac_") && !contains(goExports, s) {
			t.Errorf("internal symbol exported: %s", s)
		}
	}
}

// goExports are the Go side's functions (exports.go): cgo exports them.
var goExports = []string{"isaac_go_gemm", "isaac_go_gemm_after", "isaac_go_conv", "isaac_go_conv_after", "isaac_go_exit"}

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
	for _, src := range []string{"cublas_entry.c", "cudnn_entry.c", "handle_state.c"} {
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
		{"never", "0", "policy", "policy", "policy", false}, {"", "13", "no_driver", "handle", "policy", true},
		{"always", "13", "no_driver", "handle", "no_driver", true},
	} {
		status := c.status
		r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_POLICY=" + c.policy}, "abi_linked", "calls", status)
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("status %s: %v\n%s", status, r.err, r)
		}
		// Under never nothing is read: the GEMMs are decided from their
		// arguments, the convolution by the policy before it is decoded.
		// Otherwise the GEMMs read their handle (4 cuBLAS getters each).
		if read := !strings.Contains(r.stdout, "getters=0\n"); read != c.read {
			t.Errorf("policy %q: cuBLAS handle state read = %v\n%s", c.policy, read, r)
		}
		calls, served, forwarded, reasons := parseLog(t, r.logLine(false))
		if calls["total"] != "19" || calls["cublasSgemm_v2"] != "3" || calls["cudnnConvolutionForward"] != "1" {
			t.Errorf("calls %v, want 19 (3 Sgemm)", calls)
		}
		for _, s := range batchedEntryPoints {
			if calls[s] != "1" {
				t.Errorf("calls %v, want one %s", calls, s)
			}
		}
		if served != "0" || forwarded != "19" {
			t.Errorf("served %s forwarded %s, want 0 and 19", served, forwarded)
		}
		// The 13 calls of served classes (two of them batches of one
		// matrix, four batches of several) go to the vendor by the policy
		// (never), or for want of a CUDA driver here; the convolution (a
		// served one) by the policy (never, and auto without
		// ISAAC_CONV_AUTO=1) or for want of a driver. A batch with a
		// negative stride is not served, and a batch of none is empty.
		want := map[string]int{"invalid": 1, "too_large": 1, "unsupported": 1, "empty": 1}
		want[c.served] += 13
		want[c.handle]++
		want[c.conv]++
		for k, v := range want {
			if reasons[k] != strconv.Itoa(v) {
				t.Errorf("reason %s = %q, want %d (all: %v)", k, reasons[k], v, reasons)
			}
		}
		if !strings.Contains(r.logLine(false), "cuBLAS: ") || !strings.Contains(r.logLine(false), "libcublas.so.13") {
			t.Errorf("log line does not name the vendor library: %s", r.logLine(false))
		}
	}
}

// TestInvalidForwarded: under every policy, a call of a served class with
// an argument cuBLAS rejects (an unknown algorithm, a NULL alpha or beta, a
// negative batch count)
// goes to the vendor decided from its arguments alone (reason invalid),
// never to the engine, so that the application gets cuBLAS's status.
func TestInvalidForwarded(t *testing.T) {
	e := setup(t)
	for _, policy := range []string{"", "always", "never"} {
		r := e.exec(t, []string{"ISAAC_LOG=1", "ISAAC_POLICY=" + policy}, "abi_linked", "invalid")
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("policy %q: %v\n%s", policy, r.err, r)
		}
		if !strings.Contains(r.stdout, "getters=0\n") {
			t.Errorf("policy %q: the handle was read for a call cuBLAS rejects\n%s", policy, r)
		}
		_, _, forwarded, reasons := parseLog(t, r.logLine(false))
		if forwarded != "6" || reasons["invalid"] != "6" || len(reasons) != 1 {
			t.Errorf("policy %q: forwarded %s, reasons %v: want 6 invalid", policy, forwarded, reasons)
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
		{nil, "0 0 0", map[string]string{"policy": "3"}}, // auto without ISAAC_CONV_AUTO
	} {
		r := e.exec(t, append([]string{"ISAAC_LOG=1"}, c.env...), "abi_linked", "convs")
		if r.err != nil || !strings.Contains(r.stdout, "PASS") {
			t.Fatalf("%v: %v\n%s", c.env, r.err, r)
		}
		var got []string
		for _, l := range strings.Split(r.stdout, "\n") {
			if strings.HasPrefix(l, "conv") && strings.Contains(l, " getters=") {
				got = append(got, l[strings.Index(l, "=")+1:])
			}
		}
		if strings.Join(got, " ") != c.getters {
			t.Errorf("%v: getters per call %q, want %q\n%s", c.env, got, c.getters, r)
		}
		// The second call, remembered from the first, is the entry
		// point's own (ISAAC_LOG counts it).
		settled := strings.Contains(r.logLine(false), "; forwarded by the entry point as settled 1;")
		if wantSettled := c.reasons["invalid"] == "2"; settled != wantSettled {
			t.Errorf("%v: answered by the entry point: %v, want %v\n%s", c.env, settled, wantSettled, r.logLine(false))
		}
		_, _, _, reasons := parseLog(t, r.logLine(false))
		if len(reasons) != len(c.reasons) {
			t.Errorf("%v: reasons %v, want %v", c.env, reasons, c.reasons)
		}
		for k, v := range c.reasons {
			if reasons[k] != v {
				t.Errorf("%v: reason %s = %q, want %s (all: %v)", c.env, k, reasons[k], v, reasons)
			}
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
	if !strings.Contains(r.stdout, "getters=0\n") {
		t.Errorf("with ISAAC_DISABLE=1 the vendor's getters were called\n%s", r)
	}
	_, _, forwarded, reasons := parseLog(t, r.logLine(false))
	if forwarded != "19" || reasons["disabled"] != "19" {
		t.Errorf("forwarded %s, reasons %v: want 19 disabled", forwarded, reasons)
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
	_, _, forwarded, reasons := parseLog(t, r.logLine(true))
	if forwarded != "19" || reasons["fork"] != "19" {
		t.Errorf("child: forwarded %s, reasons %v; want 19 by fork", forwarded, reasons)
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
	if calls["total"] != "19" {
		t.Errorf("preloaded shim intercepted %s calls, want 19", calls["total"])
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
	if !strings.Contains(r.logLine(false), "libcublas.so.13 (already loaded)") {
		t.Errorf("vendor not found among the loaded libraries: %s", r.logLine(false))
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

// TestNoVendor: with no vendor library anywhere, one clear line on stderr
// and the vendors' NOT_INITIALIZED statuses.
func TestNoVendor(t *testing.T) {
	e := setup(t)
	empty := t.TempDir()
	r := e.exec(t, []string{"LD_LIBRARY_PATH=" + empty}, "abi_shim_only", "novendor")
	if r.err != nil || !strings.Contains(r.stdout, "PASS novendor") {
		t.Fatalf("%v\n%s", r.err, r)
	}
	for _, want := range []string{"isaac: cuBLAS not found", "isaac: cuDNN not found"} {
		if strings.Count(r.stderr, want) != 1 {
			t.Errorf("want exactly one %q line on stderr\n%s", want, r)
		}
	}
}
