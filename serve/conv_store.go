package serve

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
)

// The convolution model's choices are kept as GEMM's are (store.go), per
// model and class of the convolution's target, in
// <cache dir>/conv-choices-v1/<model id>/<class>.txt, one line per shape:
//
//	shape serve ours_tflops vendor_tflops [path route config score …]
//
// (the shape as convShapeKey writes it, serve 0 or 1, the ranked choices
// best first; a direct kernel's configuration with '_' for its spaces).
// Lines that do not parse are skipped.

// convChoices are the convolution choices of one model and class.
type convChoices struct {
	once   sync.Once
	path   string
	mu     sync.Mutex
	chosen map[string]*predictor.ConvChoice
}

// convStore is the choices of one convolution model and target class,
// loaded from disk once.
func (s *Server) convStore(id string, cls ptx.InputClass, grouped bool) *convChoices {
	v, _ := s.convStores.LoadOrStore(classKey{id, cls}, &convChoices{})
	st := v.(*convChoices)
	st.once.Do(func() {
		st.chosen = map[string]*predictor.ConvChoice{}
		if s.opts.CacheDir == "" {
			return
		}
		name := "implicit-" + cls.String()
		if grouped {
			name = fmt.Sprintf("grouped-a%d", cls.AlignA)
		}
		st.path = filepath.Join(s.opts.CacheDir, "conv-choices-v1", id, name+".txt")
		s.countChoices(func(c *ChoiceStats) { c.FromDisk += st.read() })
	})
	return st
}

// convChoiceFor is the model's choice for a convolution of shape: from
// memory, from the disk cache, or from choose (then kept in both).
func (s *Server) convChoiceFor(id string, cls ptx.InputClass, shape request.ConvShape, choose func() *predictor.ConvChoice) *predictor.ConvChoice {
	st := s.convStore(id, cls, shape.G > 1)
	key := convShapeKey(shape)
	st.mu.Lock()
	c, ok := st.chosen[key]
	st.mu.Unlock()
	if ok {
		return c
	}
	c = choose()
	st.mu.Lock()
	defer st.mu.Unlock()
	if old, ok := st.chosen[key]; ok {
		return old // another thread chose first
	}
	st.chosen[key] = c
	s.countChoices(func(c *ChoiceStats) { c.Searched++ })
	appendLine(st.path, formatConvChoice(key, c))
	return c
}

// has reports whether the store holds a choice for shape.
func (st *convChoices) has(shape request.ConvShape) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	_, ok := st.chosen[convShapeKey(shape)]
	return ok
}

// convShapeKey is a shape's text in the store (no spaces): everything of
// the call the choice depends on beyond the class.
func convShapeKey(s request.ConvShape) string {
	ints := []int{s.N, s.C, s.H, s.W, s.K, s.R, s.S, s.G, s.PadH, s.PadW, s.StrH, s.StrW, s.DilH, s.DilW}
	ints = append(append(ints, s.XStrides[:]...), s.YStrides[:]...)
	f := make([]string, len(ints))
	for i, v := range ints {
		f[i] = strconv.Itoa(v)
	}
	return fmt.Sprintf("%s/%t/%t/%t/%s", s.Type.Name, s.TF32, s.Flip, s.FilterNHWC, strings.Join(f, ","))
}

func (st *convChoices) read() int {
	return readLines(st.path, func(line string) bool {
		key, c, ok := parseConvChoice(line)
		if ok {
			st.chosen[key] = c
		}
		return ok
	})
}

func formatConvChoice(key string, c *predictor.ConvChoice) string {
	var b strings.Builder
	serve := 0
	if c.Serve {
		serve = 1
	}
	fmt.Fprintf(&b, "%s %d %s %s", key, serve, strconv.FormatFloat(c.OursTFLOPs, 'g', -1, 64), strconv.FormatFloat(c.VendorTFLOPs, 'g', -1, 64))
	for _, r := range c.Top {
		cfg := r.Config.String()
		if r.Path == predictor.ConvPaths[2] {
			cfg = strings.ReplaceAll(r.Direct.String(), " ", "_")
		}
		fmt.Fprintf(&b, " %s %d %s %s", r.Path, r.Route, cfg, strconv.FormatFloat(r.Score, 'g', -1, 64))
	}
	b.WriteByte('\n')
	return b.String()
}

func parseConvChoice(line string) (string, *predictor.ConvChoice, bool) {
	f := strings.Fields(line)
	if len(f) < 4 || (len(f)-4)%4 != 0 || f[1] != "0" && f[1] != "1" {
		return "", nil, false
	}
	ours, err1 := strconv.ParseFloat(f[2], 64)
	vendor, err2 := strconv.ParseFloat(f[3], 64)
	if err1 != nil || err2 != nil {
		return "", nil, false
	}
	c := &predictor.ConvChoice{OursTFLOPs: ours, VendorTFLOPs: vendor, Serve: f[1] == "1"}
	for i := 4; i < len(f); i += 4 {
		r := predictor.ConvRanked{Path: f[i]}
		route, err := strconv.Atoi(f[i+1])
		score, err2 := strconv.ParseFloat(f[i+3], 64)
		if err != nil || err2 != nil || route < 0 || math.IsNaN(score) {
			return "", nil, false
		}
		r.Route, r.Score = route, score
		switch r.Path {
		case predictor.ConvPaths[0], predictor.ConvPaths[1]:
			r.Config, err = ptx.ParseConfig(f[i+2])
		case predictor.ConvPaths[2]:
			r.Direct, err = ptx.ParseGroupedConfig(strings.ReplaceAll(f[i+2], "_", " "))
		default:
			return "", nil, false
		}
		if err != nil {
			return "", nil, false
		}
		c.Top = append(c.Top, r)
	}
	return f[0], c, true
}
