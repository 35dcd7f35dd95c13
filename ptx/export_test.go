package ptx

// The internal tests' helpers, for the external tests of drawn_test.go.
var (
	NewRand             = newRand
	MustParse           = mustParse
	RunPTXAS            = runPTXAS
	PTXASWGMMA          = ptxasWGMMA
	ComparePipelined    = comparePipelined
	CheckLoop           = checkLoop
	WithPP              = withPP
	WithTMA             = withTMA
	CheckLdmatrixConfig = checkLdmatrixConfig
)

// needsSM90 reports whether the configuration uses sm_90-only features.
func (c GemmConfig) needsSM90() bool { return c.Math.sm90Only() || c.KC > 1 }
