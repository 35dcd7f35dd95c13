package dispatch

import (
	"os"
	"sync"
)

// Policy is ISAAC_POLICY: which calls of a served class ISAAC runs.
type Policy int

// Policies.
const (
	// PolicyAuto (the default) serves a call when the performance model
	// predicts a win over the vendor (reason "predicted" otherwise). A
	// device without model weights gets the vendor for every call (reason
	// "no_weights"; "weights" when ISAAC_WEIGHTS or the shipped file fails
	// to load).
	PolicyAuto Policy = iota
	// PolicyAlways serves every call of a served class (tests, tuning).
	PolicyAlways
	// PolicyNever forwards every call: Go decides nothing but still reads
	// and counts the calls (unlike ISAAC_DISABLE=1, which is pure C).
	PolicyNever
)

// ParsePolicy reads an ISAAC_POLICY value; ISAAC_CONFIG (a forced
// configuration) implies "always".
func ParsePolicy(policy, forcedConfig string) Policy {
	switch policy {
	case "always":
		return PolicyAlways
	case "never":
		return PolicyNever
	}
	if forcedConfig != "" {
		return PolicyAlways
	}
	return PolicyAuto
}

var policy = sync.OnceValue(func() Policy {
	return ParsePolicy(os.Getenv("ISAAC_POLICY"), os.Getenv("ISAAC_CONFIG"))
})
