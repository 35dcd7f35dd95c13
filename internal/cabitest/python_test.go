package cabitest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func python(t *testing.T) string {
	t.Helper()
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	return py
}

// The PyTorch situation in miniature: Python loads the vendor with
// RTLD_LOCAL (ctypes' default), and the application's calls go to the
// preloaded shim's symbols; a child process inherits LD_PRELOAD.
const pythonScript = `
import ctypes, subprocess, sys
vendor = ctypes.CDLL("libcublas.so.13")             # RTLD_LOCAL
vendor.fake_set_status(13)
shim = ctypes.CDLL(None)                            # the global scope: LD_PRELOAD's symbols
alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
status = shim.cublasSgemm_v2(ctypes.c_void_p(0x1000), 0, 0, 4, 4, 4, ctypes.byref(alpha),
                             ctypes.c_void_p(0x10000), 4, ctypes.c_void_p(0x20000), 4,
                             ctypes.byref(beta), ctypes.c_void_p(0x30000), 4)
print("status", status)
child = subprocess.run([sys.executable, "-c", "import ctypes; print('child', ctypes.CDLL(None).cublasSgemm_v2 is not None)"],
                       capture_output=True, text=True)
print(child.stdout.strip(), child.returncode)
print("stderr-child", child.stderr.strip().replace("\n", " | "))
`

func TestPythonPreload(t *testing.T) {
	e := setup(t)
	py := python(t)
	script := filepath.Join(t.TempDir(), "preload.py")
	writeFile(t, script, pythonScript)
	r := e.exec(t, []string{"LD_PRELOAD=" + e.lib, "ISAAC_LOG=1"}, py, script)
	if r.err != nil {
		t.Fatalf("python3 under LD_PRELOAD failed: %v\n%s", r.err, r)
	}
	for _, want := range []string{"status 13\n", "child True 0\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("want %q\n%s", want, r)
		}
	}
	calls, _, _, _ := parseLog(t, r.logLine(false))
	if calls["cublasSgemm_v2"] != "1" {
		t.Errorf("the shim did not intercept Python's call: %v", calls)
	}
	if !strings.Contains(r.logLine(false), "libcublas.so.13") {
		t.Errorf("vendor not resolved from the local scope: %s", r.logLine(false))
	}
}

// TestPythonSignals: Python keeps its own SIGINT handling with the Go
// runtime preloaded (KeyboardInterrupt, not a Go crash).
func TestPythonSignals(t *testing.T) {
	e := setup(t)
	py := python(t)
	cmd := exec.Command(py, "-c", "import time\ntry:\n    print('ready', flush=True)\n    time.sleep(30)\nexcept KeyboardInterrupt:\n    print('interrupted', flush=True)\n")
	cmd.Env = append(os.Environ(), "LD_PRELOAD="+e.lib, "LD_LIBRARY_PATH="+e.dir)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := stdout.Read(buf)
	if !strings.Contains(string(buf[:n]), "ready") {
		t.Fatalf("python did not start: %q", buf[:n])
	}
	cmd.Process.Signal(syscall.SIGINT)
	done := make(chan error, 1)
	rest := make([]byte, 64)
	go func() {
		m, _ := stdout.Read(rest)
		rest = rest[:m]
		done <- cmd.Wait()
	}()
	select {
	case err := <-done:
		if err != nil || !strings.Contains(string(rest), "interrupted") {
			t.Errorf("SIGINT under the shim: exit %v, output %q", err, rest)
		}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("python did not handle SIGINT")
	}
}
