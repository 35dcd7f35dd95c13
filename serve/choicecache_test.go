package serve

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/weights"
)

// A choice survives its disk line exactly (NaN vendor rates included), and
// lines that do not parse are skipped.
func TestChoiceLineRoundTrip(t *testing.T) {
	cfg, err := ptx.ParseConfig("ms=4,ns=1,ml=128,nl=16,u=32,ks=1,kl=1,kg=8,va=8,vb=8,st=3,math=mma_f16acc")
	if err != nil {
		t.Fatal(err)
	}
	cfg2 := cfg
	cfg2.KG = 3
	for _, c := range []*predictor.Choice{
		{Top: []predictor.Ranked{{Config: cfg, Score: 2.75}, {Config: cfg2, Score: 2.5}}, OursTFLOPs: 15.6, VendorTFLOPs: 11.25, Serve: true},
		{Top: []predictor.Ranked{{Config: cfg, Score: -0.125}}, OursTFLOPs: 0.88, VendorTFLOPs: math.NaN()},
		{OursTFLOPs: 0, VendorTFLOPs: 1},
	} {
		for _, sh := range []shape{{2560, 16, 2560, 0}, {512, 512, 64, 32}} {
			line := formatChoice(sh, c)
			s, got, ok := parseChoice(line[:len(line)-1])
			if !ok || s != sh || got.Serve != c.Serve || got.OursTFLOPs != c.OursTFLOPs ||
				fmt.Sprint(got.VendorTFLOPs) != fmt.Sprint(c.VendorTFLOPs) || len(got.Top) != len(c.Top) {
				t.Fatalf("%q: got %v %+v %v", line, s, got, ok)
			}
			for i := range c.Top {
				if got.Top[i] != c.Top[i] {
					t.Errorf("%q: top %d = %+v, want %+v", line, i, got.Top[i], c.Top[i])
				}
			}
		}
	}
	for _, bad := range []string{"", "1 2 3", "1 2 3 2 1 1", "b0 1 2 3 1 1 1", "bx 1 2 3 1 1 1", "b4 1 2 3", "1 2 3 1 1 1 ms=1", "1 2 3 1 1 1 nonsense 2", "-1 2 3 1 1 1", "1 2 3 1 x 1"} {
		if _, _, ok := parseChoice(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

// A class's file is appended to line by line and read back by a new store.
func TestChoiceStoreFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "choices-v1", "h100-x", "class.txt")
	cfg, _ := ptx.ParseConfig("ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma")
	st := &classChoices{path: path, chosen: map[shape]*predictor.Choice{}}
	st.append(shape{1, 2, 3, 0}, &predictor.Choice{Top: []predictor.Ranked{{Config: cfg, Score: 1}}, Serve: true, OursTFLOPs: 1, VendorTFLOPs: 0.5})
	st.append(shape{4, 5, 6, 0}, &predictor.Choice{Top: []predictor.Ranked{{Config: cfg, Score: 0}}, OursTFLOPs: 1, VendorTFLOPs: 2})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("garbage line\n")
	f.Close()
	again := &classChoices{}
	again.chosen = map[shape]*predictor.Choice{}
	again.path = path
	readChoices(again)
	if len(again.chosen) != 2 || !again.chosen[shape{1, 2, 3, 0}].Serve || again.chosen[shape{4, 5, 6, 0}].Serve {
		t.Errorf("read back %v", again.chosen)
	}
}

// The runtime's and the server's errors map to the forward reasons
// ISAAC_LOG counts.
func TestReasonOf(t *testing.T) {
	for _, c := range []struct {
		err  error
		want request.Reason
	}{
		{nil, request.Served},
		{fmt.Errorf("%w: h200", ErrNoWeights), request.FwdNoWeights},
		{fmt.Errorf("%w: bad file", ErrWeights), request.FwdWeights},
		{fmt.Errorf("%w: grid", kernels.ErrUnsupported), request.FwdUnsupported},
		{kernels.ErrNoContext, request.FwdNoDriver},
		{errors.New("launch failed"), request.FwdError},
	} {
		if got := reasonOf(c.err); got != c.want {
			t.Errorf("reasonOf(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}

// A class's seed pool is written on first use and installed from disk by a
// new chooser (the same configurations, in order); a file with an illegal
// configuration is replaced by a fresh draw.
func TestChoiceStoreSeedPool(t *testing.T) {
	cls := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	path := filepath.Join(t.TempDir(), "class.txt")
	first := &predictor.Chooser{Dev: ptx.H100(), Pool: 64}
	(&classChoices{path: path}).seedPool(first, cls)
	want := first.SeedPool(cls)
	raw, err := os.ReadFile(filepath.Join(filepath.Dir(path), "class.pool"))
	if err != nil || len(want) != 64 || strings.Count(string(raw), "\n") != 64 {
		t.Fatalf("pool file: %v, %d configurations, %d lines", err, len(want), strings.Count(string(raw), "\n"))
	}
	// A chooser whose own draw would differ (Pool 8) takes the file's 64.
	second := &predictor.Chooser{Dev: ptx.H100(), Pool: 8}
	(&classChoices{path: path}).seedPool(second, cls)
	if got := second.SeedPool(cls); !slices.Equal(got, want) {
		t.Errorf("installed pool has %d configurations, want the file's %d", len(got), len(want))
	}
	bad := "ms=8,ns=8,ml=8,nl=8,u=4,ks=1,kl=1,kg=1,va=1,vb=1,st=1,math=ffma\n" // threads < tile: illegal
	if err := os.WriteFile(filepath.Join(filepath.Dir(path), "class.pool"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	third := &predictor.Chooser{Dev: ptx.H100(), Pool: 64}
	(&classChoices{path: path}).seedPool(third, cls)
	if got := third.SeedPool(cls); !slices.Equal(got, want) {
		t.Errorf("after a bad file: %d configurations, want a fresh draw of %d", len(got), len(want))
	}
}

// A choice is at hand when the shape is chosen already, or the class's seed
// pool is drawn in the chooser or kept on disk; otherwise the class's first
// shape would also draw the pool (and Serve sends it to the vendor while it
// is made).
func TestChoiceAtHand(t *testing.T) {
	cls := ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, TransA: ptx.N, TransB: ptx.T, AlignA: 4, AlignB: 4, AlignC: 4}
	st := &classChoices{path: filepath.Join(t.TempDir(), "class.txt"), chosen: map[shape]*predictor.Choice{}}
	st.once.Do(func() {}) // loaded: the test's file, not the cache directory
	const id = "test-choice-at-hand"
	s := New(Defaults())
	s.stores.Store(classKey{id, cls}, st)
	ch := &predictor.Chooser{Dev: ptx.H100(), Pool: 16}
	in := predictor.Input{Type: "sgemm", TransB: true, M: 100, N: 200, K: 300, AlignA: 4, AlignB: 4, AlignC: 4}
	if s.choiceAtHand(ch, id, in, 1, cls) {
		t.Error("no choice, no pool: at hand")
	}
	st.chosen[shape{100, 200, 300, 0}] = &predictor.Choice{}
	if !s.choiceAtHand(ch, id, in, 1, cls) {
		t.Error("the shape's choice in the store: not at hand")
	}
	delete(st.chosen, shape{100, 200, 300, 0})
	if err := os.WriteFile(poolPath(st.path), []byte("ms=2,ns=2,ml=32,nl=32,u=16,ks=1,kl=1,kg=1,va=4,vb=4,st=3,math=ffma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !s.choiceAtHand(ch, id, in, 1, cls) {
		t.Error("the class's pool on disk: not at hand")
	}
	if err := os.Remove(poolPath(st.path)); err != nil {
		t.Fatal(err)
	}
	if ch.HasSeedPool(cls) || s.choiceAtHand(ch, id, in, 1, cls) {
		t.Fatal("pool file removed: still at hand")
	}
	ch.SeedPool(cls)
	if !ch.HasSeedPool(cls) || !s.choiceAtHand(ch, id, in, 1, cls) {
		t.Error("the pool drawn in the chooser: not at hand")
	}
}

// A batched class's choices are kept per batch count, in memory and in the
// class's file, and a new server reads them back: a batch of 32 and one of
// 4 of the same matrices are two choices, each searched once.
func TestBatchChoiceStored(t *testing.T) {
	w, err := weights.For("h100")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := newChooser(w, ptx.H100())
	if err != nil {
		t.Fatal(err)
	}
	cls := ptx.InputClass{AType: ptx.F16, BType: ptx.F16, CType: ptx.F16, Compute: ptx.F32, TransA: ptx.T, TransB: ptx.N,
		AlignA: 8, AlignB: 8, AlignC: 8, Batched: true}
	in := predictor.Input{Type: "gemmex_f16_f32", TransA: true, M: 512, N: 512, K: 64, AlignA: 8, AlignB: 8, AlignC: 8}
	o := Defaults()
	o.CacheDir = t.TempDir()
	const id = "test-batch-choices"
	s := New(o)
	c32 := s.choiceFor(ch, id, in, 32, cls)
	c4 := s.choiceFor(ch, id, in, 4, cls)
	if again := s.choiceFor(ch, id, in, 32, cls); again != c32 || s.ChoiceStats().Searched != 2 {
		t.Fatalf("searched %d times for two batches (the second batch of 32 again: %v)", s.ChoiceStats().Searched, again == c32)
	}
	fresh := New(o)
	if got := fresh.choiceFor(ch, id, in, 32, cls); got.Top[0] != c32.Top[0] || fresh.ChoiceStats().Searched != 0 ||
		fresh.ChoiceStats().FromDisk != 2 {
		t.Errorf("a new server: %+v, stats %+v", got.Top[0], fresh.ChoiceStats())
	}
	if got := fresh.choiceFor(ch, id, in, 4, cls); got.Top[0] != c4.Top[0] {
		t.Errorf("batch of 4 read back as %+v, want %+v", got.Top[0], c4.Top[0])
	}
}
