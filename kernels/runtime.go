// Package kernels is ISAAC's kernel runtime: it generates a configuration's
// GEMM kernel (package ptx), compiles and loads it in the caller's current
// context once, keeps compiled images on disk for later processes, and
// launches kernels on a request's stream with their split-K workspaces and
// tensor maps. What to run is decided elsewhere (package serve for the
// shim, the tools for themselves).
//
// A split-K kernel's workspace (partial tiles and arrival counters) is kept
// per stream and reused from call to call, so such a call puts only its
// kernels on the stream; on a stream being captured into a graph each call
// takes a workspace of its own, in stream order (the graph's allocation).
package kernels

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// Runtime generates, compiles, keeps and launches kernels in the callers'
// contexts. Its state (devices, loaded kernels, the streams' workspaces,
// counters) lives in the value: the shim keeps one for the process, a tool
// or a test makes its own. It is safe for concurrent use from many threads
// and contexts.
type Runtime struct {
	cacheDir string   // compiled images are kept under it ("": nowhere)
	devices  sync.Map // cuda.Device → *Device
	kernels  sync.Map // kernelKey → *Kernel
	specs    sync.Map // specKey → *Kernel: generated kernels by what determines their code
	streams  sync.Map // streamKey → *streamWorkspace

	statsMu sync.Mutex
	stats   Stats

	// loading is held for reading by each kernel load (JIT and module
	// load), for writing by Close; closed: no load after Close. jits are
	// the slots of the loads under way (DefaultLoads at once in the shim,
	// so that Close waits for a few, not for every decision's).
	loading sync.RWMutex
	closed  bool
	jits    chan struct{}

	compiledOnce sync.Once
	onCompiled   atomic.Pointer[func()] // AfterFirstCompile's f

	// dependent is how a kernel after its NHWC copies' transposes is
	// launched (SetDependentLaunch), stored as a DependentLaunch.
	dependent atomic.Int32

	// wsMoves counts the moves of the streams' kept workspaces, onMove is
	// called before each (WorkspaceMoves, OnWorkspaceMove).
	wsMoves atomic.Uint64
	onMove  atomic.Pointer[func(uint64)]
}

// DependentLaunch is how LaunchConvNHWC launches a kernel that runs on the
// NHWC copies without a grid split, after the transposes that make them.
type DependentLaunch int32

const (
	// DependentAtEnd: as a programmatic dependent of transposes that do
	// not trigger it (ptx.TriggerAtEnd): its blocks are scheduled as
	// theirs end, the launch's latency hidden.
	DependentAtEnd DependentLaunch = iota
	// DependentAtStart: as a programmatic dependent of the transposes,
	// which let it be scheduled once each of their blocks has started
	// (ptx.TriggerAtStart); its blocks wait on the SMs beside the last
	// of theirs, which on some layers slows those (docs/method.md).
	DependentAtStart
	// DependentOff: plainly, after the transposes in the stream.
	DependentOff
)

// DefaultDependentLaunch is New's DependentLaunch (the zero value).
const DefaultDependentLaunch = DependentAtEnd

func (d DependentLaunch) String() string {
	switch d {
	case DependentAtStart:
		return "at start"
	case DependentAtEnd:
		return "at end"
	case DependentOff:
		return "off"
	}
	return fmt.Sprintf("DependentLaunch(%d)", int32(d))
}

// SetDependentLaunch says how a kernel that runs on the NHWC copies
// (LaunchConvNHWC) is launched after the transposes before it (under
// DependentAtStart, one with a grid split plainly) (DefaultDependentLaunch unless told otherwise; ISAAC_PDL
// chooses, and benchmarks compare them).
func (rt *Runtime) SetDependentLaunch(d DependentLaunch) { rt.dependent.Store(int32(d)) }

// dependentLaunch is SetDependentLaunch's value.
func (rt *Runtime) dependentLaunch() DependentLaunch { return DependentLaunch(rt.dependent.Load()) }

// DefaultLoads is how many kernels a runtime compiles and loads at once
// unless told otherwise: the decisions made in the background of a
// program's first calls (hundreds in a ResNet's first forward) each load
// theirs; at exit, Close waits for those under way.
const DefaultLoads = 4

// New is a runtime that keeps compiled kernel images under cacheDir (""
// keeps none) and compiles DefaultLoads kernels at once.
func New(cacheDir string) *Runtime { return NewLoading(cacheDir, DefaultLoads) }

// NewLoading is New compiling and loading up to loads kernels at once
// (at least one): a tool that compiles thousands of configurations gives
// it the cores it has, since the driver's JIT of one kernel runs on one.
func NewLoading(cacheDir string, loads int) *Runtime {
	rt := &Runtime{cacheDir: cacheDir, jits: make(chan struct{}, max(1, loads))}
	rt.SetDependentLaunch(DefaultDependentLaunch)
	return rt
}

// Stats counts what the kernel cache did, for tests and ISAAC_LOG.
type Stats struct {
	Generated, DiskHits, Compiled int
}

// Stats returns the kernel cache's counters.
func (rt *Runtime) Stats() Stats {
	rt.statsMu.Lock()
	defer rt.statsMu.Unlock()
	return rt.stats
}

func (rt *Runtime) count(f func(*Stats)) {
	rt.statsMu.Lock()
	f(&rt.stats)
	rt.statsMu.Unlock()
}

// Errors that say why a GEMM was not launched.
var (
	ErrNoContext   = errors.New("kernels: no current CUDA context")
	ErrUnsupported = errors.New("kernels: input not served by the kernel family")
	ErrClosed      = errors.New("kernels: the runtime is closed (the process is exiting)")
)

// Device is what the runtime knows about a device, read once.
type Device struct {
	Dev    cuda.Device
	Limits ptx.DeviceLimits
	Pools  bool // stream-ordered allocation (cuMemAllocAsync) is supported

	workspace workspacePool
	kept      atomic.Int64 // bytes of the streams' kept workspaces (streamWorkspace)
}

func (rt *Runtime) device(d cuda.Device) (*Device, error) {
	if v, ok := rt.devices.Load(d); ok {
		return v.(*Device), nil
	}
	attr := func(a cuda.DeviceAttribute, dst *int, err *error) {
		if *err == nil {
			*dst, *err = d.Attribute(a)
		}
	}
	var err error
	var l ptx.DeviceLimits
	var pools, reserved int
	attr(cuda.AttrComputeCapabilityMajor, &l.SMMajor, &err)
	attr(cuda.AttrComputeCapabilityMinor, &l.SMMinor, &err)
	attr(cuda.AttrMaxThreadsPerBlock, &l.MaxThreadsPerBlock, &err)
	attr(cuda.AttrMaxSharedPerBlockOptin, &l.MaxSharedPerBlockOptin, &err)
	attr(cuda.AttrMaxSharedPerSM, &l.MaxSharedPerSM, &err)
	attr(cuda.AttrMaxRegistersPerSM, &l.RegistersPerSM, &err)
	attr(cuda.AttrMaxRegistersPerBlock, &l.RegistersPerBlock, &err)
	attr(cuda.AttrMultiprocessorCount, &l.SMCount, &err)
	attr(cuda.AttrMemoryPoolsSupported, &pools, &err)
	attr(cuda.AttrReservedSharedPerBlock, &reserved, &err)
	if err != nil {
		return nil, err
	}
	l.MaxRegistersPerThread = 255
	// The per-SM budget also holds each block's reserved shared memory.
	l.MaxSharedPerSM -= reserved
	v, _ := rt.devices.LoadOrStore(d, &Device{Dev: d, Limits: l, Pools: pools != 0})
	return v.(*Device), nil
}

// Target is where a request runs: the calling thread's current context (by
// its ID, unique in the process), its device, and the request's input
// class.
type Target struct {
	Ctx   uint64
	Dev   *Device
	Class ptx.InputClass
	// Record, where set, has the launch functions record their launches
	// into it rather than make them (Recording).
	Record *Recording
}

// Target finds g's target in the calling thread's current context.
func (rt *Runtime) Target(g *request.Gemm) (Target, error) {
	dev, ctx, err := rt.current()
	if err != nil {
		return Target{}, err
	}
	in, err := space.Class(g)
	if err != nil {
		return Target{}, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return Target{Ctx: ctx, Dev: dev, Class: in}, nil
}

// current is the current context's device and ID.
func (rt *Runtime) current() (*Device, uint64, error) {
	ctx, id, d, err := cuda.Current()
	if err != nil {
		return nil, 0, err
	}
	if ctx == 0 {
		return nil, 0, ErrNoContext
	}
	dev, err := rt.device(d)
	if err != nil {
		return nil, 0, err
	}
	if err := dev.Limits.Supported(); err != nil {
		return nil, 0, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return dev, id, nil
}

// Limits are the current context's device limits, as ptx.Legal takes them.
func (rt *Runtime) Limits() (ptx.DeviceLimits, error) {
	dev, _, err := rt.current()
	if err != nil {
		return ptx.DeviceLimits{}, err
	}
	return dev.Limits, nil
}

// Close stops the runtime loading kernels: a load under way finishes,
// every later one fails with ErrClosed. It waits at most wait for the
// loads under way and reports whether they finished. A process that exits
// while another thread is inside the driver's JIT can have its heap
// corrupted by the CUDA runtime's teardown: the shim closes the runtime at
// exit, before that teardown.
func (rt *Runtime) Close(wait time.Duration) bool {
	done := make(chan struct{})
	go func() {
		rt.loading.Lock()
		rt.closed = true
		rt.loading.Unlock()
		close(done)
	}()
	select {
	case <-done:
		return true
	case <-time.After(wait):
		return false
	}
}

// AfterFirstCompile has the runtime call f once, after the first kernel
// it compiles (a kernel found on disk is not compiled). The driver loads
// its PTX compiler at its first JIT: the shim registers its exit handler
// again then, so that the handler runs before the compiler's own exit
// code (handlers run last registered, first run).
func (rt *Runtime) AfterFirstCompile(f func()) { rt.onCompiled.Store(&f) }
