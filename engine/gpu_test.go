package engine

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/space"
)

// gpuContext skips without a GPU; otherwise it retains device 0's primary
// context and returns a function that makes it current on the calling
// (locked) thread.
func gpuContext(t *testing.T) cuda.Context {
	t.Helper()
	if err := cuda.Load(); err != nil {
		t.Skipf("no GPU: %v", err)
	}
	if n, err := cuda.DeviceCount(); err != nil || n == 0 {
		t.Skipf("no GPU: %d devices, %v", n, err)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	d, err := cuda.GetDevice(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, err := d.RetainPrimaryContext()
	if err != nil {
		t.Fatal(err)
	}
	return ctx
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil {
		return v
	}
	return def
}

// job is one case with the configuration to run it with (nil: the engine's
// choice).
type job struct {
	c   gemmcheck.Case
	cfg *ptx.GemmConfig
}

type outcome struct {
	job
	ours, vendor gemmcheck.Result
	rerun        bool // ran twice (split reduction) and was bit-identical
	err          error
}

// TestGPUDifferential runs random cases through ISAAC's kernels and cuBLAS on
// the same buffers and checks both against the exact reference: every data
// type, layout, odd and prime sizes up to 5000 (k up to 100,000), padded
// leading dimensions, pointers offset by one element, alpha/beta including
// beta = 0 with NaN in C, device pointer mode; from 4 threads on 2 streams.
// ISAAC_GPU_CASES cases per type use the engine's choice, and
// ISAAC_GPU_CONFIGS cases per type each use a random legal configuration,
// and for the 16-bit types ISAAC_GPU_WGMMA cases whose operands are
// 16-byte aligned a random legal wgmma configuration (on sm_90), and for the
// types a SIMT math serves ISAAC_GPU_WIDE_SIMT cases a random legal SIMT
// configuration with 16-wide thread tiles (space.ForSweep), and
// ISAAC_GPU_PIPELINED cases a random legal mma.sync or SIMT configuration
// with pipelined fragments (PP = 1), and for the 16-bit types ISAAC_GPU_TMA
// cases a random legal wgmma configuration whose tiles the bulk tensor copy
// engine stages (TMA = 1, on sm_90).
func TestGPUDifferential(t *testing.T) {
	ctx := gpuContext(t)
	perType := envInt("ISAAC_GPU_CASES", 150)
	configs := envInt("ISAAC_GPU_CONFIGS", 200)
	warpgroups := envInt("ISAAC_GPU_WGMMA", 60)
	wideSIMT := envInt("ISAAC_GPU_WIDE_SIMT", 40)
	pipelined := envInt("ISAAC_GPU_PIPELINED", 30)
	tma := envInt("ISAAC_GPU_TMA", 40)
	maxWork := envInt("ISAAC_GPU_MAXWORK", 40_000_000)
	rng := rand.New(rand.NewPCG(uint64(envInt("ISAAC_GPU_SEED", 1)), 2))
	dev, err := func() (*deviceInfo, error) {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ctx.SetCurrent()
		d, err := cuda.CurrentDevice()
		if err != nil {
			return nil, err
		}
		return infoFor(d)
	}()
	if err != nil {
		t.Fatal(err)
	}
	var jobs []job
	only := os.Getenv("ISAAC_GPU_TYPES")
	for _, ty := range gemmcheck.Types {
		if only != "" && !strings.Contains(","+only+",", ","+ty.Name+",") {
			continue
		}
		for i := 0; i < perType; i++ {
			jobs = append(jobs, job{c: gemmcheck.RandomCase(rng, ty, maxWork)})
		}
		for i := 0; i < configs; i++ {
			c := gemmcheck.RandomCase(rng, ty, maxWork/4)
			in, err := classOfCase(c)
			if err != nil {
				t.Fatal(err)
			}
			cfg, ok := space.For(in).RandomLegal(rng, in, dev.limits, 200000)
			if !ok {
				t.Fatalf("%s: no legal random configuration for %v", ty.Name, in)
			}
			jobs = append(jobs, job{c: c, cfg: &cfg})
		}
		// wgmma kernels (sm_90a) on the cases whose operands allow them
		jobs = append(jobs, warpgroupJobs(t, rng, ty, warpgroups, maxWork/4, dev.limits, false)...)
	}
	for _, ty := range gemmcheck.Types {
		if only != "" && !strings.Contains(","+only+",", ","+ty.Name+",") {
			continue
		}
		for i, tries := 0, 0; i < wideSIMT && tries < 100*wideSIMT; tries++ {
			c := gemmcheck.RandomCase(rng, ty, maxWork/4)
			in, err := classOfCase(c)
			if err != nil {
				t.Fatal(err)
			}
			sp := space.ForSweep(in)
			sp.Math = slices.DeleteFunc(sp.Math, ptx.Math.IsMMA)
			if len(sp.Math) == 0 {
				break // no SIMT math for the type
			}
			if i%2 == 0 {
				sp.MS = []int{16}
			} else {
				sp.NS = []int{16}
			}
			cfg, ok := sp.RandomLegal(rng, in, dev.limits, 20000)
			if !ok {
				continue
			}
			jobs = append(jobs, job{c: c, cfg: &cfg})
			i++
		}
	}
	// mma.sync and SIMT kernels with pipelined fragments
	// (ptx.GemmConfig.PP), which the model's spaces do not draw.
	for _, ty := range gemmcheck.Types {
		if only != "" && !strings.Contains(","+only+",", ","+ty.Name+",") {
			continue
		}
		for i, tries := 0, 0; i < pipelined && tries < 100*pipelined; tries++ {
			c := gemmcheck.RandomCase(rng, ty, maxWork/4)
			in, err := classOfCase(c)
			if err != nil {
				t.Fatal(err)
			}
			sp := space.ForSweep(in) // 16-wide SIMT thread tiles too
			sp.Math = slices.DeleteFunc(slices.Clone(sp.Math), ptx.Math.IsWGMMA)
			sp.Stages = slices.DeleteFunc(slices.Clone(sp.Stages), func(st int) bool { return st < 2 })
			if len(sp.Math) == 0 || len(sp.Stages) == 0 {
				continue // no cp.async stages (misaligned operands) or wgmma only: nothing to pipeline
			}
			cfg, ok := sp.RandomLegal(rng, in, dev.limits, 20000)
			if !ok {
				continue
			}
			if cfg.PP = 1; ptx.Legal(cfg, in, dev.limits) != nil {
				continue
			}
			jobs = append(jobs, job{c: c, cfg: &cfg})
			i++
		}
	}
	// wgmma kernels staged by the bulk tensor copy engine
	// (ptx.GemmConfig.TMA), which the model's spaces do not draw.
	for _, ty := range gemmcheck.Types {
		if only != "" && !strings.Contains(","+only+",", ","+ty.Name+",") {
			continue
		}
		jobs = append(jobs, warpgroupJobs(t, rng, ty, tma, maxWork/4, dev.limits, true)...)
	}
	rng.Shuffle(len(jobs), func(i, j int) { jobs[i], jobs[j] = jobs[j], jobs[i] })

	const threads, streams = 4, 2
	var ss [streams]cuda.Stream
	func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ctx.SetCurrent()
		for i := range ss {
			if ss[i], err = cuda.NewStream(); err != nil {
				t.Fatal(err)
			}
		}
	}()
	work := make(chan job)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ctx.SetCurrent()
			h, err := cublas.New()
			if err != nil {
				t.Error(err)
				for range work {
				}
				return
			}
			defer h.Destroy()
			for j := range work {
				results <- runJob(j, ss[w%streams], h)
			}
		}(w)
	}
	go func() {
		for _, j := range jobs {
			work <- j
		}
		close(work)
		wg.Wait()
		close(results)
	}()
	report(t, jobs, results)
}

// classOfCase is the input class of a case on 256-byte aligned buffers
// (cuMemAlloc's alignment), offsets included.
func classOfCase(c gemmcheck.Case) (ptx.InputClass, error) {
	return Class(c.RequestAt(0x100000, 0x200000, 0x300000, 0x400000, 0))
}

func runJob(j job, s cuda.Stream, h cublas.Handle) outcome {
	o := outcome{job: j}
	d := gemmcheck.NewData(j.c)
	b, err := gemmcheck.Upload(j.c, d)
	if err != nil {
		o.err = err
		return o
	}
	defer b.Free()
	g := b.Request(s)
	if err := Gemm(g, j.cfg); err != nil {
		o.err = fmt.Errorf("ours: %w", err)
		return o
	}
	got, err := b.ReadC(s)
	if err != nil {
		o.err = fmt.Errorf("ours: %w", err)
		return o
	}
	o.ours = d.Check(j.c, got)
	if j.cfg != nil && (j.cfg.KG > 1 || j.cfg.KL > 1 || j.cfg.KS > 1) {
		// Split reductions are deterministic: a second run is bit-identical.
		if err := b.ResetC(); err != nil {
			o.err = err
			return o
		}
		if err := Gemm(g, j.cfg); err != nil {
			o.err = fmt.Errorf("ours, second run: %w", err)
			return o
		}
		again, err := b.ReadC(s)
		if err != nil {
			o.err = err
			return o
		}
		for i := range got {
			if again[i] != got[i] && !(again[i] != again[i] && got[i] != got[i]) {
				o.err = fmt.Errorf("not deterministic: element %d is %v, then %v", i, got[i], again[i])
				return o
			}
		}
		o.rerun = true
	}
	if err := b.ResetC(); err != nil {
		o.err = err
		return o
	}
	if err := h.Gemm(b.Request(s)); err != nil {
		o.err = fmt.Errorf("cuBLAS: %w", err)
		return o
	}
	if got, err = b.ReadC(s); err != nil {
		o.err = fmt.Errorf("cuBLAS: %w", err)
		return o
	}
	o.vendor = d.Check(j.c, got)
	return o
}

type typeStats struct {
	Cases, Configs, Failed, Errors int
	Deterministic                  int     // split-reduction cases run twice, bit-identical
	WorstOurs, WorstVendor         float64 // max error / bound
	WorstCase                      string
}

func report(t *testing.T, jobs []job, results <-chan outcome) {
	stats := map[string]*typeStats{}
	failures := 0
	done := 0
	for o := range results {
		done++
		if done%500 == 0 {
			t.Logf("%d/%d cases", done, len(jobs))
		}
		st := stats[o.c.Type.Name]
		if st == nil {
			st = &typeStats{}
			stats[o.c.Type.Name] = st
		}
		st.Cases++
		cfg := "choice"
		if o.cfg != nil {
			st.Configs++
			cfg = o.cfg.String()
		}
		if o.err != nil {
			st.Errors++
			failures++
			if failures <= 30 {
				t.Errorf("%v [%s]: %v", o.c, cfg, o.err)
			}
			continue
		}
		if o.rerun {
			st.Deterministic++
		}
		if o.ours.Bad > 0 {
			st.Failed++
			failures++
			if failures <= 30 {
				t.Errorf("%v [%s]: %d bad elements: %s (max err/bound %.3g; cuBLAS %.3g)",
					o.c, cfg, o.ours.Bad, o.ours.FirstBad, o.ours.MaxRelBound, o.vendor.MaxRelBound)
			}
		}
		if o.ours.MaxRelBound > st.WorstOurs {
			st.WorstOurs = o.ours.MaxRelBound
			st.WorstCase = o.c.String() + " [" + cfg + "]"
		}
		if o.vendor.MaxRelBound > st.WorstVendor {
			st.WorstVendor = o.vendor.MaxRelBound
		}
	}
	names := make([]string, 0, len(stats))
	for n := range stats {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%-22s %6s %8s %7s %7s %8s %14s %14s\n", "type", "cases", "configs", "failed", "errors", "rerun=", "worst ours/bd", "worst cuBLAS/bd")
	for _, n := range names {
		s := stats[n]
		fmt.Fprintf(&b, "%-22s %6d %8d %7d %7d %8d %14.3g %14.3g\n", n, s.Cases, s.Configs, s.Failed, s.Errors, s.Deterministic, s.WorstOurs, s.WorstVendor)
	}
	t.Logf("differential test, %d cases:\n%s", len(jobs), b.String())
	for _, n := range names {
		t.Logf("worst case %s: %s", n, stats[n].WorstCase)
	}
	if path := os.Getenv("ISAAC_GPU_REPORT"); path != "" {
		js, _ := json.MarshalIndent(stats, "", "  ")
		os.WriteFile(path, append([]byte(b.String()+"\n"), js...), 0o644)
	}
}

// TestGPUDiskCache: a new process loads compiled kernels from
// ISAAC_CACHE_DIR instead of compiling them again.
func TestGPUDiskCache(t *testing.T) {
	gpuContext(t)
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
	ctx := gpuContext(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx.SetCurrent()
	c := gemmcheck.Case{Type: gemmcheck.Types[0], M: 70, N: 33, K: 129, Alpha: 1, Beta: 0.5, Seed: 3}
	cfg := diskCacheConfig
	d := gemmcheck.NewData(c)
	b, err := gemmcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	if err := Gemm(b.Request(0), &cfg); err != nil {
		t.Fatal(err)
	}
	got, err := b.ReadC(0)
	if err != nil {
		t.Fatal(err)
	}
	if r := d.Check(c, got); r.Bad > 0 {
		t.Errorf("wrong result: %s", r.FirstBad)
	}
	s := CacheStats()
	fmt.Printf("compiled=%d diskhits=%d\n", s.Compiled, s.DiskHits)
}

// TestGPUGraphCapture captures a split-K GEMM (workspace allocated in
// stream order, legal during capture) into a graph and replays it.
func TestGPUGraphCapture(t *testing.T) {
	ctx := gpuContext(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx.SetCurrent()
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
	if err := Gemm(g, &cfg); err != nil { // compile outside the capture
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
	gerr := Gemm(g, &cfg)
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

// TestGPUForcedConfig: ISAAC_CONFIG makes the engine use that configuration
// (checked in a child process, since the variable is read once).
func TestGPUForcedConfig(t *testing.T) {
	gpuContext(t)
	if os.Getenv("ISAAC_FORCED_CHILD") != "" {
		ctx := gpuContext(t)
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		ctx.SetCurrent()
		c := gemmcheck.Case{Type: gemmcheck.Types[2], M: 100, N: 50, K: 300, Alpha: 2, Beta: 1, Seed: 5}
		d := gemmcheck.NewData(c)
		b, err := gemmcheck.Upload(c, d)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Free()
		if err := Gemm(b.Request(0), nil); err != nil {
			t.Fatal(err)
		}
		got, _ := b.ReadC(0)
		if r := d.Check(c, got); r.Bad > 0 {
			t.Fatal(r.FirstBad)
		}
		kernels.Range(func(k, _ any) bool {
			fmt.Println("loaded", k.(kernelKey).name)
			return true
		})
		return
	}
	const forced = "ms=2,ns=2,ml=32,nl=16,u=8,ks=1,kl=1,kg=4,va=1,vb=1,st=1,math=dfma"
	cmd := exec.Command(os.Args[0], "-test.run=^TestGPUForcedConfig$", "-test.v")
	cmd.Env = append(os.Environ(), "ISAAC_FORCED_CHILD=1", "ISAAC_CONFIG="+forced)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "ms2ns2ml32nl16u8ks1kl1kg4va1vb1st1_dfma") {
		t.Errorf("the forced configuration was not used:\n%s", out)
	}
}

// TestGPUMultiDevice runs cases on every device at once, each from its own
// thread in that device's primary context: kernels are cached per context.
func TestGPUMultiDevice(t *testing.T) {
	gpuContext(t)
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
				if err := Gemm(b.Request(0), nil); err != nil {
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
	kernels.Range(func(k, _ any) bool {
		contexts[k.(kernelKey).ctx] = true
		return true
	})
	if len(contexts) < n {
		t.Errorf("kernels loaded in %d contexts, want one per device (%d)", len(contexts), n)
	}
	t.Logf("%d devices × 40 cases correct; kernels cached in %d contexts", n, len(contexts))
}

// warpgroupJobs draws n random cases of type ty (on sm_90a, where the type
// has a wgmma math) whose operands allow a wgmma kernel, each with a random
// legal configuration of space.ForWarpgroup; with tma, the tensor-copy twin
// of a configuration drawn at u = 64 (cases whose draw has no legal twin
// are drawn again).
func warpgroupJobs(t *testing.T, rng *rand.Rand, ty gemmcheck.Type, n, maxWork int, lim ptx.DeviceLimits, tma bool) []job {
	var out []job
	sm90 := lim.SMMajor == 9 && lim.SMMinor == 0
	for i, tries := 0, 0; sm90 && i < n && tries < 100*n; tries++ {
		c := gemmcheck.RandomCase(rng, ty, maxWork)
		in, err := classOfCase(c)
		if err != nil {
			t.Fatal(err)
		}
		if len(ptx.WarpgroupMathsFor(in)) == 0 {
			break // no wgmma math for the type
		}
		sp := space.ForWarpgroup(in)
		if len(sp.Math) == 0 {
			continue // operands not 16-byte aligned
		}
		if tma {
			sp.U = []int{64} // 128-byte lines of k-contiguous tiles
		}
		cfg, ok := sp.RandomLegal(rng, in, lim, 20000)
		switch {
		case !ok && !tma:
			t.Fatalf("%s: no legal wgmma configuration for %v", ty.Name, in)
		case !ok:
			continue
		}
		if tma {
			if cfg.TMA = 1; ptx.Legal(cfg, in, lim) != nil {
				continue
			}
		}
		out = append(out, job{c: c, cfg: &cfg})
		i++
	}
	return out
}
