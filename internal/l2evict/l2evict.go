// Package l2evict empties the GPU's L2 cache of a call's data before the
// call is timed, so that the call reads its operands from memory as it
// does when other work ran between two of its calls. Its kernel
// (l2_read.ptx) reads a buffer through L2 in 16-byte vectors; read over
// twice the L2's size it leaves the cache full of that buffer's clean
// lines: the next call misses on all of its operands and writes back no
// line that is not its own. devbench's timers flush with it (FlushRead),
// and the server's check evicts with it before each timed sample.
package l2evict

import (
	_ "embed"
	"math/rand/v2"

	"github.com/isaacgo/isaac/internal/cuda"
)

// PTX is the read kernel, Entry its name: isaac_l2_read(u64 buf, u64 n,
// u64 sink, u32 magic) reads n 16-byte vectors from buf, every thread of a
// grid-stride loop four independent ones per iteration (vectors i, i+S,
// i+2S, i+3S for S threads, 64 bytes in flight a thread, through L2:
// ld.global.cg), folds them into one word and stores it to sink only if
// it equals magic, so the loads cannot be removed and nothing else is
// written.
//
//go:embed l2_read.ptx
var PTX string

// Entry is PTX's kernel.
const Entry = "isaac_l2_read"

// Reader is the read kernel loaded in the current context.
type Reader struct {
	module cuda.Module
	fn     cuda.Function
	sink   cuda.DevicePtr
	blocks uint32
}

// NewReader loads the kernel in the current context, with its sink and a
// grid of 8 blocks of 256 threads per SM.
func NewReader() (*Reader, error) {
	r := &Reader{}
	var err error
	if r.module, _, err = cuda.LoadPTX(PTX, 0); err != nil {
		return nil, err
	}
	if r.fn, err = r.module.Function(Entry); err != nil {
		return nil, err
	}
	sms, err := attribute(cuda.AttrMultiprocessorCount)
	if err != nil {
		return nil, err
	}
	r.blocks = uint32(8 * sms)
	if r.sink, err = cuda.Alloc(256); err != nil {
		return nil, err
	}
	return r, nil
}

// Read queues the kernel over the first bytes (rounded up to 16) of buf on
// stream: every byte read once through L2. buf must not fold to the magic
// 1, so that the sink is never written: a buffer of one odd word repeated
// folds to 0 over any multiple of 64 bytes (as Evictor's does).
// Read may be called from several goroutines at once.
func (r *Reader) Read(stream cuda.Stream, buf cuda.DevicePtr, bytes int) error {
	var p cuda.Params
	p.Ptr(uintptr(buf)).U64(uint64((bytes + 15) / 16)).Ptr(uintptr(r.sink)).U32(1)
	return cuda.Launch(r.fn, cuda.Dim3{r.blocks, 1, 1}, cuda.Dim3{256, 1, 1}, 0, stream, &p)
}

// Evictor is a Reader with a buffer twice the L2's size, in the context
// current when it was made.
type Evictor struct {
	*Reader
	buf   cuda.DevicePtr
	bytes int
}

// NewEvictor allocates the buffer (twice the current device's L2, at
// least 4 MiB) and fills it on stream with one odd word.
func NewEvictor(stream cuda.Stream) (*Evictor, error) {
	l2, err := attribute(cuda.AttrL2CacheSize)
	if err != nil {
		return nil, err
	}
	r, err := NewReader()
	if err != nil {
		return nil, err
	}
	e := &Evictor{Reader: r, bytes: max(2*l2, 4<<20) &^ 63}
	if e.buf, err = cuda.Alloc(e.bytes); err != nil {
		return nil, err
	}
	if err := e.buf.MemsetD32Async(rand.Uint32()|1, e.bytes/4, stream); err != nil {
		e.buf.Free()
		return nil, err
	}
	return e, nil
}

// Bytes is the buffer's size.
func (e *Evictor) Bytes() int { return e.bytes }

// Evict queues the read of the whole buffer on stream.
func (e *Evictor) Evict(stream cuda.Stream) error { return e.Read(stream, e.buf, e.bytes) }

// attribute is an attribute of the current context's device.
func attribute(a cuda.DeviceAttribute) (int, error) {
	dev, err := cuda.CurrentDevice()
	if err != nil {
		return 0, err
	}
	return dev.Attribute(a)
}
