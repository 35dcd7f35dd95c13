package space

// Probability is the categorical probability of value index j of
// parameter i (the order of Params).
func (s *Sampler) Probability(i, j int) float64 { return s.counts[i][j] / s.totals[i] }

// Params names the parameters in the order Probability takes them.
func (s *Sampler) Params() []string {
	var n []string
	for _, p := range s.params {
		n = append(n, p.name)
	}
	return n
}
