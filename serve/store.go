package serve

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
)

// The model's choices are kept per model and input class in
// <cache dir>/choices-v1/<model id>/<class>.txt, one line per shape:
//
//	M N K serve ours_tflops vendor_tflops config score [config score …]
//
// (serve is 0 or 1; the configurations best first); a batched class's lines
// start with its batch count, "bB M N K …" (ChooseBatch's choice depends on
// it). A process loads a
// class's file the first time it meets the class and appends every new
// choice, so a new process starts with the choices of the ones before it.
// Lines that do not parse are skipped: the cache is an optimization. Next to
// it, <class>.pool holds the class's seed pool (one configuration per line,
// in draw order), which the model draws on the class's first input: a new
// process installs it instead of drawing it again.

// shape is a choice's key in its class: the matrix's extents and, in a
// batched class, the batch count (0 in the others).
type shape struct{ m, n, k, batch int }

// shapeOf is input in's key, a batch of batch matrices in a batched class.
func shapeOf(in predictor.Input, batch int, cls ptx.InputClass) shape {
	if !cls.Batched {
		batch = 0
	}
	return shape{in.M, in.N, in.K, batch}
}

type classChoices struct {
	once     sync.Once
	poolOnce sync.Once // the seed pool is installed or written at most once
	path     string
	mu       sync.Mutex
	chosen   map[shape]*predictor.Choice
}

type classKey struct {
	id  string
	cls ptx.InputClass
}

// ChoiceStats counts where the model's choices came from.
type ChoiceStats struct{ Searched, FromDisk int }

// ChoiceStats returns the server's choice counters.
func (s *Server) ChoiceStats() ChoiceStats {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	return s.choiceStats
}

func (s *Server) countChoices(f func(*ChoiceStats)) {
	s.statsMu.Lock()
	f(&s.choiceStats)
	s.statsMu.Unlock()
}

// store is the choices of one model and class, loaded from disk once.
func (s *Server) store(id string, cls ptx.InputClass) *classChoices {
	v, _ := s.stores.LoadOrStore(classKey{id, cls}, &classChoices{})
	st := v.(*classChoices)
	st.once.Do(func() { st.load(s, id, cls) })
	return st
}

// choiceFor returns the model's choice for an input of class cls (a batch
// of batch matrices in a batched class: ChooseBatch): from memory, from the
// disk cache, or from a search (then stored in both).
func (s *Server) choiceFor(ch *predictor.Chooser, id string, in predictor.Input, batch int, cls ptx.InputClass) *predictor.Choice {
	st := s.store(id, cls)
	key := shapeOf(in, batch, cls)
	st.mu.Lock()
	c, ok := st.chosen[key]
	st.mu.Unlock()
	if ok {
		return c
	}
	st.poolOnce.Do(func() { st.seedPool(ch, cls) })
	if cls.Batched {
		c = ch.ChooseBatch(in, batch, cls)
	} else {
		c = ch.Choose(in, cls)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if old, ok := st.chosen[key]; ok {
		return old // another thread chose first
	}
	st.chosen[key] = c
	s.countChoices(func(c *ChoiceStats) { c.Searched++ })
	st.append(key, c)
	return c
}

// choiceAtHand reports whether the model's choice for an input of class cls
// costs at most one search: it is chosen already (in memory or on disk), or
// the class's seed pool is drawn (in ch or on disk). Otherwise the first
// input of the class would also draw the pool, several milliseconds more
// (BenchmarkFirstChoice's first-of-class figures).
func (s *Server) choiceAtHand(ch *predictor.Chooser, id string, in predictor.Input, batch int, cls ptx.InputClass) bool {
	st := s.store(id, cls)
	st.mu.Lock()
	_, ok := st.chosen[shapeOf(in, batch, cls)]
	st.mu.Unlock()
	return ok || st.poolAtHand(ch, cls)
}

// poolAtHand reports whether the class's seed pool is drawn (in ch) or on
// disk.
func (st *classChoices) poolAtHand(ch poolKeeper, cls ptx.InputClass) bool {
	if ch.HasSeedPool(cls) {
		return true
	}
	if st.path == "" {
		return false
	}
	_, err := os.Stat(poolPath(st.path))
	return err == nil
}

// poolPath is the seed pool file beside a class's choices file.
func poolPath(choices string) string { return strings.TrimSuffix(choices, ".txt") + ".pool" }

// seedPool installs the class's seed pool from disk in ch, or draws it and
// writes it there (write, then rename: a reader never sees half a file).
// Configurations that do not parse or are not legal for ch's device void
// the file.
// poolKeeper is a chooser's seed pools (predictor.Chooser's, ConvChooser's).
type poolKeeper interface {
	SeedPool(ptx.InputClass) []ptx.GemmConfig
	SetSeedPool(ptx.InputClass, []ptx.GemmConfig)
	HasSeedPool(ptx.InputClass) bool
	Limits() ptx.DeviceLimits
}

func (st *classChoices) seedPool(ch poolKeeper, cls ptx.InputClass) {
	if st.path == "" {
		return
	}
	path := poolPath(st.path)
	if b, err := os.ReadFile(path); err == nil {
		var p []ptx.GemmConfig
		ok := true
		for _, line := range strings.Fields(string(b)) {
			cfg, err := ptx.ParseConfig(line)
			if err != nil || ptx.Legal(cfg, cls, ch.Limits()) != nil {
				ok = false
				break
			}
			p = append(p, cfg)
		}
		if ok && len(p) > 0 {
			ch.SetSeedPool(cls, p)
			return
		}
	}
	var b strings.Builder
	for _, cfg := range ch.SeedPool(cls) {
		b.WriteString(cfg.String())
		b.WriteByte('\n')
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".pool-*")
	if err != nil {
		return
	}
	_, werr := tmp.WriteString(b.String())
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}

func (st *classChoices) load(s *Server, id string, cls ptx.InputClass) {
	st.chosen = map[shape]*predictor.Choice{}
	if s.opts.CacheDir == "" {
		return
	}
	st.path = filepath.Join(s.opts.CacheDir, "choices-v1", id, cls.String()+".txt")
	s.countChoices(func(c *ChoiceStats) { c.FromDisk += readChoices(st) })
}

// readChoices adds the choices of st's file to st.chosen and returns how
// many it read.
func readChoices(st *classChoices) int {
	return readLines(st.path, func(line string) bool {
		s, c, ok := parseChoice(line)
		if ok {
			st.chosen[s] = c
		}
		return ok
	})
}

// append writes one choice to the class's file.
func (st *classChoices) append(s shape, c *predictor.Choice) { appendLine(st.path, formatChoice(s, c)) }

// readLines calls use on every line of the file at path and returns how
// many it took (use's true); a missing file has none.
func readLines(path string, use func(line string) bool) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 4096), 1<<20)
	n := 0
	for sc.Scan() {
		if use(sc.Text()) {
			n++
		}
	}
	return n
}

// appendLine writes line to the file at path (none: nothing) in one write
// with O_APPEND, so that processes sharing the cache do not interleave
// lines.
func appendLine(path, line string) {
	if path == "" {
		return
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return
	}
	defer f.Close()
	f.WriteString(line)
}

func formatChoice(s shape, c *predictor.Choice) string {
	var b strings.Builder
	serve := 0
	if c.Serve {
		serve = 1
	}
	if s.batch > 0 {
		fmt.Fprintf(&b, "b%d ", s.batch)
	}
	fmt.Fprintf(&b, "%d %d %d %d %s %s", s.m, s.n, s.k, serve,
		strconv.FormatFloat(c.OursTFLOPs, 'g', -1, 64), strconv.FormatFloat(c.VendorTFLOPs, 'g', -1, 64))
	for _, r := range c.Top {
		fmt.Fprintf(&b, " %s %s", r.Config, strconv.FormatFloat(r.Score, 'g', -1, 64))
	}
	b.WriteByte('\n')
	return b.String()
}

func parseChoice(line string) (shape, *predictor.Choice, bool) {
	f := strings.Fields(line)
	batch := 0
	if len(f) > 0 && strings.HasPrefix(f[0], "b") {
		v, err := strconv.Atoi(f[0][1:])
		if err != nil || v < 1 {
			return shape{}, nil, false
		}
		batch, f = v, f[1:]
	}
	if len(f) < 6 || (len(f)-6)%2 != 0 {
		return shape{}, nil, false
	}
	var ints [4]int
	for i := range ints {
		v, err := strconv.Atoi(f[i])
		if err != nil || v < 0 {
			return shape{}, nil, false
		}
		ints[i] = v
	}
	ours, err1 := strconv.ParseFloat(f[4], 64)
	vendor, err2 := strconv.ParseFloat(f[5], 64)
	if err1 != nil || err2 != nil || ints[3] > 1 {
		return shape{}, nil, false
	}
	c := &predictor.Choice{OursTFLOPs: ours, VendorTFLOPs: vendor, Serve: ints[3] == 1}
	for i := 6; i < len(f); i += 2 {
		cfg, err := ptx.ParseConfig(f[i])
		score, err2 := strconv.ParseFloat(f[i+1], 64)
		if err != nil || err2 != nil || math.IsNaN(score) {
			return shape{}, nil, false
		}
		c.Top = append(c.Top, predictor.Ranked{Config: cfg, Score: score})
	}
	return shape{ints[0], ints[1], ints[2], batch}, c, true
}
