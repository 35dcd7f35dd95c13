package request

// Reason says whether a call was served, and if not, why the vendor takes
// it. The values are the C enum isaac_reason of shim/shim.h (a test in
// package shim checks that they agree).
type Reason int

// Reasons, in the order of shim/shim.h.
const (
	Served Reason = iota
	FwdDisabled
	FwdFork
	FwdNoGo
	FwdHandle
	FwdInvalid
	FwdEmpty
	FwdUnsupported
	FwdTooLarge
	FwdNoKernel
	FwdNoDriver
	FwdPolicy
	FwdError
	FwdNoWeights // auto policy, no model for the device
	FwdWeights   // the model's weights failed to load
	FwdPredicted // the model predicts the vendor is faster
	FwdSearching // the choice is still being made (ISAAC_SEARCH=async, or a class's first input under auto)
	FwdCompiling // the chosen kernel is being compiled in the background
	FwdMeasuring // forwarded so that the vendor's time on the input is measured beside ours
	FwdMeasured  // our kernel measured slower than the vendor on this input
	// FwdCapturing: the call's stream is being captured into a graph and
	// the decision for its input is not final (not made yet, still being
	// made, or a decision to serve not yet confirmed by its check): the
	// graph gets the vendor's kernel, and nothing but the vendor's call goes
	// on the stream.
	FwdCapturing
	// FwdNested: a call the vendor's library makes itself while it
	// computes one the shim forwarded to it (cuBLAS calling cuBLASLt,
	// cuDNN calling cuBLAS): it is the vendor's own work, passed on as is.
	FwdNested
	reasonCount
)

var reasonNames = [...]string{
	"served", "disabled", "fork", "no_go", "handle", "invalid", "empty",
	"unsupported", "too_large", "no_kernel", "no_driver", "policy", "error",
	"no_weights", "weights", "predicted", "searching", "compiling",
	"measuring", "measured", "capturing", "nested",
}

func (r Reason) String() string {
	if r >= 0 && r < reasonCount {
		return reasonNames[r]
	}
	return "unknown"
}

// ReasonCount is the number of reasons, for tables of counters.
const ReasonCount = int(reasonCount)

// Settled reports whether a forward for reason r holds for every later call
// with the same arguments but for the data's values and addresses (so long
// as their alignments are the same), the stream and the scalars' values: r
// follows from the descriptors, the handle's device and the options alone,
// or from a decision made for good (the model's prediction, a check's
// verdict). Reasons that pass with time (searching, compiling, measuring,
// capturing) or with the state of the process (no driver, an error) are
// not settled; neither is Served.
func (r Reason) Settled() bool {
	switch r {
	case FwdInvalid, FwdEmpty, FwdUnsupported, FwdTooLarge, FwdNoKernel, FwdPolicy, FwdNoWeights, FwdWeights, FwdPredicted, FwdMeasured:
		return true
	}
	return false
}
