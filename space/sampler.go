package space

import (
	"math/rand/v2"

	"github.com/isaacgo/isaac/ptx"
)

// param is one categorical tuning parameter: its values and how to read or
// set the value's index in a configuration.
type param struct {
	name   string
	values int
	get    func(c *ptx.GemmConfig, sp *Space) int
	set    func(c *ptx.GemmConfig, sp *Space, i int)
}

func intParam(name string, field func(*ptx.GemmConfig) *int, list func(*Space) []int) param {
	return param{
		name: name,
		get: func(c *ptx.GemmConfig, sp *Space) int {
			v := *field(c)
			for i, x := range list(sp) {
				if x == v {
					return i
				}
			}
			return -1
		},
		set: func(c *ptx.GemmConfig, sp *Space, i int) { *field(c) = list(sp)[i] },
	}
}

// params are the tuning parameters in a fixed order.
func params(sp *Space) []param {
	ps := []param{
		intParam("ms", func(c *ptx.GemmConfig) *int { return &c.MS }, func(s *Space) []int { return s.MS }),
		intParam("ns", func(c *ptx.GemmConfig) *int { return &c.NS }, func(s *Space) []int { return s.NS }),
		intParam("ml", func(c *ptx.GemmConfig) *int { return &c.ML }, func(s *Space) []int { return s.ML }),
		intParam("nl", func(c *ptx.GemmConfig) *int { return &c.NL }, func(s *Space) []int { return s.NL }),
		intParam("u", func(c *ptx.GemmConfig) *int { return &c.U }, func(s *Space) []int { return s.U }),
		intParam("ks", func(c *ptx.GemmConfig) *int { return &c.KS }, func(s *Space) []int { return s.KS }),
		intParam("kl", func(c *ptx.GemmConfig) *int { return &c.KL }, func(s *Space) []int { return s.KL }),
		intParam("kg", func(c *ptx.GemmConfig) *int { return &c.KG }, func(s *Space) []int { return s.KG }),
		intParam("kc", func(c *ptx.GemmConfig) *int { return &c.KC }, func(s *Space) []int { return s.KC }),
		intParam("va", func(c *ptx.GemmConfig) *int { return &c.VecA }, func(s *Space) []int { return s.VecA }),
		intParam("vb", func(c *ptx.GemmConfig) *int { return &c.VecB }, func(s *Space) []int { return s.VecB }),
		intParam("st", func(c *ptx.GemmConfig) *int { return &c.Stages }, func(s *Space) []int { return s.Stages }),
		{
			name: "math",
			get: func(c *ptx.GemmConfig, s *Space) int {
				for i, m := range s.Math {
					if m == c.Math {
						return i
					}
				}
				return -1
			},
			set: func(c *ptx.GemmConfig, s *Space, i int) { c.Math = s.Math[i] },
		},
	}
	lists := [][]int{sp.MS, sp.NS, sp.ML, sp.NL, sp.U, sp.KS, sp.KL, sp.KG, sp.KC, sp.VecA, sp.VecB, sp.Stages}
	for i := range lists {
		ps[i].values = len(lists[i])
	}
	ps[len(ps)-1].values = len(sp.Math)
	return ps
}

// Sampler is the paper's generative model (section 4.1): every parameter an
// independent categorical variable whose probabilities are the counts of its
// values among accepted configurations, each count starting at Alpha (a
// Dirichlet prior, so no value ever has probability zero). The counts come
// from a uniform warm-up: Warmup accepted uniform draws; after it the
// sampler draws from the categorical distribution. Accepted means legal for
// the sampler's input class on its device.
type Sampler struct {
	in     ptx.InputClass
	dev    ptx.DeviceLimits
	space  Space
	params []param
	counts [][]float64
	totals []float64
	warm   bool

	// Categorical and Uniform count draws and accepted draws of each
	// method (uniform draws go on being counted after the warm-up, for the
	// comparison of the paper's Table 1).
	Categorical, Uniform Acceptance
}

// Acceptance counts draws and how many of them were accepted.
type Acceptance struct{ Draws, Accepted int }

// Rate is Accepted / Draws.
func (a Acceptance) Rate() float64 {
	if a.Draws == 0 {
		return 0
	}
	return float64(a.Accepted) / float64(a.Draws)
}

// Alpha is the Dirichlet prior's count (the paper's α = 100).
const Alpha = 100

// NewSampler builds the sampler of an input class and runs its warm-up:
// uniform draws until warmup of them are legal or maxDraws were made.
func NewSampler(in ptx.InputClass, dev ptx.DeviceLimits, warmup, maxDraws int, rng *rand.Rand) *Sampler {
	return newSampler(For(in), in, dev, warmup, maxDraws, rng)
}

// NewMMASampler is NewSampler over the class's mma.sync space (ForMMA),
// or nil when the class has no mma.sync math.
func NewMMASampler(in ptx.InputClass, dev ptx.DeviceLimits, warmup, maxDraws int, rng *rand.Rand) *Sampler {
	sp := ForMMA(in)
	if len(sp.Math) == 0 {
		return nil
	}
	return newSampler(sp, in, dev, warmup, maxDraws, rng)
}

// NewWarpgroupSampler is NewSampler over the class's wgmma space
// (ForWarpgroup), or nil when no wgmma kernel serves the class.
func NewWarpgroupSampler(in ptx.InputClass, dev ptx.DeviceLimits, warmup, maxDraws int, rng *rand.Rand) *Sampler {
	sp := ForWarpgroup(in)
	if len(sp.Math) == 0 || dev.SMMajor != 9 || dev.SMMinor != 0 {
		return nil
	}
	return newSampler(sp, in, dev, warmup, maxDraws, rng)
}

func newSampler(sp Space, in ptx.InputClass, dev ptx.DeviceLimits, warmup, maxDraws int, rng *rand.Rand) *Sampler {
	s := &Sampler{in: in, dev: dev, space: sp, params: params(&sp)}
	s.counts = make([][]float64, len(s.params))
	s.totals = make([]float64, len(s.params))
	for i, p := range s.params {
		s.counts[i] = make([]float64, p.values)
		for j := range s.counts[i] {
			s.counts[i][j] = Alpha
		}
		s.totals[i] = Alpha * float64(p.values)
	}
	for d := 0; d < maxDraws && s.Uniform.Accepted < warmup; d++ {
		if c, ok := s.drawUniform(rng); ok {
			s.observe(c)
		}
	}
	s.warm = true
	return s
}

func (s *Sampler) observe(c ptx.GemmConfig) {
	for i, p := range s.params {
		if j := p.get(&c, &s.space); j >= 0 {
			s.counts[i][j]++
			s.totals[i]++
		}
	}
}

func (s *Sampler) legal(c ptx.GemmConfig) bool { return ptx.Legal(c, s.in, s.dev) == nil }

func (s *Sampler) drawUniform(rng *rand.Rand) (ptx.GemmConfig, bool) {
	c := s.space.Random(rng)
	ok := s.legal(c)
	s.Uniform.Draws++
	if ok {
		s.Uniform.Accepted++
	}
	return c, ok
}

// drawCategorical draws every parameter from its categorical distribution.
func (s *Sampler) drawCategorical(rng *rand.Rand) (ptx.GemmConfig, bool) {
	c := ptx.GemmConfig{KC: 1}
	for i, p := range s.params {
		if p.values == 0 {
			continue
		}
		u := rng.Float64() * s.totals[i]
		j := 0
		for ; j < p.values-1; j++ {
			if u -= s.counts[i][j]; u < 0 {
				break
			}
		}
		p.set(&c, &s.space, j)
	}
	ok := s.legal(c)
	s.Categorical.Draws++
	if ok {
		s.Categorical.Accepted++
	}
	return c, ok
}

// Draw returns a legal configuration for which accept (nil: any) holds,
// drawing from the categorical distribution at most tries times. Each draw
// also makes one uniform draw, only counted, so that the two acceptance
// rates are measured on the same run.
func (s *Sampler) Draw(rng *rand.Rand, accept func(ptx.GemmConfig) bool, tries int) (ptx.GemmConfig, bool) {
	for t := 0; t < tries; t++ {
		s.drawUniform(rng)
		c, ok := s.drawCategorical(rng)
		if ok && (accept == nil || accept(c)) {
			return c, true
		}
	}
	return ptx.GemmConfig{}, false
}
