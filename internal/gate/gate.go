// Package gate holds a stream until the host releases it, so that a call
// queued behind the hold starts on the GPU only once the host has queued
// all of it: timing events around the call then enclose the GPU's work
// alone, not the host's time to enqueue it (a vendor library chooses its
// kernel on the host, for tens of microseconds and on some calls more).
// Its kernel (wait.ptx) is one thread polling a word in device memory
// until it holds the hold's token, written from a stream of the gate's own
// at Release, or until a time limit passes: a call that waits on its own
// stream inside the held region gets a wrong time, never a hang.
// devbench's blocking timers and the server's check hold with it.
package gate

import (
	_ "embed"
	"sync"

	"github.com/isaacgo/isaac/internal/cuda"
)

// PTX is the wait kernel, Entry its name: isaac_wait(u64 flag, u32 token,
// u64 limit_ns) polls the 32-bit word at flag (ld.volatile, a 200 ns sleep
// between reads) until it equals token or limit_ns have passed on the
// global timer.
//
//go:embed wait.ptx
var PTX string

// Entry is PTX's kernel.
const Entry = "isaac_wait"

// slots is how many holds may be open at once (each waits on a word of
// its own): one per thread of the caller that times calls concurrently.
const slots = 64

// Gate is the wait kernel loaded in the context current when it was made,
// with its flag words and release stream. Its methods may be called from
// several goroutines at once, with that context current.
type Gate struct {
	module  cuda.Module
	fn      cuda.Function
	flags   cuda.DevicePtr // slots words, each 0 until its first release
	release cuda.Stream    // non-blocking: the release never waits on the held stream

	mu    sync.Mutex
	token uint32
}

// Hold is an open hold: its slot and token.
type Hold struct {
	slot  int
	token uint32
}

// New loads the kernel in the current context, with its flags and its
// release stream.
func New() (*Gate, error) {
	g := &Gate{}
	var err error
	if g.module, _, err = cuda.LoadPTX(PTX, 0); err != nil {
		return nil, err
	}
	if g.fn, err = g.module.Function(Entry); err != nil {
		return nil, err
	}
	if g.flags, err = cuda.Alloc(4 * slots); err != nil {
		return nil, err
	}
	if g.release, err = cuda.NewStream(); err != nil {
		return nil, err
	}
	if err := g.flags.MemsetD32Async(0, slots, g.release); err != nil {
		return nil, err
	}
	return g, g.release.Synchronize()
}

// Hold queues the wait kernel on stream, holding it until Release(h) or
// until limitNS nanoseconds have passed on the GPU. Every hold must be
// released, whatever happens to the work queued behind it.
func (g *Gate) Hold(stream cuda.Stream, limitNS uint64) (Hold, error) {
	g.mu.Lock()
	g.token++
	if g.token == 0 {
		g.token = 1 // the flags' initial value
	}
	h := Hold{slot: int(g.token % slots), token: g.token}
	g.mu.Unlock()
	var p cuda.Params
	p.Ptr(uintptr(g.flags) + uintptr(4*h.slot)).U32(h.token).U64(limitNS)
	return h, cuda.Launch(g.fn, cuda.Dim3{1, 1, 1}, cuda.Dim3{1, 1, 1}, 0, stream, &p)
}

// Release lets the stream held by h go on: its token written to its slot
// from the gate's own stream.
func (g *Gate) Release(h Hold) error {
	return (g.flags + cuda.DevicePtr(4*h.slot)).MemsetD32Async(h.token, 1, g.release)
}
