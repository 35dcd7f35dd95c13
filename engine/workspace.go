package engine

import (
	"sync"

	"github.com/isaacgo/isaac/shim/cuda"
)

// workspaceKeep is how many bytes of split-K workspace each device's pool
// keeps reserved across synchronizations. A workspace is at most KG·M·N
// elements and lives only for one call, so this bounds what the engine
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
func (info *deviceInfo) allocWorkspace(bytes int, s cuda.Stream) (cuda.DevicePtr, error) {
	w := &info.workspace
	w.once.Do(func() { w.pool, w.err = cuda.NewMemPool(info.dev, workspaceKeep) })
	if w.err != nil {
		// No pool of our own (a driver without cuMemPoolCreate): the
		// default pool is slower but correct.
		return cuda.AllocAsync(bytes, s)
	}
	return w.pool.AllocAsync(bytes, s)
}
