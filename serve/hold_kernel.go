package serve

import _ "embed"

// holdPTX is a one-thread kernel, isaac_hold(u64 ns), that keeps its
// stream busy for ns nanoseconds of %globaltimer. The check of a decision
// to serve launches it before each timed call, so that the call is
// enqueued while the GPU is still busy and its events time the device's
// work alone, not the host's work between the start event and the launch
// (which differs between our launch path and the vendor's).
//
//go:embed hold.ptx
var holdPTX string

// holdEntry is holdPTX's entry.
const holdEntry = "isaac_hold"
