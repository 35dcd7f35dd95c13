package kernels

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// testRT is the tests' runtime, keeping kernels under ISAAC_CACHE_DIR (none
// when it is not set).
var testRT = New(os.Getenv("ISAAC_CACHE_DIR"))

// heuristicConfig is the configuration the server runs for g without a
// model: the generator's heuristic (without split-K where the device has
// no stream-ordered allocation), as its tensor-copy twin where legal.
func heuristicConfig(g *request.Gemm) (ptx.GemmConfig, error) {
	t, err := testRT.Target(g)
	if err != nil {
		return ptx.GemmConfig{}, err
	}
	c := space.Default(t.Class, int(g.M), int(g.N), int(g.K), t.Dev.Limits)
	if c.KG > 1 && !t.Dev.Pools {
		c.KG = 1
	}
	return ptx.TMATwin(c, t.Class, t.Dev.Limits), nil
}

// heuristicGemm runs g with heuristicConfig's configuration.
func heuristicGemm(g *request.Gemm) error {
	cfg, err := heuristicConfig(g)
	if err != nil {
		return err
	}
	return testRT.Gemm(g, cfg)
}

// TestGPUDiskCache: a new process loads compiled kernels from
// ISAAC_CACHE_DIR instead of compiling them again.
func TestGPUDiskCache(t *testing.T) {
	gemmcheck.GPUContext(t)
	if os.Getenv("ISAAC_DISK_CHILD") != "" {
		t.Skip("child")
	}
	dir := t.TempDir()
	run := func() string {
		cmd := exec.Command(os.Args[0], "-test.run=^TestGPUDiskCacheChild$", "-test.v")
		cmd.Env = append(os.Environ(), "ISAAC_DISK_CHILD=1", "ISAAC_CACHE_DIR="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		return string(out)
	}
	first, second := run(), run()
	if !strings.Contains(first, "compiled=2 diskhits=0") {
		t.Errorf("first process: %s", first)
	}
	if !strings.Contains(second, "compiled=0 diskhits=2") {
		t.Errorf("second process did not use the disk cache: %s", second)
	}
}

func TestGPUDiskCacheChild(t *testing.T) {
	if os.Getenv("ISAAC_DISK_CHILD") == "" {
		t.Skip("runs as a child of TestGPUDiskCache")
	}
	gemmcheck.GPUThread(t)
	c := gemmcheck.Case{Type: gemmcheck.Types[0], M: 70, N: 33, K: 129, Alpha: 1, Beta: 0.5, Seed: 3}
	cfg := diskCacheConfig
	d := gemmcheck.NewData(c)
	b, err := gemmcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	if err := testRT.Gemm(b.Request(0), cfg); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadC(0)
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Check(c, got); r.Bad > 0 {
		t.Errorf("wrong result: %s", r.FirstBad)
	}
	s := testRT.Stats()
	fmt.Printf("compiled=%d diskhits=%d\n", s.Compiled, s.DiskHits)
}

// TestGPUGraphCapture captures a split-K GEMM (workspace allocated in
// stream order, legal during capture) into a graph and replays it.
func TestGPUGraphCapture(t *testing.T) {
	gemmcheck.GPUThread(t)
	s, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	c := gemmcheck.Case{Type: gemmcheck.Types[0], TransA: 1, M: 33, N: 17, K: 4099, Alpha: 1, Beta: 0, Seed: 11}
	cfg := ptx.GemmConfig{MS: 2, NS: 2, ML: 32, NL: 32, U: 8, KS: 1, KL: 2, KG: 8, VecA: 1, VecB: 1, Stages: 1, Math: ptx.FFMA}
	d := gemmcheck.NewData(c)
	b, err := gemmcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	g := b.Request(s)
	if err := testRT.Gemm(g, cfg); err != nil { // compile outside the capture
		t.Fatal(err)
	}
	if _, err := b.ReadC(s); err != nil {
		t.Fatal(err)
	}
	if err := s.BeginCapture(cuda.CaptureThreadLocal); err != nil {
		t.Fatal(err)
	}
	if st, _ := s.CaptureStatus(); st != cuda.CaptureActive {
		t.Fatalf("capture status %v", st)
	}
	gerr := testRT.Gemm(g, cfg)
	graph, err := s.EndCapture()
	if gerr != nil || err != nil {
		t.Fatalf("GEMM during capture: %v; end capture: %v", gerr, err)
	}
	defer graph.Destroy()
	exec, err := graph.Instantiate()
	if err != nil {
		t.Fatal(err)
	}
	defer exec.Destroy()
	var first []float64
	for i := 0; i < 3; i++ {
		if err := b.ResetC(); err != nil {
			t.Fatal(err)
		}
		if err := exec.Launch(s); err != nil {
			t.Fatal(err)
		}
		got, err := b.ReadC(s)
		if err != nil {
			t.Fatal(err)
		}
		if r := d.Check(c, got); r.Bad > 0 {
			t.Fatalf("replay %d: %s", i, r.FirstBad)
		}
		if first == nil {
			first = got
		} else {
			for j := range got {
				if got[j] != first[j] && got[j] == got[j] {
					t.Fatalf("replay %d differs at %d", i, j)
				}
			}
		}
	}
}

// TestGPUMultiDevice runs cases on every device at once, each from its own
// thread in that device's primary context: kernels are cached per context.
func TestGPUMultiDevice(t *testing.T) {
	gemmcheck.GPUContext(t)
	n, _ := cuda.DeviceCount()
	if n < 2 {
		t.Skipf("one device: the multi-device test needs two")
	}
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for dev := 0; dev < n; dev++ {
		wg.Add(1)
		go func(dev int) {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			d, err := cuda.GetDevice(dev)
			if err == nil {
				_, err = d.RetainPrimaryContext()
			}
			if err != nil {
				errs <- err
				return
			}
			rng := rand.New(rand.NewPCG(uint64(dev), 9))
			for i := 0; i < 40; i++ {
				c := gemmcheck.RandomCase(rng, gemmcheck.Types[i%len(gemmcheck.Types)], 2_000_000)
				d := gemmcheck.NewData(c)
				b, err := gemmcheck.Upload(c, d)
				if err != nil {
					errs <- err
					return
				}
				if err := heuristicGemm(b.Request(0)); err != nil {
					errs <- fmt.Errorf("device %d, %v: %w", dev, c, err)
					b.Free()
					return
				}
				got, err := b.ReadC(0)
				b.Free()
				if err != nil {
					errs <- err
					return
				}
				if r := d.Check(c, got); r.Bad > 0 {
					errs <- fmt.Errorf("device %d, %v: %s", dev, c, r.FirstBad)
					return
				}
			}
		}(dev)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	contexts := map[uint64]bool{}
	testRT.kernels.Range(func(k, _ any) bool {
		contexts[k.(kernelKey).ctx] = true
		return true
	})
	if len(contexts) < n {
		t.Errorf("kernels loaded in %d contexts, want one per device (%d)", len(contexts), n)
	}
	t.Logf("%d devices × 40 cases correct; kernels cached in %d contexts", n, len(contexts))
}
