package gemmcheck_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/isaacgo/isaac/internal/gemmcheck"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// An Implementation is a GEMM implementation under test: ISAAC's kernels,
// its server, its C ABI, or the vendor's library. Conformance runs the same
// table through each and checks every result against the same bound.
type Implementation struct {
	Name    string
	Workers int // jobs run at once, each worker on its own locked thread (0: 1)
	// NewWorker starts worker i on the calling (locked) thread.
	NewWorker func(i int) (Worker, error)
}

// A Worker computes jobs one at a time on one thread.
type Worker interface {
	// Gemm computes the job on d's inputs, C = α·op(A)·op(B) + β·C, and
	// returns C as stored afterwards (offsets and padding included).
	Gemm(j Job, d *gemmcheck.Data) ([]float64, error)
	Close()
}

// DeviceGemm computes a request on device buffers: the stream, pointers and
// scalars are the request's; cfg is the job's configuration.
type DeviceGemm func(g *request.Gemm, cfg *ptx.GemmConfig) error

// OnDevice is an implementation that computes in-process in ctx, its
// workers spread over streams streams: newGemm gives each worker its
// function (and what to release when it is done, or nil).
func OnDevice(name string, ctx cuda.Context, workers, streams int, newGemm func(i int) (DeviceGemm, func(), error)) Implementation {
	var (
		once sync.Once
		ss   []cuda.Stream
		err  error
	)
	return Implementation{Name: name, Workers: workers, NewWorker: func(i int) (Worker, error) {
		if err := ctx.SetCurrent(); err != nil {
			return nil, err
		}
		once.Do(func() {
			for range max(streams, 1) {
				var s cuda.Stream
				if s, err = cuda.NewStream(); err != nil {
					return
				}
				ss = append(ss, s)
			}
		})
		if err != nil {
			return nil, err
		}
		gemm, release, err := newGemm(i)
		if err != nil {
			return nil, err
		}
		return &deviceWorker{gemm: gemm, release: release, stream: ss[i%len(ss)]}, nil
	}}
}

type deviceWorker struct {
	gemm    DeviceGemm
	release func()
	stream  cuda.Stream
}

func (w *deviceWorker) Gemm(j Job, d *gemmcheck.Data) ([]float64, error) {
	b, err := gemmcheck.Upload(j.Case, d)
	if err != nil {
		return nil, err
	}
	defer b.Free()
	if err := w.gemm(b.Request(w.stream), j.Config); err != nil {
		return nil, err
	}
	return b.ReadC(w.stream)
}

func (w *deviceWorker) Close() {
	if w.release != nil {
		w.release()
	}
}

// outcome is one job's check.
type outcome struct {
	Job
	res   gemmcheck.Result
	rerun bool // split reduction run twice, bit-identical
	err   error
}

// Conformance runs the jobs through impl and fails t for every result
// outside its bound (Data.Check), every error, and every split reduction
// whose second run is not bit-identical to its first. It logs a table per
// served type (cases, configurations, failures, the worst error over the
// bound and its case) and writes it to ISAAC_GPU_REPORT_DIR/<name>.txt
// when that is set.
func Conformance(t *testing.T, impl Implementation, jobs []Job) {
	t.Helper()
	work := make(chan Job)
	results := make(chan outcome)
	var wg sync.WaitGroup
	for i := range max(impl.Workers, 1) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			w, err := impl.NewWorker(i)
			if err != nil {
				t.Errorf("%s: worker %d: %v", impl.Name, i, err)
				for range work {
				}
				return
			}
			defer w.Close()
			for j := range work {
				results <- runJob(w, j)
			}
		}()
	}
	go func() {
		for _, j := range jobs {
			work <- j
		}
		close(work)
		wg.Wait()
		close(results)
	}()
	report(t, impl.Name, len(jobs), results)
}

func runJob(w Worker, j Job) outcome {
	o := outcome{Job: j}
	d := gemmcheck.NewData(j.Case)
	got, err := w.Gemm(j, d)
	if err != nil {
		o.err = err
		return o
	}
	o.res = d.Check(j.Case, got)
	if j.splits() {
		// Split reductions are deterministic: a second run is bit-identical.
		again, err := w.Gemm(j, d)
		if err != nil {
			o.err = fmt.Errorf("second run: %w", err)
			return o
		}
		for i := range got {
			if again[i] != got[i] && !(math.IsNaN(again[i]) && math.IsNaN(got[i])) {
				o.err = fmt.Errorf("not deterministic: element %d is %v, then %v", i, got[i], again[i])
				return o
			}
		}
		o.rerun = true
	}
	return o
}

// typeStats are one served type's results.
type typeStats struct {
	Cases, Configs, Failed, Errors int
	Refused                        int     // drawn configurations whose kernel the JIT's registers do not allow: not served
	Deterministic                  int     // split-reduction cases run twice, bit-identical
	Worst                          float64 // max error / bound
	WorstCase                      string
}

func report(t *testing.T, name string, total int, results <-chan outcome) {
	stats := map[string]*typeStats{}
	failures, done := 0, 0
	for o := range results {
		if done++; done%500 == 0 {
			t.Logf("%s: %d/%d cases", name, done, total)
		}
		st := stats[o.Case.Type.Name]
		if st == nil {
			st = &typeStats{}
			stats[o.Case.Type.Name] = st
		}
		st.Cases++
		cfg := "choice"
		if o.Config != nil {
			st.Configs++
			cfg = o.Config.String()
		}
		switch {
		case o.err != nil && o.Config != nil && errors.Is(o.err, kernels.ErrUnsupported):
			st.Refused++ // the server forwards such a call; nothing ran
			continue
		case o.err != nil:
			st.Errors++
			if failures++; failures <= 30 {
				t.Errorf("%s: %v [%s]: %v", name, o.Case, cfg, o.err)
			}
			continue
		case o.res.Bad > 0:
			st.Failed++
			if failures++; failures <= 30 {
				t.Errorf("%s: %v [%s]: %d bad elements: %s (max err/bound %.3g)",
					name, o.Case, cfg, o.res.Bad, o.res.FirstBad, o.res.MaxRelBound)
			}
		}
		if o.rerun {
			st.Deterministic++
		}
		if o.res.MaxRelBound > st.Worst || st.WorstCase == "" {
			st.Worst = o.res.MaxRelBound
			st.WorstCase = o.Case.String() + " [" + cfg + "]"
		}
	}
	names := make([]string, 0, len(stats))
	for n := range stats {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %d cases\n", name, total)
	fmt.Fprintf(&b, "%-22s %6s %8s %7s %7s %7s %8s %14s\n", "type", "cases", "configs", "refused", "failed", "errors", "rerun=", "worst err/bd")
	for _, n := range names {
		s := stats[n]
		fmt.Fprintf(&b, "%-22s %6d %8d %7d %7d %7d %8d %14.3g\n", n, s.Cases, s.Configs, s.Refused, s.Failed, s.Errors, s.Deterministic, s.Worst)
	}
	for _, n := range names {
		fmt.Fprintf(&b, "worst case %s: %s\n", n, stats[n].WorstCase)
	}
	t.Logf("conformance of %s\n%s", name, b.String())
	js, _ := json.MarshalIndent(stats, "", "  ")
	writeReport(t, name+".txt", append([]byte(b.String()+"\n"), js...))
}

// writeReport writes a GPU run's report to ISAAC_GPU_REPORT_DIR/file,
// creating the directory, where that variable names one; a report that
// cannot be written fails the test.
func writeReport(t *testing.T, file string, data []byte) {
	t.Helper()
	dir := os.Getenv("ISAAC_GPU_REPORT_DIR")
	if dir == "" {
		return
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Error(err)
		return
	}
	if err := os.WriteFile(filepath.Join(dir, file), data, 0o644); err != nil {
		t.Error(err)
	}
}
