package gemmcheck

import (
	"fmt"
	"runtime"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/request"
)

// Buffers are a case's device buffers, in the current context.
type Buffers struct {
	A, B, C   cuda.DevicePtr
	Scalars   cuda.DevicePtr // alpha, beta (compute type) for device pointer mode
	c         Case
	initialC  []byte
	allocated []cuda.DevicePtr
}

// Upload allocates and fills a case's buffers.
func Upload(c Case, d *Data) (*Buffers, error) { return upload(c, d) }

// upload fills buffers of c's types and scalars with d's stored inputs
// (one matrix's, or a batch's).
func upload(c Case, d *Data) (*Buffers, error) {
	b := &Buffers{c: c}
	put := func(t request.DataType, vals []float64) (cuda.DevicePtr, []byte, error) {
		bytes := Encode(t, vals)
		p, err := cuda.Alloc(max(len(bytes), 16))
		if err != nil {
			return 0, nil, err
		}
		b.allocated = append(b.allocated, p)
		return p, bytes, p.CopyFromHost(bytes)
	}
	var err error
	if b.A, _, err = put(c.Type.AB, d.A); err != nil {
		b.Free()
		return nil, err
	}
	if b.B, _, err = put(c.Type.AB, d.B); err != nil {
		b.Free()
		return nil, err
	}
	if b.C, b.initialC, err = put(c.Type.C, d.C0); err != nil {
		b.Free()
		return nil, err
	}
	ab, size := ScalarBits(c.Type.Compute(), c.Alpha)
	bb, _ := ScalarBits(c.Type.Compute(), c.Beta)
	raw := make([]byte, 2*size)
	for i := 0; i < size; i++ {
		raw[i] = byte(ab >> (8 * i))
		raw[size+i] = byte(bb >> (8 * i))
	}
	if b.Scalars, err = cuda.Alloc(16); err != nil {
		b.Free()
		return nil, err
	}
	b.allocated = append(b.allocated, b.Scalars)
	return b, b.Scalars.CopyFromHost(raw)
}

// ResetC restores C's initial contents (before running another
// implementation on the same buffers).
func (b *Buffers) ResetC() error { return b.C.CopyFromHost(b.initialC) }

// Free releases the buffers.
func (b *Buffers) Free() {
	for _, p := range b.allocated {
		p.Free()
	}
	b.allocated = nil
}

// Request is the GEMM request of the case on these buffers and stream, as
// the shim would build it from a cuBLAS call.
func (b *Buffers) Request(stream cuda.Stream) *request.Gemm {
	return b.c.RequestAt(uintptr(b.A), uintptr(b.B), uintptr(b.C), uintptr(b.Scalars), uintptr(stream))
}

// ReadC synchronizes the stream and returns C's stored contents.
func (b *Buffers) ReadC(stream cuda.Stream) ([]float64, error) {
	if err := stream.Synchronize(); err != nil {
		return nil, fmt.Errorf("after the GEMM: %w", err)
	}
	raw := make([]byte, len(b.initialC))
	if err := b.C.CopyToHost(raw); err != nil {
		return nil, err
	}
	return Decode(b.c.Type.C, raw), nil
}

// GPUContext skips t without a CUDA driver or device; otherwise it retains
// device 0's primary context and returns it (the caller makes it current
// on its locked thread).
func GPUContext(t testing.TB) cuda.Context {
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

// OnThreads runs f(0), …, f(n-1) on workers locked threads, each with ctx
// current (kernels compiled ahead of a test's cases, from many threads);
// a thread that cannot make ctx current fails t and runs nothing. stop,
// when not nil, is asked before each index is handed out: true leaves the
// rest undone.
func OnThreads(t testing.TB, ctx cuda.Context, workers, n int, stop func() bool, f func(i int)) {
	queue := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if err := ctx.SetCurrent(); err != nil {
				t.Error(err)
				for range queue {
				}
				return
			}
			for i := range queue {
				f(i)
			}
		}()
	}
	for i := range n {
		if stop != nil && stop() {
			break
		}
		queue <- i
	}
	close(queue)
	wg.Wait()
}

// GPUThread is GPUContext for a test that works on its own goroutine: it
// locks the goroutine to its thread until t ends and makes the context
// current there.
func GPUThread(t testing.TB) cuda.Context {
	t.Helper()
	ctx := GPUContext(t)
	runtime.LockOSThread()
	t.Cleanup(runtime.UnlockOSThread)
	if err := ctx.SetCurrent(); err != nil {
		t.Fatal(err)
	}
	return ctx
}
