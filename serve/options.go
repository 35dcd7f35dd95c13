package serve

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"github.com/isaacgo/isaac/kernels"
	"github.com/isaacgo/isaac/ptx"
)

// Policy is which calls of a served class ISAAC runs (ISAAC_POLICY).
type Policy int

// Policies.
const (
	// Auto (the default) serves a call with the fastest of the device's
	// performance model's best kernels where a check of the shape's first
	// calls measures it faster than the vendor; a call the model predicts
	// slower beyond its errors (without the check: one it does not predict
	// a win by a margin) goes to the vendor unmeasured. A device without
	// weights gets the vendor for every call.
	Auto Policy = iota
	// Always serves every call of a served class: ISAAC_CONFIG, else the
	// model's best configuration, else the generator's heuristic (tests,
	// tuning).
	Always
	// Never forwards every call once Go has decoded it (unlike
	// ISAAC_DISABLE=1, which is pure C).
	Never
)

func (p Policy) String() string {
	switch p {
	case Auto:
		return "auto"
	case Always:
		return "always"
	case Never:
		return "never"
	}
	return fmt.Sprintf("Policy(%d)", int(p))
}

// ParsePolicy reads an ISAAC_POLICY value; a forced configuration
// (ISAAC_CONFIG) implies Always unless the policy is never. Anything else
// is Auto.
func ParsePolicy(policy, forcedConfig string) Policy {
	switch policy {
	case "always":
		return Always
	case "never":
		return Never
	}
	if forcedConfig != "" {
		return Always
	}
	return Auto
}

// Options are everything a Server takes from its environment. FromEnv
// reads them, once, from these variables (ISAAC_DISABLE and ISAAC_LIBCUDA
// are read by the C side and the driver binding):
//
//	variable            field         meaning
//	ISAAC_POLICY        Policy        auto (default), always or never
//	ISAAC_CONFIG        Config        one configuration for every GEMM (ptx.GemmConfig's text); implies always
//	ISAAC_CONV_CONFIG   ConvConfig    one implicit-GEMM configuration for every ungrouped convolution, run on x as it lies (the same text); implies always
//	ISAAC_SEARCH=async  AsyncSearch   a call whose decision is not made goes to the vendor while it is made
//	ISAAC_MEASURE=0     Check=false   no check of a decision to serve on its first calls
//	ISAAC_CHECK_MARGIN  CheckMargin   the check keeps our kernel when ours × margin ≤ the vendor's (default 1; GEMM checks use at least gemmCheck's ratio, convolution checks convCheck's)
//	ISAAC_CHECK_CANDIDATES GemmCandidates  how many of the model's best kernels a GEMM's check times (1 to 5; default 3)
//	ISAAC_CHECK_SAMPLES CheckSamples  timed samples a side of every check takes after its warm-ups (2 to 32; default 3, measureCalls)
//	ISAAC_CHECK_EVICT=0 CheckEvict=false  a check times its samples as they find L2 (default: each after a read of twice the L2)
//	ISAAC_TMA=0         TMA=false     chosen wgmma configurations keep their cp.async copies
//	ISAAC_PDL           DependentLaunch  a convolution's kernel after its NHWC copies: 0, a plain launch that waits for them in the stream; start or end, a programmatic dependent scheduled once each transposes block has started or as they end (kernels.DependentLaunch); unset: kernels.DefaultDependentLaunch
//	ISAAC_WEIGHTS       Weights       a weights file instead of the ones shipped for the device
//	ISAAC_CONV_WEIGHTS  ConvWeights   a convolution weights file instead of the shipped ones, or none (no convolution model)
//	ISAAC_CONV_AUTO     ConvAuto      under auto, 1: convolutions dispatched by the convolution model, 0: cuDNN takes them (reason policy); unset: as convDispatchMeasured says for the device
//	ISAAC_CONV_REPEAT=0 ConvRepeat=false  every served convolution is launched by Go (default: a call like one served under a settled decision is launched by the shim's C from its recorded launches)
//	ISAAC_LT_AUTO=1     LtAuto        under auto, cublasLtMatmul calls dispatched like the cuBLAS GEMMs (else cuBLASLt takes them: reason policy)
//	ISAAC_CACHE_DIR     CacheDir      compiled kernels, choices and seed pools, calibrated weights (default ~/.cache/isaac)
//	ISAAC_LOG           Log           why a model cannot be used, once, on standard error
type Options struct {
	Policy        Policy
	Config        *ptx.GemmConfig // nil: choose per input
	ConfigErr     error           // ISAAC_CONFIG does not parse: no call is served
	ConvConfig    *ptx.GemmConfig // nil: the heuristic's per convolution
	ConvConfigErr error           // ISAAC_CONV_CONFIG does not parse: no convolution is served
	AsyncSearch   bool
	Check         bool
	CheckMargin   float64
	// GemmCandidates is how many of the model's best-predicted kernels a
	// GEMM's check times, each as many times as the vendor (1 to the
	// choiceTopK the chooser keeps; other values are gemmCandidates).
	GemmCandidates int
	// CheckSamples is how many timed samples each side of a check takes
	// after its warm-ups, GEMM or convolution (0: measureCalls): more
	// samples scatter the fastest less, at the price of more of the
	// shape's first calls run on the side that loses.
	CheckSamples int
	// CheckEvict empties L2 of the call's data before each timed sample
	// of a check, GEMM or convolution (evict.go), so that the check compares the two
	// sides as calls between other work run, not as back-to-back calls
	// on buffers that stay in L2. It costs a buffer of twice the L2 per
	// context, allocated on the context's first check.
	CheckEvict bool
	TMA        bool
	// DependentLaunch is how a convolution's kernel on the NHWC copies is
	// launched after the transposes that make them
	// (kernels.Runtime.SetDependentLaunch): New's runtime only.
	DependentLaunch kernels.DependentLaunch
	Weights         string
	ConvWeights     string
	// ConvAuto turns the convolution model's dispatch on or off under
	// Auto. By default (ByDevice) it is on only with the shipped weights
	// of a device where that dispatch was measured on every convolution
	// suite and served no row slower than cuDNN's fastest algorithm
	// beyond noise (convDispatchMeasured): the default must never be
	// slower than the vendor.
	ConvAuto Switch
	// ConvRepeat has the shim launch a served convolution's kernels from
	// C, without Go, for later calls like one served under a decision
	// that holds for them (Server.ConvRepeat): the call into Go, the
	// decision's lookup and the parameters' packing cost a host-bound
	// loop more than the launch itself.
	ConvRepeat bool
	// LtAuto turns the dispatch of cublasLtMatmul calls on under Auto. It
	// is off by default: a call the shim forwards costs about 2 µs of host
	// time more than cuBLASLt alone (descriptors read through cuBLASLt's
	// getters and decoded; gputest/results/h100/lt/), and on the nn.Linear
	// suite in FP16 and BF16 almost every call is forwarded.
	LtAuto   bool
	CacheDir string // "": nothing is kept on disk
	Log      bool
	// Loads is how many kernels the server's runtime compiles at once (0:
	// kernels.DefaultLoads). Not read from the environment: the tools
	// that compile thousands of configurations set it to their cores.
	Loads int
}

// Defaults are the options of an empty environment, without a disk cache.
func Defaults() Options {
	return Options{Policy: Auto, Check: true, CheckMargin: 1, GemmCandidates: gemmCandidates, CheckEvict: true, TMA: true,
		DependentLaunch: kernels.DefaultDependentLaunch, ConvRepeat: true}
}

// FromEnv reads the options from the environment (see Options).
func FromEnv() Options {
	o := Defaults()
	config, convConfig := os.Getenv("ISAAC_CONFIG"), os.Getenv("ISAAC_CONV_CONFIG")
	o.Policy = ParsePolicy(os.Getenv("ISAAC_POLICY"), config+convConfig)
	o.Config, o.ConfigErr = parseConfig("ISAAC_CONFIG", config)
	o.ConvConfig, o.ConvConfigErr = parseConfig("ISAAC_CONV_CONFIG", convConfig)
	o.AsyncSearch = os.Getenv("ISAAC_SEARCH") == "async"
	o.Check = os.Getenv("ISAAC_MEASURE") != "0"
	o.CheckMargin = parseMargin(os.Getenv("ISAAC_CHECK_MARGIN"))
	o.GemmCandidates = parseCandidates(os.Getenv("ISAAC_CHECK_CANDIDATES"))
	o.CheckSamples = parseSamples(os.Getenv("ISAAC_CHECK_SAMPLES"))
	o.CheckEvict = os.Getenv("ISAAC_CHECK_EVICT") != "0"
	o.TMA = os.Getenv("ISAAC_TMA") != "0"
	o.DependentLaunch = parseDependentLaunch(os.Getenv("ISAAC_PDL"))
	o.Weights = os.Getenv("ISAAC_WEIGHTS")
	o.ConvWeights = os.Getenv("ISAAC_CONV_WEIGHTS")
	o.ConvAuto = parseSwitch(os.Getenv("ISAAC_CONV_AUTO"))
	o.ConvRepeat = os.Getenv("ISAAC_CONV_REPEAT") != "0"
	o.LtAuto = os.Getenv("ISAAC_LT_AUTO") == "1"
	o.CacheDir = os.Getenv("ISAAC_CACHE_DIR")
	if o.CacheDir == "" {
		if d, err := os.UserCacheDir(); err == nil {
			o.CacheDir = filepath.Join(d, "isaac")
		}
	}
	v := os.Getenv("ISAAC_LOG")
	o.Log = v != "" && v != "0"
	return o
}

// A Switch is an option the environment turns on (1) or off (0), or
// leaves to the server's rule for the device (ByDevice, unset).
type Switch int8

const (
	ByDevice Switch = iota
	On
	Off
)

// parseSwitch reads a Switch: "1" is On, "0" Off, anything else ByDevice.
func parseSwitch(v string) Switch {
	switch v {
	case "1":
		return On
	case "0":
		return Off
	}
	return ByDevice
}

// parseDependentLaunch reads ISAAC_PDL: "0" is kernels.DependentOff,
// "start" DependentAtStart, "end" DependentAtEnd, anything else the default.
func parseDependentLaunch(v string) kernels.DependentLaunch {
	switch v {
	case "0":
		return kernels.DependentOff
	case "start":
		return kernels.DependentAtStart
	case "end":
		return kernels.DependentAtEnd
	}
	return kernels.DefaultDependentLaunch
}

// parseConfig reads a forced configuration (nil when the variable is unset).
func parseConfig(name, v string) (*ptx.GemmConfig, error) {
	if v == "" {
		return nil, nil
	}
	c, err := ptx.ParseConfig(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &c, nil
}

// parseMargin is ISAAC_CHECK_MARGIN: a value that does not parse, is below
// 1 or is not finite is 1. The check times calls back to back on warm
// buffers, where a memory-bound kernel whose operands stay in L2 can look
// faster than it is on a cold cache: a margin keeps close calls with the
// vendor.
func parseMargin(s string) float64 {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || !(v >= 1) || math.IsInf(v, 1) {
		return 1
	}
	return v
}

// parseSamples is ISAAC_CHECK_SAMPLES: a count from 2 to maxCheckSamples,
// anything else 0 (measureCalls).
func parseSamples(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 2 || n > maxCheckSamples {
		return 0
	}
	return n
}

// maxCheckSamples bounds ISAAC_CHECK_SAMPLES: a check of that many samples
// a side runs a few dozen of a shape's calls on the losing side.
const maxCheckSamples = 32

// parseCandidates is ISAAC_CHECK_CANDIDATES: a count from 1 to choiceTopK,
// anything else gemmCandidates.
func parseCandidates(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > choiceTopK {
		return gemmCandidates
	}
	return n
}
