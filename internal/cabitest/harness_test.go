package cabitest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// env is what every test needs: the library, the fakes and the programs.
type env struct {
	dir       string // libisaac.so, libcublas.so.13, libcublasLt.so.13, libcudnn.so.9, programs
	lib       string // libisaac.so
	shimDir   string
	testdata  string
	buildErr  error
	buildLogs string
}

var (
	once   sync.Once
	shared env
)

func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

func run(dir string, name string, args ...string) (string, error) {
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// setup builds everything once per test binary.
func setup(t testing.TB) *env {
	t.Helper()
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("gcc not found")
	}
	once.Do(func() {
		root := moduleRoot()
		e := &shared
		e.shimDir = filepath.Join(root, "shim")
		e.testdata = filepath.Join(root, "internal", "cabitest", "testdata")
		d, err := os.MkdirTemp("", "isaac-cabi-")
		if err != nil {
			e.buildErr = err
			return
		}
		e.dir = d
		e.lib = filepath.Join(d, "libisaac.so")
		var steps [][]string
		if prebuilt := os.Getenv("ISAAC_LIB"); prebuilt != "" {
			steps = append(steps, []string{"cp", prebuilt, e.lib})
		} else {
			steps = append(steps, []string{"go", "build", "-buildmode=c-shared", "-o", e.lib, root})
		}
		td := e.testdata
		steps = append(steps,
			[]string{"gcc", "-shared", "-fPIC", "-O1", "-I" + td, "-Wl,-soname,libcublas.so.13",
				"-o", filepath.Join(d, "libcublas.so.13"), filepath.Join(td, "fake_cublas.c")},
			// cuBLASLt and cuDNN record through the fake cuBLAS.
			[]string{"gcc", "-shared", "-fPIC", "-O1", "-I" + td, "-Wl,-soname,libcublasLt.so.13",
				"-o", filepath.Join(d, "libcublasLt.so.13"), filepath.Join(td, "fake_cublaslt.c"),
				"-L" + d, "-l:libcublas.so.13"},
			[]string{"gcc", "-shared", "-fPIC", "-O1", "-I" + td, "-Wl,-soname,libcudnn.so.9",
				"-o", filepath.Join(d, "libcudnn.so.9"), filepath.Join(td, "fake_cudnn.c"),
				"-L" + d, "-l:libcublas.so.13"},
			// Linked -lisaac -lcublas -lcublasLt -lcudnn: the shim comes first.
			[]string{"gcc", "-O1", "-I" + td, "-o", filepath.Join(d, "abi_linked"),
				filepath.Join(td, "abi_main.c"), "-L" + d, "-Wl,--no-as-needed", "-lisaac", "-l:libcublas.so.13",
				"-l:libcublasLt.so.13", "-l:libcudnn.so.9", "-ldl", "-lpthread", "-Wl,-rpath," + d},
			// Linked to the fake vendor only: the shim comes by LD_PRELOAD.
			[]string{"gcc", "-O1", "-I" + td, "-o", filepath.Join(d, "abi_vendor_only"),
				filepath.Join(td, "abi_main.c"), "-L" + d, "-l:libcublas.so.13",
				"-l:libcublasLt.so.13", "-l:libcudnn.so.9", "-ldl", "-lpthread", "-Wl,-rpath," + d},
			// Linked to the shim only: the vendor is dlopened locally, or absent.
			[]string{"gcc", "-O1", "-I" + td, "-o", filepath.Join(d, "abi_shim_only"),
				filepath.Join(td, "abi_main.c"), "-L" + d, "-lisaac", "-ldl", "-lpthread",
				"-Wl,-rpath," + d},
		)
		var logs strings.Builder
		for _, s := range steps {
			out, err := run(root, s[0], s[1:]...)
			logs.WriteString(strings.Join(s, " ") + "\n" + out)
			if err != nil {
				e.buildErr = err
				break
			}
		}
		e.buildLogs = logs.String()
	})
	if shared.buildErr != nil {
		t.Fatalf("build failed: %v\n%s", shared.buildErr, shared.buildLogs)
	}
	return &shared
}

// result of running a program.
type result struct {
	stdout, stderr string
	err            error
}

// exec runs a program from the build directory with extra environment;
// LD_LIBRARY_PATH is set to the build directory unless env overrides it.
func (e *env) exec(t testing.TB, extra []string, name string, args ...string) result {
	t.Helper()
	if !filepath.IsAbs(name) && !strings.Contains(name, "/") {
		if _, err := os.Stat(filepath.Join(e.dir, name)); err == nil {
			name = filepath.Join(e.dir, name)
		}
	}
	cmd := exec.Command(name, args...)
	cmd.Dir = e.dir
	base := []string{}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "ISAAC_") && !strings.HasPrefix(kv, "LD_PRELOAD=") &&
			!strings.HasPrefix(kv, "LD_LIBRARY_PATH=") {
			base = append(base, kv)
		}
	}
	cmd.Env = append(append(base, "LD_LIBRARY_PATH="+e.dir), extra...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result{stdout.String(), stderr.String(), err}
}

// printed reports whether the program printed the line "name=value".
func (r result) printed(name, value string) bool {
	return strings.Contains("\n"+r.stdout, "\n"+name+"="+value+"\n")
}

func (r result) String() string {
	return "stdout:\n" + r.stdout + "stderr:\n" + r.stderr
}

// logLine is the ISAAC_LOG line of the process with the given marker
// (" (forked child)" for a child), or "".
func (r result) logLine(child bool) string {
	for _, l := range strings.Split(r.stderr, "\n") {
		if strings.HasPrefix(l, "isaac: pid ") && strings.Contains(l, "(forked child)") == child {
			return l
		}
	}
	return ""
}
