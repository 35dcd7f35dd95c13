package gemmcheck_test

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"
)

//go:embed testdata/conformance_runner.cu
var conformanceRunner []byte

// conformanceABI runs the jobs through libisaac.so's C ABI: a plain cuBLAS
// client (testdata/conformance_runner.cu, built with nvcc) makes each call
// through the entry point its case names (the type's own routine or
// cublasGemmEx, 32- or 64-bit; host or device scalars), with libisaac.so
// preloaded and ISAAC_POLICY=always, four clients at once. Every result
// meets the bound, and ISAAC_LOG's counters show every call served by
// ISAAC. It needs nvcc; ISAAC_LIB names the library (else it is built,
// where Go is at hand).
func conformanceABI(t *testing.T, jobs []Job) {
	nvcc := findNVCC()
	if nvcc == "" {
		t.Skip("nvcc not found (CUDA_HOME, /usr/local/cuda or PATH)")
	}
	dir := t.TempDir()
	lib := os.Getenv("ISAAC_LIB")
	if lib == "" {
		if _, err := exec.LookPath("go"); err != nil {
			t.Skip("set ISAAC_LIB to a built libisaac.so (no Go here to build one)")
		}
		lib = filepath.Join(dir, "libisaac.so")
		if out, err := exec.Command("go", "build", "-buildmode=c-shared", "-o", lib, "github.com/isaacgo/isaac").CombinedOutput(); err != nil {
			t.Fatalf("go build: %v\n%s", err, out)
		}
	}
	src := filepath.Join(dir, "conformance_runner.cu")
	if err := os.WriteFile(src, conformanceRunner, 0o644); err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(dir, "conformance_runner")
	if out, err := exec.Command(nvcc, "-O2", "-o", runner, src, "-lcublas").CombinedOutput(); err != nil {
		t.Fatalf("nvcc: %v\n%s", err, out)
	}
	var (
		mu      sync.Mutex
		clients []*abiClient
	)
	Conformance(t, Implementation{Name: "c-abi", Workers: 4, NewWorker: func(int) (Worker, error) {
		c, err := startClient(runner, lib)
		if err == nil {
			mu.Lock()
			clients = append(clients, c)
			mu.Unlock()
		}
		return c, err
	}}, jobs)
	total := 0
	for i, c := range clients {
		if c.waitErr != nil {
			t.Errorf("client %d: %v\n%s", i, c.waitErr, c.stderr.String())
			continue
		}
		m := logCounters.FindStringSubmatch(c.stderr.String())
		if m == nil || m[1] != strconv.Itoa(c.calls) || m[2] != m[1] || m[3] != "0" {
			t.Errorf("client %d made %d calls; its ISAAC_LOG line: %q", i, c.calls, m)
		}
		// The served calls per entry point add up to the served total.
		byEntry := 0
		if e := servedByEntry.FindStringSubmatch(c.stderr.String()); e != nil {
			for _, kv := range strings.Fields(e[1]) {
				_, n, _ := strings.Cut(kv, "=")
				v, _ := strconv.Atoi(n)
				byEntry += v
			}
		}
		if m != nil && strconv.Itoa(byEntry) != m[2] {
			t.Errorf("client %d: %d served by entry point, %s in all", i, byEntry, m[2])
		}
		total += c.calls
	}
	t.Logf("%d calls through libisaac.so's entry points from %d clients, all served by ISAAC", total, len(clients))
}

// logCounters matches the ISAAC_LOG line's totals: calls, served, forwarded;
// servedByEntry its served calls per entry point.
var (
	logCounters   = regexp.MustCompile(`isaac: pid \d+: calls (\d+) .*; served (\d+); forwarded (\d+)`)
	servedByEntry = regexp.MustCompile(`; served by entry \(([^)]*)\)`)
)

// findNVCC is nvcc's path ($CUDA_HOME/bin, /usr/local/cuda/bin, then
// PATH), or "".
func findNVCC() string {
	for _, home := range []string{os.Getenv("CUDA_HOME"), "/usr/local/cuda"} {
		if p := filepath.Join(home, "bin", "nvcc"); home != "" && fileExists(p) {
			return p
		}
	}
	p, _ := exec.LookPath("nvcc")
	return p
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// abiClient is one conformance_runner process with libisaac.so preloaded.
type abiClient struct {
	cmd     *exec.Cmd
	in      io.WriteCloser
	out     *bufio.Reader
	stderr  bytes.Buffer
	calls   int
	waitErr error
}

func startClient(runner, lib string) (*abiClient, error) {
	c := &abiClient{cmd: exec.Command(runner)}
	for _, kv := range os.Environ() {
		if (!strings.HasPrefix(kv, "ISAAC_") || strings.HasPrefix(kv, "ISAAC_CACHE_DIR=")) && !strings.HasPrefix(kv, "LD_PRELOAD=") {
			c.cmd.Env = append(c.cmd.Env, kv)
		}
	}
	c.cmd.Env = append(c.cmd.Env, "LD_PRELOAD="+lib, "ISAAC_POLICY=always", "ISAAC_LOG=1")
	c.cmd.Stderr = &c.stderr
	var err error
	if c.in, err = c.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	out, err := c.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	c.out = bufio.NewReaderSize(out, 1<<20)
	return c, c.cmd.Start()
}

// The fields of a call, in conformance_runner.cu's order.
const (
	fEntry = iota
	fTransA
	fTransB
	fM
	fN
	fK
	fLDA
	fLDB
	fLDC
	fAType
	fBType
	fCType
	fCompute
	fAlgo
	fMath
	fPtrMode
	fOffA
	fOffB
	fOffC
	fLenA
	fLenB
	fLenC
	fAlpha
	fBeta
	fScalar
	nFields
)

// Gemm sends the job's call to the client and reads C back.
func (c *abiClient) Gemm(j Job, d *gemmcheck.Data) ([]float64, error) {
	cs := j.Case
	g := cs.RequestAt(0, 0, 0, 0, 0) // offsets: the operands' addresses in buffers at 0
	a := gemmcheck.Encode(cs.Type.AB, d.A)
	b := gemmcheck.Encode(cs.Type.AB, d.B)
	c0 := gemmcheck.Encode(cs.Type.C, d.C0)
	alpha, size := gemmcheck.ScalarBits(g.Compute, cs.Alpha)
	beta, _ := gemmcheck.ScalarBits(g.Compute, cs.Beta)
	var f [nFields]int64
	f[fEntry], f[fTransA], f[fTransB] = int64(g.Entry), int64(g.TransA), int64(g.TransB)
	f[fM], f[fN], f[fK], f[fLDA], f[fLDB], f[fLDC] = g.M, g.N, g.K, g.LDA, g.LDB, g.LDC
	f[fAType], f[fBType], f[fCType], f[fCompute], f[fAlgo] = int64(g.AType), int64(g.BType), int64(g.CType), int64(g.Compute), int64(g.Algo)
	f[fMath], f[fPtrMode] = int64(g.MathMode), int64(g.PointerMode)
	f[fOffA], f[fOffB], f[fOffC] = int64(g.A), int64(g.B), int64(g.C)
	f[fLenA], f[fLenB], f[fLenC] = int64(len(a)), int64(len(b)), int64(len(c0))
	f[fAlpha], f[fBeta], f[fScalar] = int64(alpha), int64(beta), int64(size)
	w := bufio.NewWriterSize(c.in, 1<<20)
	binary.Write(w, binary.LittleEndian, f)
	w.Write(a)
	w.Write(b)
	w.Write(c0)
	if err := w.Flush(); err != nil {
		return nil, fmt.Errorf("writing the call: %w (%s)", err, c.stderr.String())
	}
	c.calls++
	var answer [2]int32
	if err := binary.Read(c.out, binary.LittleEndian, &answer); err != nil {
		return nil, fmt.Errorf("reading the answer: %w (%s)", err, c.stderr.String())
	}
	if answer[0] != 0 || answer[1] != 0 {
		return nil, fmt.Errorf("%v: cuBLAS status %d, CUDA error %d", g.Entry, answer[0], answer[1])
	}
	out := make([]byte, len(c0))
	if _, err := io.ReadFull(c.out, out); err != nil {
		return nil, fmt.Errorf("reading C: %w", err)
	}
	return gemmcheck.Decode(cs.Type.C, out), nil
}

// Close ends the client (its ISAAC_LOG line then goes to stderr).
func (c *abiClient) Close() {
	c.in.Close()
	c.waitErr = c.cmd.Wait()
}
