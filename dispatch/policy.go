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
	// predicts a win over the vendor. A device without model weights gets
	// the vendor for every call (reason "policy"): ISAAC is never slower.
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
