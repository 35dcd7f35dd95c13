// Package devsession is the session the GPU tools (bench_compare,
// isaac-tune) open on device 0: its context, the environment record, the
// L2-flushing timer, the vendor's handle, and the server and kernel runtime
// through which they run ISAAC's kernels.
package devsession

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	"github.com/isaacgo/isaac/internal/cublas"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/serve"
)

// Session is a tool's hold on device 0: its primary context, current on
// the caller's thread (which the caller keeps locked), the environment
// record, a timer that flushes L2 before each timed call, a cuBLAS handle,
// and the server and kernel runtime through which the tool runs ISAAC's
// kernels (options from the environment, as the shim's).
type Session struct {
	Ctx     cuda.Context
	Env     devbench.Env
	Timer   *devbench.Timer
	Vendor  cublas.Handle
	Server  *serve.Server
	Kernels *kernels.Runtime
	Limits  ptx.DeviceLimits
}

// Options say how a session times: Blocking queues each timed call
// behind a hold kernel (NewTimerBlocking), and Flush is the default L2
// flush (ISAAC_BENCH_FLUSH overrides it).
type Options struct {
	Blocking bool
	Flush    devbench.Flush
}

// New sets up device 0, the environment record, the timer, the
// vendor's handle and the server.
func New(o Options) (*Session, error) {
	if err := cuda.Load(); err != nil {
		return nil, err
	}
	if n, err := cuda.DeviceCount(); err != nil || n == 0 {
		return nil, fmt.Errorf("no CUDA device (%v)", err)
	}
	dev, err := cuda.GetDevice(0)
	if err != nil {
		return nil, err
	}
	s := &Session{}
	if s.Ctx, err = dev.RetainPrimaryContext(); err != nil {
		return nil, err
	}
	if err := s.Ctx.SetCurrent(); err != nil {
		return nil, err
	}
	if s.Env, err = devbench.DeviceEnv(dev); err != nil {
		return nil, err
	}
	if o.Blocking {
		s.Timer, err = devbench.NewTimerBlocking(s.Env.L2Bytes, o.Flush)
	} else {
		s.Timer, err = devbench.NewTimer(s.Env.L2Bytes, o.Flush)
	}
	if err != nil {
		return nil, err
	}
	if s.Vendor, err = cublas.New(); err != nil {
		return nil, err
	}
	if v, err := s.Vendor.Version(); err == nil {
		s.Env.CUBLAS = fmt.Sprintf("%d.%d.%d (%d)", v/10000, v/100%100, v%100, v)
	}
	so := serve.FromEnv()
	so.Loads = max(1, runtime.NumCPU()-1) // as many at once as Load runs
	s.Server = serve.New(so)
	s.Kernels = s.Server.Runtime()
	if s.Limits, err = s.Kernels.Limits(); err != nil {
		return nil, err
	}
	return s, nil
}

// Compile prepares the kernels of cfgs for g from all cores but one, each
// with the session's context current (the JIT is the cost), and returns
// the configurations whose kernels load, in order.
func (s *Session) Compile(g *request.Gemm, cfgs []ptx.GemmConfig) []ptx.GemmConfig {
	return Load(s, cfgs, func(c ptx.GemmConfig) error { return s.Kernels.Prepare(g, c) })
}

// Load runs load on each of cfgs from all cores but one, each with the
// session's context current (the JIT is the cost), and returns the
// configurations it loaded without an error, in order.
func Load[C any](s *Session, cfgs []C, load func(C) error) []C {
	ok := make([]bool, len(cfgs))
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < max(1, runtime.NumCPU()-1); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			s.Ctx.SetCurrent()
			for i := range next {
				ok[i] = load(cfgs[i]) == nil
			}
		}()
	}
	for i := range cfgs {
		next <- i
	}
	close(next)
	wg.Wait()
	var out []C
	for i, c := range cfgs {
		if ok[i] {
			out = append(out, c)
		}
	}
	return out
}

// Median runs run once untimed (a first call may load modules), then times
// it repeats times and returns the median (the first timed run alone when
// it takes over 10 ms: a long run's median needs no repeats).
func (s *Session) Median(run func() error, repeats int) (float64, error) {
	if err := run(); err != nil {
		return 0, err
	}
	ts := make([]float64, 0, repeats)
	for r := 0; r < repeats; r++ {
		us, err := s.Timer.Time(run)
		if err != nil {
			return 0, err
		}
		ts = append(ts, us)
		if us > 10_000 {
			return us, nil
		}
	}
	sort.Float64s(ts)
	return ts[len(ts)/2], nil
}
