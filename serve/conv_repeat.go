package serve

import (
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/request"
)

// A Repeat is a served convolution's launches as the shim repeats them
// from C for later calls like it (shim.RememberConvRepeat): recorded in
// context Ctx when the streams' workspaces had moved RecordedAt times,
// using the stream's kept workspace (Workspace) or none, each launch with
// the patches that put a call's x, w and y into its parameters.
type Repeat struct {
	Ctx        uint64
	Workspace  bool
	RecordedAt uint64
	Launches   []cuda.LaunchRecord
}

// ConvRepeat is what the shim may repeat of convolution c, which Conv has
// just served (ConvRepeating's repeat, for tests): its launches recorded,
// where its decision holds for every later call like it (made, not
// pending, its check's verdict in or no check) and they depend on nothing
// but c's input and addresses (kernels.Repeat). Otherwise, or under
// Options.ConvRepeat off, false; a decision whose launches cannot be
// repeated is not recorded again.
func (s *Server) ConvRepeat(c *request.Conv) (Repeat, bool) {
	key, t, shape, r := s.convTarget(c)
	if r != request.Served {
		return Repeat{}, false
	}
	v, ok := s.convs.Load(key)
	if !ok {
		return Repeat{}, false
	}
	d := v.(*convDecision)
	if d.reason != request.Served || d.pending {
		return Repeat{}, false
	}
	cand := 0
	if m := d.meas; m != nil {
		if m.verdict.Load() != oursFaster {
			return Repeat{}, false
		}
		cand = int(m.chosen.Load())
	}
	return s.convRepeat(convServed{d, t, shape, cand}, c)
}

// convRepeat is ConvRepeat of c, served by sv.
func (s *Server) convRepeat(sv convServed, c *request.Conv) (Repeat, bool) {
	d := sv.d
	if !s.opts.ConvRepeat || d.unrepeatable.Load() {
		return Repeat{}, false
	}
	run := d.run(sv.cand)
	if cuda.Stream(c.Stream).Capturing() {
		return Repeat{}, false // a captured call's workspace is its own: this call is not recorded
	}
	moves := s.rt.WorkspaceMoves()
	var a, b kernels.Recording
	ta, tb := sv.t, sv.t
	ta.Record, tb.Record = &a, &b
	// The second recording moves the addresses: made only once the first
	// shows that every launch of the path is recorded, not made.
	if s.launchConv(ta, c, sv.shape, run) != nil || len(a.Launches) == 0 {
		d.unrepeatable.Store(true)
		return Repeat{}, false
	}
	moved := *c
	moved.XPtr += uintptr(kernels.RepeatShift[0])
	moved.WPtr += uintptr(kernels.RepeatShift[1])
	moved.YPtr += uintptr(kernels.RepeatShift[2])
	if s.launchConv(tb, &moved, sv.shape, run) != nil {
		d.unrepeatable.Store(true)
		return Repeat{}, false
	}
	base := [3]uint64{uint64(c.XPtr), uint64(c.WPtr), uint64(c.YPtr)}
	launches, err := kernels.Repeat(&a, &b, base, kernels.RepeatShift)
	if err != nil {
		d.unrepeatable.Store(true)
		return Repeat{}, false
	}
	return Repeat{Ctx: sv.t.Ctx, Workspace: a.StreamWorkspace, RecordedAt: moves, Launches: launches}, true
}
