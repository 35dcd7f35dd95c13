package kernels

import (
	"fmt"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/gemmcheck"
	"github.com/isaacgo/isaac/ptx"
)

// streamCase is one one-pass split-K case with its data on the device.
type streamCase struct {
	cfg ptx.GemmConfig
	c   gemmcheck.Case
	d   *gemmcheck.Data
	b   *gemmcheck.Buffers
}

// uploadOnePassCases puts onePassCases on the device, with seeds moved by
// seed; free them with freeStreamCases.
func uploadOnePassCases(seed uint64) ([]streamCase, error) {
	var cs []streamCase
	for _, tc := range onePassCases {
		cfg, err := ptx.ParseConfig(tc.cfg)
		if err != nil {
			freeStreamCases(cs)
			return nil, err
		}
		c := tc.c
		c.Seed += seed
		d := gemmcheck.NewData(c)
		b, err := gemmcheck.Upload(c, d)
		if err != nil {
			freeStreamCases(cs)
			return nil, err
		}
		cs = append(cs, streamCase{cfg, c, d, b})
	}
	return cs, nil
}

func freeStreamCases(cs []streamCase) {
	for _, sc := range cs {
		sc.b.Free()
	}
}

// runStreamCases runs the cases in turn on s, rounds times, and checks
// every result against the reference and against the same case's first.
func runStreamCases(cs []streamCase, s cuda.Stream, rounds int) error {
	first := make([][]float64, len(cs))
	for r := 0; r < rounds; r++ {
		for i, sc := range cs {
			if err := sc.b.ResetC(); err != nil {
				return err
			}
			if err := testRT.Gemm(sc.b.Request(s), sc.cfg); err != nil {
				return fmt.Errorf("%s: %v", sc.cfg, err)
			}
			got, err := sc.b.ReadC(s)
			if err != nil {
				return err
			}
			if res := sc.d.Check(sc.c, got); res.Bad > 0 {
				return fmt.Errorf("%s %v round %d: %d wrong, first %s", sc.cfg, sc.c, r, res.Bad, res.FirstBad)
			}
			if first[i] == nil {
				first[i] = got
			} else if !slices.Equal(first[i], got) {
				return fmt.Errorf("%s %v: round %d differs from round 0", sc.cfg, sc.c, r)
			}
		}
	}
	return nil
}

// TestGPUStreamWorkspace runs the one-pass split-K cases one after another on
// one stream, three rounds: their shapes and tile counts differ, so each
// call's partials overwrite memory where the previous call's were and its
// counters are the ones the previous calls left. Every result must be exact
// and identical to the same case's first, which holds only if every kernel
// leaves its counters zero. The stream must then keep one workspace, with
// counters for the largest case. Then two streams, each in its own thread,
// run the cases at the same time on different data: each stream has a
// workspace of its own, so neither sees the other's partials or counters.
func TestGPUStreamWorkspace(t *testing.T) {
	ctx := gemmcheck.GPUThread(t)
	ctxID, err := ctx.ID()
	if err != nil {
		t.Fatal(err)
	}
	s, err := cuda.NewStream()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Destroy()
	cs, err := uploadOnePassCases(0)
	if err != nil {
		t.Fatal(err)
	}
	defer freeStreamCases(cs)
	if err := runStreamCases(cs, s, 3); err != nil {
		t.Fatal(err)
	}
	id, err := s.ID()
	if err != nil {
		t.Fatal(err)
	}
	v, ok := testRT.streams.Load(streamKey{ctxID, id})
	if !ok {
		t.Fatal("the stream kept no workspace")
	}
	w := v.(*streamWorkspace)
	words, bytes := 0, 0
	for _, sc := range cs {
		k, err := ptx.GenerateGemm(sc.cfg, sc.c.Class(), "sm_90")
		if err != nil {
			t.Fatal(err)
		}
		words = max(words, k.Counters(sc.c.M, sc.c.N))
		bytes = max(bytes, k.WorkspaceBytes(sc.c.M, sc.c.N, sc.c.K))
	}
	if w.ws == 0 || w.ctrs == 0 || w.words < words || w.bytes < bytes {
		t.Fatalf("kept workspace %d bytes, %d counters; the cases need %d and %d", w.bytes, w.words, bytes, words)
	}
	t.Logf("one stream, %d cases × 3 rounds: exact and identical; kept %d bytes and %d counters", len(cs), w.bytes, w.words)

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			if errs[i] = ctx.SetCurrent(); errs[i] != nil {
				return
			}
			s, err := cuda.NewStream()
			if err != nil {
				errs[i] = err
				return
			}
			defer s.Destroy()
			cs, err := uploadOnePassCases(uint64(100 * (i + 1)))
			if err != nil {
				errs[i] = err
				return
			}
			defer freeStreamCases(cs)
			errs[i] = runStreamCases(cs, s, 3)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("stream %d of 2: %v", i, err)
		}
	}
}
