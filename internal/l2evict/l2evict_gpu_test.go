package l2evict

import (
	"encoding/binary"
	"slices"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
)

// TestGPUReadReadsEverything plants one word in a zero buffer and checks
// that the kernel folds it (the sink receives it when it equals the magic),
// wherever it sits: the grid-stride loop covers the whole buffer, its last
// vector included.
func TestGPUReadReadsEverything(t *testing.T) {
	gemmcheck.GPUThread(t)
	r, err := NewReader()
	if err != nil {
		t.Fatal(err)
	}
	stream := cuda.Stream(0)
	const n = 3<<20 + 4 // 16-byte vectors: more than one grid-stride pass
	buf, err := cuda.Alloc(16 * n)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	for _, at := range []int{0, 5, n/2 + 3, n - 1} {
		if err := buf.MemsetD32Async(0, 4*n, stream); err != nil {
			t.Fatal(err)
		}
		if err := r.sink.MemsetD32Async(0, 1, stream); err != nil {
			t.Fatal(err)
		}
		word := uint32(0x5a00 + at%251)
		if err := (buf + cuda.DevicePtr(16*at+8)).MemsetD32Async(word, 1, stream); err != nil {
			t.Fatal(err)
		}
		var p cuda.Params
		p.Ptr(uintptr(buf)).U64(n).Ptr(uintptr(r.sink)).U32(word)
		if err := cuda.Launch(r.fn, cuda.Dim3{r.blocks, 1, 1}, cuda.Dim3{256, 1, 1}, 0, stream, &p); err != nil {
			t.Fatal(err)
		}
		if err := stream.Synchronize(); err != nil {
			t.Fatal(err)
		}
		got := make([]byte, 4)
		if err := r.sink.CopyToHost(got); err != nil {
			t.Fatal(err)
		}
		if v := binary.LittleEndian.Uint32(got); v != word {
			t.Errorf("word planted at vector %d of %d: sink %#x, want %#x", at, n, v, word)
		}
	}
}

// TestGPUEvictor: an Evictor's buffer is twice the L2, its reads leave the
// sink alone (the buffer folds to 0, never the magic 1), and they run on
// the stream given without error.
func TestGPUEvictor(t *testing.T) {
	gemmcheck.GPUThread(t)
	stream := cuda.Stream(0)
	e, err := NewEvictor(stream)
	if err != nil {
		t.Fatal(err)
	}
	dev, err := cuda.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := dev.Attribute(cuda.AttrL2CacheSize)
	if err != nil {
		t.Fatal(err)
	}
	if e.Bytes() < 2*l2-63 || e.Bytes()%64 != 0 {
		t.Errorf("buffer %d bytes for an L2 of %d", e.Bytes(), l2)
	}
	if err := e.sink.MemsetD32Async(7, 1, stream); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if err := e.Evict(stream); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Synchronize(); err != nil {
		t.Fatal(err)
	}
	got := make([]byte, 4)
	if err := e.sink.CopyToHost(got); err != nil {
		t.Fatal(err)
	}
	if v := binary.LittleEndian.Uint32(got); v != 7 {
		t.Errorf("sink %d after the evictions, want it untouched (7)", v)
	}
}

// TestGPUEvictorEvicts: a buffer that fits in L2, read again right after
// a read, comes from L2; read after Evict, from memory: the second read
// then takes markedly longer (medians of 7).
func TestGPUEvictorEvicts(t *testing.T) {
	gemmcheck.GPUThread(t)
	stream := cuda.Stream(0)
	e, err := NewEvictor(stream)
	if err != nil {
		t.Fatal(err)
	}
	const bytes = 20 << 20 // within every L2 this package evicts (sm_80 and later: 40 MB and more)
	buf, err := cuda.Alloc(bytes)
	if err != nil {
		t.Fatal(err)
	}
	defer buf.Free()
	if err := buf.MemsetD32Async(3, bytes/4, stream); err != nil {
		t.Fatal(err)
	}
	var ev [2]cuda.Event
	for i := range ev {
		if ev[i], err = cuda.NewEvent(); err != nil {
			t.Fatal(err)
		}
	}
	timed := func(evict bool) float64 {
		var us []float64
		for range 7 {
			if err := e.Read(stream, buf, bytes); err != nil { // into L2
				t.Fatal(err)
			}
			if evict {
				if err := e.Evict(stream); err != nil {
					t.Fatal(err)
				}
			}
			if err := ev[0].Record(stream); err != nil {
				t.Fatal(err)
			}
			if err := e.Read(stream, buf, bytes); err != nil {
				t.Fatal(err)
			}
			if err := ev[1].Record(stream); err != nil {
				t.Fatal(err)
			}
			if err := ev[1].Synchronize(); err != nil {
				t.Fatal(err)
			}
			ms, err := ev[1].Elapsed(ev[0])
			if err != nil {
				t.Fatal(err)
			}
			us = append(us, float64(ms)*1000)
		}
		slices.Sort(us)
		return us[len(us)/2]
	}
	warm, cold := timed(false), timed(true)
	t.Logf("reading %d MB: %.1f µs from L2, %.1f µs after Evict", bytes>>20, warm, cold)
	if cold < 1.3*warm {
		t.Errorf("read after Evict %.1f µs, from L2 %.1f µs: L2 not evicted", cold, warm)
	}
}
