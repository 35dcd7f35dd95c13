package serve

import (
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/cuda"
	"github.com/isaacgo/isaac/internal/cudnn"
	"github.com/isaacgo/isaac/internal/devbench"
	"github.com/isaacgo/isaac/request"
)

// TestGPUConvCheckVendorTimes: a convolution check's cuDNN samples time
// what a benchmark of cuDNN alone times (devbench's blocking timer, L2
// flushed by a read, each timed call right after an untimed call of
// cuDNN, as bench_compare -order self does), within the check's own
// margin: a check whose cuDNN samples read slow keeps a kernel of ours
// that is slower than cuDNN. Table 5's conv10 in TF32 NHWC was served at
// 0.88× on the H100 and 0.98× on the H200 with its check's cuDNN
// samples 10–18 µs above bench_compare's; the other layers are there to
// show whether that is one layer's or the check's. The log gives, per
// layer, the check's samples and cuDNN and ours timed several ways, so
// that a failure says which condition of the check the difference
// follows, among them after a kernel that leaves the SMs' memory split
// towards L1 or towards shared memory. The check's fastest sample is held
// to the benchmark's median.
func TestGPUConvCheckVendorTimes(t *testing.T) {
	h := gpuCuDNN(t)
	dev, err := cuda.CurrentDevice()
	if err != nil {
		t.Fatal(err)
	}
	l2, err := dev.Attribute(cuda.AttrL2CacheSize)
	if err != nil {
		t.Fatal(err)
	}
	tm, err := devbench.NewTimerBlocking(l2, devbench.FlushRead)
	if err != nil {
		t.Fatal(err)
	}
	tf32 := func(n, c, hw, k, r int, l convcheck.Layout) convcheck.Case {
		return convcheck.Case{Type: request.ConvTypes[0], Math: request.CudnnDefaultMath, N: n, C: c, H: hw, W: hw, K: k, R: r, S: r,
			StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: l, Y: l, FilterNHWC: l == convcheck.NHWC, Alpha: 1, Seed: 1}
	}
	half := func(c convcheck.Case) convcheck.Case {
		c.Type, c.Math = request.ConvTypes[2], request.CudnnTensorOpMath
		return c
	}
	cases := []struct {
		name string
		c    convcheck.Case
	}{
		{"conv10 tf32 nhwc", tf32(8, 128, 58, 256, 3, convcheck.NHWC)},
		{"conv10 tf32 nchw", tf32(8, 128, 58, 256, 3, convcheck.NCHW)},
		{"conv10 fp16 nhwc", half(tf32(8, 128, 58, 256, 3, convcheck.NHWC))},
		{"conv9 tf32 nhwc", tf32(8, 64, 114, 128, 3, convcheck.NHWC)},
		{"conv5 tf32 nhwc", tf32(8, 64, 56, 64, 3, convcheck.NHWC)},
	}
	sms, err := dev.Attribute(cuda.AttrMultiprocessorCount)
	if err != nil {
		t.Fatal(err)
	}
	cv := loadCarveouts(t, sms)
	for _, tc := range cases {
		checkVendorTimes(t, h, tm, cv, tc.name, tc.c)
	}
}

// carveoutPTX is two kernels that do nothing but hold 1 KB of dynamic
// shared memory, launched with opposite carveout preferences (the share
// of each SM's on-chip memory set aside as shared memory rather than L1):
// what they leave configured on the SMs is what the next kernel finds
// where its own needs do not make the driver change it.
const carveoutPTX = `.version 7.0
.target sm_70
.address_size 64
.extern .shared .align 4 .b8 dyn[];
.visible .entry isaac_test_prefer_l1() { ret; }
.visible .entry isaac_test_prefer_shared() { ret; }
`

// carveouts launches carveoutPTX's kernels over every SM.
type carveouts struct {
	preferL1, preferShared cuda.Function
	grid                   cuda.Dim3
}

func loadCarveouts(t *testing.T, sms int) carveouts {
	t.Helper()
	mod, log, err := cuda.LoadPTX(carveoutPTX, 0)
	if err != nil {
		t.Fatalf("%v\n%s", err, log)
	}
	t.Cleanup(func() { mod.Unload() })
	cv := carveouts{grid: cuda.Dim3{uint32(16 * sms), 1, 1}}
	for _, k := range []struct {
		f       *cuda.Function
		name    string
		percent int
	}{{&cv.preferL1, "isaac_test_prefer_l1", 0}, {&cv.preferShared, "isaac_test_prefer_shared", 100}} {
		if *k.f, err = mod.Function(k.name); err != nil {
			t.Fatal(err)
		}
		if err := k.f.SetAttribute(cuda.FuncPreferredSharedCarveout, k.percent); err != nil {
			t.Fatal(err)
		}
	}
	return cv
}

// after runs first, then f over every SM, on stream.
func (cv carveouts) after(first func() error, f cuda.Function, stream cuda.Stream) func() error {
	return func() error {
		if err := first(); err != nil {
			return err
		}
		return cuda.Launch(f, cv.grid, cuda.Dim3{128, 1, 1}, 1024, stream, &cuda.Params{})
	}
}

// checkVendorTimes is TestGPUConvCheckVendorTimes on one convolution.
func checkVendorTimes(t *testing.T, h cudnn.Handle, tm *devbench.Timer, cv carveouts, name string, c convcheck.Case) {
	b, err := convcheck.Upload(c, convcheck.Fill(c))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	stream := tm.Stream
	req := b.Request(stream)
	vendor, algo := cudnnV7(t, h, req)

	o := FromEnv()
	o.Policy, o.ConvAuto, o.Check, o.CheckEvict = Auto, true, true, true
	srv := NewOn(testRT, o)
	key, tg, shape, r := srv.convTarget(req)
	if r != request.Served {
		t.Logf("%s: not served (%v)", name, r)
		return
	}
	dec := srv.convHeuristic(tg, req, shape)
	if dec.reason != request.Served {
		t.Logf("%s: the heuristic does not serve it (%v)", name, dec.reason)
		return
	}
	dec.meas = srv.newCheck(1, convCheck)
	srv.convs.Store(key, dec)
	ours := func() error { return srv.launchConv(tg, req, shape, dec.run(0)) }
	for _, run := range []func() error{vendor, ours, vendor, ours} {
		if err := run(); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Synchronize(); err != nil {
		t.Fatal(err)
	}

	// The check, on calls as the shim makes them; the host's time in
	// cuDNN's call while the stream is held is kept.
	var host []float64
	for i := 0; i < 64 && !srv.ConvMeasured(req).Settled; i++ {
		r, tok := srv.Conv(req)
		switch r {
		case request.Served, request.FwdMeasured:
		case request.FwdMeasuring:
			start := time.Now()
			if err := vendor(); err != nil {
				t.Fatal(err)
			}
			host = append(host, float64(time.Since(start).Nanoseconds())/1000)
			srv.AfterForward(tok)
		default:
			t.Fatalf("%s: call %d: %v", name, i, r)
		}
		if err := stream.Synchronize(); err != nil {
			t.Fatal(err)
		}
	}
	m := srv.ConvMeasured(req)
	if !m.Settled {
		t.Fatalf("%s: no verdict", name)
	}
	dec.meas.mu.Lock()
	checkVendor, checkOurs := slices.Clone(dec.meas.vendor), slices.Clone(dec.meas.ours[0])
	dec.meas.mu.Unlock()

	// cuDNN and ours timed by the benchmark's timer after an untimed call
	// of the same side or of the other; and cuDNN timed as the check times
	// it (evict, hold, events) after a call of ours.
	timed := func(before, run func() error) []float64 {
		var us []float64
		for i := 0; i < 10; i++ {
			if err := before(); err != nil {
				t.Fatal(err)
			}
			v, err := tm.Time(run)
			if err != nil {
				t.Fatal(err)
			}
			us = append(us, v)
		}
		return us
	}
	vendorSelf, vendorAfterOurs := timed(vendor, vendor), timed(ours, vendor)
	oursSelf, oursAfterVendor := timed(ours, ours), timed(vendor, ours)
	// Whether what ours leaves is the SMs' split of shared memory and L1:
	// cuDNN after ours and a kernel that prefers L1, after itself and one
	// that prefers shared memory.
	vendorAfterOursL1 := timed(cv.after(ours, cv.preferL1, stream), vendor)
	vendorAfterSelfShared := timed(cv.after(vendor, cv.preferShared, stream), vendor)
	var checkStyle []float64
	for i := 0; i < 10; i++ {
		if err := ours(); err != nil {
			t.Fatal(err)
		}
		start, err1 := cuda.NewEvent()
		end, err2 := cuda.NewEvent()
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		release, _ := srv.beforeSample(tg.Ctx, stream)
		start.Record(stream)
		err := vendor()
		end.Record(stream)
		release()
		if err != nil {
			t.Fatal(err)
		}
		if err := stream.Synchronize(); err != nil {
			t.Fatal(err)
		}
		ms, err := end.Elapsed(start)
		if err != nil {
			t.Fatal(err)
		}
		checkStyle = append(checkStyle, float64(ms)*1000)
		start.Destroy()
		end.Destroy()
	}
	t.Logf("%s (%s, cuDNN algo %d, %s): check: cuDNN %s µs (host %s µs), ours %s µs, ours faster %v; timer: cuDNN after cuDNN %s, after ours %s; "+
		"ours after ours %s, after cuDNN %s; cuDNN timed as the check times it, after ours %s; "+
		"cuDNN after ours and a kernel preferring L1 %s, after cuDNN and a kernel preferring shared memory %s",
		name, c, algo.Algo, dec.run(0), listUS(checkVendor), listUS(host), listUS(checkOurs), m.OursFaster,
		listUS(vendorSelf), listUS(vendorAfterOurs), listUS(oursSelf), listUS(oursAfterVendor), listUS(checkStyle),
		listUS(vendorAfterOursL1), listUS(vendorAfterSelfShared))
	// Against the benchmark's median, not its fastest: cuDNN's TF32
	// kernel for conv10 runs at one of two speeds from call to call even
	// right after its own calls (56–61 or 68–70 µs on the H200), and the
	// check takes three samples where the benchmark takes ten.
	if bench := median(vendorSelf); slices.Min(checkVendor) > convCheck.Ratio*bench+1 {
		t.Errorf("%s: the check's fastest cuDNN sample %.1f µs, the benchmark's median %.1f µs", name, slices.Min(checkVendor), bench)
	}
}

// listUS is samples in µs, in the order taken.
func listUS(v []float64) string {
	s := []byte{'['}
	for i, x := range v {
		if i > 0 {
			s = append(s, ' ')
		}
		s = strconv.AppendFloat(s, x, 'f', 1, 64)
	}
	return string(append(s, ']'))
}

// median is the median of samples (the mean of the middle two for an even
// count).
func median(v []float64) float64 {
	s := slices.Sorted(slices.Values(v))
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}
