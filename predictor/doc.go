// Package predictor is the runtime half of the performance model: the
// feature vector of an (input, configuration) pair, the MLP that maps it
// to predicted log performance, and the versioned weights format that
// isaac-tune writes and the library embeds. Training lives in package tune;
// both use this package's forward pass, so a prediction at run time is the
// prediction the trainer made.
package predictor
