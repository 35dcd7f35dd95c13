package predictor

import "fmt"

// Widen returns a copy of net, a network on the features of layout from,
// that reads the features of layout to: each feature of from keeps its
// first-layer weights and normalization at its place in to, and a feature
// from lacks gets zero weights (the identity normalization), so that the
// copy predicts what net does on every input whose new features are zero
// (a plain configuration, for v2 to v3) and training can start from it.
// It fails where to lacks one of from's features.
func Widen(net *MLP, from, to *ConfigLayout) (*MLP, error) {
	if net.Sizes[0] != from.Width {
		return nil, fmt.Errorf("predictor: widen a network of %d inputs from a layout of %d", net.Sizes[0], from.Width)
	}
	at := map[string]int{}
	for i, n := range to.Names() {
		at[n] = i
	}
	sizes := append([]int{to.Width}, net.Sizes[1:]...)
	w := NewMLP(sizes)
	for l := 1; l < len(net.W); l++ {
		copy(w.W[l], net.W[l])
	}
	for l := range net.B {
		copy(w.B[l], net.B[l])
	}
	w.YMean, w.YStd = net.YMean, net.YStd
	hidden := net.Sizes[1]
	for j, n := range from.Names() {
		k, ok := at[n]
		if !ok {
			return nil, fmt.Errorf("predictor: widen: %s has no feature %q", to.Schema[:min(len(to.Schema), 14)], n)
		}
		copy(w.W[0][k*hidden:(k+1)*hidden], net.W[0][j*hidden:(j+1)*hidden])
		w.Mean[k], w.Std[k] = net.Mean[j], net.Std[j]
	}
	return w, nil
}
