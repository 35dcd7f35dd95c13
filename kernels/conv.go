package kernels

import (
	"fmt"
	"math"

	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/space"
)

// ConvTarget is where convolution c of shape s runs: the calling thread's
// current context and the class of its implicit GEMM.
func (rt *Runtime) ConvTarget(c *request.Conv, s request.ConvShape) (Target, error) {
	dev, ctx, err := rt.current()
	if err != nil {
		return Target{}, err
	}
	if s.G > 1 {
		return Target{}, fmt.Errorf("%w: a grouped convolution is not one implicit GEMM (GroupedTarget)", ErrUnsupported)
	}
	in := space.ConvClass(s, c.XPtr, c.WPtr)
	if err := in.Validate(); err != nil {
		return Target{}, fmt.Errorf("%w: %v", ErrUnsupported, err)
	}
	return Target{Ctx: ctx, Dev: dev, Class: in}, nil
}

// Conv launches convolution c (of shape s, as c.Shape gives it) on its
// stream in the calling thread's current context with configuration cfg,
// compiling its kernel if it is not loaded yet. It does not synchronize.
func (rt *Runtime) Conv(c *request.Conv, s request.ConvShape, cfg ptx.GemmConfig) error {
	t, k, err := rt.convKernel(rt.ConvTarget, c, s, cfg)
	if err != nil {
		return err
	}
	return rt.LaunchConv(t, c, s, k)
}

// convKernel is cfg's kernel for the target that target finds for c, cfg
// legal for its class.
func (rt *Runtime) convKernel(target func(*request.Conv, request.ConvShape) (Target, error), c *request.Conv, s request.ConvShape,
	cfg ptx.GemmConfig) (Target, *Kernel, error) {
	t, err := target(c, s)
	if err != nil {
		return t, nil, err
	}
	k, err := rt.legalKernel(t, cfg)
	return t, k, err
}

// LaunchConv launches convolution kernel k for c on c's stream in t's
// context, with the split-K workspace it needs. It does not synchronize.
func (rt *Runtime) LaunchConv(t Target, c *request.Conv, s request.ConvShape, k *Kernel) error {
	return rt.launchProblem(t, cuda.Stream(c.Stream), k, s.Pixels(), s.K, s.ReductionCRS(), 1, func(p *cuda.Params, ws, ctrs cuda.DevicePtr) error {
		return packConvParams(p, c, s, k, ws, ctrs)
	})
}

// packConvParams writes convolution kernel k's parameters: the GEMM ABI's
// for its implicit GEMM (alpha and beta, host values, in the compute type),
// its tensor maps (a TMA kernel: packConvTensorMaps), then ptx.ConvParams.
func packConvParams(p *cuda.Params, c *request.Conv, s request.ConvShape, k *Kernel, ws, ctrs cuda.DevicePtr) error {
	compute := k.compute
	crs := s.ReductionCRS()
	p.Ptr(c.XPtr).Ptr(c.WPtr).Ptr(c.YPtr)
	p.I32(int32(s.Pixels())).I32(int32(s.K)).I32(int32(crs))
	p.I32(0).I32(int32(crs)).I32(0)
	for _, v := range [2]float64{c.Alpha.Value, c.Beta.Value} {
		switch compute {
		case ptx.F16:
			p.U16(request.HalfBits(v))
		case ptx.F64:
			p.U64(math.Float64bits(v))
		default:
			p.U32(math.Float32bits(float32(v)))
		}
	}
	p.Ptr(0).Ptr(0).Ptr(uintptr(ws)).Ptr(uintptr(ctrs))
	if err := packConvTensorMaps(p, c, s, k); err != nil {
		return err
	}
	hOff, wOff, hStep, wStep := -s.PadH, -s.PadW, s.DilH, s.DilW
	if s.Flip {
		hOff, hStep = hOff+(s.R-1)*s.DilH, -s.DilH
		wOff, wStep = wOff+(s.S-1)*s.DilW, -s.DilW
	}
	for _, v := range []int{
		s.C / s.G, s.H, s.W, s.P, s.Q, s.R, s.S, s.StrH, s.StrW, hOff, wOff, hStep, wStep,
		s.XStrides[0], s.XStrides[1], s.XStrides[2], s.XStrides[3],
		s.YStrides[0], s.YStrides[1], s.YStrides[2], s.YStrides[3],
	} {
		p.I32(int32(v))
	}
	for _, v := range ptx.ConvMagic(s.C/s.G, s.R, s.S) {
		p.I32(int32(v))
	}
	return nil
}

// NHWC is convolution c as it runs on a packed NHWC copy of x at x and a
// copy of its filter in NHWC format at w (the filter itself when it is in
// that format already): what LaunchConvNHWC launches after its transposes.
func NHWC(c *request.Conv, s request.ConvShape, x, w uintptr) (*request.Conv, request.ConvShape) {
	v := *c
	st := []int{s.H * s.W * s.C, 1, s.W * s.C, s.C}
	v.XPtr, v.X.Strides = x, st
	v.WPtr, v.W.Format = w, 1
	sv := s
	copy(sv.XStrides[:], st)
	sv.FilterNHWC = true
	return &v, sv
}

// Transposable reports whether LaunchConvNHWC can run a convolution of
// shape s: x not channel-contiguous already, or float data whose copies
// round to TF32 (roundsTF32; in place, wgmma's kernels round each stage in
// shared memory instead, at a cost in shared-memory bandwidth), and the
// transposes' grids and the copies' offsets within their limits.
func Transposable(s request.ConvShape) bool {
	es := s.Type.Data.Size()
	px := planTranspose(es, 0, 0, [4]int{s.N, s.C, s.H, s.W}, s.XStrides)
	pw := planTranspose(es, 0, 0, [4]int{s.K, s.C, s.R, s.S}, filterStrides(s))
	_, _, okX := px.grid(0)
	_, _, okW := pw.grid(0)
	return (s.XStrides[1] != 1 || roundsTF32(s)) && s.G == 1 && okX && okW && s.N*s.C*s.H*s.W < 1<<31 && s.K*s.C*s.R*s.S < 1<<31
}

// CopiedInWords reports whether LaunchConvNHWC copies x of shape s (at
// device address x) by 4-byte words (ptx.TransposePairs) rather than by
// elements (tests, logs).
func CopiedInWords(s request.ConvShape, x uintptr) bool {
	return planTranspose(s.Type.Data.Size(), x, 0, [4]int{s.N, s.C, s.H, s.W}, s.XStrides).job == ptx.TransposePairs
}

// filterStrides are the element strides (K, C, R, S) of s's filter, in
// NCHW format or NHWC format.
func filterStrides(s request.ConvShape) [4]int {
	if s.FilterNHWC {
		return [4]int{s.R * s.S * s.C, 1, s.S * s.C, s.C}
	}
	return [4]int{s.C * s.R * s.S, s.R * s.S, s.S, 1}
}

// roundsTF32 reports whether s's NHWC copies are rounded to TF32: FLOAT
// data whose math allows TF32 (the kernels that read the copies then run
// wgmma on TF32). Its filter is copied whatever its format, to be rounded.
func roundsTF32(s request.ConvShape) bool { return s.TF32 && s.Type.Data.Size() == 4 }

// transposePlan is one job of a transposes kernel (ptx.GenerateTransposes):
// how it moves a tensor (src, dims, strides) into its packed copy at dst,
// and its blocks.
type transposePlan struct {
	job           ptx.TransposeJob
	src, dst      uintptr
	dims, strides [4]int
	gx, gy, n     int
}

// planTranspose is the job that moves the 4-d tensor of es-byte elements
// at src (dims, element strides) into a packed copy at dst with its second
// dimension last.
func planTranspose(es int, src, dst uintptr, dims, strides [4]int) transposePlan {
	p := transposePlan{job: ptx.TransposeTiles, src: src, dst: dst, dims: dims, strides: strides}
	if strides[1] == 1 && strides[3] == dims[1] && strides[2] == dims[3]*strides[3] {
		// Second dimension last already, each (C, D) block of A packed: a
		// copy (one that rounds, roundsTF32) of A rows of L = B·C·D
		// elements, each row seen as D' rows of L/D' (D' the largest power
		// of two up to RowsMaxD dividing L) so that a thread has D' loads
		// of its column in flight, consecutive threads reading and writing
		// consecutive elements.
		l, d := dims[1]*dims[2]*dims[3], ptx.RowsMaxD
		for l%d != 0 {
			d /= 2
		}
		p.dims, p.strides = [4]int{dims[0], l / d, 1, d}, [4]int{strides[0], 1, 0, l / d}
		if gx, n, ok := ptx.TransposeRowsBlocks(p.dims[0], p.dims[1], d); ok {
			p.job, p.gx, p.n = ptx.RowsJob(d), gx, n
			return p
		}
		p.dims, p.strides = dims, strides
	}
	if strides[2] == dims[3]*strides[3] {
		// Rows of D one after another: one dimension of C·D, which the
		// tiles fill better, or a short one for a rows job.
		p.dims[2], p.dims[3], p.strides[2] = 1, dims[2]*dims[3], 0
		if gx, n, ok := ptx.TransposeRowsBlocks(p.dims[0], p.dims[1], p.dims[3]); ok {
			p.job, p.gx, p.n = ptx.RowsJob(p.dims[3]), gx, n
			return p
		}
	}
	if es == 2 && ptx.PairsFit(src, p.dims, p.strides) {
		p.job = ptx.TransposePairs
		p.gx, p.gy, p.n = ptx.TransposePairsBlocks(p.dims[0], p.dims[1], p.dims[2], p.dims[3])
		return p
	}
	p.gx, p.gy, p.n = ptx.TransposeTileBlocks(p.dims[0], p.dims[1], p.dims[2], p.dims[3])
	return p
}

// grid is the grid of a transposes kernel whose first job is p and whose
// second has n1 blocks (none: 0), and the first job's z slices; ok is
// false beyond the grid's limits.
func (p transposePlan) grid(n1 int) (grid [3]int, z0 int, ok bool) {
	return ptx.TransposeGrid(p.job, p.dims, p.gx, p.gy, n1)
}

// push appends the job's parameters (ptx.GenerateTransposes's order).
func (p transposePlan) push(params *cuda.Params) {
	params.Ptr(p.src).Ptr(p.dst)
	d, st := p.dims, p.strides
	vals := []int{d[0], d[1], d[2], d[3], st[0], st[1], st[2], st[3], p.gx, p.gy}
	switch {
	case p.job.Rows():
		vals = []int{d[0], d[1], d[3], st[0], st[1], st[3], p.gx}
	case p.job == ptx.TransposePairs:
		vals = []int{d[0], d[1], d[2], d[3], st[0], st[1], st[2], p.gx, p.gy}
	}
	for _, v := range vals {
		params.I32(int32(v))
	}
}

// copyBytes are the bytes of the NHWC copies of x and (when it is not in
// that format, or is rounded to TF32) of the filter, each rounded up to
// 256. A 1×1 filter in NCHW format (K, C, 1, 1) lies in memory as in NHWC
// format (K, 1, 1, C): no copy unless it is rounded.
func copyBytes(s request.ConvShape) (x, w int) {
	es := s.Type.Data.Size()
	x = (s.N*s.C*s.H*s.W*es + 255) / 256 * 256
	if !s.FilterNHWC && s.R*s.S > 1 || roundsTF32(s) {
		w = (s.K*s.C*s.R*s.S*es + 255) / 256 * 256
	}
	return x, w
}

// ConvNHWCTarget is the target of convolution c run on NHWC copies (see
// NHWC; the copies lie 256-byte aligned in the workspace).
func (rt *Runtime) ConvNHWCTarget(c *request.Conv, s request.ConvShape) (Target, error) {
	xb, wb := copyBytes(s)
	w := uintptr(1<<20 + xb)
	if wb == 0 {
		w = c.WPtr
	}
	v, sv := NHWC(c, s, 1<<20, w)
	t, err := rt.ConvTarget(v, sv)
	// The copies are rounded to TF32 as they are made (roundsTF32).
	t.Class.RoundTF32 = false
	return t, err
}

// LaunchConvNHWC runs convolution c (Transposable) on its stream: a kernel
// that transposes x to a packed NHWC copy and the filter to NHWC format
// (unless it is already; a second kernel where one grid cannot hold both),
// both in the call's workspace, then kernel k (of ConvNHWCTarget's class)
// on the copies, writing y through its strides: a programmatic dependent of
// the transposes as SetDependentLaunch says.
func (rt *Runtime) LaunchConvNHWC(t Target, c *request.Conv, s request.ConvShape, k *Kernel) error {
	m, n, kk := s.Pixels(), s.K, s.ReductionCRS()
	if !Transposable(s) {
		return fmt.Errorf("%w: no NHWC copies of %v", ErrUnsupported, s)
	}
	grid := k.grid(m, n, kk)
	if !k.Fits(m, n, kk) {
		return fmt.Errorf("%w: grid %v too large", ErrUnsupported, grid)
	}
	stream := cuda.Stream(c.Stream)
	xb, wb := copyBytes(s)
	front, ws, ctrs, done, err := rt.workspace(t, stream, k, m, n, kk, xb+wb)
	if err != nil {
		return err
	}
	defer done()
	p := paramPool.Get().(*cuda.Params)
	defer paramPool.Put(p)
	x, w, err := rt.launchConvCopies(t, c, s, uintptr(front), p)
	if err != nil {
		return err
	}
	v, sv := NHWC(c, s, x, w)
	p.Reset()
	if err := packConvParams(p, v, sv, k, ws, ctrs); err != nil {
		return err
	}
	// A kernel whose tiles' reductions are split across blocks (KG > 1,
	// finished in order through arrival counters) ran slower as a
	// dependent scheduled at the transposes' start (docs/method.md): under
	// that mode it is launched plainly.
	d := rt.dependentLaunch()
	return launchAfter(t.Record, k.fn, k.gen, grid, stream, p, d == DependentAtEnd || d == DependentAtStart && k.cfg.KG == 1)
}

// launchConvCopies launches on c's stream the transposes that make the
// NHWC copies of x and (unless it is in NHWC format already, see
// copyBytes) of the filter at front, copyBytes(s) bytes of the call's
// workspace: x and the filter in one launch where the grid allows. x and
// w are where the kernel then reads them.
func (rt *Runtime) launchConvCopies(t Target, c *request.Conv, s request.ConvShape, front uintptr, p *cuda.Params) (x, w uintptr, err error) {
	xb, wb := copyBytes(s)
	x, w = front, c.WPtr
	es := s.Type.Data.Size()
	launches := [][]transposePlan{{planTranspose(es, c.XPtr, x, [4]int{s.N, s.C, s.H, s.W}, s.XStrides)}}
	if wb > 0 {
		w = x + uintptr(xb)
		pw := planTranspose(es, c.WPtr, w, [4]int{s.K, s.C, s.R, s.S}, filterStrides(s))
		if _, _, ok := launches[0][0].grid(pw.n); ok {
			launches[0] = append(launches[0], pw)
		} else {
			launches = append(launches, []transposePlan{pw})
		}
	}
	for _, plans := range launches {
		if err := rt.launchTransposes(t, es, roundsTF32(s), plans, cuda.Stream(c.Stream), p); err != nil {
			return 0, 0, err
		}
	}
	return x, w, nil
}

// ConvCopies runs, on c's stream, the copies LaunchConvNHWC makes of
// convolution c's x and filter (Transposable) into dst, at least
// CopyBytes(s) bytes of device memory, and nothing after them (benchmarks).
func (rt *Runtime) ConvCopies(c *request.Conv, s request.ConvShape, dst cuda.DevicePtr) error {
	if !Transposable(s) {
		return fmt.Errorf("%w: no NHWC copies of %v", ErrUnsupported, s)
	}
	t, err := rt.ConvNHWCTarget(c, s)
	if err != nil {
		return err
	}
	p := paramPool.Get().(*cuda.Params)
	defer paramPool.Put(p)
	_, _, err = rt.launchConvCopies(t, c, s, uintptr(dst), p)
	return err
}

// CopyBytes are the bytes of device memory ConvCopies writes for s.
func CopyBytes(s request.ConvShape) int {
	x, w := copyBytes(s)
	return x + w
}

// launchTransposes launches the transposes kernel of plans (one or two
// jobs whose blocks fit one grid) on stream, with p its parameters.
func (rt *Runtime) launchTransposes(t Target, es int, roundTF32 bool, plans []transposePlan, stream cuda.Stream, p *cuda.Params) error {
	tr, err := rt.transposesKernel(t, es, roundTF32, plans)
	if err != nil {
		return err
	}
	p.Reset()
	n1 := 0
	for _, pl := range plans {
		pl.push(p)
	}
	if len(plans) == 2 {
		n1 = plans[1].n
	}
	g, z0, _ := plans[0].grid(n1)
	if n1 > 0 {
		p.I32(int32(z0)).I32(int32(n1))
	}
	return launch(t.Record, tr.fn, tr.gen, g, stream, p)
}

// ConvNHWC is Conv through LaunchConvNHWC, with cfg legal for
// ConvNHWCTarget's class (tests, benchmarks).
func (rt *Runtime) ConvNHWC(c *request.Conv, s request.ConvShape, cfg ptx.GemmConfig) error {
	t, k, err := rt.convKernel(rt.ConvNHWCTarget, c, s, cfg)
	if err != nil {
		return err
	}
	return rt.LaunchConvNHWC(t, c, s, k)
}

// transposesKernel is the transposes kernel of es-byte elements for
// plans' jobs in t's context (rounding to TF32 with roundTF32), loaded
// once, with the trigger SetDependentLaunch's mode asks for.
func (rt *Runtime) transposesKernel(t Target, es int, roundTF32 bool, plans []transposePlan) (*Kernel, error) {
	trigger := ptx.TriggerAtStart
	if rt.dependentLaunch() == DependentAtEnd {
		trigger = ptx.TriggerAtEnd
	}
	spec := transposesSpec{es: es, n: len(plans), roundTF32: roundTF32, trigger: trigger}
	for i, p := range plans[:min(len(plans), len(spec.jobs))] {
		spec.jobs[i] = p.job
	}
	return rt.specKernel(t, spec, func() (*ptx.Kernel, error) {
		jobs := make([]ptx.TransposeJob, len(plans))
		for i, p := range plans {
			jobs[i] = p.job
		}
		if roundTF32 {
			return ptx.GenerateTransposesTF32(jobs, t.Dev.Limits.Arch(), trigger)
		}
		return ptx.GenerateTransposes(es, jobs, t.Dev.Limits.Arch(), trigger)
	})
}

// transposesSpec is what a transposes kernel's code depends on.
type transposesSpec struct {
	es, n     int
	jobs      [2]ptx.TransposeJob
	roundTF32 bool
	trigger   ptx.Trigger
}

// specKey names a generated kernel (not a GEMM's) in a context by what
// its code depends on (a comparable spec: transposesSpec, groupedSpec).
type specKey struct {
	ctx  uint64
	spec any
}

// specKernel is the kernel gen generates for spec, loaded once in t's
// context (namedKernel) and then found by spec alone: generating a
// kernel's PTX costs hundreds of microseconds of host time, more than
// the launches that use it, so it is done once, not on every call. A
// failure is not kept (gen runs again on the next call).
func (rt *Runtime) specKernel(t Target, spec any, gen func() (*ptx.Kernel, error)) (*Kernel, error) {
	key := specKey{t.Ctx, spec}
	if v, ok := rt.specs.Load(key); ok {
		return v.(*Kernel), nil
	}
	g, err := gen()
	if err != nil {
		return nil, err
	}
	rt.count(func(s *Stats) { s.Generated++ })
	k, err := rt.namedKernel(t, g)
	if err != nil {
		return nil, err
	}
	rt.specs.Store(key, k)
	return k, nil
}

// specLoaded reports whether specKernel(t, spec, gen) would be quick: the
// kernel is loaded in t's context, or the disk cache holds its image, or
// gen fails (an error specKernel reports at once). Otherwise specKernel
// would compile. gen runs only where the kernel is not loaded.
func (rt *Runtime) specLoaded(t Target, spec any, gen func() (*ptx.Kernel, error)) bool {
	if v, ok := rt.specs.Load(specKey{t.Ctx, spec}); ok && v.(*Kernel).loaded.Load() {
		return true
	}
	g, err := gen()
	if err != nil {
		return true
	}
	driver, _ := cuda.DriverVersion()
	p := rt.imagePath(g.PTX, fmt.Sprintf("sm_%d%d", t.Dev.Limits.SMMajor, t.Dev.Limits.SMMinor), driver)
	return p != "" && fileExists(p)
}

// namedKernel is generated kernel gen (one that is not a GEMM's: a
// transpose, a direct convolution) loaded once in t's context, by name.
func (rt *Runtime) namedKernel(t Target, gen *ptx.Kernel) (*Kernel, error) {
	v, _ := rt.kernels.LoadOrStore(kernelKey{t.Ctx, gen.Name}, &Kernel{})
	k := v.(*Kernel)
	k.once.Do(func() {
		k.gen = gen
		arch := fmt.Sprintf("sm_%d%d", t.Dev.Limits.SMMajor, t.Dev.Limits.SMMinor)
		if k.fn, k.err = rt.loadFunction(gen, arch); k.err == nil && gen.SharedBytes > 48<<10 {
			k.err = k.fn.SetMaxDynamicShared(gen.SharedBytes)
		}
		k.loaded.Store(k.err == nil)
	})
	return k, k.err
}
