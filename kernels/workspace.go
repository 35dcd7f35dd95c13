package kernels

import (
	"errors"
	"sync"

	"github.com/isaacgo/isaac/internal/cuda"
)

// workspaceKeep is how many bytes of split-K workspace each device's pool
// keeps reserved across synchronizations. A workspace is at most KG·M·N
// elements and lives only for one call, so this bounds what the runtime
// holds on to, not what a call may use.
const workspaceKeep = 256 << 20

// workspacePool is a device's pool for split-K workspaces, created at the
// first split-K launch on the device. The device's default pool releases its
// memory at every synchronization, so a workspace taken from it is mapped
// again on the next call; that cost tens of microseconds per call.
type workspacePool struct {
	once sync.Once
	pool cuda.MemPool
	err  error
}

// allocWorkspace takes bytes from dev's workspace pool in stream order (legal
// during graph capture); free it with FreeAsync on the same stream.
func (dev *Device) allocWorkspace(bytes int, s cuda.Stream) (cuda.DevicePtr, error) {
	w := &dev.workspace
	w.once.Do(func() { w.pool, w.err = cuda.NewMemPool(dev.Dev, workspaceKeep) })
	if w.err != nil {
		// No pool of our own (a driver without cuMemPoolCreate): the
		// default pool is slower but correct.
		return cuda.AllocAsync(bytes, s)
	}
	return w.pool.AllocAsync(bytes, s)
}

// Limits of the workspaces kept per stream (streamWorkspace). A call whose
// workspace or counters exceed them, or that would take a device's kept
// total past streamKeepPerDevice, gets a workspace of its own instead.
const (
	streamWorkspaceMax  = 64 << 20 // bytes of partial tiles one stream keeps
	streamCountersMax   = 1 << 16  // arrival counters one stream keeps
	streamKeepPerDevice = 512 << 20
)

// streamWorkspace is the split-K workspace a stream keeps from call to call:
// the partial tiles and the one-pass kernels' arrival counters. The kernels
// of one stream run one after another, so they can share it, and a one-pass
// kernel leaves its counters zero, so they are zeroed once, when made, not
// before every call: a split-K call then puts nothing on the stream but its
// kernels (the alternative, a workspace per call, adds a stream-ordered
// allocation, a memset and a free to every call's GPU time).
//
// Streams are told apart by their ID (cuStreamGetId), never reused within
// a process, so a new stream that takes a destroyed one's handle cannot
// meet work of the old one still running. The lock is held from lookup to
// launch, so a call from another thread on the same stream cannot free the
// memory between a launch's lookup and its enqueueing.
type streamWorkspace struct {
	mu    sync.Mutex
	ws    cuda.DevicePtr
	bytes int
	ctrs  cuda.DevicePtr
	words int
}

type streamKey struct{ ctx, stream uint64 }

// streamWorkspaceFor returns s's kept workspace, locked, grown to bytes and
// words when needed, or nil when the call must use a workspace of its own:
// s is being captured into a graph (a graph replayed later, maybe on another
// stream, must not share memory with the stream's direct calls), its ID is
// unknown, the sizes are over the limits, or an allocation failed.
func (rt *Runtime) streamWorkspaceFor(t Target, s cuda.Stream, bytes, words int) *streamWorkspace {
	if bytes > streamWorkspaceMax || words > streamCountersMax {
		return nil
	}
	if s.Capturing() {
		return nil
	}
	id, err := s.ID()
	if err != nil {
		return nil
	}
	key := streamKey{t.Ctx, id}
	v, ok := rt.streams.Load(key)
	if !ok {
		v, _ = rt.streams.LoadOrStore(key, new(streamWorkspace))
	}
	w := v.(*streamWorkspace)
	w.mu.Lock()
	if w.bytes >= bytes && w.words >= words {
		return w
	}
	if w.ws != 0 || w.ctrs != 0 {
		// The old memory will be freed: launches recorded on it are
		// dropped first.
		n := rt.wsMoves.Add(1)
		if f := rt.onMove.Load(); f != nil {
			(*f)(n)
		}
	}
	if err := t.Dev.growStreamWorkspace(w, bytes, words, s); err != nil {
		w.mu.Unlock()
		return nil
	}
	return w
}

// growStreamWorkspace replaces w's buffers by ones of at least bytes and
// words (rounded up to powers of two, so a stream whose calls grow slowly
// reallocates rarely), in s's order: the old buffers are freed after the
// calls already on s, the new counters zeroed before the next.
func (dev *Device) growStreamWorkspace(w *streamWorkspace, bytes, words int, s cuda.Stream) error {
	nb, nw := w.bytes, w.words
	if bytes > nb {
		nb = nextPow2(max(bytes, 1<<20))
	}
	if words > nw {
		nw = nextPow2(max(words, 1024))
	}
	add := int64(nb-w.bytes) + 4*int64(nw-w.words)
	if dev.kept.Add(add) > streamKeepPerDevice {
		dev.kept.Add(-add)
		return errKeepFull
	}
	ws, ctrs := w.ws, w.ctrs
	var err error
	if nb != w.bytes {
		if ws, err = dev.allocWorkspace(nb, s); err != nil {
			dev.kept.Add(-add)
			return err
		}
	}
	if nw != w.words {
		if ctrs, err = dev.allocWorkspace(4*nw, s); err == nil {
			err = ctrs.MemsetD32Async(0, nw, s)
		}
		if err != nil {
			if ws != w.ws {
				ws.FreeAsync(s)
			}
			dev.kept.Add(-add)
			return err
		}
	}
	if ws != w.ws && w.ws != 0 {
		w.ws.FreeAsync(s)
	}
	if ctrs != w.ctrs && w.ctrs != 0 {
		w.ctrs.FreeAsync(s)
	}
	w.ws, w.bytes, w.ctrs, w.words = ws, nb, ctrs, nw
	return nil
}

var errKeepFull = errors.New("kernels: the device keeps as much stream workspace as it may")

func nextPow2(n int) int {
	p := 1
	for p < n {
		p <<= 1
	}
	return p
}
