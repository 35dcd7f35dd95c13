package serve

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/isaacgo/isaac/internal/convcheck"
	"github.com/isaacgo/isaac/internal/gemmcheck"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/predictor"
	"github.com/isaacgo/isaac/ptx"
	"github.com/isaacgo/isaac/request"
	"github.com/isaacgo/isaac/weights"
)

// FromEnv reads ISAAC_CONFIG into a configuration (implying always), and a
// malformed one into an error that serves no call.
func TestOptionsConfig(t *testing.T) {
	t.Setenv("ISAAC_POLICY", "")
	t.Setenv("ISAAC_CONFIG", "")
	if o := FromEnv(); o.Config != nil || o.ConfigErr != nil || o.Policy != Auto {
		t.Errorf("empty ISAAC_CONFIG: %+v", o)
	}
	t.Setenv("ISAAC_CONFIG", "ms=4,ns=4,ml=64,nl=64,u=16,ks=1,kl=1,kg=2,va=4,vb=4,st=3,math=ffma")
	o := FromEnv()
	if c := o.Config; c == nil || c.KG != 2 || c.Stages != 3 || c.Math != ptx.FFMA || o.Policy != Always {
		t.Errorf("parsed %+v, policy %v", c, o.Policy)
	}
	t.Setenv("ISAAC_CONFIG", "ms=four")
	if o := FromEnv(); o.ConfigErr == nil || o.Config != nil {
		t.Error("a malformed ISAAC_CONFIG was accepted")
	}
	g := &request.Gemm{M: 64, N: 64, K: 64}
	if _, err := New(FromEnv()).heuristic(testTarget(), g); err == nil {
		t.Error("a malformed ISAAC_CONFIG yields a configuration")
	}
}

// testTarget is a float32 target on an H100 without a device behind it.
func testTarget() kernels.Target {
	return kernels.Target{
		Dev:   &kernels.Device{Limits: ptx.H100()},
		Class: ptx.InputClass{AType: ptx.F32, BType: ptx.F32, CType: ptx.F32, Compute: ptx.F32, AlignA: 4, AlignB: 4, AlignC: 4},
	}
}

// A server given a configuration (ISAAC_CONFIG) runs it for every call it
// serves, and computes the right result with it.
func TestGPUForcedConfig(t *testing.T) {
	gemmcheck.GPUThread(t)
	const forced = "ms=2,ns=2,ml=32,nl=16,u=8,ks=1,kl=1,kg=4,va=1,vb=1,st=1,math=dfma"
	cfg, err := ptx.ParseConfig(forced)
	if err != nil {
		t.Fatal(err)
	}
	o := FromEnv()
	o.Config, o.ConfigErr, o.Policy = &cfg, nil, Always
	s := NewOn(testRT, o)
	c := gemmcheck.Case{Type: gemmcheck.Types[2], M: 100, N: 50, K: 300, Alpha: 2, Beta: 1, Seed: 5}
	d := gemmcheck.NewData(c)
	b, err := gemmcheck.Upload(c, d)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Free()
	g := b.Request(0)
	got, r := s.Decide(g)
	if r != request.Served || got != cfg {
		t.Fatalf("decided %v (%v), want %v", got, r, cfg)
	}
	if r, _ := s.Serve(g); r != request.Served {
		t.Fatalf("forwarded: %v", r)
	}
	out, err := b.ReadC(0)
	if err != nil {
		t.Fatal(err)
	}
	if rep := d.Check(c, out); rep.Bad > 0 {
		t.Fatal(rep.FirstBad)
	}
}

// ISAAC_CONV_WEIGHTS=none leaves a server without a convolution model (no
// weights: cuDNN under auto, the heuristic under always); the shipped
// weights make a chooser with the server's settings, weights without a
// convolution model none.
func TestConvWeightsOption(t *testing.T) {
	t.Setenv("ISAAC_CONV_WEIGHTS", "none")
	o := FromEnv()
	if o.ConvWeights != "none" {
		t.Fatalf("ConvWeights %q", o.ConvWeights)
	}
	dev := testTarget().Dev
	if _, _, _, err := loadConvModel(o.ConvWeights, "", false, dev); !errors.Is(err, ErrNoWeights) || reasonOf(err) != request.FwdNoWeights {
		t.Errorf("none: %v", err)
	}
	w, err := weights.ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	ch, err := ConvChooserOf(w, ptx.H100())
	if err != nil || ch.Config == nil || ch.Vendor == nil || ch.Margin != convCheckMargin || ch.TopK != choiceTopK {
		t.Errorf("the shipped weights' chooser %+v: %v", ch, err)
	}
	if _, err := ConvChooserOf(&predictor.Weights{}, ptx.H100()); !errors.Is(err, ErrWeights) {
		t.Errorf("weights without a convolution model: %v", err)
	}
}

// ISAAC_CONV_AUTO turns the convolution model's dispatch under auto on (1)
// or off (0); unset, each device's rule decides (convDispatchDefault). Off,
// and under never, a convolution goes to cuDNN by policy before any device
// is asked.
func TestConvAutoOption(t *testing.T) {
	for v, want := range map[string]Switch{"": ByDevice, "1": On, "0": Off, "yes": ByDevice} {
		t.Setenv("ISAAC_CONV_AUTO", v)
		if got := FromEnv().ConvAuto; got != want {
			t.Errorf("ISAAC_CONV_AUTO=%q: %v, want %v", v, got, want)
		}
	}
	var scalars [2]float64
	c := convcheck.Case{Type: request.ConvTypes[0], Math: request.CudnnFMAMath, N: 1, C: 8, H: 8, W: 8, K: 8, R: 3, S: 3,
		PadH: 1, PadW: 1, StrH: 1, StrW: 1, DilH: 1, DilW: 1, X: convcheck.NCHW, Y: convcheck.NCHW, Alpha: 1}
	req := c.RequestAt(0x1000000, 0x2000000, 0x3000000, &scalars, 0)
	o := Defaults()
	o.ConvAuto = Off
	if r, _ := New(o).Conv(req); r != request.FwdPolicy {
		t.Errorf("auto with ISAAC_CONV_AUTO=0: %v, want policy", r)
	}
	if r := New(Defaults()).ConvPolicy(); r != request.Served {
		t.Errorf("auto by device: the policy forwards every convolution (%v) before the device is known", r)
	}
	o.Policy, o.ConvAuto = Never, On
	if r, _ := New(o).Conv(req); r != request.FwdPolicy {
		t.Errorf("never: %v, want policy", r)
	}
}

// The convolution dispatch is on by default only with the shipped weights
// of a device where it was measured (convDispatchMeasured): not with a
// weights file, calibrated weights, or another device's shipped weights.
func TestConvDispatchDefault(t *testing.T) {
	for _, c := range []struct {
		source, key string
		want        bool
	}{
		{"shipped", "h200", true},
		{"shipped", "h100", false},
		{"ISAAC_CONV_WEIGHTS=/tmp/w.isw.zst", "h200", false},
		{"calibrated, /cache/h200.conv.isw.zst", "h200", false},
		{"shipped", "sm_89-unknown", false},
	} {
		if got := convDispatchDefault(c.source, c.key); got != c.want {
			t.Errorf("%s weights of %s: %v, want %v", c.source, c.key, got, c.want)
		}
	}
}

// cublasLtMatmul calls are served under always, and under auto only with
// ISAAC_LT_AUTO=1; never under never.
func TestLtAutoOption(t *testing.T) {
	t.Setenv("ISAAC_LT_AUTO", "")
	if FromEnv().LtAuto {
		t.Error("cublasLtMatmul's dispatch is on by default")
	}
	t.Setenv("ISAAC_LT_AUTO", "1")
	if !FromEnv().LtAuto {
		t.Error("ISAAC_LT_AUTO=1 ignored")
	}
	for _, c := range []struct {
		policy Policy
		auto   bool
		want   request.Reason
	}{
		{Auto, false, request.FwdPolicy}, {Auto, true, request.Served},
		{Always, false, request.Served}, {Never, true, request.FwdPolicy},
	} {
		o := Defaults()
		o.Policy, o.LtAuto = c.policy, c.auto
		if r := New(o).LtPolicy(); r != c.want {
			t.Errorf("policy %v, ISAAC_LT_AUTO %v: %v, want %v", c.policy, c.auto, r, c.want)
		}
	}
}

// A GEMM check evicts L2 before each timed sample unless
// ISAAC_CHECK_EVICT=0.
func TestCheckEvictOption(t *testing.T) {
	for v, want := range map[string]bool{"": true, "1": true, "0": false} {
		t.Setenv("ISAAC_CHECK_EVICT", v)
		if got := FromEnv().CheckEvict; got != want {
			t.Errorf("ISAAC_CHECK_EVICT=%q: CheckEvict %v, want %v", v, got, want)
		}
	}
	if !Defaults().CheckEvict {
		t.Error("the defaults do not evict")
	}
}

// ISAAC_CHECK_CANDIDATES sets how many kernels a GEMM's check times, from
// one to as many as the chooser keeps; anything else is the default.
func TestCheckCandidatesOption(t *testing.T) {
	for v, want := range map[string]int{"": gemmCandidates, "1": 1, "5": 5, "0": gemmCandidates, "6": gemmCandidates, "-2": gemmCandidates, "three": gemmCandidates} {
		t.Setenv("ISAAC_CHECK_CANDIDATES", v)
		if got := FromEnv().GemmCandidates; got != want {
			t.Errorf("ISAAC_CHECK_CANDIDATES=%q: GemmCandidates %d, want %d", v, got, want)
		}
	}
	if choiceTopK != 5 || Defaults().GemmCandidates != gemmCandidates {
		t.Errorf("the chooser keeps %d, the defaults check %d: the table above assumes 5 and %d", choiceTopK, Defaults().GemmCandidates, gemmCandidates)
	}
}

// ISAAC_CHECK_SAMPLES sets how many timed samples a side of a check takes,
// from 2 to maxCheckSamples; anything else is 0 (the rule's own,
// measureCalls).
func TestCheckSamplesOption(t *testing.T) {
	for v, want := range map[string]int{"": 0, "2": 2, "9": 9, "32": 32, "1": 0, "33": 0, "-3": 0, "nine": 0} {
		t.Setenv("ISAAC_CHECK_SAMPLES", v)
		if got := FromEnv().CheckSamples; got != want {
			t.Errorf("ISAAC_CHECK_SAMPLES=%q: CheckSamples %d, want %d", v, got, want)
		}
	}
	if Defaults().CheckSamples != 0 {
		t.Errorf("the defaults take %d samples, want 0 (measureCalls)", Defaults().CheckSamples)
	}
}

// The GEMM weights a device gets: ISAAC_WEIGHTS's file first (of the
// device's key, else an error), then the shipped ones, then those isaac-tune
// calibrate wrote for the device into the cache directory; none for a
// device with neither.
func TestLoadWeights(t *testing.T) {
	const h100, h200, h800 = "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA H800"
	dir := t.TempDir()
	shipped, err := weights.For("h100")
	if err != nil {
		t.Fatal(err)
	}
	if _, _, src, err := loadWeights("", dir, h100); err != nil || src != "shipped" {
		t.Errorf("H100: %q, %v", src, err)
	}
	if w, _, src, err := loadWeights("", dir, h200); err != nil || src != "shipped" || w.Device.Key != "h200" {
		t.Errorf("H200: %q, %v", src, err)
	}
	if _, _, _, err := loadWeights("", dir, h800); !errors.Is(err, ErrNoWeights) {
		t.Errorf("H800 without calibrated weights: %v, want no weights", err)
	}
	cal := *shipped
	cal.Device = predictor.DeviceID{Name: h800, Key: "h800", ComputeCap: "9.0", SMs: 132}
	var buf bytes.Buffer
	if err := predictor.Encode(&buf, &cal); err != nil {
		t.Fatal(err)
	}
	path := weights.CalibratedPath(dir, "h800")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	w, id, src, err := loadWeights("", dir, h800)
	if err != nil || w.Device.Key != "h800" || !strings.HasPrefix(src, "calibrated") || !strings.HasPrefix(id, "h800-") {
		t.Errorf("H800 with calibrated weights: %q %q %v", id, src, err)
	}
	if _, _, src, err := loadWeights("", dir, h200); err != nil || src != "shipped" {
		t.Errorf("H200 beside another device's calibrated weights: %q, %v", src, err)
	}
	if _, _, src, err := loadWeights("", dir, h100); err != nil || src != "shipped" {
		t.Errorf("H100 beside another device's calibrated weights: %q, %v", src, err)
	}
	if _, _, _, err := loadWeights(path, dir, h100); !errors.Is(err, ErrWeights) {
		t.Errorf("ISAAC_WEIGHTS of another device: %v, want a weights error", err)
	}
	if _, _, src, err := loadWeights(path, "", h800); err != nil || !strings.HasPrefix(src, "ISAAC_WEIGHTS=") {
		t.Errorf("ISAAC_WEIGHTS: %q, %v", src, err)
	}
}

// The convolution weights are found in the same order (ISAAC_CONV_WEIGHTS,
// shipped, calibrated in the cache directory), each kind at its own path:
// calibrated GEMM weights are not convolution weights.
func TestLoadConvWeights(t *testing.T) {
	const h100, h200, h800 = "NVIDIA H100 80GB HBM3", "NVIDIA H200", "NVIDIA H800"
	dir := t.TempDir()
	shipped, err := weights.ConvFor("h100")
	if err != nil {
		t.Fatal(err)
	}
	if w, _, src, err := loadConvWeights("", dir, h100); err != nil || src != "shipped" || w != shipped {
		t.Errorf("H100: %q, %v", src, err)
	}
	if w, _, src, err := loadConvWeights("", dir, h200); err != nil || src != "shipped" || w.Device.Key != "h200" {
		t.Errorf("H200: %q, %v", src, err)
	}
	cal := *shipped
	cal.Device = predictor.DeviceID{Name: h800, Key: "h800", ComputeCap: "9.0", SMs: 132}
	var buf bytes.Buffer
	if err := predictor.Encode(&buf, &cal); err != nil {
		t.Fatal(err)
	}
	gemmPath, convPath := weights.CalibratedPath(dir, "h800"), weights.CalibratedConvPath(dir, "h800")
	if gemmPath == convPath || filepath.Dir(gemmPath) != filepath.Dir(convPath) {
		t.Fatalf("paths %s, %s", gemmPath, convPath)
	}
	if err := os.MkdirAll(filepath.Dir(gemmPath), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(gemmPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := loadConvWeights("", dir, h800); !errors.Is(err, ErrNoWeights) {
		t.Errorf("H800 with calibrated GEMM weights only: %v, want no convolution weights", err)
	}
	if err := os.WriteFile(convPath, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	w, id, src, err := loadConvWeights("", dir, h800)
	if err != nil || w.Device.Key != "h800" || src != "calibrated, "+convPath || !strings.HasPrefix(id, "h800-") {
		t.Errorf("H800 with calibrated convolution weights: %q %q %v", id, src, err)
	}
	if _, err := ConvChooserOf(w, ptx.H100()); err != nil {
		t.Errorf("their chooser: %v", err)
	}
	if _, _, src, err := loadConvWeights("", dir, h200); err != nil || src != "shipped" {
		t.Errorf("H200 beside another device's calibrated convolution weights: %q, %v", src, err)
	}
	if _, _, src, err := loadConvWeights(convPath, "", h800); err != nil || src != "ISAAC_CONV_WEIGHTS="+convPath {
		t.Errorf("ISAAC_CONV_WEIGHTS: %q, %v", src, err)
	}
}

// ISAAC_PDL chooses how a convolution's kernel on the NHWC copies follows
// their transposes: 0 plainly, start or end as a programmatic dependent
// scheduled as they start or end; anything else is the default.
func TestDependentLaunchOption(t *testing.T) {
	d := kernels.DefaultDependentLaunch
	for v, want := range map[string]kernels.DependentLaunch{"": d, "1": d, "x": d, "0": kernels.DependentOff,
		"start": kernels.DependentAtStart, "end": kernels.DependentAtEnd} {
		t.Setenv("ISAAC_PDL", v)
		if got := FromEnv().DependentLaunch; got != want {
			t.Errorf("ISAAC_PDL=%q: DependentLaunch %v, want %v", v, got, want)
		}
	}
	if Defaults().DependentLaunch != d {
		t.Errorf("the defaults launch %v, not the default %v", Defaults().DependentLaunch, d)
	}
}
