package kernels

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
)

// A Recording keeps the launches a call would make instead of making them:
// a Target whose Record is set has every launch function (LaunchConv,
// LaunchConvNHWC, LaunchWindow, LaunchGrouped, Launch) append its kernels
// here, in stream order, with their parameters as packed. The shim repeats
// a served convolution's recording in C on later calls like it, with the
// call's own addresses patched in (serve.Server.ConvRepeat).
//
// A recording holds only what every later call of the same input repeats
// unchanged: launches whose workspace is the stream's kept one (the same
// memory from call to call until it grows: StreamWorkspace) or none. A
// call that would take a workspace of its own (on a stream being captured,
// or beyond the kept limits) is not recorded (ErrNotRepeatable). Tensor
// maps are recorded as encoded: Repeat tells whether they repeat (those of
// NHWC copies address the workspace, not the call's tensors).
type Recording struct {
	Launches        []cuda.LaunchRecord
	StreamWorkspace bool // some launch reads or writes the stream's kept workspace
}

// ErrNotRepeatable is a recording's refusal: the call's launches depend on
// more than its input and addresses (see Recording).
var ErrNotRepeatable = errors.New("kernels: the call's launches cannot be repeated as recorded")

// TensorMapped reports whether k's parameters hold tensor maps (a TMA
// kernel's; tests and logs).
func (k *Kernel) TensorMapped() bool { return len(k.gen.TensorMaps) > 0 }

// put launches f, or appends it to rec where rec is set.
func put(rec *Recording, f cuda.Function, grid, block, cluster cuda.Dim3, dependent bool, shared int, s cuda.Stream, p *cuda.Params) error {
	if rec == nil {
		if dependent || cluster != (cuda.Dim3{}) {
			return cuda.LaunchEx(f, grid, block, cluster, dependent, shared, s, p)
		}
		return cuda.Launch(f, grid, block, shared, s, p)
	}
	buf, offs := p.Packed()
	rec.Launches = append(rec.Launches, cuda.LaunchRecord{Fn: f, Grid: grid, Block: block, Cluster: cluster,
		Dependent: dependent, SharedBytes: shared, Params: buf, Offsets: offs})
	return nil
}

// dims is a grid as a launch's Dim3.
func dims(g [3]int) cuda.Dim3 { return cuda.Dim3{uint32(g[0]), uint32(g[1]), uint32(g[2])} }

// blockOf is kernel k's block as a launch's Dim3.
func blockOf(k *ptx.Kernel) cuda.Dim3 {
	return cuda.Dim3{uint32(k.Block[0]), uint32(k.Block[1]), uint32(k.Block[2])}
}

// RepeatShift moves x, w and y (a call's three operands) for the second
// recording Repeat compares: multiples of 256 bytes (the alignments, on
// which the kernels' choices depend, stay) whose bits from 8 up to 45 are
// mixed, so that a parameter derived from an address by any rule but an
// added constant (a shift, a truncation, a sum or difference of two
// addresses: no sum or difference of two of them equals the third) moves
// by something else than one of them.
var RepeatShift = [3]uint64{0x0a5a5a5a5a00, 0x1c3c3c3c3c00, 0x369696969600}

// Repeat is recording a of a call whose operands (x, w and y for a
// convolution) lie at base, as it is made again for a call at other
// addresses: a's launches, each with the patches that put the new call's
// addresses (or addresses derived from them) into its parameters. b is the
// same call recorded with each operand i moved by shift[i] (RepeatShift).
// Where the two recordings differ by anything other
// than pointer-sized words moved by exactly one operand's shift, the
// launches depend on the addresses in a way a patch cannot repeat:
// ErrNotRepeatable.
func Repeat(a, b *Recording, base, shift [3]uint64) ([]cuda.LaunchRecord, error) {
	if len(a.Launches) != len(b.Launches) || len(a.Launches) == 0 || a.StreamWorkspace != b.StreamWorkspace {
		return nil, ErrNotRepeatable
	}
	out := make([]cuda.LaunchRecord, len(a.Launches))
	for i := range a.Launches {
		la, lb := a.Launches[i], b.Launches[i]
		if la.Fn != lb.Fn || la.Grid != lb.Grid || la.Block != lb.Block || la.Cluster != lb.Cluster ||
			la.Dependent != lb.Dependent || la.SharedBytes != lb.SharedBytes ||
			len(la.Params) != len(lb.Params) || !slices.Equal(la.Offsets, lb.Offsets) {
			return nil, ErrNotRepeatable
		}
		l := la
		l.Patches = nil
		for at := 0; at < len(la.Params); at += 8 {
			end := min(at+8, len(la.Params))
			if string(la.Params[at:end]) == string(lb.Params[at:end]) {
				continue
			}
			if end-at < 8 {
				return nil, ErrNotRepeatable
			}
			va, vb := binary.LittleEndian.Uint64(la.Params[at:]), binary.LittleEndian.Uint64(lb.Params[at:])
			op := -1
			for o, d := range shift {
				if vb-va == d {
					op = o
				}
			}
			if op < 0 {
				return nil, ErrNotRepeatable
			}
			l.Patches = append(l.Patches, cuda.Patch{At: at, Operand: op, Add: int64(va - base[op])})
		}
		out[i] = l
	}
	return out, nil
}

// WorkspaceMoves counts the times a stream's kept workspace moved (grew
// into new memory, the old freed in the stream's order): a recording that
// uses one is valid while the count stays what it was before the
// recording.
func (rt *Runtime) WorkspaceMoves() uint64 { return rt.wsMoves.Load() }

// OnWorkspaceMove has f called with the new count each time a stream's
// kept workspace is about to move, before its old memory is freed: the
// shim drops the launches it repeats from recordings (nil: nothing).
func (rt *Runtime) OnWorkspaceMove(f func(moves uint64)) {
	if f == nil {
		rt.onMove.Store(nil)
		return
	}
	rt.onMove.Store(&f)
}
