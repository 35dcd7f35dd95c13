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
