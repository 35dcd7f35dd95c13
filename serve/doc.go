// Package serve decides, for each intercepted call, whether ISAAC serves it
// or hands it to the vendor, and serves it: it classifies the call from its
// arguments (a call the vendor would reject, or one of a type ISAAC does
// not serve, goes to the vendor untouched, so that the application sees the
// vendor's own status), then, under the policy, has the device's
// performance model (package predictor) choose a configuration for the
// exact input and predict the vendor's rate, and, unless it predicts a
// loss beyond the models' errors, times its best kernels (package kernels)
// beside the vendor's on the shape's first calls and serves the fastest
// where it wins.
// Every other outcome, an error included, is a forward reason
// (request.Reason).
//
// A Server holds the state: one table of decisions per context, class,
// shape and policy; the devices' models; the model's choices per model
// and class, kept on disk (with the seed pools of its search) so that a new
// process starts with them; the checks. Its Options come from the
// environment, read once (FromEnv).
//
// A call on a stream being captured into a graph is served only from a
// final decision whose kernel is loaded; otherwise it goes to the vendor
// untouched (reason capturing) while the decision is made in the
// background: a graph replays whatever the captured call put on the stream.
package serve
